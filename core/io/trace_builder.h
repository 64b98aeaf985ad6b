// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnscope {

// A flow endpoint as files write it. Version 1 (ph s/t/f) points bind by time on their track;
// version 2 points (bind_id with flow_in/flow_out on a slice) bind to the slice that carries them.
struct FlowPoint {
    static constexpr std::uint64_t kStringFlowId = 1ull << 63;
    enum class Kind : std::uint8_t { Start, Step, Finish, V2Out, V2In };
    Kind kind = Kind::Start;
    bool bindEnclosing = true; // ph f: bp "e" binds to the enclosing slice, else to the next one
    StringId category;
    std::uint64_t id = 0; // numeric ids as they are; string ids as kStringFlowId | their StringId
    TrackId track;
    TimeNs time = 0;
    std::uint32_t boundSeq = 0; // v2: the carrying slice, as the builder numbered it on its track
    std::uint64_t order = 0;    // set by the builder
};

// Collects events in any order and builds the immutable Trace: sorts each track, matches B/E,
// assigns depths, names tracks from metadata, resolves flows and correlation links.
// One builder per load; no shared state, so loads can run on several threads at once.
class TraceBuilder {
public:
    TraceBuilder();
    ~TraceBuilder();

    StringPool& strings();
    TraceInfo& info();

    // Events are ordered as in the file by (chunk, position in chunk): a reader announces each
    // chunk it starts and each event it reads, so builders that read chunks on different threads
    // can be merged into the same trace a single reader would have built.
    void beginChunk(std::uint32_t index);
    void beginEvent();
    // Moves everything the other builders have collected into this one, renumbering their events
    // on up to `threads` threads; they are left empty.
    void absorb(const std::vector<TraceBuilder*>& others, unsigned threads);

    TrackId track(StringId pid, StringId tid);
    TrackId globalTrack();

    // Returns the slice's sequence number on its track (for v2 flow points).
    std::uint32_t addSlice(TrackId track, TimeNs start, TimeNs duration, StringId name, StringId category,
                           std::uint64_t correlation, std::string_view encodedArgs);
    std::uint32_t addBegin(TrackId track, TimeNs time, StringId name, StringId category,
                           std::string_view encodedArgs);
    void addEnd(TrackId track, TimeNs time, std::string_view encodedArgs);
    void addInstant(TrackId track, TimeNs time, StringId name, StringId category,
                    std::string_view encodedArgs);
    void addCounter(StringId pid, std::string_view name, TimeNs time, double value,
                    std::string_view unit = {});
    // What a PyTorch "[memory]" instant says (profile_memory=True): the allocator's totals after an
    // allocation or free, as counters. CUDA memory (deviceType 1) goes under its GPU, whose Kineto
    // process is numbered by the device; CPU memory (0) under the host process `pid`, and only what it
    // holds (the CPU allocator reserves nothing). A saved trace carries the instants, not these counters.
    void addMemoryTotals(StringId pid, TimeNs time, int deviceType, std::int64_t deviceId, double allocated,
                         std::optional<double> reserved);
    void addFlowPoint(const FlowPoint& point);

    void setProcessName(StringId pid, std::string_view name);
    void setProcessLabels(StringId pid, std::string_view labels);
    void setProcessSortIndex(StringId pid, std::int64_t index);
    // Several files opened as the ranks of one job: the rank a process belongs to (ranks.h).
    void setProcessRank(StringId pid, std::int64_t rank);
    void setThreadName(StringId pid, StringId tid, std::string_view name);
    void setThreadSortIndex(StringId pid, StringId tid, std::int64_t index);
    void addDevice(DeviceInfo device);
    void setDistributed(DistributedInfo info);

    // A problem that did not stop the load. Repeats of the same message are counted, not stored.
    void warn(std::string_view message, std::uint64_t byteOffset);
    void warn(std::string_view message);

    // Threads finish() may use to lay out tracks (1: the calling thread only).
    void setThreads(unsigned threads) { m_threads = threads ? threads : 1; }

    // Added to every timestamp when the trace is built (relative Kineto timestamps).
    void setTimeOffset(TimeNs offset) { m_timeOffset = offset; }
    // Smallest timestamp seen so far (before the offset), for deciding the timestamp regime.
    std::optional<TimeNs> minTime() const;

    std::shared_ptr<const Trace> finish();

private:
    struct Impl;
    std::unique_ptr<Impl> m;
    TimeNs m_timeOffset = 0;
    unsigned m_threads = 1;
};

} // namespace attnscope
