// SPDX-License-Identifier: MIT
// The job's report as text, JSON, CSV or Markdown (job_report.h).
#include "core/report/job_report.h"

#include "core/report/format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace attnscope {

namespace {

using Json = nlohmann::ordered_json;

std::string jobJson(const JobReport& job) {
    Json out;
    out["ranks_read"] = job.records.size();
    Json ranks = Json::array();
    for (const RankRecord& r : job.records) {
        const RankStats& s = r.stats;
        ranks.push_back({{"rank", s.rank},
                         {"path", r.path},
                         {"steps", r.steps},
                         {"span_ns", s.spanNs},
                         {"kernels", s.kernels},
                         {"kernel_ns", s.kernelNs},
                         {"gpu_busy_ns", s.gpuBusyNs},
                         {"compute_busy_ns", s.computeBusyNs},
                         {"communication_ns", s.commNs},
                         {"communication_share", communicationShare(s)},
                         {"collective_wait_ns", s.waitNs},
                         {"last_arrivals", s.lastArrivals},
                         {"attention_ns", attentionNs(r)},
                         {"findings", r.findings.size()}});
    }
    out["ranks"] = ranks;
    Json failed = Json::array();
    for (const RankRecord& r : job.failed)
        failed.push_back({{"rank", r.stats.rank}, {"path", r.path}, {"error", r.error}});
    out["failed"] = failed;
    Json spreads = Json::object();
    for (std::size_t i = 0; i < job.spreads.size(); ++i) {
        const Spread& s = job.spreads[i];
        spreads[jobMeasures()[i].key] = {
            {"median_ns", s.median}, {"p90_ns", s.p90}, {"max_ns", s.max}, {"max_rank", s.maxRank}};
    }
    out["spread"] = spreads;
    Json slow = Json::array();
    for (const SlowRank& s : job.slowRanks)
        slow.push_back(
            {{"rank", s.rank}, {"compute_busy_ns", s.computeBusyNs}, {"over_median", s.overMedian}});
    out["slow_ranks"] = slow;
    out["collectives"] = {{"matched", job.ranks.collectives},
                          {"straggler_rank", job.ranks.stragglerRank},
                          {"ranks_without", job.ranks.withoutCollectives}};
    out["ranks_with_warnings"] = job.warned;
    out["world_size"] = job.worldSize ? Json(*job.worldSize) : Json(nullptr);
    out["slowest_rank"] = job.ranks.slowestRank;
    Json findings = Json::array();
    for (const JobFinding& f : job.findings)
        findings.push_back(
            {{"id", f.id},
             {"severity", severityName(f.severity)},
             {"title", f.title},
             {"ranks", f.ranks},
             {"title_rank", f.titleRank},
             {"total_ns", f.totalNs},
             {"time_ns", f.meanNs}, // the time at stake: the mean per rank, as summary --ranks says it
             {"share", f.share},
             {"max_ns", f.maxNs},
             {"max_rank", f.maxRank}});
    out["findings"] = findings;
    return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace

std::string formatJobReport(const JobReport& job, JobFormat format) {
    if (format == JobFormat::Json) return jobJson(job);
    std::ostringstream out;
    if (format == JobFormat::Csv) {
        out << "rank,path,span_ns,kernels,gpu_busy_ns,compute_busy_ns,communication_ns,communication_share,"
               "collective_wait_ns,attention_ns,findings,error\n";
        for (const RankRecord& r : job.records) {
            const RankStats& s = r.stats;
            out << s.rank << ',' << csvField(r.path) << ',' << s.spanNs << ',' << s.kernels << ','
                << s.gpuBusyNs << ',' << s.computeBusyNs << ',' << s.commNs << ',' << communicationShare(s)
                << ',' << s.waitNs << ',' << attentionNs(r) << ',' << r.findings.size() << ",\n";
        }
        for (const RankRecord& r : job.failed)
            out << r.stats.rank << ',' << csvField(r.path) << ",,,,,,,,,," << csvField(r.error) << '\n';
        return out.str();
    }
    const bool md = format == JobFormat::Markdown;
    const std::size_t n = job.records.size();
    out << (md ? "## " : "") << "Job: " << n << (n == 1 ? " rank" : " ranks") << " read";
    if (!job.failed.empty()) out << ", " << job.failed.size() << " could not be";
    out << "\n\n";
    if (md) out << "| measure | median | p90 | max (rank) |\n|---|---:|---:|---:|\n";
    auto spreadLine = [&](const char* what, const Spread& s) {
        char line[256];
        if (md)
            std::snprintf(line, sizeof line, "| %s | %s | %s | %s (%lld) |\n", what,
                          formatDuration(TimeNs(s.median)).c_str(), formatDuration(TimeNs(s.p90)).c_str(),
                          formatDuration(TimeNs(s.max)).c_str(), static_cast<long long>(s.maxRank));
        else
            std::snprintf(line, sizeof line, "%-18s median %12s   p90 %12s   max %12s (rank %lld)\n", what,
                          formatDuration(TimeNs(s.median)).c_str(), formatDuration(TimeNs(s.p90)).c_str(),
                          formatDuration(TimeNs(s.max)).c_str(), static_cast<long long>(s.maxRank));
        out << line;
    };
    if (n) {
        for (std::size_t i = 0; i < job.spreads.size(); ++i)
            spreadLine(jobMeasures()[i].name, job.spreads[i]);
        out << '\n';
    }
    if (!job.slowRanks.empty()) {
        out << (md ? "**Slow ranks**" : "slow ranks") << " (compute busy " << slowRankRule() << "):";
        for (const SlowRank& s : job.slowRanks)
            out << ' ' << s.rank << " (" << formatRatio(s.overMedian) << ')';
        out << "\n";
    } else if (n >= 3) {
        out << "slow ranks: none " << slowRankRule() << "\n";
    }
    if (job.ranks.collectives)
        out << "collectives: " << job.ranks.stragglerSentence() << "\n";
    else if (n > 1)
        out << "collectives: none matched on every rank\n";
    if (!job.ranks.withoutCollectives.empty())
        out << "ranks without a communication kernel, left out of the collectives: "
            << rankList(job.ranks.withoutCollectives) << "\n";
    if (!job.warned.empty()) {
        out << "ranks whose trace was read with warnings: " << rankList(job.warned) << "\n";
        for (const RankRecord& r : job.records)
            if (!r.warnings.empty()) {
                out << "  rank " << r.stats.rank << ": " << r.warnings.front() << "\n";
                break;
            }
    }
    if (job.worldSize && std::int64_t(n + job.failed.size()) < *job.worldSize)
        out << "world size " << *job.worldSize << ": "
            << (*job.worldSize - std::int64_t(n + job.failed.size())) << " ranks have no record\n";
    if (!job.findings.empty()) {
        out << '\n'
            << (md ? "| finding | severity | at stake per rank | share of the job's span | ranks | most "
                     "(rank) "
                     "|\n|---|---|---:|---:|---|---:|\n"
                   : "findings of the job (each rank's rules on its own trace, put together; the straggler's "
                     "over the ranks):\n");
        // The figure first is per rank of the job; the title's is its rank's own: a reader saw two numbers
        // for one finding with nothing saying which is which.
        if (!md) {
            char head[160];
            std::snprintf(head, sizeof head, "  %-8s %12s %7s  %s\n", "severity", "per rank", "of span",
                          "finding (the rank with most at stake)");
            out << head;
        }
        for (const JobFinding& f : job.findings) {
            const std::string severity(severityName(f.severity));
            char line[640];
            if (md)
                std::snprintf(line, sizeof line, "| %s | %s | %s | %s | %s | %s (%lld) |\n", f.title.c_str(),
                              severity.c_str(), formatDuration(f.meanNs).c_str(),
                              formatPercent(f.share).c_str(), rankList(f.ranks).c_str(),
                              formatDuration(f.maxNs).c_str(), static_cast<long long>(f.maxRank));
            else
                std::snprintf(line, sizeof line,
                              "  %-8s %12s %7s  %s  [%s]\n           %s %zu of %zu %s: %s; most %s on rank "
                              "%lld\n",
                              severity.c_str(), formatDuration(f.meanNs).c_str(),
                              formatPercent(f.share).c_str(), f.title.c_str(), f.id.c_str(),
                              f.ranksWait ? "waiting for it:" : "on", f.ranks.size(), n,
                              n == 1 ? "rank" : "ranks", rankList(f.ranks).c_str(),
                              formatDuration(f.maxNs).c_str(), static_cast<long long>(f.maxRank));
            out << line;
        }
    }
    out << '\n'
        << (md ? "| rank | GPU busy | compute busy | communication | comm share | waited | attention | file "
                 "|\n"
                 "|---:|---:|---:|---:|---:|---:|---:|---|\n"
               : "");
    char line[640];
    if (!md) {
        std::snprintf(line, sizeof line, "%6s %12s %14s %14s %10s %12s %12s  %s\n", "rank", "GPU busy",
                      "compute busy", "communication", "comm share", "waited", "attention", "file");
        out << line;
    }
    for (const RankRecord& r : job.records) {
        const RankStats& s = r.stats;
        const std::string wait = job.ranks.collectives ? formatDuration(s.waitNs) : "-";
        std::snprintf(line, sizeof line,
                      md ? "| %lld | %s | %s | %s | %s | %s | %s | %s |\n"
                         : "%6lld %12s %14s %14s %10s %12s %12s  %s\n",
                      static_cast<long long>(s.rank), formatDuration(s.gpuBusyNs).c_str(),
                      formatDuration(s.computeBusyNs).c_str(), formatDuration(s.commNs).c_str(),
                      formatPercent(communicationShare(s)).c_str(), wait.c_str(),
                      formatDuration(attentionNs(r)).c_str(), r.path.c_str());
        out << line;
    }
    for (const RankRecord& r : job.failed) {
        std::snprintf(line, sizeof line,
                      md ? "| %lld | could not be read: %s | | | | | | %s |\n"
                         : "%6lld  could not be read: %s  %s\n",
                      static_cast<long long>(r.stats.rank), r.error.c_str(), r.path.c_str());
        out << line;
    }
    return out.str();
}

} // namespace attnscope
