// SPDX-License-Identifier: MIT
#pragma once

#include "core/io/byte_source.h"
#include "core/io/load_error.h"
#include "core/model/trace.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace attnscope {

struct LoadOptions {
    // Called now and then with bytes of the file consumed so far and the file size (0 if unknown).
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    // Checked between chunks; when it becomes true the load stops with LoadCancelled.
    const std::atomic<bool>* cancel = nullptr;
    // Threads that parse events: 0 picks one per core (traces over ~16 MB); 1 parses everything on
    // the calling thread.
    unsigned threads = 0;
    // Bytes read at a time, which is also about the size of the chunks parsed at once.
    std::size_t readBytes = 4u << 20;
};

// Reads Kineto / Chrome trace JSON from a stream. Throws LoadError (with the byte offset of the
// uncompressed JSON) or LoadCancelled. Problems that do not stop the load become warnings.
std::shared_ptr<const Trace> readJsonTrace(ByteSource& source, const std::string& path,
                                           const LoadOptions& options = {});

// Memory and swap the kernel says are available now (/proc/meminfo), or 0 when unknown.
std::uint64_t availableMemoryBytes();

// Opens a trace file of any supported format (plain or gzipped JSON, nsys SQLite). A JSON file too
// big for the memory available is refused before it is read (gzip: once its first 64 MB expanded).
std::shared_ptr<const Trace> loadTraceFile(const std::string& path, const LoadOptions& options = {});
// The same over bytes in memory (embedded samples, pasted traces); name is the one messages use. An
// Nsight Systems export is read from its file only: it is refused here with why.
std::shared_ptr<const Trace> loadTraceBytes(std::string_view bytes, const std::string& name,
                                            const LoadOptions& options = {});

} // namespace attnscope
