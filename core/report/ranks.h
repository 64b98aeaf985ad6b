// SPDX-License-Identifier: MIT
#pragma once

// Several files opened as the ranks of one distributed job: one trace whose processes are grouped
// per rank, with correlation ids and flows kept per file so no link crosses ranks; and per rank
// the GPU busy time and its spread, since the slowest rank is what holds the others up.
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace attnscope {

struct RankInput {
    std::string path;
    std::shared_ptr<const Trace> trace;
};

// The rank a file is: its distributedInfo's rank, else its position among the files.
std::int64_t rankOf(const RankInput& input, std::size_t position);

// One trace with every rank's processes (named "rank N · …", grouped per rank in the timeline).
// Throws std::invalid_argument when two files claim the same rank.
std::shared_ptr<const Trace> mergeRanks(const std::vector<RankInput>& ranks);

struct RankStats {
    std::int64_t rank = 0;
    std::string path;
    std::uint64_t kernels = 0;
    TimeNs kernelNs = 0;
    TimeNs gpuBusyNs = 0; // union of the rank's kernel intervals over all its GPUs' streams
    TimeNs spanNs = 0;
};

struct RankReport {
    std::vector<RankStats> ranks; // by rank
    TimeNs minBusyNs = 0, maxBusyNs = 0, meanBusyNs = 0;
    std::int64_t slowestRank = -1; // the most GPU busy time
    double spread() const { return meanBusyNs ? double(maxBusyNs - minBusyNs) / double(meanBusyNs) : 0; }
};
RankReport rankReport(const std::vector<RankInput>& ranks);

enum class SummaryFormat;
std::string formatRankReport(const RankReport& report, SummaryFormat format);

} // namespace attnscope
