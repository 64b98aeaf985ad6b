// SPDX-License-Identifier: MIT
#include "core/io/trace_builder.h"

#include "core/io/timestamp.h"

#include "core/model/radix_sort.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <numeric>
#include <thread>

namespace attnscope {

namespace {

enum class RawKind : std::uint8_t { Slice, Instant, Begin, End };

struct RawEvent {
    TimeNs start;
    TimeNs duration;
    StringId name;
    StringId category;
    std::uint64_t correlation;
    const char* args;
    std::uint64_t order; // file order: chunk index << 32 | event index in the chunk
    std::uint32_t seq;   // arrival index on its track
    RawKind kind;
    bool unfinished;
};

// Staging storage that never moves what it holds: blocks grow from small to 64 Ki events, so a
// track with three events costs little and a track with millions never copies.
class RawEventList {
public:
    void push(const RawEvent& e) {
        if (m_blocks.empty() || m_used.back() == m_blocks.back().size()) {
            const std::size_t next =
                m_blocks.empty() ? 64 : std::min<std::size_t>(m_blocks.back().size() * 2, 65536);
            m_blocks.emplace_back(next);
            m_used.push_back(0);
        }
        m_blocks.back()[m_used.back()++] = e;
        ++m_count;
    }
    std::size_t size() const { return m_count; }
    template <class F> void forEach(F&& f) {
        for (std::size_t b = 0; b < m_blocks.size(); ++b)
            for (std::size_t i = 0; i < m_used[b]; ++i)
                f(m_blocks[b][i]);
    }
    // Takes other's blocks as they are (merging builders moves events, it does not copy them).
    void append(RawEventList&& other) {
        for (std::size_t b = 0; b < other.m_blocks.size(); ++b) {
            m_blocks.push_back(std::move(other.m_blocks[b]));
            m_used.push_back(other.m_used[b]);
        }
        m_count += other.m_count;
        other.clear();
    }
    void clear() {
        m_blocks.clear();
        m_blocks.shrink_to_fit();
        m_used.clear();
        m_count = 0;
    }

private:
    std::vector<PodArray<RawEvent>> m_blocks;
    std::vector<std::size_t> m_used; // events in each block
    std::size_t m_count = 0;
};

// Metadata can repeat (the same thread_name twice, with different values in broken files); the
// one latest in the file wins, whichever thread read it.
template <class T> struct Latest {
    T value{};
    std::uint64_t order = 0;
    bool set = false;
    void offer(T v, std::uint64_t o) {
        if (set && o < order) return;
        value = std::move(v);
        order = o;
        set = true;
    }
    void merge(const Latest& other) {
        if (other.set) offer(other.value, other.order);
    }
};

struct StagedTrack {
    ProcessId process;
    StringId tidKey;
    Latest<std::string> name;
    Latest<std::int64_t> sortIndex;
    bool global = false;
    bool gpu = false;
    bool hasBeginEnd = false;
    RawEventList events;
};

struct StagedProcess {
    StringId key;
    Latest<std::string> name;
    Latest<std::string> labels;
    Latest<std::int64_t> sortIndex;
    Latest<std::int64_t> rank;
};

struct CounterSample {
    std::uint64_t order;
    TimeNs time;
    double value;
};

struct StagedCounter {
    ProcessId process;
    std::string name;
    std::vector<CounterSample> samples;
};

struct PairHash {
    std::size_t operator()(std::pair<std::uint32_t, std::uint32_t> p) const noexcept {
        return (std::uint64_t(p.first) << 32 | p.second) * 0x9E3779B97F4A7C15ull >> 7;
    }
};

struct WarningEntry {
    std::uint64_t firstOrder = 0; // where in the file it was first seen
    std::uint64_t firstOffset = 0;
    bool hasOffset = false;
    std::uint64_t count = 0;
};

std::string trimmed(std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    return std::string(s);
}

std::optional<std::int64_t> asInteger(std::string_view s) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

// Runs f(0) … f(count - 1) on up to `threads` threads (the caller's included).
template <class F> void parallelFor(std::size_t count, unsigned threads, F&& f) {
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < count; i = next++)
            f(i);
    };
    std::vector<std::thread> helpers;
    for (unsigned k = 1; k < threads && k < count; ++k)
        helpers.emplace_back(work);
    work();
    for (std::thread& h : helpers)
        h.join();
}

} // namespace

struct TraceBuilder::Impl {
    std::shared_ptr<Trace> trace = std::make_shared<Trace>();
    std::vector<StagedProcess> processes;
    std::unordered_map<std::uint32_t, std::uint32_t> processByPid;
    std::vector<StagedTrack> tracks;
    std::unordered_map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t, PairHash> trackByKey;
    std::uint32_t lastPid = StringId::kInvalid, lastTid = StringId::kInvalid, lastTrack = 0;
    std::optional<TrackId> global;
    std::map<std::pair<std::uint32_t, std::string>, std::size_t> counterIndex;
    std::vector<StagedCounter> counters;
    BigVector<FlowPoint> flowPoints;
    std::map<std::string, WarningEntry, std::less<>> warnings;
    TimeNs minTime = std::numeric_limits<TimeNs>::max();
    TimeNs maxTime = std::numeric_limits<TimeNs>::min();
    std::uint64_t chunkBase = 0;
    std::uint32_t inChunk = 0;
    std::uint64_t order = 0; // of the event being added
    std::uint64_t unboundFlowPoints = 0;

    void warn(std::string_view message, std::optional<std::uint64_t> offset) {
        auto it = warnings.find(message);
        if (it == warnings.end())
            it = warnings
                     .emplace(std::string(message),
                              WarningEntry{order, offset.value_or(0), offset.has_value(), 0})
                     .first;
        ++it->second.count;
    }

    StagedCounter& counter(ProcessId process, std::string_view name) {
        auto [it, inserted] = counterIndex.try_emplace({process.value, std::string(name)}, counters.size());
        if (inserted) counters.push_back({process, std::string(name), {}});
        return counters[it->second];
    }

    void seeTime(TimeNs a, TimeNs b) {
        minTime = std::min(minTime, a);
        maxTime = std::max(maxTime, b);
    }

    ProcessId process(StringId pid) {
        auto [it, inserted] = processByPid.try_emplace(pid.value, std::uint32_t(processes.size()));
        if (inserted) {
            StagedProcess p;
            p.key = pid;
            processes.push_back(std::move(p));
        }
        return ProcessId(it->second);
    }

    TrackId track(StringId pid, StringId tid) {
        if (pid.value == lastPid && tid.value == lastTid) return TrackId(lastTrack);
        auto [it, inserted] = trackByKey.try_emplace({pid.value, tid.value}, std::uint32_t(tracks.size()));
        if (inserted) {
            StagedTrack t;
            t.process = process(pid);
            t.tidKey = tid;
            tracks.push_back(std::move(t));
        }
        lastPid = pid.value;
        lastTid = tid.value;
        lastTrack = it->second;
        return TrackId(it->second);
    }

    const char* storeArgs(std::string_view args) {
        if (args.empty()) return nullptr;
        const auto len = static_cast<std::uint32_t>(args.size());
        char* p = trace->m_argsArena.allocate(sizeof(len) + args.size());
        std::memcpy(p, &len, sizeof(len));
        std::memcpy(p + sizeof(len), args.data(), args.size());
        return p;
    }

    std::uint32_t push(TrackId t, RawEvent e) {
        StagedTrack& track = tracks[t.value];
        e.order = order;
        e.seq = static_cast<std::uint32_t>(track.events.size());
        if (!track.gpu && isGpuCategory(trace->m_strings.get(e.category))) track.gpu = true;
        track.events.push(e);
        return e.seq;
    }

    // Safe to run for several tracks at once: warnings go to the caller's list, not the builder.
    void buildTrack(StagedTrack& staged, Track& out, std::vector<std::uint32_t>* seqToIndex, TimeNs traceEnd,
                    TimeNs timeOffset, std::vector<std::string>& warningsOut);
    void resolveFlows();
    void buildCorrelations();
    void nameProcessesAndTracks();
    // After the processes are named; gpuWork: by process, whether its tracks carry GPU work.
    void nameDeviceModels(const std::vector<bool>& gpuWork);
    void buildCounters();
};

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

void TraceBuilder::addCounter(StringId pid, std::string_view name, TimeNs time, double value) {
    m->seeTime(time, time);
    m->counter(m->process(pid), name).samples.push_back({m->order, time, value});
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

void TraceBuilder::Impl::buildTrack(StagedTrack& staged, Track& out, std::vector<std::uint32_t>* seqToIndex,
                                    TimeNs traceEnd, TimeNs timeOffset,
                                    std::vector<std::string>& warningsOut) {
    BigVector<RawEvent> events;
    events.reserve(staged.events.size());
    staged.events.forEach([&](const RawEvent& e) { events.push_back(e); });
    staged.events.clear();

    if (staged.hasBeginEnd) {
        // B/E pair up in time order on their track; file order breaks ties.
        std::vector<RawEvent> marks;
        std::erase_if(events, [&](const RawEvent& e) {
            if (e.kind != RawKind::Begin && e.kind != RawKind::End) return false;
            marks.push_back(e);
            return true;
        });
        std::sort(marks.begin(), marks.end(), [](const RawEvent& a, const RawEvent& b) {
            return a.start != b.start ? a.start < b.start : a.order < b.order;
        });
        std::vector<RawEvent> open;
        for (const RawEvent& e : marks) {
            if (e.kind == RawKind::Begin) {
                open.push_back(e);
            } else if (open.empty()) {
                warningsOut.emplace_back("an E event has no matching B event; ignored");
            } else {
                RawEvent slice = open.back();
                open.pop_back();
                slice.duration = e.start - slice.start;
                slice.kind = RawKind::Slice;
                if (!slice.args) slice.args = e.args;
                events.push_back(slice);
            }
        }
        for (RawEvent slice : open) {
            warningsOut.emplace_back(
                "a B event has no matching E event; it is shown as lasting to the end of the trace");
            slice.duration = std::max<TimeNs>(0, traceEnd - slice.start);
            slice.kind = RawKind::Slice;
            slice.unfinished = true;
            events.push_back(slice);
        }
    }

    const std::size_t n = events.size();
    BigVector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    auto before = [&](std::uint32_t a, std::uint32_t b) {
        const RawEvent& x = events[a];
        const RawEvent& y = events[b];
        if (x.start != y.start) return x.start < y.start;
        if (x.duration != y.duration) return x.duration > y.duration; // the enclosing slice first
        return x.order < y.order;
    };
    if (!std::is_sorted(order.begin(), order.end(), before)) {
        // Linear in the number of events: radix by start, then the rare runs of equal starts.
        struct Key {
            std::uint64_t start;
            std::uint32_t index;
        };
        TimeNs minStart = std::numeric_limits<TimeNs>::max();
        for (const RawEvent& e : events)
            minStart = std::min(minStart, e.start);
        BigVector<Key> keys(n);
        for (std::uint32_t i = 0; i < n; ++i)
            keys[i] = {std::uint64_t(events[i].start) - std::uint64_t(minStart), i};
        radixSortByKey(keys, [](const Key& k) { return k.start; });
        for (std::size_t i = 0; i < n; ++i)
            order[i] = keys[i].index;
        for (std::size_t runStart = 0; runStart < n;) {
            std::size_t runEnd = runStart + 1;
            while (runEnd < n && keys[runEnd].start == keys[runStart].start)
                ++runEnd;
            if (runEnd - runStart > 1)
                std::sort(order.begin() + std::ptrdiff_t(runStart), order.begin() + std::ptrdiff_t(runEnd),
                          before);
            runStart = runEnd;
        }
    }

    EventColumns& c = out.events;
    c.start = PodArray<TimeNs>(n);
    c.duration = PodArray<TimeNs>(n);
    c.name = PodArray<StringId>(n);
    c.category = PodArray<StringId>(n);
    c.depth = PodArray<std::uint16_t>(n);
    c.flags = PodArray<std::uint8_t>(n);
    c.correlation = PodArray<std::uint64_t>(n);
    c.args = PodArray<const char*>(n);
    if (seqToIndex) seqToIndex->assign(n, 0);

    // Depth: a stack of open ends; partial overlaps go one level deeper instead of being lost.
    std::vector<TimeNs> openEnds;
    std::uint16_t maxDepth = 0;
    bool depthClamped = false;
    for (std::size_t i = 0; i < n; ++i) {
        const RawEvent& e = events[order[i]];
        c.start[i] = saturatingAdd(e.start, timeOffset);
        c.duration[i] = c.start[i] > 0 ? std::min(e.duration, std::numeric_limits<TimeNs>::max() - c.start[i])
                                       : e.duration;
        c.name[i] = e.name;
        c.category[i] = e.category;
        c.correlation[i] = e.correlation;
        c.args[i] = e.args;
        std::uint8_t flags = 0;
        if (e.kind == RawKind::Instant) flags |= kInstant;
        if (e.unfinished) flags |= kUnfinished;
        c.flags[i] = flags;
        if (seqToIndex && e.seq < n) (*seqToIndex)[e.seq] = std::uint32_t(i);

        while (!openEnds.empty() && openEnds.back() <= e.start)
            openEnds.pop_back();
        std::size_t depth = openEnds.size();
        if (depth > 0xffff) {
            depth = 0xffff;
            depthClamped = true;
        }
        c.depth[i] = static_cast<std::uint16_t>(depth);
        maxDepth = std::max<std::uint16_t>(maxDepth, static_cast<std::uint16_t>(depth));
        if (openEnds.size() <= 0xffff) openEnds.push_back(e.start + e.duration);
    }
    if (depthClamped)
        warningsOut.emplace_back("more than 65535 events overlap on one track; the deepest share one level");
    out.maxDepth = maxDepth;
}

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
        radixSortByKey(points, [&](const std::pair<TimeNs, std::uint32_t>& pt) {
            return std::uint64_t(pt.first) - std::uint64_t(minTime);
        });
        bindEnclosing(t.m_tracks[ti], points, binding);
    }

    BigVector<Bound> bound;
    bound.reserve(flowPoints.size());
    std::uint64_t unbound = 0;
    for (std::uint32_t pi = 0; pi < flowPoints.size(); ++pi) {
        const FlowPoint& p = flowPoints[pi];
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
    // One flow's points sit together after sorting, in time order (file order on ties): a linear
    // sort by id, then a small sort inside each run of equal ids (usually two points).
    radixSortByKey(bound, [](const Bound& b) { return b.id; });
    for (std::size_t runStart = 0; runStart < bound.size();) {
        std::size_t runEnd = runStart + 1;
        while (runEnd < bound.size() && bound[runEnd].id == bound[runStart].id)
            ++runEnd;
        if (runEnd - runStart > 1)
            std::sort(bound.begin() + std::ptrdiff_t(runStart), bound.begin() + std::ptrdiff_t(runEnd),
                      [this](const Bound& a, const Bound& b) {
                          if (a.category != b.category) return a.category < b.category;
                          if (a.time != b.time) return a.time < b.time;
                          return flowPoints[a.point].order < flowPoints[b.point].order;
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
    t.m_launches.reserve(launches);
    t.m_gpuWork.reserve(gpuWork);
    forEachCorrelated([&](bool isLaunch, std::uint64_t corr, EventRef e) {
        (isLaunch ? t.m_launches : t.m_gpuWork).push_back({corr, e});
    });
    // Stable: equal correlations stay in (track, index) order, the order they were pushed in.
    auto correlationOf = [](const Trace::CorrelationEntry& e) { return e.correlation; };
    radixSortByKey(t.m_launches, correlationOf);
    radixSortByKey(t.m_gpuWork, correlationOf);
}

void TraceBuilder::Impl::nameProcessesAndTracks() {
    Trace& t = *trace;
    std::vector<bool> gpuWork(processes.size(), false);
    for (const StagedTrack& track : tracks)
        if (track.gpu) gpuWork[track.process.value] = true;
    for (std::size_t i = 0; i < processes.size(); ++i) {
        const StagedProcess& p = processes[i];
        ProcessInfo info;
        info.key = p.key;
        info.labels = p.labels.value;
        const std::string_view key = t.m_strings.get(p.key);
        // A process is a GPU when its label says so or when its tracks carry GPU work.
        info.isGpu = gpuWork[i] || info.labels.rfind("GPU", 0) == 0;
        if (info.isGpu) {
            if (auto index = asInteger(key))
                info.deviceIndex = *index;
            else if (info.labels.size() > 4)
                info.deviceIndex = asInteger(std::string_view(info.labels).substr(4)).value_or(-1);
        }
        if (p.name.set)
            info.name = p.name.value;
        else if (key.empty())
            info.name = "(no process)";
        else if (info.isGpu && info.deviceIndex >= 0)
            info.name = "GPU " + std::to_string(info.deviceIndex);
        else
            info.name = asInteger(key) ? "process " + std::string(key) : std::string(key);
        info.sortIndex = p.sortIndex.set ? p.sortIndex.value
                                         : asInteger(key).value_or(std::numeric_limits<std::int64_t>::max());
        info.rank = p.rank.set ? p.rank.value : -1;
        t.m_processes.push_back(std::move(info));
    }
    nameDeviceModels(gpuWork);
}

void TraceBuilder::Impl::nameDeviceModels(const std::vector<bool>& gpuWork) {
    Trace& t = *trace;
    // A trace from a process that saw its GPUs renumbered (HIP/CUDA_VISIBLE_DEVICES) lists device 0
    // while its kernels run on "device 2": with one model listed, that model is the GPU's.
    std::string oneModel, listedIds;
    bool several = false;
    for (const DeviceInfo& d : t.m_devices) {
        if (d.name.empty()) continue;
        if (!oneModel.empty() && d.name != oneModel) several = true;
        oneModel = d.name;
        listedIds += (listedIds.empty() ? "" : ", ") + std::to_string(d.id);
    }
    std::string unmatched;
    for (std::size_t i = 0; i < t.m_processes.size(); ++i) {
        ProcessInfo& p = t.m_processes[i];
        if (!p.isGpu || p.deviceIndex < 0) continue;
        auto listed = std::find_if(t.m_devices.begin(), t.m_devices.end(), [&](const DeviceInfo& d) {
            return d.id == p.deviceIndex && !d.name.empty();
        });
        if (listed != t.m_devices.end()) {
            p.deviceModel = listed->name;
        } else if (!oneModel.empty() && gpuWork[i]) {
            // Only a GPU that ran something is named after a guess (Kineto labels every GPU it saw).
            unmatched += (unmatched.empty() ? "" : ", ") + std::to_string(p.deviceIndex);
            if (!several) p.deviceModel = oneModel;
        }
    }
    if (unmatched.empty()) return;
    warn("kernels run on GPU " + unmatched + " but the trace lists properties only for device " + listedIds +
             (several ? "; the models differ, so no model is assumed"
                      : "; taken as " + oneModel + ", the only model it lists"),
         std::nullopt);
}

void TraceBuilder::Impl::buildCounters() {
    // Samples in time order; file order among equal times.
    for (StagedCounter& c : counters) {
        std::sort(c.samples.begin(), c.samples.end(), [](const CounterSample& a, const CounterSample& b) {
            return a.time != b.time ? a.time < b.time : a.order < b.order;
        });
        CounterSeries series;
        series.process = c.process;
        series.name = std::move(c.name);
        series.time.reserve(c.samples.size());
        series.value.reserve(c.samples.size());
        for (const CounterSample& sample : c.samples) {
            series.time.push_back(sample.time);
            series.value.push_back(sample.value);
        }
        trace->m_counters.push_back(std::move(series));
    }
    counters.clear();
}

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

    t.m_tracks.resize(d.tracks.size());
    for (std::size_t i = 0; i < d.tracks.size(); ++i) {
        StagedTrack& staged = d.tracks[i];
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

    std::vector<std::pair<std::string, WarningEntry>> warnings(d.warnings.begin(), d.warnings.end());
    std::stable_sort(warnings.begin(), warnings.end(),
                     [](const auto& a, const auto& b) { return a.second.firstOrder < b.second.firstOrder; });
    for (const auto& [message, w] : warnings) {
        std::string text = message;
        if (w.hasOffset) text += " (first at byte " + std::to_string(w.firstOffset) + ")";
        if (w.count > 1) text += " [" + std::to_string(w.count) + " times]";
        t.m_info.warnings.push_back(std::move(text));
    }
    std::shared_ptr<const Trace> result = std::move(d.trace);
    d.trace = std::make_shared<Trace>();
    return result;
}

} // namespace attnscope
