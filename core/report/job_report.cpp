// SPDX-License-Identifier: MIT
// The job's report put together from its ranks' records: the reduce (job_report.h).
#include "core/report/job_report.h"

#include "core/report/format.h"
#include "core/report/job_findings.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace attnscope {

std::string slowRankRule() {
    return "beyond the median by " + formatNumber(kSlowRankMads) + " median absolute deviations";
}

TimeNs attentionNs(const RankRecord& r) {
    TimeNs ns = 0;
    for (const RecordImpl& a : r.attention)
        ns += a.totalNs;
    return ns;
}

double communicationShare(const RankStats& s) {
    return s.gpuBusyNs ? double(s.commNs) / double(s.gpuBusyNs) : 0;
}

const std::vector<JobMeasure>& jobMeasures() {
    static const std::vector<JobMeasure> measures = {
        {"GPU busy", "gpu_busy", [](const RankRecord& r) { return r.stats.gpuBusyNs; }},
        {"compute busy", "compute_busy", [](const RankRecord& r) { return r.stats.computeBusyNs; }},
        {"communication", "communication", [](const RankRecord& r) { return r.stats.commNs; }},
        {"collective wait", "collective_wait", [](const RankRecord& r) { return r.stats.waitNs; }},
        {"attention", "attention", attentionNs},
    };
    return measures;
}

const Spread& JobReport::spread(std::string_view key) const {
    const auto& measures = jobMeasures();
    for (std::size_t i = 0; i < measures.size() && i < spreads.size(); ++i)
        if (key == measures[i].key) return spreads[i];
    throw std::out_of_range("no job measure " + std::string(key));
}

namespace {

double percentileOf(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double at = p * double(v.size() - 1);
    const std::size_t lo = std::size_t(std::floor(at)), hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

Spread spreadOf(const std::vector<RankRecord>& records, TimeNs (*value)(const RankRecord&)) {
    Spread s;
    std::vector<double> v;
    for (const RankRecord& r : records) {
        const double x = double(value(r));
        v.push_back(x);
        if (s.maxRank < 0 || x > s.max) {
            s.max = x;
            s.maxRank = r.stats.rank;
        }
    }
    s.median = percentileOf(v, 0.5);
    s.p90 = percentileOf(v, 0.9);
    return s;
}

std::string recordName(const RankRecord& r) {
    return r.source.empty() ? r.path : r.source;
}

} // namespace

JobReport jobReport(std::vector<RankRecord> records) {
    JobReport job;
    std::map<std::int64_t, const RankRecord*> seen;
    for (const RankRecord& r : records) {
        const auto [it, added] = seen.emplace(r.stats.rank, &r);
        if (!added)
            throw std::invalid_argument("rank " + std::to_string(r.stats.rank) +
                                        " twice: " + recordName(*it->second) + " and " + recordName(r));
    }
    std::vector<RankRecord> read;
    for (RankRecord& r : records)
        (r.error.empty() ? read : job.failed).push_back(std::move(r));
    std::sort(read.begin(), read.end(),
              [](const RankRecord& a, const RankRecord& b) { return a.stats.rank < b.stats.rank; });
    std::sort(job.failed.begin(), job.failed.end(), [](const RankRecord& a, const RankRecord& b) {
        return a.stats.rank != b.stats.rank ? a.stats.rank < b.stats.rank : a.path < b.path;
    });
    std::vector<RankStats> stats;
    std::vector<RankCollectives> collectives;
    for (const RankRecord& r : read) {
        stats.push_back(r.stats);
        collectives.push_back(r.collectives);
    }
    job.ranks = reduceRanks(std::move(stats), collectives);
    for (std::size_t k = 0; k < read.size(); ++k)
        read[k].stats = job.ranks.ranks[k]; // with their waits (both by rank)
    job.records = std::move(read);
    for (const JobMeasure& m : jobMeasures())
        job.spreads.push_back(spreadOf(job.records, m.value));
    // Slow for themselves: beyond the median by kSlowRankMads scaled MADs, and by kSlowRankMinExcess of it.
    if (job.records.size() >= 3) {
        const double median = job.spread("compute_busy").median;
        std::vector<double> deviations;
        for (const RankRecord& r : job.records)
            deviations.push_back(std::fabs(double(r.stats.computeBusyNs) - median));
        const double mad = 1.4826 * percentileOf(deviations, 0.5);
        for (const RankRecord& r : job.records) {
            const double x = double(r.stats.computeBusyNs);
            if (median > 0 && x > median + std::max(kSlowRankMads * mad, kSlowRankMinExcess * median))
                job.slowRanks.push_back({r.stats.rank, r.stats.computeBusyNs, x / median});
        }
        std::sort(job.slowRanks.begin(), job.slowRanks.end(),
                  [](const SlowRank& a, const SlowRank& b) { return a.computeBusyNs > b.computeBusyNs; });
    }
    std::optional<std::int64_t> world;
    bool oneWorld = true;
    for (const RankRecord& r : job.records) {
        if (!r.warnings.empty()) job.warned.push_back(r.stats.rank);
        if (r.worldSize) {
            oneWorld = oneWorld && (!world || *world == *r.worldSize);
            world = r.worldSize;
        }
    }
    if (oneWorld) job.worldSize = world;
    job.findings = jobFindings(job.records, job.ranks);
    return job;
}

} // namespace attnscope
