// SPDX-License-Identifier: MIT
#pragma once

// A job of many ranks, summarized as map and reduce: each rank's trace is read where it lies into a rank
// record (`attnscope summary TRACE --format rank`: kilobytes of JSON, versioned, docs/RANK_RECORD.md), and
// the records are put together into the job's report (`attnscope job RECORDS…`) without a trace open. The
// per-rank times and the collectives' waits are the ones `summary --ranks` gives for the same files: both
// go through measureRank and reduceRanks (ranks.h).
#include "core/report/ranks.h"
#include "core/report/summary.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

inline constexpr int kRankRecordVersion = 1;

struct RecordFinding {
    std::string id;
    Severity severity = Severity::Info;
    std::string title;
    TimeNs timeNs = 0; // at stake
    double share = 0;  // of the rank's span
};

struct RecordKernel {
    std::string name;
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
};

struct RecordImpl {
    std::string impl;
    std::uint64_t calls = 0;
    TimeNs totalNs = 0;  // first kernel's start to last kernel's end, summed over calls
    TimeNs kernelNs = 0; // the calls' kernels' time
};

struct RankRecord {
    std::string path;   // the trace the record was made from
    std::string source; // the record's own file, when read from one
    std::string error;  // the trace could not be read: why (the rest is empty)
    std::optional<std::int64_t> worldSize;
    std::vector<std::int64_t> steps;   // the ProfilerStep#N ranges the trace holds
    std::vector<std::string> warnings; // what the reader said of the trace (a truncated file, …)
    TimeNs startNs = 0;
    RankStats stats; // rank, path, kernels, busy, compute, communication (waits: filled by the reduce)
    RankCollectives collectives;
    std::vector<RoleStats> roles;         // kernel time by role
    std::vector<RecordImpl> attention;    // calls and time per implementation
    std::vector<RecordFinding> findings;  // most time at stake first
    std::vector<RecordKernel> topKernels; // by total time
};

// The record of one trace, from its summary with the analysis' sections (a document's); position: its
// place among the job's files (its rank when the trace does not say).
RankRecord rankRecord(const std::shared_ptr<const Trace>& trace, const TraceSummary& summary,
                      std::string path, std::size_t position = 0, std::size_t topKernels = 10);
// A record that says the trace at path could not be read.
RankRecord failedRankRecord(std::string path, std::string error, std::int64_t rank);

// The record files at these paths, in order: a file as given, a folder's *.json and *.jsonl by name (a
// folder that cannot be listed is said in problems).
std::vector<std::string> rankRecordFiles(const std::vector<std::string>& paths,
                                         std::vector<std::string>& problems);
// The records of a file, a JSON line each, appended to records; what cannot be read is said in problems (a
// file whose first record fails, a trace given for records, once, not a line each). False when anything
// failed.
bool readRankRecords(const std::string& path, std::vector<RankRecord>& records,
                     std::vector<std::string>& problems);

std::string rankRecordJson(const RankRecord& record);
// Throws std::runtime_error naming `source` when the text is not a rank record of a version this reads.
RankRecord parseRankRecord(std::string_view text, const std::string& source);

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
    TimeNs totalNs = 0;              // at stake, summed over its ranks (each rank's own time)
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
