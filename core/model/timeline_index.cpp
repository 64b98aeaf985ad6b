// SPDX-License-Identifier: MIT
#include "core/model/timeline_index.h"

#include "core/model/text_match.h"

#include <algorithm>

namespace attnscope {

TimelineIndex::TimelineIndex(const Trace& trace) : m_trace(&trace), m_tracks(trace.tracks().size()) {
    for (std::size_t t = 0; t < trace.tracks().size(); ++t) {
        const Track& track = trace.tracks()[t];
        TrackLanes& lanes = m_tracks[t];
        if (track.maxDepth > 0) {
            lanes.offsets.assign(track.maxDepth + 2u, 0);
            for (std::size_t i = 0; i < track.size(); ++i)
                ++lanes.offsets[track.events.depth[i] + 1u];
            for (std::size_t d = 1; d < lanes.offsets.size(); ++d)
                lanes.offsets[d] += lanes.offsets[d - 1];
            lanes.indices.resize(track.size());
            std::vector<std::uint32_t> next(lanes.offsets.begin(), lanes.offsets.end() - 1);
            for (std::size_t i = 0; i < track.size(); ++i)
                lanes.indices[next[track.events.depth[i]]++] = std::uint32_t(i);
        }
        for (std::uint16_t d = 0; d <= track.maxDepth; ++d) {
            lanes.sampleOffsets.push_back(lanes.samples.size());
            const Lane l = lane(TrackId(std::uint32_t(t)), d);
            for (std::size_t k = 0; k < l.size(); k += kSampleEvery)
                lanes.samples.push_back(l.start(k));
        }
    }
}

TimelineIndex::Lane TimelineIndex::lane(TrackId track, std::uint16_t depth) const {
    Lane lane;
    const Track& t = m_trace->track(track);
    lane.m_track = &t;
    const TrackLanes& lanes = m_tracks[track.value];
    if (lanes.offsets.empty()) {
        lane.m_size = depth == 0 ? t.size() : 0;
    } else if (depth + 1u < lanes.offsets.size()) {
        lane.m_index = lanes.indices.data() + lanes.offsets[depth];
        lane.m_size = lanes.offsets[depth + 1u] - lanes.offsets[depth];
    }
    // While the index is being built, samples are not there yet.
    if (depth < lanes.sampleOffsets.size())
        lane.m_samples = lanes.samples.data() + lanes.sampleOffsets[depth];
    return lane;
}

std::size_t TimelineIndex::Lane::firstEndingAfter(TimeNs t) const {
    std::size_t lo = 0, hi = m_size;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (end(mid) > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

std::size_t TimelineIndex::Lane::firstStartingFrom(std::size_t from, TimeNs t) const {
    // A few steps first: when folding, the next pixel's first event is often close by.
    std::size_t lo = from;
    for (int step = 0; step < 4 && lo < m_size; ++step, ++lo)
        if (start(lo) >= t) return lo;
    if (lo >= m_size) return m_size;
    // Then the samples narrow it to one block of kSampleEvery events.
    std::size_t hi = m_size;
    if (m_samples) {
        // Galloping over the samples: the next pixel's events are usually a few blocks ahead.
        const std::size_t samples = (m_size + kSampleEvery - 1) / kSampleEvery;
        std::size_t below = lo / kSampleEvery, probe = below + 1, step = 1;
        while (probe < samples && m_samples[probe] < t) {
            below = probe;
            probe += step;
            step *= 2;
        }
        const TimeNs* found =
            std::lower_bound(m_samples + below + 1, m_samples + std::min(probe, samples), t);
        const std::size_t block = std::size_t(found - m_samples); // samples[block] >= t, if any
        hi = std::min(m_size, block * kSampleEvery);
        lo = std::max(lo, (block - 1) * kSampleEvery);
    }
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (start(mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

std::optional<std::uint32_t> TimelineIndex::eventAt(TrackId track, std::uint16_t depth, TimeNs t,
                                                    TimeNs slack) const {
    if (depth >= laneCount(track)) return std::nullopt;
    const Lane l = lane(track, depth);
    // Events from the first that ends at or after t - slack, while they start by t + slack: the
    // nearest wins, and one that covers t is at distance 0 (a near tiny neighbour never hides it).
    std::optional<std::uint32_t> best;
    TimeNs bestDistance = 0;
    // Bounded: zoomed far out, one pixel's slack can hold thousands of events.
    const std::size_t first = l.firstEndingAfter(t - slack - 1);
    for (std::size_t k = first; k < l.size() && k < first + 256 && l.start(k) <= t + slack; ++k) {
        const TimeNs distance = std::max({TimeNs(0), l.start(k) - t, t - l.end(k)});
        if (!best || distance < bestDistance) {
            best = l[k];
            bestDistance = distance;
        }
        if (distance == 0) break;
    }
    return best;
}

std::vector<std::uint8_t> namesContaining(const Trace& trace, std::string_view needle) {
    const std::string lower = asciiLower(needle);
    const StringPool& pool = trace.strings();
    std::vector<std::uint8_t> mask(pool.size(), 0);
    for (std::uint32_t id = 0; id < pool.size(); ++id)
        mask[id] = !lower.empty() && containsNoCase(pool.get(StringId(id)), lower) ? 1 : 0;
    return mask;
}

std::vector<EventRef> findEvents(const Trace& trace, std::string_view needle) {
    const std::vector<std::uint8_t> mask = namesContaining(trace, needle);
    std::vector<EventRef> out;
    if (std::find(mask.begin(), mask.end(), 1) == mask.end()) return out;
    // Each track's matches come in start order; merging the runs pairwise costs n·log(tracks),
    // where sorting ten million matches would stall the window.
    std::vector<std::size_t> runs{0};
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const EventColumns& c = trace.tracks()[t].events;
        for (std::uint32_t i = 0; i < c.name.size(); ++i)
            if (mask[c.name[i].value]) out.push_back({TrackId(t), i});
        if (out.size() != runs.back()) runs.push_back(out.size());
    }
    auto byStart = [&](const EventRef& a, const EventRef& b) {
        return trace.track(a.track).events.start[a.index] < trace.track(b.track).events.start[b.index];
    };
    while (runs.size() > 2) {
        std::vector<std::size_t> merged{0};
        for (std::size_t r = 0; r + 1 < runs.size(); r += 2) {
            const std::size_t end = r + 2 < runs.size() ? runs[r + 2] : runs[r + 1];
            if (r + 2 < runs.size())
                std::inplace_merge(out.begin() + std::ptrdiff_t(runs[r]),
                                   out.begin() + std::ptrdiff_t(runs[r + 1]),
                                   out.begin() + std::ptrdiff_t(end), byStart);
            merged.push_back(end);
        }
        runs = std::move(merged);
    }
    return out;
}

} // namespace attnscope
