// SPDX-License-Identifier: MIT
#include "core/report/ranks.h"

#include "core/io/trace_builder.h"
#include "core/model/args_codec.h"
#include "core/report/summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace attnscope {

namespace {

// Correlation ids of rank r live in their own range, so launch links stay inside a rank.
constexpr int kRankShift = 48;

std::string fileName(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::int64_t rankOf(const RankInput& input, std::size_t position) {
    const auto& d = input.trace->distributed();
    return d.rank ? *d.rank : std::int64_t(position);
}

// Long on purpose: one pass per rank that keeps each file's processes, tracks, flows and
// correlation ids together and apart from the other ranks'.
std::shared_ptr<const Trace> mergeRanks(const std::vector<RankInput>& ranks) {
    TraceBuilder b;
    StringPool& pool = b.strings();
    ArgsEncoder encoder;
    std::string encoded;
    std::set<std::int64_t> seen;
    std::uint64_t flowId = 0;
    for (std::size_t position = 0; position < ranks.size(); ++position) {
        const RankInput& in = ranks[position];
        const Trace& t = *in.trace;
        const std::int64_t rank = rankOf(in, position);
        if (!seen.insert(rank).second)
            throw std::invalid_argument(in.path + " is rank " + std::to_string(rank) +
                                        " too: each file must be a rank of its own");
        // Grouped by the rank the file says it is, else by its file name.
        const std::string prefix =
            (t.distributed().rank ? "rank " + std::to_string(rank) : fileName(in.path)) + " · ";
        const std::uint64_t correlationBase = std::uint64_t(rank + 1) << kRankShift;
        std::vector<StringId> pids(t.processes().size());
        for (std::size_t p = 0; p < t.processes().size(); ++p) {
            const ProcessInfo& info = t.processes()[p];
            pids[p] = pool.intern("r" + std::to_string(rank) + ":" + std::string(t.str(info.key)));
            b.setProcessName(pids[p], prefix + info.name);
            std::string labels = info.labels;
            if (info.isGpu && info.deviceIndex >= 0 && labels.rfind("GPU", 0) != 0)
                labels = "GPU " + std::to_string(info.deviceIndex);
            if (!labels.empty()) b.setProcessLabels(pids[p], labels);
            b.setProcessSortIndex(pids[p], info.sortIndex);
            b.setProcessRank(pids[p], rank);
        }
        // Each event's sequence number on its new track, for the flows.
        std::vector<std::vector<std::uint32_t>> seqs(t.tracks().size());
        for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti) {
            const Track& track = t.tracks()[ti];
            const StringId pid = pids[track.process.value];
            const StringId tid = pool.intern(std::string(t.str(track.tidKey)));
            const TrackId to = b.track(pid, tid);
            b.setThreadName(pid, tid, track.name);
            b.setThreadSortIndex(pid, tid, track.sortIndex);
            seqs[ti].resize(track.size());
            for (std::uint32_t i = 0; i < track.size(); ++i) {
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
                                         correlation ? correlationBase + correlation : 0, encoded);
            }
        }
        for (const CounterSeries& c : t.counters())
            for (std::size_t i = 0; i < c.time.size(); ++i)
                b.addCounter(pids[c.process.value], c.name, c.time[i], c.value[i]);
        for (const Flow& f : t.flows()) {
            ++flowId;
            FlowPoint out;
            out.kind = FlowPoint::Kind::V2Out;
            out.category = pool.intern(std::string(t.str(f.category)));
            out.id = flowId;
            const Track& from = t.track(f.from.track);
            const Track& toTrack = t.track(f.to.track);
            out.track = b.track(pids[from.process.value], pool.intern(std::string(t.str(from.tidKey))));
            out.time = from.events.start[f.from.index];
            out.boundSeq = seqs[f.from.track.value][f.from.index];
            FlowPoint in = out;
            in.kind = FlowPoint::Kind::V2In;
            in.track = b.track(pids[toTrack.process.value], pool.intern(std::string(t.str(toTrack.tidKey))));
            in.time = toTrack.events.start[f.to.index];
            in.boundSeq = seqs[f.to.track.value][f.to.index];
            b.addFlowPoint(out);
            b.addFlowPoint(in);
        }
        for (DeviceInfo d : t.devices())
            b.addDevice(std::move(d));
    }
    b.info().format = "ranks";
    for (const RankInput& in : ranks)
        b.info().eventsRead += in.trace->info().eventsRead;
    std::string paths;
    for (const RankInput& in : ranks)
        paths += (paths.empty() ? "" : ", ") + fileName(in.path);
    b.info().path = paths;
    return b.finish();
}

RankReport rankReport(const std::vector<RankInput>& ranks) {
    RankReport r;
    for (std::size_t position = 0; position < ranks.size(); ++position) {
        const Trace& t = *ranks[position].trace;
        RankStats s;
        s.rank = rankOf(ranks[position], position);
        s.path = ranks[position].path;
        s.spanNs = t.endNs() - t.startNs();
        std::vector<std::pair<TimeNs, TimeNs>> intervals;
        for (const Track& track : t.tracks())
            for (std::uint32_t i = 0; i < track.size(); ++i)
                if (isKernelEvent(t, track, i)) {
                    ++s.kernels;
                    s.kernelNs += track.events.duration[i];
                    intervals.emplace_back(track.events.start[i], track.end(i));
                }
        s.gpuBusyNs = unionLength(intervals);
        r.ranks.push_back(std::move(s));
    }
    std::sort(r.ranks.begin(), r.ranks.end(),
              [](const RankStats& a, const RankStats& b) { return a.rank < b.rank; });
    if (r.ranks.empty()) return r;
    TimeNs total = 0;
    r.minBusyNs = r.maxBusyNs = r.ranks.front().gpuBusyNs;
    r.slowestRank = r.ranks.front().rank;
    for (const RankStats& s : r.ranks) {
        total += s.gpuBusyNs;
        r.minBusyNs = std::min(r.minBusyNs, s.gpuBusyNs);
        if (s.gpuBusyNs > r.maxBusyNs) {
            r.maxBusyNs = s.gpuBusyNs;
            r.slowestRank = s.rank;
        }
    }
    r.meanBusyNs = total / TimeNs(r.ranks.size());
    return r;
}

std::string formatRankReport(const RankReport& report, SummaryFormat format) {
    if (format == SummaryFormat::Json) {
        nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
        for (const RankStats& s : report.ranks)
            ranks.push_back({{"rank", s.rank},
                             {"path", s.path},
                             {"kernels", s.kernels},
                             {"kernel_ns", s.kernelNs},
                             {"gpu_busy_ns", s.gpuBusyNs},
                             {"span_ns", s.spanNs}});
        const nlohmann::ordered_json out{{"ranks", ranks},
                                         {"gpu_busy",
                                          {{"min_ns", report.minBusyNs},
                                           {"max_ns", report.maxBusyNs},
                                           {"mean_ns", report.meanBusyNs},
                                           {"spread", report.spread()},
                                           {"slowest_rank", report.slowestRank}}}};
        return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    std::ostringstream out;
    if (format == SummaryFormat::Csv) {
        out << "rank,path,kernels,kernel_ns,gpu_busy_ns,span_ns\n";
        for (const RankStats& s : report.ranks) {
            out << s.rank << ',' << csvField(s.path) << ',' << s.kernels << ',' << s.kernelNs << ','
                << s.gpuBusyNs << ',' << s.spanNs << '\n';
        }
        return out.str();
    }
    char line[512];
    std::snprintf(line, sizeof line, "%6s %10s %14s %14s %14s  %s\n", "rank", "kernels", "kernel time",
                  "GPU busy", "vs mean", "file");
    out << line;
    for (const RankStats& s : report.ranks) {
        const double vs =
            report.meanBusyNs ? 100.0 * (double(s.gpuBusyNs) / double(report.meanBusyNs) - 1) : 0;
        std::snprintf(line, sizeof line, "%6lld %10llu %14s %14s %+13.1f%%  %s%s\n",
                      static_cast<long long>(s.rank), static_cast<unsigned long long>(s.kernels),
                      formatDuration(s.kernelNs).c_str(), formatDuration(s.gpuBusyNs).c_str(), vs,
                      s.path.c_str(),
                      s.rank == report.slowestRank && report.ranks.size() > 1 ? "   <- slowest" : "");
        out << line;
    }
    out << "\nGPU busy: min " << formatDuration(report.minBusyNs) << ", max "
        << formatDuration(report.maxBusyNs) << ", mean " << formatDuration(report.meanBusyNs);
    std::snprintf(line, sizeof line, ", spread (max - min) / mean %.1f%%\n", 100 * report.spread());
    out << line;
    return out.str();
}

} // namespace attnscope
