// SPDX-License-Identifier: MIT
#include "core/io/trace_append.h"
#include "core/io/slice_nester.h"

#include "core/io/trace_merge.h"
#include "core/model/args_codec.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

namespace attnscope {

namespace {
// Whether the trace has GPU kernels (an accelerator's own included): then no CPU op stands for one.
bool hasDeviceKernels(const Trace& t) {
    for (const Track& track : t.tracks())
        for (std::size_t i = 0; i < track.size(); ++i)
            if (const CategoryKind k = t.categoryKind(track.events.category[i]);
                k == CategoryKind::Kernel || k == CategoryKind::DeviceEvent)
                return true;
    return false;
}
} // namespace

struct TraceAppender::Impl {
    std::shared_ptr<Trace> whole = std::make_shared<Trace>();
    std::vector<SliceNester> open; // per track of the whole: the builder's nesting, carried on
    std::unordered_map<std::uint32_t, ProcessId> processByKey;
    std::map<std::pair<std::uint32_t, std::uint32_t>, TrackId> trackByKeys; // (process, tid key)
    std::map<std::pair<std::uint32_t, std::string>, std::size_t> counterByName;
    std::set<std::int64_t> devices;
    std::set<std::string> warnings;
    bool deviceKernels = false;
    bool timed = false; // a part had events or counter points: the whole has a span
    std::size_t parts = 0;

    // Whether the part goes after the whole without changing it (the file comment says when not).
    bool fitsAfter(const Trace& part, const std::vector<StringId>& remap, bool partKernels) {
        const bool joinedKernels = deviceKernels || partKernels;
        if (joinedKernels && !deviceKernels && whole->m_info.opKernels > 0) return false;
        const bool opKernels = !joinedKernels && (whole->m_info.opKernels > 0 || part.info().opKernels > 0);
        for (const Track& t : part.tracks()) {
            if (t.size() == 0) continue;
            const auto p = processByKey.find(remap[part.process(t.process).key.value].value);
            if (p == processByKey.end()) continue;
            const auto w = trackByKeys.find({p->second.value, remap[t.tidKey.value].value});
            if (w == trackByKeys.end()) continue;
            const Track& into = whole->m_tracks[w->second.value];
            if (into.size() == 0) continue;
            const std::size_t last = into.size() - 1;
            const TimeNs lastStart = into.events.start[last], firstStart = t.events.start[0];
            // The builder's order: by start, the longer first, then as they came (the whole first).
            if (lastStart > firstStart ||
                (lastStart == firstStart && into.events.duration[last] < t.events.duration[0]))
                return false;
            if (opKernels && t.kind == TrackKind::CpuThread) {
                // No op of the whole may still be open at the part's first op: each side's choice of
                // the ops that stand for kernels would see the other's.
                std::size_t i = 0;
                while (i < t.size() && (t.events.flags[i] & kInstant))
                    ++i;
                if (i < t.size() && open[w->second.value].openAfter(t.events.start[i])) return false;
            }
        }
        return true;
    }

    ProcessId processFor(const ProcessInfo& p, const std::vector<StringId>& remap) {
        const StringId key = remap[p.key.value];
        if (auto it = processByKey.find(key.value); it != processByKey.end()) {
            ProcessInfo& have = whole->m_processes[it->second.value];
            if (p.isGpu && !have.isGpu) {
                // Its GPU work came in this part: its tracks are GPU streams now.
                have.isGpu = true;
                have.deviceIndex = p.deviceIndex;
                for (Track& t : whole->m_tracks)
                    if (t.process == it->second && t.kind == TrackKind::CpuThread)
                        t.kind = TrackKind::GpuStream;
            }
            if (have.deviceModel.empty()) have.deviceModel = p.deviceModel;
            return it->second;
        }
        ProcessInfo info = p;
        info.key = key;
        const ProcessId id{std::uint32_t(whole->m_processes.size())};
        whole->m_processes.push_back(std::move(info));
        processByKey.emplace(key.value, id);
        return id;
    }

    TrackId trackFor(const Track& t, ProcessId process, const std::vector<StringId>& remap) {
        const StringId tid = remap[t.tidKey.value];
        if (auto it = trackByKeys.find({process.value, tid.value}); it != trackByKeys.end())
            return it->second;
        Track track;
        track.process = process;
        track.tidKey = tid;
        track.name = t.name;
        track.sortIndex = t.sortIndex;
        track.kind = whole->m_processes[process.value].isGpu && t.kind == TrackKind::CpuThread
                         ? TrackKind::GpuStream
                         : t.kind;
        const TrackId id{std::uint32_t(whole->m_tracks.size())};
        whole->m_tracks.push_back(std::move(track));
        open.emplace_back();
        trackByKeys.emplace(std::make_pair(process.value, tid.value), id);
        return id;
    }

    // The part's events after the whole's on their tracks: columns extended in place, depths and
    // parents carried on from the events still open there, args re-keyed into the whole's strings.
    void appendEvents(const Trace& part, std::uint32_t ti, TrackId to, const std::vector<StringId>& remap,
                      std::uint64_t correlationBase, bool clearOpKernels) {
        const Track& t = part.tracks()[ti];
        Track& into = whole->m_tracks[to.value];
        EventColumns& c = into.events;
        const std::size_t n0 = into.size(), n = t.size();
        c.start = c.start.extended(n0 + n);
        c.duration = c.duration.extended(n0 + n);
        c.name = c.name.extended(n0 + n);
        c.category = c.category.extended(n0 + n);
        c.depth = c.depth.extended(n0 + n);
        c.parent = c.parent.extended(n0 + n);
        c.flags = c.flags.extended(n0 + n);
        c.correlation = c.correlation.extended(n0 + n);
        c.args = c.args.extended(n0 + n);
        SliceNester& nester = open[to.value];
        const EventColumns& from = t.events;
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = n0 + k;
            const TimeNs start = from.start[k], duration = from.duration[k];
            c.start[i] = start;
            c.duration[i] = duration;
            c.name[i] = remap[from.name[k].value];
            c.category[i] = remap[from.category[k].value];
            c.flags[i] = clearOpKernels ? std::uint8_t(from.flags[k] & ~kOpKernel) : from.flags[k];
            c.correlation[i] = from.correlation[k] ? from.correlation[k] + correlationBase : 0;
            c.args[i] = nullptr;
            if (from.args[k]) {
                const std::string_view blob = part.encodedArgs({TrackId{ti}, std::uint32_t(k)});
                const std::uint32_t length = std::uint32_t(blob.size());
                char* p = whole->m_argsArena.allocate(sizeof length + length);
                std::memcpy(p, &length, sizeof length);
                std::memcpy(p + sizeof length, blob.data(), length);
                if (const StringId shape = encodedArgsShape(blob);
                    shape.valid() && shape.value < remap.size()) {
                    const std::uint32_t id = remap[shape.value].value;
                    std::memcpy(p + sizeof length, &id, sizeof id);
                }
                c.args[i] = p;
            }
            const SliceNester::Placed placed = nester.place(start, duration, std::uint32_t(i));
            c.parent[i] = placed.parent;
            c.depth[i] = placed.depth;
        }
        into.maxDepth = std::max(into.maxDepth, nester.maxDepth());
        if (nester.clamped() && warnings.insert(std::string(kDepthClampedWarning)).second)
            whole->m_info.warnings.emplace_back(kDepthClampedWarning);
    }

    void appendCorrelations(const PodArray<Trace::CorrelationEntry>& from,
                            PodArray<Trace::CorrelationEntry>& into, const Placement& placed,
                            std::uint64_t correlationBase) {
        std::vector<Trace::CorrelationEntry> added;
        added.reserve(from.size());
        for (const Trace::CorrelationEntry& e : from)
            added.push_back({e.correlation + correlationBase, placed(e.event)});
        // As the builder orders them: by correlation, then by event.
        auto less = [](const Trace::CorrelationEntry& a, const Trace::CorrelationEntry& b) {
            if (a.correlation != b.correlation) return a.correlation < b.correlation;
            if (a.event.track.value != b.event.track.value) return a.event.track.value < b.event.track.value;
            return a.event.index < b.event.index;
        };
        std::sort(added.begin(), added.end(), less);
        if (added.empty()) return;
        const std::size_t n0 = into.size();
        if (n0 == 0 ||
            !less(added.front(), into[n0 - 1])) { // after the ones there: shared, extended in place
            into = into.extended(n0 + added.size());
            std::memcpy(static_cast<void*>(into.data() + n0), added.data(), added.size() * sizeof added[0]);
            return;
        }
        // Among them: all sorted into new memory (the snapshots keep reading theirs).
        std::vector<Trace::CorrelationEntry> all(into.begin(), into.end());
        all.insert(all.end(), added.begin(), added.end());
        std::sort(all.begin(), all.end(), less);
        into = PodArray<Trace::CorrelationEntry>(all.size());
        std::memcpy(static_cast<void*>(into.data()), all.data(), all.size() * sizeof all[0]);
    }

    Placement add(const Trace& part, std::uint64_t correlationBase, bool partKernels) {
        Trace& w = *whole;
        std::vector<StringId> remap(part.strings().size());
        for (std::uint32_t id = 0; id < remap.size(); ++id)
            remap[id] = w.m_strings.intern(part.str(StringId(id)));
        w.indexCategories();
        Placement placed;
        placed.track.resize(part.tracks().size());
        placed.first.resize(part.tracks().size());
        const bool clearOpKernels = deviceKernels && !partKernels;
        std::vector<ProcessId> processes;
        for (const ProcessInfo& p : part.processes())
            processes.push_back(processFor(p, remap));
        for (std::uint32_t ti = 0; ti < part.tracks().size(); ++ti) {
            const Track& t = part.tracks()[ti];
            const TrackId to = trackFor(t, processes[t.process.value], remap);
            placed.track[ti] = to;
            placed.first[ti] = std::uint32_t(w.m_tracks[to.value].size());
            if (t.size()) appendEvents(part, ti, to, remap, correlationBase, clearOpKernels);
        }
        deviceKernels = deviceKernels || partKernels;
        if (!deviceKernels) w.m_info.opKernels += part.info().opKernels;
        for (const Flow& f : part.flows())
            w.m_flows.push_back({placed(f.from), placed(f.to), remap[f.category.value]});
        appendCorrelations(part.m_launches, w.m_launches, placed, correlationBase);
        appendCorrelations(part.m_gpuWork, w.m_gpuWork, placed, correlationBase);
        for (const CounterSeries& series : part.counters()) {
            const ProcessId process = processes[series.process.value];
            auto [it, isNew] = counterByName.try_emplace({process.value, series.name}, w.m_counters.size());
            if (isNew) {
                CounterSeries s = series;
                s.process = process;
                w.m_counters.push_back(std::move(s));
                continue;
            }
            CounterSeries& into = w.m_counters[it->second];
            const bool inOrder =
                into.time.empty() || series.time.empty() || into.time.back() <= series.time.front();
            into.time.insert(into.time.end(), series.time.begin(), series.time.end());
            into.value.insert(into.value.end(), series.value.begin(), series.value.end());
            if (!inOrder) {
                std::vector<std::pair<TimeNs, double>> points;
                for (std::size_t i = 0; i < into.time.size(); ++i)
                    points.emplace_back(into.time[i], into.value[i]);
                std::stable_sort(points.begin(), points.end(),
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
                for (std::size_t i = 0; i < points.size(); ++i)
                    std::tie(into.time[i], into.value[i]) = points[i];
            }
        }
        for (const DeviceInfo& d : part.devices())
            if (devices.insert(d.id).second) w.m_devices.push_back(d);
        TraceInfo& info = w.m_info;
        if (parts == 0) {
            info.format = part.info().format;
            info.path = part.info().path;
            info.schemaVersion = part.info().schemaVersion;
            info.displayTimeUnit = part.info().displayTimeUnit;
            info.baseTimeNs = part.info().baseTimeNs;
        }
        if (!part.info().hostName.empty()) info.hostName = part.info().hostName;
        info.eventsRead += part.info().eventsRead;
        info.bytesRead += part.info().bytesRead;
        for (const std::string& warning : part.info().warnings)
            if (warnings.insert(warning).second) info.warnings.push_back(warning);
        if (part.distributed().rank || part.distributed().worldSize) w.m_distributed = part.distributed();
        if (part.eventCount() > 0 || !part.counters().empty()) {
            w.m_startNs = timed ? std::min(w.m_startNs, part.startNs()) : part.startNs();
            w.m_endNs = timed ? std::max(w.m_endNs, part.endNs()) : part.endNs();
            timed = true;
        }
        ++parts;
        return placed;
    }
};

TraceAppender::TraceAppender() : m(std::make_unique<Impl>()) {}
TraceAppender::~TraceAppender() = default;

std::size_t TraceAppender::parts() const {
    return m->parts;
}

TraceAppender::Placement TraceAppender::append(const Trace& part, std::uint64_t correlationBase) {
    std::vector<StringId> remap(part.strings().size());
    for (std::uint32_t id = 0; id < remap.size(); ++id)
        remap[id] = m->whole->m_strings.find(part.str(StringId(id)));
    const bool partKernels = hasDeviceKernels(part);
    if (m->parts == 0 || m->fitsAfter(part, remap, partKernels)) {
        const bool clears = m->deviceKernels && !partKernels && part.info().opKernels > 0;
        Placement placed = m->add(part, correlationBase, partKernels);
        placed.opKernelsCleared = clears;
        return placed;
    }
    // The slow way: the whole and the part merged by the trace builder, then taken as a first part.
    const std::shared_ptr<const Trace> before = snapshot();
    const std::shared_ptr<const Trace> merged = mergeSteps({before.get(), &part}, {0, correlationBase});
    const std::size_t parts = m->parts + 1;
    m = std::make_unique<Impl>();
    m->add(*merged, 0, hasDeviceKernels(*merged));
    m->parts = parts;
    Placement placed;
    placed.rebuilt = true;
    return placed;
}

std::shared_ptr<Trace> TraceAppender::sharing(const Trace& w, std::shared_ptr<const void> keepAlive) {
    auto t = std::make_shared<Trace>();
    t->m_strings = StringPool(w.m_strings, StringPool::Borrowed{});
    t->m_categoryKinds = w.m_categoryKinds;
    t->m_processes = w.m_processes;
    t->m_tracks = w.m_tracks;
    t->m_counters = w.m_counters;
    t->m_flows = w.m_flows;
    t->m_devices = w.m_devices;
    t->m_distributed = w.m_distributed;
    t->m_info = w.m_info;
    t->m_startNs = w.m_startNs;
    t->m_endNs = w.m_endNs;
    t->m_launches = w.m_launches;
    t->m_gpuWork = w.m_gpuWork;
    t->m_storage = std::move(keepAlive);
    t->m_storageBytes = w.m_argsArena.bytesReserved() + w.m_storageBytes;
    return t;
}

std::shared_ptr<const Trace> TraceAppender::snapshot() const {
    return sharing(*m->whole, m->whole);
}

std::shared_ptr<const Trace> TraceAppender::withoutOpKernels(std::shared_ptr<const Trace> trace) {
    if (trace->info().opKernels == 0) return trace;
    const Trace& from = *trace;
    std::shared_ptr<Trace> t = sharing(from, trace);
    t->m_info.opKernels = 0;
    for (Track& track : t->m_tracks) {
        PodArray<std::uint8_t> flags(track.size());
        for (std::size_t i = 0; i < track.size(); ++i)
            flags[i] = std::uint8_t(track.events.flags[i] & ~kOpKernel);
        track.events.flags = std::move(flags);
    }
    return t;
}

} // namespace attnscope
