// SPDX-License-Identifier: MIT
#pragma once

// A job of many ranks, summarized as map and reduce: each rank's trace is read where it lies into a rank
// record (`attnscope summary TRACE --format rank`: kilobytes of JSON, versioned, docs/RANK_RECORD.md), and
// the records are put together into the job's report (job_report.h) without a trace open. The per-rank
// times and the collectives' waits are the ones `summary --ranks` gives for the same files: both go
// through measureRank and reduceRanks (ranks.h). Here: the record, its files and its JSON.
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

// The numbers of the ProfilerStep#N ranges on the trace's CPU threads, each once, in order (a profile's
// steps: what a saving per step is over).
std::vector<std::int64_t> profilerSteps(const Trace& trace);

// The record of one trace, from its summary with the analysis' sections (a document's); position: its
// place among the job's files (its rank when the trace does not say).
RankRecord rankRecord(const std::shared_ptr<const Trace>& trace, const TraceSummary& summary,
                      std::string path, std::size_t position = 0, std::size_t topKernels = 10);
// The two halves of rankRecord, for a rank whose trace grows step by step (growing_document.h): what its
// trace says of it before any analysis (its steps, times and collectives) …
RankRecord measuredRankRecord(const std::shared_ptr<const Trace>& trace, std::string path,
                              std::size_t position = 0);
// … joined with its next step's (whole: the rank's trace with the step in it); false, and into unchanged,
// when the step's kernels start before the earlier ones end (their unions do not add up: measure whole
// again) …
bool joinMeasured(RankRecord& into, const RankRecord& step, const Trace& whole);
// … and what its summary says (roles, attention, findings, the top kernels).
void addSummary(RankRecord& record, const TraceSummary& summary, std::size_t topKernels = 10);
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

} // namespace attnscope
