// SPDX-License-Identifier: MIT
#pragma once

// What the CUPTI collector does with converted records before passing them on, apart from CUPTI
// itself so it is tested without a GPU: NVTX start and end markers become one range; kernels get
// their role and cost from the tag of the launch they came from (the run pushes an external
// correlation id around each launch; CUPTI reports which correlation id carried which), and wait a
// few batches for that tag when their own record came first.
#include "cupti_records.h"

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnscope::kernels {

// What the run knows about the launches it tagged with an external correlation id.
struct LaunchTag {
    std::string impl;
    std::string role; // "" for launches that are no workload kernel (filling the inputs)
    int call = -1;
    bool warmup = false;
    std::vector<std::pair<std::string, std::string>> args; // role, cost and shape, for the kernel's args
};

struct AssembledRecord {
    GpuRecord record; // a tagged kernel's args include the tag's
    std::uint32_t thread = 0;
    const LaunchTag* tag = nullptr;
};

class RecordAssembler {
public:
    using TagOf = std::function<const LaunchTag*(std::uint64_t externalId)>;
    // Kernels wait this many batches for their external correlation record before going on untagged.
    static constexpr int kTagPatience = 10;

    explicit RecordAssembler(TagOf tagOf) : m_tagOf(std::move(tagOf)) {}

    void externalCorrelation(std::uint32_t correlation, std::uint64_t externalId);
    // A converted record; thread: the OS thread of host records (markers: their start's).
    void add(GpuRecord record, std::uint32_t thread);
    // What can be passed on now, in the order it came (kernels that waited first). final: the run
    // is over, so everything goes, tagged or not, and open ranges are dropped.
    std::vector<AssembledRecord> take(bool final);

private:
    TagOf m_tagOf;
    std::unordered_map<std::uint32_t, std::uint64_t> m_external;                         // correlation → id
    std::unordered_map<std::uint32_t, std::pair<GpuRecord, std::uint32_t>> m_openRanges; // NVTX id → start
    std::vector<std::pair<GpuRecord, int>> m_waiting; // kernels, batches waited
    std::vector<std::pair<GpuRecord, std::uint32_t>> m_batch;
};

} // namespace attnscope::kernels
