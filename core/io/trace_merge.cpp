// SPDX-License-Identifier: MIT
#include "core/io/trace_merge.h"

#include "core/io/trace_builder.h"
#include "core/model/args_codec.h"

#include <set>

namespace attnscope {

struct TraceMerger::Impl {
    TraceBuilder b;
    StringPool& pool = b.strings();
    ArgsEncoder encoder;
    std::string encoded;
    std::uint64_t flowId = 0;
    std::set<std::int64_t> devices;
    std::set<std::string> warnings;

    // The part's processes under their new keys; returns each one's key.
    std::vector<StringId> addProcesses(const Trace& t, const Part& part) {
        std::vector<StringId> pids(t.processes().size());
        for (std::size_t p = 0; p < t.processes().size(); ++p) {
            const ProcessInfo& info = t.processes()[p];
            pids[p] = pool.intern(part.keyPrefix + std::string(t.str(info.key)));
            b.setProcessName(pids[p], part.namePrefix + info.name);
            std::string labels = info.labels;
            if (part.rank && info.isGpu && info.deviceIndex >= 0 && labels.rfind("GPU", 0) != 0)
                labels = gpuName(info.deviceIndex);
            if (!labels.empty()) b.setProcessLabels(pids[p], labels);
            b.setProcessSortIndex(pids[p], info.sortIndex);
            if (part.rank) b.setProcessRank(pids[p], *part.rank);
        }
        return pids;
    }

    static constexpr std::uint32_t kLeftOut = 0xffffffffu;

    // Its tracks and events (those in the window); each event's sequence number on its new track, for
    // the flows (kLeftOut: not kept).
    std::vector<std::vector<std::uint32_t>> addTracks(const Trace& t, const std::vector<StringId>& pids,
                                                      const Part& part) {
        std::vector<std::vector<std::uint32_t>> seqs(t.tracks().size());
        for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti) {
            const Track& track = t.tracks()[ti];
            const StringId pid = pids[track.process.value];
            const StringId tid = pool.intern(std::string(t.str(track.tidKey)));
            const TrackId to = b.track(pid, tid);
            b.setThreadName(pid, tid, track.name);
            b.setThreadSortIndex(pid, tid, track.sortIndex);
            seqs[ti].assign(track.size(), kLeftOut);
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (part.window && (track.events.start[i] < part.window->first ||
                                    track.events.start[i] >= part.window->second))
                    continue;
                encoder.clear();
                if (track.events.args[i]) {
                    const std::string_view blob = t.encodedArgs({TrackId{ti}, i});
                    forEachEncodedArg(t.strings(), blob, [&](std::string_view key, std::string_view value) {
                        encoder.addCopy(key, value);
                    });
                }
                encoded.clear();
                encoder.encode(pool, encoded);
                const StringId name = pool.intern(std::string(t.str(track.events.name[i])));
                const StringId category = pool.intern(std::string(t.str(track.events.category[i])));
                if (track.events.flags[i] & kInstant) {
                    b.addInstant(to, track.events.start[i], name, category, encoded);
                    continue;
                }
                const std::uint64_t correlation = track.events.correlation[i];
                seqs[ti][i] = b.addSlice(to, track.events.start[i], track.events.duration[i], name, category,
                                         correlation ? part.correlationBase + correlation : 0, encoded);
            }
        }
        return seqs;
    }

    TrackId trackOf(const Trace& t, const std::vector<StringId>& pids, TrackId id) {
        const Track& track = t.track(id);
        return b.track(pids[track.process.value], pool.intern(std::string(t.str(track.tidKey))));
    }

    void addFlows(const Trace& t, const std::vector<StringId>& pids,
                  const std::vector<std::vector<std::uint32_t>>& seqs) {
        for (const Flow& f : t.flows()) {
            if (seqs[f.from.track.value][f.from.index] == kLeftOut ||
                seqs[f.to.track.value][f.to.index] == kLeftOut)
                continue;
            ++flowId;
            FlowPoint out;
            out.kind = FlowPoint::Kind::V2Out;
            out.category = pool.intern(std::string(t.str(f.category)));
            out.id = flowId;
            out.track = trackOf(t, pids, f.from.track);
            out.time = t.track(f.from.track).events.start[f.from.index];
            out.boundSeq = seqs[f.from.track.value][f.from.index];
            FlowPoint in = out;
            in.kind = FlowPoint::Kind::V2In;
            in.track = trackOf(t, pids, f.to.track);
            in.time = t.track(f.to.track).events.start[f.to.index];
            in.boundSeq = seqs[f.to.track.value][f.to.index];
            b.addFlowPoint(out);
            b.addFlowPoint(in);
        }
    }
};

TraceMerger::TraceMerger() : m(std::make_unique<Impl>()) {}
TraceMerger::~TraceMerger() = default;

TraceBuilder& TraceMerger::builder() {
    return m->b;
}

void TraceMerger::add(const Trace& t, const Part& part) {
    const std::vector<StringId> pids = m->addProcesses(t, part);
    const auto seqs = m->addTracks(t, pids, part);
    for (const CounterSeries& c : t.counters())
        for (std::size_t i = 0; i < c.time.size(); ++i)
            if (!part.window || (c.time[i] >= part.window->first && c.time[i] < part.window->second))
                m->b.addCounter(pids[c.process.value], c.name, c.time[i], c.value[i], c.unit);
    m->addFlows(t, pids, seqs);
    for (DeviceInfo d : t.devices())
        if (!part.keyPrefix.empty() || m->devices.insert(d.id).second) m->b.addDevice(std::move(d));
    m->b.info().eventsRead += t.info().eventsRead;
    m->b.info().bytesRead += t.info().bytesRead;
    for (const std::string& w : t.info().warnings)
        if (m->warnings.insert(w).second) m->b.warn(w);
}

std::shared_ptr<const Trace> TraceMerger::finish() {
    return m->b.finish();
}

std::shared_ptr<const Trace> mergeSteps(const std::vector<const Trace*>& steps,
                                        const std::vector<std::uint64_t>& correlationBases) {
    TraceMerger merger;
    TraceInfo& info = merger.builder().info();
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Trace& step = *steps[i];
        TraceMerger::Part part;
        part.correlationBase = correlationBases.at(i);
        merger.add(step, part);
        if (i == 0) {
            info.format = step.info().format;
            info.path = step.info().path;
            info.schemaVersion = step.info().schemaVersion;
            info.displayTimeUnit = step.info().displayTimeUnit;
        }
        if (!step.info().hostName.empty()) info.hostName = step.info().hostName;
        if (step.distributed().rank || step.distributed().worldSize)
            merger.builder().setDistributed(step.distributed());
    }
    return merger.finish();
}

std::shared_ptr<const Trace> mergeSteps(const std::vector<std::shared_ptr<const Trace>>& steps) {
    std::vector<const Trace*> traces;
    std::vector<std::uint64_t> bases;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        traces.push_back(steps[i].get());
        bases.push_back(std::uint64_t(i + 1) << 32);
    }
    return mergeSteps(traces, bases);
}

} // namespace attnscope
