// SPDX-License-Identifier: MIT
#pragma once

// The reduce of a job's rank records (rank_record.h) into its report: the spread of each measure, the slow
// ranks, the straggler, the findings across ranks, and the report's formats (`attnscope job`).
#include "core/report/rank_record.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// A measure across the ranks that have it.
struct Spread {
    double median = 0, p90 = 0, max = 0;
    std::int64_t maxRank = -1;
};

// A rule's finding over the job (job_findings.h).
struct JobFinding {
    std::string id;
    Severity severity = Severity::Info; // from its share, as any finding's
    // The rank with most at stake's own title and where it holds ("… (rank 1; on 2 of 8 ranks)"); the
    // job's rules' own.
    std::string title;
    std::string explanation; // how the ranks' figures add up; the job's rules: what they measured
    std::string suggestion;  // the job's rules' (each rank's own rule says its own, in the window)
    std::int64_t titleRank = -1;
    std::vector<std::int64_t> ranks; // the ranks it holds on, by rank
    // Its ranks are the ones that wait for the title's rank (the straggler's finding), not ones it holds
    // on: "on 1 of 2 ranks: 1" under "Rank 0 is the straggler" read as a second answer.
    bool ranksWait = false;
    TimeNs totalNs = 0; // at stake, summed over its ranks (each rank's own time)
    // The time at stake: per rank of the job (totalNs over the ranks read); the straggler's, the time
    // each other rank waits for it.
    TimeNs meanNs = 0;
    double share = 0; // meanNs of the job's span
    TimeNs maxNs = 0;
    std::int64_t maxRank = -1;
};

inline constexpr double kSlowRankMads = 3;
inline constexpr double kSlowRankMinExcess = 0.05;
// "beyond the median by 3 median absolute deviations": what makes a rank slow, as every view says it.
std::string slowRankRule();

struct SlowRank {
    std::int64_t rank = 0;
    TimeNs computeBusyNs = 0;
    double overMedian = 0; // compute busy / the median's
};

// The measures a job is read by, in the report's order: its name, its key in JSON ("gpu_busy"), and a
// rank's value (ns).
struct JobMeasure {
    const char* name;
    const char* key;
    TimeNs (*value)(const RankRecord&);
};
const std::vector<JobMeasure>& jobMeasures();
// Its attention calls' time, summed over the implementations.
TimeNs attentionNs(const RankRecord& record);
// Its communication kernels' share of its GPU busy time.
double communicationShare(const RankStats& stats);

struct JobReport {
    RankReport ranks;                // the ranks read, by rank (as summary --ranks)
    std::vector<RankRecord> records; // the same order, each rank's record
    std::vector<RankRecord> failed;  // ranks whose trace could not be read, by rank then path
    std::vector<Spread> spreads;     // per jobMeasures()
    const Spread& spread(std::string_view key) const; // by the measure's key
    // Ranks whose compute busy time lies beyond the median by more than kSlowRankMads scaled median
    // absolute deviations (and kSlowRankMinExcess of the median): slow for themselves, not by one
    // outlier's pull on a mean.
    std::vector<SlowRank> slowRanks;
    std::vector<JobFinding> findings;      // most total time at stake first
    std::vector<std::int64_t> warned;      // ranks whose trace was read with warnings
    std::optional<std::int64_t> worldSize; // what the records say, when they agree
};

// Throws std::invalid_argument when two records claim one rank (naming both files).
JobReport jobReport(std::vector<RankRecord> records);

enum class JobFormat { Text, Json, Csv, Markdown };
std::string formatJobReport(const JobReport& report, JobFormat format);

} // namespace attnscope
