// SPDX-License-Identifier: MIT
#include "core/report/ranks.h"
#include "core/report/format.h"

#include "core/analysis/kernel_role.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_merge.h"
#include "core/report/findings_format.h"
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

std::string rankList(const std::vector<std::int64_t>& ranks, std::size_t cap) {
    std::string out;
    for (std::size_t i = 0; i < ranks.size() && i < cap; ++i)
        out += (i ? " " : "") + std::to_string(ranks[i]);
    if (ranks.size() > cap) out += " … (" + std::to_string(ranks.size()) + ")";
    return out;
}

std::string rankProcessKey(std::int64_t rank, std::string_view key) {
    return "r" + std::to_string(rank) + ":" + std::string(key);
}

std::int64_t rankOf(const RankInput& input, std::size_t position) {
    const auto& d = input.trace->distributed();
    return d.rank ? *d.rank : std::int64_t(position);
}

namespace {

// The ranks' traces merged into one: one pass per rank that keeps each file's processes, tracks, flows
// and correlation ids together and apart from the other ranks'.
class RankMerger {
public:
    void add(const RankInput& in, std::int64_t rank, std::uint64_t correlationBase) {
        const Trace& t = *in.trace;
        if (!m_seen.insert(rank).second)
            throw std::invalid_argument(in.path + " is rank " + std::to_string(rank) +
                                        " too: each file must be a rank of its own");
        // Grouped by the rank the file says it is, else by its file name.
        const std::string prefix = (t.distributed().rank ? rankName(rank) : fileName(in.path)) + " · ";
        TraceMerger::Part part;
        part.keyPrefix = rankProcessKey(rank, "");
        part.namePrefix = prefix;
        part.rank = rank;
        part.correlationBase = correlationBase;
        m_merger.add(t, part);
    }

    std::shared_ptr<const Trace> finish(const std::vector<RankInput>& ranks) {
        TraceInfo& info = m_merger.builder().info();
        info.format = "ranks";
        std::string paths;
        for (const RankInput& in : ranks)
            paths += (paths.empty() ? "" : ", ") + fileName(in.path);
        info.path = paths;
        return m_merger.finish();
    }

private:
    TraceMerger m_merger;
    std::set<std::int64_t> m_seen;
};

} // namespace

std::shared_ptr<const Trace> mergeRanks(const std::vector<RankInput>& ranks) {
    RankMerger merger;
    for (std::size_t position = 0; position < ranks.size(); ++position) {
        const std::int64_t rank = rankOf(ranks[position], position);
        merger.add(ranks[position], rank, std::uint64_t(rank + 1) << kRankShift);
    }
    return merger.finish(ranks);
}

std::shared_ptr<const Trace> rankParts(const std::vector<RankPart>& parts) {
    RankMerger merger;
    std::vector<RankInput> inputs;
    for (const RankPart& part : parts) {
        merger.add(part.input, part.rank, part.correlationBase);
        inputs.push_back(part.input);
    }
    return merger.finish(inputs);
}

RankStats measureRank(const RankInput& input, std::size_t position, RankCollectives* collectives) {
    const Trace& t = *input.trace;
    RankStats s;
    s.rank = rankOf(input, position);
    s.path = input.path;
    s.spanNs = t.endNs() - t.startNs();
    std::vector<std::pair<TimeNs, TimeNs>> intervals, compute;
    struct Comm {
        TimeNs start, duration;
        StringId name;
    };
    std::vector<Comm> comm;
    std::vector<std::int8_t> isComm(t.strings().size(), -1); // per name: not looked at yet
    for (const Track& track : t.tracks())
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (isKernelEvent(t, track, i)) {
                s.firstKernelNs =
                    s.kernels ? std::min(s.firstKernelNs, track.events.start[i]) : track.events.start[i];
                s.lastKernelEndNs = s.kernels ? std::max(s.lastKernelEndNs, track.end(i)) : track.end(i);
                ++s.kernels;
                s.kernelNs += track.events.duration[i];
                intervals.emplace_back(track.events.start[i], track.end(i));
                const StringId name = track.events.name[i];
                std::int8_t& c = isComm[name.value];
                if (c < 0)
                    c = classifyKernel(t.str(name), t.str(track.events.category[i])) ==
                        KernelRole::Communication;
                if (c) {
                    s.commNs += track.events.duration[i];
                    comm.push_back({track.events.start[i], track.events.duration[i], name});
                } else {
                    compute.emplace_back(track.events.start[i], track.end(i));
                }
            }
    s.gpuBusyNs = unionLength(intervals);
    s.computeBusyNs = unionLength(compute);
    if (collectives) {
        std::stable_sort(comm.begin(), comm.end(),
                         [](const Comm& x, const Comm& y) { return x.start < y.start; });
        std::map<StringId, std::uint32_t> index;
        *collectives = {};
        for (const Comm& c : comm) {
            const auto [it, added] = index.emplace(c.name, std::uint32_t(collectives->names.size()));
            if (added) collectives->names.emplace_back(t.str(c.name));
            collectives->arrivals.push_back({it->second, c.start, c.duration});
        }
    }
    return s;
}

RankReport rankReport(const std::vector<RankInput>& ranks) {
    std::vector<RankStats> stats;
    std::vector<RankCollectives> collectives(ranks.size());
    for (std::size_t position = 0; position < ranks.size(); ++position)
        stats.push_back(measureRank(ranks[position], position, &collectives[position]));
    return reduceRanks(std::move(stats), collectives);
}

RankReport reduceRanks(std::vector<RankStats> ranks, const std::vector<RankCollectives>& collectives) {
    RankReport r;
    r.ranks = std::move(ranks);
    if (r.ranks.empty()) return r;
    // Where the ranks meet: the n-th collective of every rank is one collective while each rank has
    // one of the same name. Its last arrival is the one the others wait for. A rank with no communication
    // kernel at all (a trace cut short, a rank that does not take part) is left out and named, not let
    // switch the matching off for every other rank.
    const std::size_t n = r.ranks.size();
    std::vector<std::size_t> meet;   // the ranks (indices) that take part
    std::vector<std::size_t> lastAt; // per matched collective, the rank that arrived last (SIZE_MAX: none)
    if (collectives.size() == n)
        for (std::size_t k = 0; k < n; ++k) {
            if (!collectives[k].arrivals.empty())
                meet.push_back(k);
            else
                r.withoutCollectives.push_back(r.ranks[k].rank);
        }
    if (meet.size() < 2) r.withoutCollectives.clear(); // nothing to leave them out of
    std::sort(r.withoutCollectives.begin(), r.withoutCollectives.end());
    if (meet.size() > 1) {
        std::size_t matched = SIZE_MAX;
        for (std::size_t k : meet)
            matched = std::min(matched, collectives[k].arrivals.size());
        auto nameOf = [&](std::size_t k, std::size_t i) -> const std::string& {
            return collectives[k].names[collectives[k].arrivals[i].name];
        };
        auto startOf = [&](std::size_t k, std::size_t i) { return collectives[k].arrivals[i].start; };
        lastAt.reserve(matched);
        for (std::size_t i = 0; i < matched; ++i) {
            const std::string& name = nameOf(meet[0], i);
            bool same = true;
            for (std::size_t k : meet)
                same = same && nameOf(k, i) == name;
            if (!same) break;
            std::size_t last = meet[0];
            TimeNs first = startOf(meet[0], i);
            for (std::size_t k : meet) {
                if (startOf(k, i) > startOf(last, i)) last = k;
                first = std::min(first, startOf(k, i));
            }
            // A rank waits from its arrival to the last one's, inside its own collective kernel: never longer
            // than that kernel lasts (ranks whose clocks disagree would otherwise wait longer than they ran).
            for (std::size_t k : meet)
                r.ranks[k].waitNs +=
                    std::min(startOf(last, i) - startOf(k, i), collectives[k].arrivals[i].duration);
            if (startOf(last, i) > first) ++r.ranks[last].lastArrivals; // all at once: nobody waits
            lastAt.push_back(startOf(last, i) > first ? last : SIZE_MAX);
            ++r.collectives;
        }
    }
    TimeNs total = 0, computeTotal = 0;
    r.minBusyNs = r.maxBusyNs = r.ranks.front().gpuBusyNs;
    r.minComputeNs = r.maxComputeNs = r.ranks.front().computeBusyNs;
    r.mostComputeRank = r.ranks.front().rank;
    const RankStats* straggler = nullptr;
    for (const RankStats& s : r.ranks) {
        total += s.gpuBusyNs;
        computeTotal += s.computeBusyNs;
        r.minBusyNs = std::min(r.minBusyNs, s.gpuBusyNs);
        r.maxBusyNs = std::max(r.maxBusyNs, s.gpuBusyNs);
        r.minComputeNs = std::min(r.minComputeNs, s.computeBusyNs);
        if (s.computeBusyNs > r.maxComputeNs) {
            r.maxComputeNs = s.computeBusyNs;
            r.mostComputeRank = s.rank;
        }
        const bool meets = std::find(r.withoutCollectives.begin(), r.withoutCollectives.end(), s.rank) ==
                           r.withoutCollectives.end();
        if (meets && (!straggler || s.waitNs < straggler->waitNs ||
                      (s.waitNs == straggler->waitNs && s.lastArrivals > straggler->lastArrivals)))
            straggler = &s;
    }
    r.meanBusyNs = total / TimeNs(n);
    r.meanComputeNs = computeTotal / TimeNs(n);
    if (r.collectives > 0) {
        r.stragglerRank = straggler->rank;
        // The others' waits for it, where it was the last: the waits of the collectives another rank held up
        // are not its.
        const std::size_t s = std::size_t(straggler - r.ranks.data());
        for (std::size_t i = 0; i < lastAt.size(); ++i) {
            if (lastAt[i] != s) continue;
            for (std::size_t k : meet)
                if (k != s)
                    r.waitForStragglerNs +=
                        std::min(collectives[s].arrivals[i].start - collectives[k].arrivals[i].start,
                                 collectives[k].arrivals[i].duration);
        }
    }
    r.slowestRank = r.collectives > 0 ? r.stragglerRank : r.mostComputeRank;
    std::sort(r.ranks.begin(), r.ranks.end(),
              [](const RankStats& a, const RankStats& b) { return a.rank < b.rank; });
    return r;
}

const RankStats* RankReport::find(std::int64_t rank) const {
    for (const RankStats& s : ranks)
        if (s.rank == rank) return &s;
    return nullptr;
}

TimeNs RankReport::othersMeanWaitNs() const {
    const std::size_t others = ranks.size() - withoutCollectives.size();
    if (stragglerRank < 0 || others < 2) return 0;
    return waitForStragglerNs / TimeNs(others - 1);
}

std::string RankReport::stragglerSentence() const {
    const RankStats* s = stragglerRank >= 0 ? find(stragglerRank) : nullptr;
    if (!s || collectives == 0) return {};
    return "rank " + std::to_string(stragglerRank) + " arrives last at " + std::to_string(s->lastArrivals) +
           " of the " + formatCount(collectives, "collective", "collectives") +
           " matched on every rank, and the others wait " + formatDuration(othersMeanWaitNs()) +
           " each for it there";
}

std::string_view RankReport::slowestWhy() const {
    return ranks.size() < 2               ? std::string_view()
           : slowestRank == stragglerRank ? "the others wait for it"
                                          : "computes most";
}

std::string formatRankReport(const RankReport& report, SummaryFormat format, const TraceSummary* job) {
    if (format == SummaryFormat::Json) {
        nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
        for (const RankStats& s : report.ranks)
            ranks.push_back({{"rank", s.rank},
                             {"path", s.path},
                             {"kernels", s.kernels},
                             {"kernel_ns", s.kernelNs},
                             {"gpu_busy_ns", s.gpuBusyNs},
                             {"compute_busy_ns", s.computeBusyNs},
                             {"communication_ns", s.commNs},
                             {"collective_wait_ns", s.waitNs},
                             {"last_arrivals", s.lastArrivals},
                             {"span_ns", s.spanNs}});
        nlohmann::ordered_json out{
            {"ranks", ranks},
            {"gpu_busy",
             {{"min_ns", report.minBusyNs}, {"max_ns", report.maxBusyNs}, {"mean_ns", report.meanBusyNs}}},
            {"compute_busy",
             {{"min_ns", report.minComputeNs},
              {"max_ns", report.maxComputeNs},
              {"mean_ns", report.meanComputeNs},
              {"spread", report.spread()},
              {"most_rank", report.mostComputeRank}}},
            {"collectives",
             {{"matched", report.collectives},
              {"straggler_rank", report.stragglerRank},
              {"ranks_without", report.withoutCollectives}}},
            {"slowest_rank", report.slowestRank}};
        if (job) out["findings"] = nlohmann::ordered_json::parse(findingsJson(job->findings).dump());
        return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    std::ostringstream out;
    if (format == SummaryFormat::Csv) {
        out << "rank,path,kernels,kernel_ns,gpu_busy_ns,compute_busy_ns,communication_ns,collective_wait_ns,"
               "last_arrivals,span_ns\n";
        for (const RankStats& s : report.ranks) {
            out << s.rank << ',' << csvField(s.path) << ',' << s.kernels << ',' << s.kernelNs << ','
                << s.gpuBusyNs << ',' << s.computeBusyNs << ',' << s.commNs << ',' << s.waitNs << ','
                << s.lastArrivals << ',' << s.spanNs << '\n';
        }
        return out.str();
    }
    char line[512];
    std::snprintf(line, sizeof line, "%6s %10s %14s %14s %14s %16s %14s  %s\n", "rank", "kernels",
                  "kernel time", "GPU busy", "compute busy", "compute vs mean", "waited", "file");
    out << line;
    const bool several = report.ranks.size() > 1;
    for (const RankStats& s : report.ranks) {
        const double vs =
            report.meanComputeNs ? 100.0 * (double(s.computeBusyNs) / double(report.meanComputeNs) - 1) : 0;
        const std::string mark = several && s.rank == report.slowestRank
                                     ? "   <- slowest: " + std::string(report.slowestWhy())
                                     : "";
        std::snprintf(line, sizeof line, "%6lld %10llu %14s %14s %14s %+15.1f%% %14s  %s%s\n",
                      static_cast<long long>(s.rank), static_cast<unsigned long long>(s.kernels),
                      formatDuration(s.kernelNs).c_str(), formatDuration(s.gpuBusyNs).c_str(),
                      formatDuration(s.computeBusyNs).c_str(), vs,
                      report.collectives ? formatDuration(s.waitNs).c_str() : "-", s.path.c_str(),
                      mark.c_str());
        out << line;
    }
    out << "\ncompute busy (kernels other than communication): min " << formatDuration(report.minComputeNs)
        << ", max " << formatDuration(report.maxComputeNs) << ", mean "
        << formatDuration(report.meanComputeNs);
    std::snprintf(line, sizeof line, ", spread (max - min) / mean %.1f%%\n", 100 * report.spread());
    out << line;
    if (!report.withoutCollectives.empty())
        out << "ranks without a communication kernel, left out of the collectives: "
            << rankList(report.withoutCollectives) << "\n";
    if (report.collectives)
        out << "collectives: " << report.stragglerSentence()
            << " (waited: from a rank's arrival to the last one's)\n";
    else if (several)
        out << "collectives: none matched on every rank (no communication kernels, or their order differs)\n";
    if (job) out << findingsText(*job);
    return out.str();
}

std::string formatJobFindings(const TraceSummary& job, const std::string& name, SummaryFormat format) {
    switch (format) {
    case SummaryFormat::Json:
        return nlohmann::json{{"findings", findingsJson(job.findings)}}.dump(
                   2, ' ', false, nlohmann::json::error_handler_t::replace) +
               "\n";
    case SummaryFormat::Csv:
        return findingsCsvHeader() + findingsCsvRows(name, job.findings);
    case SummaryFormat::Text:
        break;
    }
    return name + findingsText(job).substr(1);
}

} // namespace attnscope
