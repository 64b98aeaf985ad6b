// SPDX-License-Identifier: MIT
// The trace builder's interface: events, processes, flows and counters staged as the readers add
// them; workers' builders absorbed in file order; finish() runs the stages.
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

TraceBuilder::TraceBuilder() : m(std::make_unique<Impl>()) {}
TraceBuilder::~TraceBuilder() = default;

StringPool& TraceBuilder::strings() {
    return m->trace->m_strings;
}
TraceInfo& TraceBuilder::info() {
    return m->trace->m_info;
}
TrackId TraceBuilder::track(StringId pid, StringId tid) {
    return m->track(pid, tid);
}

TrackId TraceBuilder::globalTrack() {
    if (!m->global) {
        const StringId key = strings().intern("Global");
        m->global = m->track(key, key);
        m->tracks[m->global->value].global = true;
    }
    return *m->global;
}

std::uint32_t TraceBuilder::addSlice(TrackId track, TimeNs start, TimeNs duration, StringId name,
                                     StringId category, std::uint64_t correlation,
                                     std::string_view encodedArgs) {
    // A slice never ends past the last representable time (a file may say anything).
    if (start > 0 && duration > std::numeric_limits<TimeNs>::max() - start)
        duration = std::numeric_limits<TimeNs>::max() - start;
    m->seeTime(start, start + duration);
    return m->push(track, {start, duration, name, category, correlation, m->storeArgs(encodedArgs), 0, 0,
                           RawKind::Slice, false});
}

std::uint32_t TraceBuilder::addBegin(TrackId track, TimeNs time, StringId name, StringId category,
                                     std::string_view encodedArgs) {
    m->seeTime(time, time);
    m->tracks[track.value].hasBeginEnd = true;
    return m->push(track,
                   {time, 0, name, category, 0, m->storeArgs(encodedArgs), 0, 0, RawKind::Begin, false});
}

void TraceBuilder::addEnd(TrackId track, TimeNs time, std::string_view encodedArgs) {
    m->seeTime(time, time);
    m->tracks[track.value].hasBeginEnd = true;
    m->push(track,
            {time, 0, StringId(), StringId(), 0, m->storeArgs(encodedArgs), 0, 0, RawKind::End, false});
}

void TraceBuilder::addInstant(TrackId track, TimeNs time, StringId name, StringId category,
                              std::string_view encodedArgs) {
    m->seeTime(time, time);
    m->push(track, {time, 0, name, category, 0, m->storeArgs(encodedArgs), 0, 0, RawKind::Instant, false});
}

void TraceBuilder::addCounter(StringId pid, std::string_view name, TimeNs time, double value,
                              std::string_view unit) {
    m->seeTime(time, time);
    StagedCounter& c = m->counter(m->process(pid), name);
    if (c.unit.empty()) c.unit = unit;
    c.samples.push_back({m->order, time, value});
}

void TraceBuilder::addMemoryTotals(StringId pid, TimeNs time, int deviceType, std::int64_t deviceId,
                                   double allocated, std::optional<double> reserved) {
    auto add = [&](StringId owner, std::string_view name, double value) {
        addCounter(owner, name, time, value, "B");
        m->counter(m->process(owner), name).fromMemoryEvents = true;
    };
    if (deviceType == 0) return add(pid, "CPU memory allocated", allocated);
    if (deviceId < 0) return;
    const StringId gpu = strings().intern(std::to_string(deviceId));
    add(gpu, "GPU memory allocated", allocated);
    if (reserved) add(gpu, "GPU memory reserved", *reserved);
}

void TraceBuilder::addFlowPoint(const FlowPoint& point) {
    if (point.kind != FlowPoint::Kind::V2In && point.kind != FlowPoint::Kind::V2Out)
        m->seeTime(point.time, point.time);
    m->flowPoints.push_back(point);
    m->flowPoints.back().order = m->order;
}

void TraceBuilder::setProcessName(StringId pid, std::string_view name) {
    m->processes[m->process(pid).value].name.offer(trimmed(name), m->order);
}

void TraceBuilder::setProcessLabels(StringId pid, std::string_view labels) {
    m->processes[m->process(pid).value].labels.offer(trimmed(labels), m->order);
}

void TraceBuilder::setProcessSortIndex(StringId pid, std::int64_t index) {
    m->processes[m->process(pid).value].sortIndex.offer(index, m->order);
}

void TraceBuilder::setProcessRank(StringId pid, std::int64_t rank) {
    m->processes[m->process(pid).value].rank.offer(rank, m->order);
}

void TraceBuilder::setThreadName(StringId pid, StringId tid, std::string_view name) {
    m->tracks[m->track(pid, tid).value].name.offer(trimmed(name), m->order);
}

void TraceBuilder::setThreadSortIndex(StringId pid, StringId tid, std::int64_t index) {
    m->tracks[m->track(pid, tid).value].sortIndex.offer(index, m->order);
}

void TraceBuilder::beginChunk(std::uint32_t index) {
    m->chunkBase = std::uint64_t(index) << 32;
    m->inChunk = 0;
}

void TraceBuilder::beginEvent() {
    m->order = m->chunkBase | m->inChunk++;
}

// Long on purpose: the workers' builders merged in one pass in file order (strings, processes,
// tracks, counters, flows), which must match what a single-threaded load builds.
void TraceBuilder::absorb(const std::vector<TraceBuilder*>& others, unsigned threads) {
    Impl& a = *m;
    Trace& ta = *a.trace;
    // What each builder's ids become here, worked out in order (ids and tracks are created here).
    struct Plan {
        std::vector<StringId> strings;
        std::vector<TrackId> tracks;
        std::vector<std::uint32_t> seqOffset; // per source track: events already on the target
    };
    std::vector<Plan> plans(others.size());
    std::vector<std::uint32_t> targetSize(a.tracks.size());
    for (std::size_t t = 0; t < a.tracks.size(); ++t)
        targetSize[t] = std::uint32_t(a.tracks[t].events.size());
    for (std::size_t k = 0; k < others.size(); ++k) {
        Impl& b = *others[k]->m;
        Plan& plan = plans[k];
        const StringPool& pool = b.trace->m_strings;
        plan.strings.resize(pool.size());
        for (std::uint32_t i = 0; i < pool.size(); ++i)
            plan.strings[i] = ta.m_strings.intern(pool.get(StringId(i)));
        auto remap = [&](StringId id) { return id.valid() ? plan.strings[id.value] : id; };
        for (const StagedProcess& p : b.processes) {
            StagedProcess& dst = a.processes[a.process(remap(p.key)).value];
            dst.name.merge(p.name);
            dst.labels.merge(p.labels);
            dst.sortIndex.merge(p.sortIndex);
            dst.rank.merge(p.rank);
        }
        for (const StagedTrack& src : b.tracks) {
            const TrackId id = a.track(remap(b.processes[src.process.value].key), remap(src.tidKey));
            if (id.value >= targetSize.size()) targetSize.resize(id.value + 1, 0);
            StagedTrack& dst = a.tracks[id.value];
            if (src.global) {
                dst.global = true;
                a.global = id;
            }
            dst.name.merge(src.name);
            dst.sortIndex.merge(src.sortIndex);
            dst.gpu = dst.gpu || src.gpu;
            dst.hasBeginEnd = dst.hasBeginEnd || src.hasBeginEnd;
            plan.tracks.push_back(id);
            plan.seqOffset.push_back(targetSize[id.value]);
            targetSize[id.value] += std::uint32_t(src.events.size());
        }
    }
    // The events themselves are renumbered where they lie, one builder per thread: args keep their
    // place in memory and only the shape id at their front changes.
    parallelFor(others.size(), threads, [&](std::size_t k) {
        Impl& b = *others[k]->m;
        const Plan& plan = plans[k];
        auto remap = [&](StringId id) { return id.valid() ? plan.strings[id.value] : id; };
        for (std::size_t i = 0; i < b.tracks.size(); ++i) {
            b.tracks[i].events.forEach([&](RawEvent& e) {
                e.name = remap(e.name);
                e.category = remap(e.category);
                e.seq += plan.seqOffset[i];
                if (!e.args) return;
                char* shape = const_cast<char*>(e.args) + sizeof(std::uint32_t);
                std::uint32_t id = 0;
                std::memcpy(&id, shape, sizeof id);
                id = remap(StringId(id)).value;
                std::memcpy(shape, &id, sizeof id);
            });
        }
    });
    for (std::size_t k = 0; k < others.size(); ++k) {
        Impl& b = *others[k]->m;
        const Plan& plan = plans[k];
        auto remap = [&](StringId id) { return id.valid() ? plan.strings[id.value] : id; };
        ta.m_argsArena.adopt(std::move(b.trace->m_argsArena));
        for (std::size_t i = 0; i < b.tracks.size(); ++i)
            a.tracks[plan.tracks[i].value].events.append(std::move(b.tracks[i].events));
        for (StagedCounter& c : b.counters) {
            StagedCounter& dst = a.counter(a.process(remap(b.processes[c.process.value].key)), c.name);
            if (dst.unit.empty()) dst.unit = c.unit;
            dst.fromMemoryEvents = dst.fromMemoryEvents || c.fromMemoryEvents;
            dst.samples.insert(dst.samples.end(), c.samples.begin(), c.samples.end());
        }
        for (FlowPoint p : b.flowPoints) {
            if (p.kind == FlowPoint::Kind::V2In || p.kind == FlowPoint::Kind::V2Out)
                p.boundSeq += plan.seqOffset[p.track.value];
            p.track = plan.tracks[p.track.value];
            p.category = remap(p.category);
            if (p.id & FlowPoint::kStringFlowId)
                p.id = FlowPoint::kStringFlowId | remap(StringId(static_cast<std::uint32_t>(p.id))).value;
            a.flowPoints.push_back(p);
        }
        for (const auto& [message, w] : b.warnings) {
            auto [it, inserted] = a.warnings.try_emplace(message, w);
            if (inserted) continue;
            WarningEntry& dst = it->second;
            dst.count += w.count;
            if (w.firstOrder < dst.firstOrder) {
                dst.firstOrder = w.firstOrder;
                dst.firstOffset = w.firstOffset;
                dst.hasOffset = w.hasOffset;
            }
        }
        a.minTime = std::min(a.minTime, b.minTime);
        a.maxTime = std::max(a.maxTime, b.maxTime);
        ta.m_info.eventsRead += b.trace->m_info.eventsRead;
        others[k]->m = std::make_unique<Impl>();
    }
}

void TraceBuilder::addDevice(DeviceInfo device) {
    m->trace->m_devices.push_back(std::move(device));
}
void TraceBuilder::setDistributed(DistributedInfo info) {
    m->trace->m_distributed = std::move(info);
}

void TraceBuilder::warn(std::string_view message, std::uint64_t byteOffset) {
    m->warn(message, byteOffset);
}
void TraceBuilder::warn(std::string_view message) {
    m->warn(message, std::nullopt);
}

std::optional<TimeNs> TraceBuilder::minTime() const {
    if (m->minTime > m->maxTime) return std::nullopt;
    return m->minTime;
}

// The stages in their order, each its own method; between them what joins them (the flow points'
// sequence maps, the time offset applied once every event is in).
std::shared_ptr<const Trace> TraceBuilder::finish() {
    Impl& d = *m;
    Trace& t = *d.trace;
    d.nameProcessesAndTracks();

    d.buildCounters();
    const TimeNs traceEnd = d.maxTime;
    // Which tracks carry v2 flow points: they keep a map from arrival order to sorted position.
    std::vector<bool> needsSeqMap(d.tracks.size(), false);
    for (const FlowPoint& p : d.flowPoints)
        if (p.kind == FlowPoint::Kind::V2In || p.kind == FlowPoint::Kind::V2Out)
            needsSeqMap[p.track.value] = true;
    std::vector<std::vector<std::uint32_t>> seqMaps(d.tracks.size());

    d.describeTracks();
    // Tracks are independent: sort and lay them out on several threads, biggest first.
    std::vector<std::size_t> bySize(d.tracks.size());
    std::iota(bySize.begin(), bySize.end(), std::size_t(0));
    std::sort(bySize.begin(), bySize.end(), [&](std::size_t a, std::size_t b) {
        return d.tracks[a].events.size() > d.tracks[b].events.size();
    });
    std::vector<std::vector<std::string>> trackWarnings(d.tracks.size());
    parallelFor(bySize.size(), m_threads, [&](std::size_t k) {
        const std::size_t i = bySize[k];
        d.buildTrack(d.tracks[i], t.m_tracks[i], needsSeqMap[i] ? &seqMaps[i] : nullptr, traceEnd,
                     m_timeOffset, trackWarnings[i]);
    });
    for (const auto& list : trackWarnings)
        for (const std::string& w : list)
            d.warn(w, std::nullopt);
    for (FlowPoint& p : d.flowPoints) {
        if (p.kind != FlowPoint::Kind::V2In && p.kind != FlowPoint::Kind::V2Out) continue;
        const auto& map = seqMaps[p.track.value];
        p.boundSeq = p.boundSeq < map.size() ? map[p.boundSeq] : 0;
    }

    // Relative Kineto timestamps become absolute here, once every event is in (the tracks' starts
    // were shifted as they were laid out).
    if (m_timeOffset != 0) {
        for (CounterSeries& c : t.m_counters)
            for (TimeNs& time : c.time)
                time += m_timeOffset;
        for (FlowPoint& p : d.flowPoints)
            p.time = saturatingAdd(p.time, m_timeOffset);
    }
    if (d.minTime <= d.maxTime) {
        t.m_startNs = saturatingAdd(d.minTime, m_timeOffset);
        t.m_endNs = saturatingAdd(d.maxTime, m_timeOffset);
    }

    t.indexCategories();
    d.markOpKernels();
    // Flows and correlation links read the finished tracks and write separate tables.
    parallelFor(2, m_threads, [&](std::size_t job) {
        if (job == 0)
            d.resolveFlows();
        else
            d.buildCorrelations();
    });
    d.flowPoints.clear();
    if (d.unboundFlowPoints)
        d.warn(std::to_string(d.unboundFlowPoints) + " flow endpoints have no slice to bind to; ignored",
               std::nullopt);

    d.publishWarnings();
    t.indexCategories(); // the strings interned since, too
    std::shared_ptr<const Trace> result = std::move(d.trace);
    d.trace = std::make_shared<Trace>();
    return result;
}

// Each track's kind, name and sort index from what the file said of it.
void TraceBuilder::Impl::describeTracks() {
    Trace& t = *trace;
    t.m_tracks.resize(tracks.size());
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        StagedTrack& staged = tracks[i];
        Track& track = t.m_tracks[i];
        track.process = staged.process;
        track.tidKey = staged.tidKey;
        const ProcessInfo& process = t.m_processes[staged.process.value];
        track.kind = staged.global                   ? TrackKind::Global
                     : (staged.gpu || process.isGpu) ? TrackKind::GpuStream
                                                     : TrackKind::CpuThread;
        const std::string_view tid = t.m_strings.get(staged.tidKey);
        if (staged.name.set && !staged.name.value.empty())
            track.name = staged.name.value;
        else if (staged.global)
            track.name = "global events";
        else if (tid.empty())
            track.name = "process events";
        else if (track.kind == TrackKind::GpuStream && asInteger(tid))
            track.name = "stream " + std::string(tid);
        else if (asInteger(tid))
            track.name = "thread " + std::string(tid);
        else
            track.name = std::string(tid);
        track.sortIndex = staged.sortIndex.set
                              ? staged.sortIndex.value
                              : asInteger(tid).value_or(std::numeric_limits<std::int64_t>::max());
    }
}

// The warnings in the order they were first met, with where and how often.
void TraceBuilder::Impl::publishWarnings() {
    Trace& t = *trace;
    std::vector<std::pair<std::string, WarningEntry>> ordered(warnings.begin(), warnings.end());
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& a, const auto& b) { return a.second.firstOrder < b.second.firstOrder; });
    for (const auto& [message, w] : ordered) {
        std::string text = message;
        if (w.hasOffset) text += " (first at byte " + std::to_string(w.firstOffset) + ")";
        if (w.count > 1) text += " [" + std::to_string(w.count) + " times]";
        t.m_info.warnings.push_back(std::move(text));
    }
}

} // namespace attnscope
