// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace attnscope {

// Per track and depth, the events in start order: the lanes a timeline draws. Events on one lane
// never overlap (TraceBuilder's depths), so their ends are in order too, and the part of a lane in
// a time window is two binary searches away. A zoomed-out frame folds each pixel's run of tiny
// events into one block by jumping over it with firstStartingFrom: the cost of a frame follows
// the pixels on screen, not the events in the trace.
class TimelineIndex {
public:
    explicit TimelineIndex(const Trace& trace);

    class Lane {
    public:
        std::size_t size() const { return m_size; }
        // The k-th event of the lane, as an index into the track's columns.
        std::uint32_t operator[](std::size_t k) const { return m_index ? m_index[k] : std::uint32_t(k); }
        TimeNs start(std::size_t k) const { return m_track->events.start[(*this)[k]]; }
        TimeNs end(std::size_t k) const { return m_track->end((*this)[k]); }
        // The first k whose event ends after t (size() when none).
        std::size_t firstEndingAfter(TimeNs t) const;
        // The first k >= from whose event starts at or after t (size() when none).
        std::size_t firstStartingFrom(std::size_t from, TimeNs t) const;

    private:
        friend class TimelineIndex;
        const Track* m_track = nullptr;
        const std::uint32_t* m_index = nullptr; // null: the lane is the whole track
        std::size_t m_size = 0;
        const TimeNs* m_samples = nullptr; // the start of every kSampleEvery-th event
    };

    // A zoomed-out frame searches a lane once per pixel; searching these few samples first keeps
    // those searches in cache instead of missing on every probe into millions of starts.
    static constexpr std::size_t kSampleEvery = 64;

    std::size_t laneCount(TrackId track) const { return m_trace->track(track).maxDepth + 1u; }
    Lane lane(TrackId track, std::uint16_t depth) const;

    // The event at time t on a lane, if one covers it (instants: within `slack` of t).
    std::optional<std::uint32_t> eventAt(TrackId track, std::uint16_t depth, TimeNs t, TimeNs slack) const;

private:
    struct TrackLanes {
        std::vector<std::uint32_t> offsets;     // per depth, into indices; depth+1 entries + 1
        std::vector<std::uint32_t> indices;     // event indices grouped by depth, in start order
        std::vector<std::size_t> sampleOffsets; // per depth, into samples
        std::vector<TimeNs> samples;
    };
    const Trace* m_trace;
    std::vector<TrackLanes> m_tracks;
};

// Events whose name contains needle, ignoring ASCII case, ordered by start time (then track).
std::vector<EventRef> findEvents(const Trace& trace, std::string_view needle);
// For each string id of the trace, 1 when the string contains needle ignoring ASCII case.
std::vector<std::uint8_t> namesContaining(const Trace& trace, std::string_view needle);

} // namespace attnscope
