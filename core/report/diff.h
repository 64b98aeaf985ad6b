// SPDX-License-Identifier: MIT
#pragma once

// Two traces compared (naive vs flash, before vs after): per role and per kernel name, count and
// total time in each, the delta and the ratio, sorted by absolute delta, regressions marked.
#include "core/analysis/analysis.h"
#include "core/report/summary.h"

#include <string>
#include <vector>

namespace attnscope {

struct DiffRow {
    std::string key; // a role ("gemm") or a kernel name
    std::uint64_t countA = 0, countB = 0;
    TimeNs totalA = 0, totalB = 0;
    TimeNs delta() const { return totalB - totalA; }
    double ratio() const; // B / A; infinity when only B has it, 0 when only A has it
    // "1.24×", or "new" (only B has it), "gone" (only A has it).
    std::string ratioText() const;
    // A matched row that B runs at least kRegressionRatio times and kRegressionMinNs slower than A. A row
    // only B has is new, not a regression: naive → flash adds fused attention while the time drops.
    bool regression() const;
};
inline constexpr double kRegressionRatio = 1.05;
inline constexpr TimeNs kRegressionMinNs = 1000;
// "B at least 5% and 1 µs slower than A": the rule, as every view says it.
std::string regressionRule();

struct TraceDiff {
    TimeNs kernelA = 0, kernelB = 0; // all kernels' time in each
    std::vector<DiffRow> roles;      // by |delta|, then key
    std::vector<DiffRow> kernels;    // by |delta|, then key
};

// Kernels only (categories "kernel" and "Kernel"), by the analysis's roles.
TraceDiff diffTraces(const Trace& a, const TraceAnalysis& analysisA, const Trace& b,
                     const TraceAnalysis& analysisB);

// The same three forms as summary (text, JSON, CSV).
using DiffFormat = SummaryFormat;
// topKernels 0 keeps every kernel row.
std::string formatDiff(const TraceDiff& diff, const std::string& nameA, const std::string& nameB,
                       DiffFormat format, std::size_t topKernels = 0);

} // namespace attnscope
