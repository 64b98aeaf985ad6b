// SPDX-License-Identifier: MIT
#pragma once

// The trace builder's staging area, shared by its stages: events as they arrive (per track, in file
// order), processes, counters and flow points; then, at finish(), the stages that make the Trace:
// tracks sorted and nested (trace_builder_tracks.cpp), flows bound and correlation links built
// (trace_builder_links.cpp), processes and tracks named. Internal to core/io.
#include "core/io/trace_builder.h"
#include "core/model/block_arena.h"
#include "core/model/block_vector.h"
#include "core/model/parallel_for.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace attnscope {

namespace build {

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
    // Whether the events are in order under less (each not less than the one before).
    template <class Less> bool sortedBy(Less less) const {
        const RawEvent* last = nullptr;
        for (std::size_t b = 0; b < m_blocks.size(); ++b)
            for (std::size_t i = 0; i < m_used[b]; ++i) {
                if (last && less(m_blocks[b][i], *last)) return false;
                last = &m_blocks[b][i];
            }
        return true;
    }
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
    std::string unit;
    std::vector<CounterSample> samples;
    bool fromMemoryEvents = false;
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

inline std::string trimmed(std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    return std::string(s);
}

inline std::optional<std::int64_t> asInteger(std::string_view s) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

} // namespace build

using namespace build;

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
    BlockVector<FlowPoint> flowPoints;
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
        if (inserted) counters.push_back({process, std::string(name), {}, {}, false});
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
    void describeTracks();
    void publishWarnings();
    // A trace without GPU kernels: flags the aten:: ops that did the work as its kernels (kOpKernel).
    void markOpKernels();
    // After the processes are named; gpuWork: by process, whether its tracks carry GPU work.
    void nameDeviceModels(const std::vector<bool>& gpuWork);
    void buildCounters();
};

} // namespace attnscope
