// SPDX-License-Identifier: MIT
#pragma once

// Several files opened as the ranks of one distributed job: one trace whose processes are grouped
// per rank, with correlation ids and flows kept per file so no link crosses ranks; and per rank the
// time its GPUs compute, the time they wait at collectives, and which rank the others wait for.
// GPU busy time alone misleads: a rank that reaches a collective first spends the wait inside the
// communication kernel, so the rank that waits most looks the busiest.
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace attnscope {

struct RankInput {
    std::string path;
    std::shared_ptr<const Trace> trace;
};

// "0 3 7", the first `cap` ranks, then "… (N)".
std::string rankList(const std::vector<std::int64_t>& ranks, std::size_t cap = 12);

// The rank a file is: its distributedInfo's rank, else its position among the files.
std::int64_t rankOf(const RankInput& input, std::size_t position);

// A rank's process key in the ranks' merged trace ("r3:" before the rank's own key).
std::string rankProcessKey(std::int64_t rank, std::string_view key);

// One trace with every rank's processes (named "rank N · …", grouped per rank in the timeline).
// Throws std::invalid_argument when two files claim the same rank.
std::shared_ptr<const Trace> mergeRanks(const std::vector<RankInput>& ranks);
// Ranks' traces (or steps of them) as mergeRanks puts them among the others (their processes' keys and
// names), each one's correlation ids moved by its correlationBase (mergeRanks moves rank r's into a range
// of its own; a job that grows numbers its parts in the order they come): a part to append to the merged
// trace of a growing job (growing_document.h). Each rank at most once.
struct RankPart {
    RankInput input;
    std::int64_t rank = 0;
    std::uint64_t correlationBase = 0;
};
std::shared_ptr<const Trace> rankParts(const std::vector<RankPart>& parts);

struct RankStats {
    std::int64_t rank = 0;
    std::string path;
    std::uint64_t kernels = 0;
    TimeNs kernelNs = 0;
    TimeNs gpuBusyNs = 0;           // union of the rank's kernel intervals over all its GPUs' streams
    TimeNs computeBusyNs = 0;       // the same without its communication kernels: the work it does
    TimeNs commNs = 0;              // its communication kernels' time, the waits inside them included
    TimeNs waitNs = 0;              // at the matched collectives: from its arrival to the last rank's
    std::uint64_t lastArrivals = 0; // matched collectives it reached last
    TimeNs spanNs = 0;
    TimeNs firstKernelNs = 0, lastKernelEndNs = 0; // its kernels' earliest start and latest end
};

struct RankReport {
    std::vector<RankStats> ranks;                                 // by rank
    TimeNs minBusyNs = 0, maxBusyNs = 0, meanBusyNs = 0;          // GPU busy time
    TimeNs minComputeNs = 0, maxComputeNs = 0, meanComputeNs = 0; // compute busy time
    std::int64_t mostComputeRank = -1;                            // the most compute busy time
    // Collectives matched across every rank: the n-th communication kernel of each rank, while all
    // ranks have one and its name is the same on all (the ranks' clocks are taken as one).
    std::uint64_t collectives = 0;
    std::int64_t stragglerRank = -1; // the rank the others wait for: the least wait (-1: none matched)
    // At the collectives the straggler reached last (its lastArrivals), the other ranks' waits for it,
    // summed over them: the waits for other late ranks are not its.
    TimeNs waitForStragglerNs = 0;
    // Ranks with no communication kernel, left out of the matching (when at least two others have some).
    std::vector<std::int64_t> withoutCollectives;
    // The rank that holds the job up: the straggler where collectives were matched, else the one that
    // computes most.
    std::int64_t slowestRank = -1;
    // Of the compute busy time: (max − min) / mean.
    double spread() const {
        return meanComputeNs ? double(maxComputeNs - minComputeNs) / double(meanComputeNs) : 0;
    }
    const RankStats* find(std::int64_t rank) const;
    // What each other rank waits for the straggler, on average, at the collectives it reached last (0
    // without one).
    TimeNs othersMeanWaitNs() const;
    // The one sentence every view says of the straggler: "rank 7 arrives last at 5 of the 8 collectives
    // matched on every rank, and the others wait 1.2 ms each for it there", or "" without one.
    std::string stragglerSentence() const;
    // Why the slowest rank is: "the others wait for it" (the straggler), "computes most", or "".
    std::string_view slowestWhy() const;
};
RankReport rankReport(const std::vector<RankInput>& ranks);

// The two halves of rankReport, for a job whose ranks are measured apart (a rank record each,
// rank_record.h) and put together after: what one rank's trace says of it (its busy, compute and
// communication times, its communication kernels by start) …
struct RankCollectives {
    struct Arrival {
        std::uint32_t name; // index into names
        TimeNs start;
        TimeNs duration; // a rank waits inside the kernel: never longer than it lasts
    };
    std::vector<std::string> names; // the communication kernels' names
    std::vector<Arrival> arrivals;  // by start
};
RankStats measureRank(const RankInput& input, std::size_t position, RankCollectives* collectives);
// … and what the ranks say together: the collectives matched across them, the waits, the straggler,
// the spread (collectives[k] is ranks[k]'s).
RankReport reduceRanks(std::vector<RankStats> ranks, const std::vector<RankCollectives>& collectives);

enum class SummaryFormat;
struct TraceSummary;
// The rank table in a summary format; with the job's summary, its findings after it (text) or in it
// (JSON "findings", as `summary --ranks --findings-only` prints them alone).
std::string formatRankReport(const RankReport& report, SummaryFormat format,
                             const TraceSummary* job = nullptr);
// Only the job's findings (summary --ranks --findings-only): JSON {"findings":[…]}, the findings' text,
// or their CSV rows under the job's name.
std::string formatJobFindings(const TraceSummary& job, const std::string& name, SummaryFormat format);

} // namespace attnscope
