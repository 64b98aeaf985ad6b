// SPDX-License-Identifier: MIT
#pragma once

// The findings of a job of ranks: one computation for `attnscope job`, `summary --ranks`, the window
// opened on several ranks and the Job window. Each rank's rules run on its own trace alone (what its rank
// record holds); the job puts them together by rule, the time at stake the mean per rank of the job, and
// adds what only the ranks together say: the straggler the others wait for (rank_imbalance), and the
// communication left exposed once the waits for it are taken out (exposed_communication).
#include "core/report/findings.h"
#include "core/report/job_report.h"

#include <cstdint>
#include <vector>

namespace attnscope {

// The job's span: the first rank's start to the last rank's end (at least 1).
TimeNs jobSpanNs(const std::vector<RankRecord>& records);

// The job's findings from its records (their waits filled by the reduce: jobReport), the most time at
// stake per rank first (then in the rules' order).
std::vector<JobFinding> jobFindings(const std::vector<RankRecord>& records, const RankReport& ranks,
                                    const FindingThresholds& thresholds = FindingThresholds::standard());

// What a rank's own rules said, with the trace and analysis they read.
struct RankFindings {
    std::int64_t rank = 0;
    const Trace* trace = nullptr;
    const TraceAnalysis* analysis = nullptr;
    std::vector<Finding> findings;
};

// The job's findings as findings of the ranks' merged trace (mergeRanks), for the window and `summary
// --ranks`: each the same title, time at stake, share and severity as the job's, its explanation, fix and
// places from the ranks' own findings (the rank with most at stake first), each place found again in
// the merged trace.
std::vector<Finding> jobFindingsInTrace(const std::vector<JobFinding>& job,
                                        const std::vector<RankFindings>& ranks, const Trace& merged,
                                        const FindingThresholds& thresholds = FindingThresholds::standard());

} // namespace attnscope
