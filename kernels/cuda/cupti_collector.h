// SPDX-License-Identifier: MIT
#pragma once

// Collects a CUDA run's activity with CUPTI, loaded with dlopen: kernels, copies, memsets, runtime
// and driver calls, synchronization, NVTX ranges and CUPTI's own overhead. CUPTI hands over
// buffers of a few MB; its buffer-completed callback only queues them, and a collector thread
// parses them (convertActivity), counts dropped records, flushes every 50 ms so records arrive
// while the run goes on, gives the workload's kernels their role through the external
// correlation ids the run pushes around each launch, and passes records on in batches.
#include "plugin_api.h"
#include "record_assembler.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnscope_cuda {

using attnscope::kernels::LaunchTag;

class CuptiCollector {
public:
    using Sink = std::function<void(const AttnscopeCudaRecord*, int)>;
    using Notice = std::function<void(const std::string&)>;
    using Dropped = std::function<void(std::uint64_t)>;
    using TagOf = std::function<const LaunchTag*(std::uint64_t externalId)>;

    CuptiCollector();
    ~CuptiCollector(); // stops if started

    // Loads CUPTI and enables the activity kinds; false with the reason (CUPTI missing,
    // insufficient privileges, …). Call before the run's first CUDA call so NVTX ranges reach CUPTI.
    // origin: the run's start on CUPTI's clock (now()); records are passed on relative to it.
    bool start(const attnscope::kernels::DeviceLimits& limits, std::uint64_t origin, Sink sink, Notice notice,
               Dropped dropped, TagOf tagOf, std::string& why);
    // Disables the activity kinds, flushes every buffer, and passes on what is left; the collector
    // thread ends.
    void stop();

    // CUPTI's clock, what record times are in (0 when CUPTI cannot be loaded).
    static std::uint64_t now();

    // Tags the launches made until pop() with an external correlation id.
    void push(std::uint64_t externalId);
    void pop();

    struct Impl; // public for CUPTI's buffer callbacks

private:
    std::unique_ptr<Impl> m;
};

} // namespace attnscope_cuda
