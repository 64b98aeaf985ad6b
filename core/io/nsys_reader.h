// SPDX-License-Identifier: MIT
#pragma once

// Nsight Systems exports (`nsys export --type sqlite`), opened read-only: kernels (grid, block,
// registers, shared memory, device, stream), memcpy and memset (bytes and kind), CUDA runtime and
// driver calls (linked to their GPU work by correlation id), NVTX ranges and marks, thread and
// process names, GPU names from TARGET_INFO_GPU; names from StringIds; timestamps in ns.
#include "core/io/trace_loader.h"

#include <string>

namespace attnscope {

// Reads an nsys export. Throws LoadError with a clear message for a SQLite file that is not an nsys
// export, an export of a schema version AttnScope does not read, or a damaged file; LoadCancelled.
std::shared_ptr<const Trace> readNsysSqlite(const std::string& path, const LoadOptions& options = {});

} // namespace attnscope
