// SPDX-License-Identifier: MIT
// The builder's stages that link events: flow points bound to the slices that enclose them, and
// the correlation ids that tie a launch to the GPU work it started.
#include "core/io/trace_builder_stages.h"

#include "core/io/timestamp.h"
#include "core/model/sorting.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <numeric>
#include <thread>

namespace attnscope {

namespace {

// For points sorted by time, the deepest slice on the track that contains each of them
// (start <= t <= end), found in one sweep over the track with a stack of open slices.
void bindEnclosing(const Track& track, const BigVector<std::pair<TimeNs, std::uint32_t>>& points,
                   BigVector<std::optional<std::uint32_t>>& binding) {
    const EventColumns& c = track.events;
    std::vector<std::uint32_t> open;
    std::size_t next = 0;
    for (const auto& [t, point] : points) {
        while (next < track.size() && c.start[next] <= t) {
            if (!(c.flags[next] & kInstant)) {
                while (!open.empty() && track.end(open.back()) < c.start[next])
                    open.pop_back();
                open.push_back(static_cast<std::uint32_t>(next));
            }
            ++next;
        }
        while (!open.empty() && track.end(open.back()) < t)
            open.pop_back();
        if (!open.empty()) binding[point] = open.back();
    }
}

std::optional<std::uint32_t> nextSlice(const Track& track, TimeNs t) {
    const auto& start = track.events.start;
    for (auto it = std::lower_bound(start.begin(), start.end(), t); it != start.end(); ++it) {
        const std::size_t j = std::size_t(it - start.begin());
        if (!(track.events.flags[j] & kInstant)) return std::uint32_t(j);
    }
    return std::nullopt;
}

} // namespace

// Long on purpose: three sweeps over the flow points that share their sorted arrays.
void TraceBuilder::Impl::resolveFlows() {
    Trace& t = *trace;
    struct Bound {
        std::uint64_t id;
        std::uint32_t category; // invalid for v2 points: their ids are not namespaced by category
        TimeNs time;
        std::uint32_t point; // index into flowPoints, for a stable order
        EventRef event;
    };
    // Bind every point to a slice: v2 points carry theirs, 'f' without bp "e" takes the next
    // slice, everything else the slice that encloses it.
    BigVector<std::optional<std::uint32_t>> binding(flowPoints.size());
    std::vector<BigVector<std::pair<TimeNs, std::uint32_t>>> enclosingByTrack(t.m_tracks.size());
    for (std::uint32_t pi = 0; pi < flowPoints.size(); ++pi) {
        const FlowPoint& p = flowPoints[pi];
        if (p.kind == FlowPoint::Kind::V2In || p.kind == FlowPoint::Kind::V2Out)
            binding[pi] = p.boundSeq; // already mapped to the sorted index by finish()
        else if (p.kind == FlowPoint::Kind::Finish && !p.bindEnclosing)
            binding[pi] = nextSlice(t.m_tracks[p.track.value], p.time);
        else
            enclosingByTrack[p.track.value].emplace_back(p.time, pi);
    }
    for (std::size_t ti = 0; ti < enclosingByTrack.size(); ++ti) {
        auto& points = enclosingByTrack[ti];
        if (points.empty()) continue;
        // By time, then by point (file order): a stable radix sort of points pushed in point order.
        TimeNs minTime = std::numeric_limits<TimeNs>::max();
        for (const auto& pt : points)
            minTime = std::min(minTime, pt.first);
        stableSortByKey(points, [&](const std::pair<TimeNs, std::uint32_t>& pt) {
            return std::uint64_t(pt.first) - std::uint64_t(minTime);
        });
        bindEnclosing(t.m_tracks[ti], points, binding);
    }

    BigVector<Bound> bound;
    bound.reserve(flowPoints.size());
    std::uint64_t unbound = 0;
    // The points that start a flow first, then the others: each kind's ids mostly rise through the
    // file, so the sort by id below finds a few sorted runs to merge.
    for (const bool sources : {true, false})
        for (std::uint32_t pi = 0; pi < flowPoints.size(); ++pi) {
            const FlowPoint& p = flowPoints[pi];
            if ((p.kind == FlowPoint::Kind::Start || p.kind == FlowPoint::Kind::V2Out) != sources) continue;
            if (!binding[pi]) {
                ++unbound;
                continue;
            }
            const bool v2 = p.kind == FlowPoint::Kind::V2In || p.kind == FlowPoint::Kind::V2Out;
            const Track& track = t.m_tracks[p.track.value];
            const EventRef e{p.track, *binding[pi]};
            const TimeNs time = v2 ? track.events.start[*binding[pi]] : p.time;
            bound.push_back({p.id, v2 ? StringId::kInvalid : p.category.value, time, pi, e});
        }
    // One flow's points sit together after sorting, in time order (file order on ties): a sort by
    // id, then a small sort inside each run of equal ids (usually two points).
    stableSortByKey(bound, [](const Bound& b) { return b.id; });
    for (std::size_t runStart = 0; runStart < bound.size();) {
        std::size_t runEnd = runStart + 1;
        while (runEnd < bound.size() && bound[runEnd].id == bound[runStart].id)
            ++runEnd;
        if (runEnd - runStart > 1)
            std::sort(bound.begin() + std::ptrdiff_t(runStart), bound.begin() + std::ptrdiff_t(runEnd),
                      [this](const Bound& a, const Bound& b) {
                          if (a.category != b.category) return a.category < b.category;
                          if (a.time != b.time) return a.time < b.time;
                          // File order; an event's own two points (v2: ends one flow, starts the
                          // next) in the order they were added, the end first.
                          const std::uint64_t x = flowPoints[a.point].order, y = flowPoints[b.point].order;
                          return x != y ? x < y : a.point < b.point;
                      });
        runStart = runEnd;
    }
    std::optional<std::size_t> from;
    for (std::size_t i = 0; i < bound.size(); ++i) {
        const Bound& b = bound[i];
        if (i > 0 && (bound[i - 1].category != b.category || bound[i - 1].id != b.id)) from.reset();
        const auto kind = flowPoints[b.point].kind;
        const bool isSource = kind == FlowPoint::Kind::Start || kind == FlowPoint::Kind::V2Out;
        const bool isStep = kind == FlowPoint::Kind::Step;
        if ((isStep || !isSource) && from) {
            const FlowPoint& origin = flowPoints[bound[*from].point];
            t.m_flows.push_back({bound[*from].event, b.event, origin.category});
            from.reset();
        }
        if (isSource || isStep) from = i;
    }
    t.m_flows.shrink_to_fit();
    // Endpoints without a partner are normal in Kineto traces (an ac2g flow start on a runtime call
    // that launched no GPU work) and not reported;
    // endpoints with no slice at all to bind to are.
    unboundFlowPoints = unbound;
}

void TraceBuilder::Impl::buildCorrelations() {
    Trace& t = *trace;
    // Calls f(isLaunch, correlation, event) for every launch and every piece of GPU work.
    auto forEachCorrelated = [&](auto&& f) {
        for (std::uint32_t ti = 0; ti < t.m_tracks.size(); ++ti) {
            const Track& track = t.m_tracks[ti];
            // Categories repeat; classify each distinct id once per track.
            StringId lastCat;
            int lastClass = 0; // 0 neither, 1 launch, 2 GPU work
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                const std::uint64_t corr = track.events.correlation[i];
                if (!corr) continue;
                const StringId cat = track.events.category[i];
                if (cat != lastCat) {
                    const std::string_view name = t.m_strings.get(cat);
                    lastClass = isLaunchCategory(name) ? 1 : isGpuCategory(name) ? 2 : 0;
                    lastCat = cat;
                }
                if (lastClass) f(lastClass == 1, corr, EventRef{TrackId(ti), i});
            }
        }
    };
    std::size_t launches = 0, gpuWork = 0;
    forEachCorrelated([&](bool isLaunch, std::uint64_t, EventRef) { ++(isLaunch ? launches : gpuWork); });
    BigVector<Trace::CorrelationEntry> launchList, gpuWorkList;
    launchList.reserve(launches);
    gpuWorkList.reserve(gpuWork);
    forEachCorrelated([&](bool isLaunch, std::uint64_t corr, EventRef e) {
        (isLaunch ? launchList : gpuWorkList).push_back({corr, e});
    });
    // Stable: equal correlations stay in (track, index) order, the order they were pushed in.
    auto correlationOf = [](const Trace::CorrelationEntry& e) { return e.correlation; };
    auto keep = [&](BigVector<Trace::CorrelationEntry>& list, PodArray<Trace::CorrelationEntry>& into) {
        stableSortByKey(list, correlationOf);
        into = PodArray<Trace::CorrelationEntry>(list.size());
        if (!list.empty())
            std::memcpy(static_cast<void*>(into.data()), list.data(), list.size() * sizeof list[0]);
    };
    keep(launchList, t.m_launches);
    keep(gpuWorkList, t.m_gpuWork);
}

} // namespace attnscope
