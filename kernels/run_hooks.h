// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnscope::kernels {

struct RunEvent;

// What a backend reports back to its run session while the run goes on (called from the run's
// thread, and for CUDA from the collector's too).
struct RunHooks {
    std::function<void(std::vector<RunEvent>&&)> events;
    std::function<void(const std::string&)> notice;
    std::function<void(std::uint64_t)> dropped; // records the collector dropped so far
    std::function<bool()> stopRequested;
    std::function<void(const std::string&)> device; // the device the run found ("NVIDIA H200", "CPU")
    // An implementation that cannot run there, and why (the others still run).
    std::function<void(const std::string& impl, const std::string& reason)> unavailable;
};

} // namespace attnscope::kernels
