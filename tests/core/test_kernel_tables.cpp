// SPDX-License-Identifier: MIT
// The analysis' per-name tables (kernel_tables.h) that every view reads: time per role grouped by the
// implementation of each call, the roofline points, and each name's role and verdict.
#include "analysis_test_support.h"
#include "core/analysis/analysis.h"
#include "core/report/summary.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

namespace {
const ImplRoleTimes* group(const KernelTables& t, const std::string& impl) {
    for (const ImplRoleTimes& g : t.roleTimes)
        if (g.impl == impl) return &g;
    return nullptr;
}
} // namespace

// cpuRunTraceText: on each of two workers, a naive call (QKᵀ 9 ms, softmax 3 ms, PV 9 ms) — the run's
// call 0 — and a flash call (15 ms), call 1.
TEST(KernelTables, TimePerRoleByTheImplementationOfEachCall) {
    const auto t = loadText(cpuRunTraceText());
    DeviceSpec cpu;
    cpu.name = "test CPU";
    cpu.fp32 = 1e15;
    cpu.bandwidth = 1e13;
    const TraceAnalysis a = analyzeTrace(*t, &cpu);
    const KernelTables& tables = a.tables;
    ASSERT_EQ(tables.roleTimes.size(), 2u); // naive and flash, nothing outside a call
    const ImplRoleTimes* naive = group(tables, "naive");
    const ImplRoleTimes* flash = group(tables, "flash");
    ASSERT_TRUE(naive && flash);
    EXPECT_EQ(group(tables, ""), nullptr);
    EXPECT_EQ(naive->times.ns[std::size_t(KernelRole::QkGemm)], 2 * 9'000'000);
    EXPECT_EQ(naive->times.ns[std::size_t(KernelRole::Softmax)], 2 * 3'000'000);
    EXPECT_EQ(naive->times.ns[std::size_t(KernelRole::PvGemm)], 2 * 9'000'000);
    EXPECT_EQ(naive->times.count[std::size_t(KernelRole::QkGemm)], 2u);
    EXPECT_EQ(flash->times.ns[std::size_t(KernelRole::FusedAttention)], 2 * 15'000'000);
    EXPECT_EQ(tables.allRoleTimes().total(), summarize(*t, 0).kernelNs);
    // A point per name (each plays one role here), all costed, none over its roofs.
    ASSERT_EQ(tables.roofline.size(), 4u);
    EXPECT_EQ(t->str(tables.roofline.front().name), "flash_forward"); // the most time first
    for (const RooflinePoint& p : tables.roofline) {
        EXPECT_TRUE(p.costed) << t->str(p.name);
        EXPECT_EQ(p.count, 2u);
        EXPECT_TRUE(p.onCpu);
        EXPECT_LE(p.computeShare, 1.0);
        EXPECT_LE(p.memoryShare, 1.0);
        EXPECT_NE(p.verdict, Verdict::Unknown);
    }
    std::uint64_t verdicts = 0;
    for (std::uint64_t n : tables.verdictCount)
        verdicts += n;
    EXPECT_EQ(verdicts, 8u);
}

// A name whose kernels play two roles for exactly as long takes the first role in role order, the
// same on every open (not the order of a hash map).
TEST(KernelTables, ATieBetweenRolesGoesToTheFirstRole) {
    const auto t = loadText(R"({"traceEvents":[
      {"ph":"M","name":"process_labels","pid":1,"args":{"labels":"CPU"}},
      {"ph":"X","cat":"kernel","name":"bmm","pid":1,"tid":1,"ts":0,"dur":10,"args":{"role":"pv_gemm","impl":"naive","call":0,"flops":1,"bytes":1}},
      {"ph":"X","cat":"kernel","name":"bmm","pid":1,"tid":1,"ts":20,"dur":10,"args":{"role":"qk_gemm","impl":"naive","call":0,"flops":1,"bytes":1}}]})");
    const TraceAnalysis a = analyzeTrace(*t);
    const StringId bmm = t->track(TrackId(0)).events.name[0];
    ASSERT_TRUE(a.tables.classes.role[bmm.value]);
    EXPECT_EQ(*a.tables.classes.role[bmm.value], KernelRole::QkGemm);
    EXPECT_TRUE(a.tables.classes.severalRoles[bmm.value]);
}

// Implementations are listed most-called first (compare's baseline is the first): three naive calls before
// one flash call, though "flash" sorts first by name; a tie keeps the names' order.
TEST(KernelTables, ImplementationsAreListedMostCalledFirst) {
    std::vector<std::tuple<const char*, int, int>> kernels;
    kernels.push_back({"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>", 7, 30});
    for (int i = 0; i < 3; ++i)
        for (const char* k : {gemm, softmax, gemm})
            kernels.push_back({k, 7, 10});
    const auto t = a100Kernels(kernels);
    const TraceAnalysis a = analyzeTrace(*t);
    ASSERT_EQ(a.tables.implCalls.size(), 2u);
    EXPECT_EQ(a.tables.implCalls[0].impl, "naive");
    EXPECT_EQ(a.tables.implCalls[0].calls, 3u);
    EXPECT_EQ(a.tables.implCalls[1].impl, "flash");
    EXPECT_EQ(a.tables.implCalls[1].calls, 1u);
}
