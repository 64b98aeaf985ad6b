// SPDX-License-Identifier: MIT
#pragma once

// A trace that grows by whole traces appended after it — the steps a profiled program writes, one
// after another — and hands out snapshots that share what came before. A snapshot is an ordinary
// immutable Trace: its event columns are prefixes of the growing ones (PodArray::extended appends past
// every snapshot's end, never before it), its strings and args are read where the growing trace keeps
// them, and only the small tables (tracks, processes, flows, correlation links, counters) are copied.
// So the cost of a step is the step's, not that of every step so far, and two snapshots alive at once
// cost little more than one.
//
// Each snapshot is the trace mergeSteps() builds from the same steps, event for event (the same
// depths, parents, flags, correlation links and flows). A step that cannot be put after what is there
// without changing it — on some track its first event sorts before the last one there, or the CPU ops
// that stand for kernels would be chosen otherwise across the join — is merged the slow way instead (the
// whole rebuilt once), which the placement says.
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attnscope {

class TraceAppender {
public:
    TraceAppender();
    ~TraceAppender();
    TraceAppender(const TraceAppender&) = delete;
    TraceAppender& operator=(const TraceAppender&) = delete;

    // Where an appended trace's events went: for each of its tracks, the track in the whole and the
    // index its first event got there.
    struct Placement {
        std::vector<TrackId> track;
        std::vector<std::uint32_t> first;
        // The whole was rebuilt to take it: references into earlier snapshots do not carry over.
        bool rebuilt = false;
        // Its CPU ops stood for kernels (it had no GPU kernel) but the whole has GPU kernels: their marks
        // were cleared, as mergeSteps clears them (withoutOpKernels gives the part as it went in).
        bool opKernelsCleared = false;
        EventRef operator()(EventRef e) const {
            return {track[e.track.value], first[e.track.value] + e.index};
        }
    };

    // Appends a whole trace (the process's next step); correlationBase is added to its correlation ids
    // (a part's links stay within it, as mergeSteps numbers them: step i gets (i + 1) << 32).
    Placement append(const Trace& part, std::uint64_t correlationBase);
    // The trace so far (an empty trace before anything was appended).
    std::shared_ptr<const Trace> snapshot() const;
    std::size_t parts() const;

    // The trace with no CPU op standing for a kernel (kOpKernel cleared): a part as it went into a
    // whole with GPU kernels. It shares the part's columns but the flags, and keeps the part alive.
    static std::shared_ptr<const Trace> withoutOpKernels(std::shared_ptr<const Trace> trace);

private:
    // A trace reading what `from` holds (columns, strings, args), which `keepAlive` keeps.
    static std::shared_ptr<Trace> sharing(const Trace& from, std::shared_ptr<const void> keepAlive);
    struct Impl;
    std::unique_ptr<Impl> m;
};

} // namespace attnscope
