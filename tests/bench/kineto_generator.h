// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace attnscope::bench {

struct GeneratedTraceStats {
    std::uint64_t bytes = 0;
    std::uint64_t events = 0; // trace event objects written, all phases
    std::uint64_t kernels = 0;
    std::int64_t kernelNs = 0; // sum of kernel durations
};

// Writes a Kineto trace shaped like libkineto's output (pretty-printed, one event over several
// lines, relative timestamps with three decimals and baseTimeNanoseconds, unsorted in file order:
// CPU side first, then GPU activity): per step a python_function, cpu_ops with Input Dims,
// cudaLaunchKernel runtime calls, kernels with full launch args, memcpys, ac2g flows, and the
// process/thread metadata. Stops after about targetBytes. Deterministic for a given seed.
GeneratedTraceStats generateKinetoTrace(std::uint64_t targetBytes, std::uint32_t seed,
                                        const std::function<void(std::string_view)>& sink);

} // namespace attnscope::bench
