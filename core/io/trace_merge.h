// SPDX-License-Identifier: MIT
#pragma once

// Whole traces appended into one: the ranks of a job side by side (ranks.h), or the steps a profiled
// program wrote one after another (attnscope profile). Each part keeps its processes, tracks, counters,
// flows and correlation ids; a part's correlation ids move into a range of its own, so a launch never
// links to another part's GPU work.
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnscope {

class TraceBuilder;

class TraceMerger {
public:
    struct Part {
        std::string keyPrefix;  // put before each process key: "" joins processes of the same key
        std::string namePrefix; // put before each process name ("rank 1 · ")
        std::optional<std::int64_t> rank;
        std::uint64_t correlationBase = 0; // added to the part's correlation ids
        // Only the events (and counter points) that start in [first, second); flows whose two ends
        // are both kept. None: all of them.
        std::optional<std::pair<TimeNs, TimeNs>> window;
    };

    TraceMerger();
    ~TraceMerger();
    TraceMerger(const TraceMerger&) = delete;
    TraceMerger& operator=(const TraceMerger&) = delete;

    void add(const Trace& trace, const Part& part);
    TraceBuilder& builder();
    std::shared_ptr<const Trace> finish();

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

// The steps one process wrote, in order, as one trace: the process's tracks hold every step's events,
// its devices are listed once, and the trace says how many steps it joined (info().warnings carry each
// step's own). Empty input: an empty trace.
std::shared_ptr<const Trace> mergeSteps(const std::vector<std::shared_ptr<const Trace>>& steps);
// The same, with step i's correlation ids moved by correlationBases[i] (mergeSteps gives step i
// (i + 1) << 32: Kineto numbers them per profiling session).
std::shared_ptr<const Trace> mergeSteps(const std::vector<const Trace*>& steps,
                                        const std::vector<std::uint64_t>& correlationBases);

} // namespace attnscope
