// SPDX-License-Identifier: MIT
#include "invariants_support.h"

#include "analysis_test_support.h"

#include "core/report/compare.h"

#include <gtest/gtest.h>

namespace attnscope::test {

void expectInvariants(const Document& d, const std::string& label) {
    SCOPED_TRACE(label);
    ASSERT_TRUE(d.trace && d.analysis && d.summary && d.findings);
    const Trace& t = *d.trace;
    const TraceAnalysis& a = *d.analysis;
    const TraceSummary& s = *d.summary;
    auto dur = [&](EventRef e) { return t.track(e.track).events.duration[e.index]; };

    // Roles and verdicts add to the kernel time, and both to the summary's.
    const RoleTimes roles = a.tables.allRoleTimes();
    TimeNs verdictNs = 0, allNs = 0;
    std::uint64_t verdictCount = 0, roleCount = 0;
    for (std::size_t v = 0; v < kVerdictCount; ++v) {
        verdictNs += a.tables.verdictNs[v];
        verdictCount += a.tables.verdictCount[v];
    }
    for (std::uint64_t n : roles.count)
        roleCount += n;
    for (const KernelAnalysis& k : a.kernels)
        allNs += dur(k.event);
    EXPECT_EQ(verdictNs, roles.total());
    EXPECT_EQ(verdictCount, roleCount);
    EXPECT_EQ(roles.total(), s.kernelNs);
    EXPECT_EQ(roleCount, s.kernelCount);
    TimeNs summaryVerdicts = 0;
    for (const auto& v : s.verdicts)
        summaryVerdicts += v.totalNs;
    EXPECT_EQ(summaryVerdicts, roles.total());

    // A kernel in at most one call, and the call it says; calls within the trace.
    std::vector<int> callOf(a.kernels.size(), -1);
    for (std::size_t c = 0; c < a.calls.size(); ++c) {
        const AttentionCall& call = a.calls[c];
        EXPECT_FALSE(call.kernels.empty()) << "call " << c;
        EXPECT_LE(call.start, call.end) << "call " << c;
        EXPECT_LE(call.duration(), s.spanNs) << "call " << c;
        EXPECT_LE(call.kernelCount, call.kernels.size()) << "call " << c;
        for (std::uint32_t k : call.kernels) {
            ASSERT_LT(k, a.kernels.size());
            // A call is bounded by what made it: no GEMM that is not its QKᵀ or PV (a model's projections in
            // a range around a whole forward are not attention).
            EXPECT_NE(a.kernels[k].role, KernelRole::Gemm)
                << "call " << c << ": " << nameOf(t, a.kernels[k].event);
            EXPECT_EQ(callOf[k], -1) << "kernel " << k << " in calls " << callOf[k] << " and " << c;
            callOf[k] = int(c);
            EXPECT_EQ(a.kernels[k].call, int(c)) << "kernel " << k;
        }
        if (c > 0) {
            EXPECT_LE(a.calls[c - 1].start, call.start) << "calls by start";
        }
    }
    for (std::size_t k = 0; k < a.kernels.size(); ++k)
        EXPECT_EQ(a.kernels[k].call, callOf[k]) << "kernel " << k;
    // A backward pass's kernels are in no call and one call's backward each, after its call's start; its
    // time per call no more than the span.
    std::vector<std::uint8_t> inBackward(a.kernels.size(), 0);
    for (std::size_t c = 0; c < a.calls.size(); ++c)
        for (std::uint32_t k : a.calls[c].backward) {
            ASSERT_LT(k, a.kernels.size());
            EXPECT_EQ(callOf[k], -1) << "backward kernel " << k << " of call " << c;
            EXPECT_FALSE(inBackward[k]++) << "kernel " << k << " in two calls' backward";
            EXPECT_GE(t.track(a.kernels[k].event.track).events.start[a.kernels[k].event.index],
                      a.calls[c].start);
        }
    for (const ImplCalls& impl : a.tables.implCalls) {
        EXPECT_LE(impl.backwardCalls, impl.calls) << impl.impl;
        if (const auto backward = impl.backwardNsPerCall()) {
            EXPECT_LE(*backward, s.spanNs) << impl.impl;
        }
    }

    // Implementations' calls add to the calls; their kernels and time lie within the trace's.
    std::uint64_t implCalls = 0, implKernels = 0;
    TimeNs implNs = 0;
    for (const ImplCalls& impl : a.tables.implCalls) {
        implCalls += impl.calls;
        implKernels += impl.kernels;
        implNs += impl.kernelNs;
        EXPECT_GT(impl.calls, 0u) << impl.impl;
    }
    EXPECT_EQ(implCalls, a.calls.size());
    EXPECT_EQ(s.attentionCalls, a.calls.size());
    EXPECT_LE(implKernels, a.kernels.size());
    EXPECT_LE(implNs, allNs);
    for (std::size_t i = 1; i < a.tables.implCalls.size(); ++i)
        EXPECT_GE(a.tables.implCalls[i - 1].calls, a.tables.implCalls[i].calls) << "most-called first";
    // compare counts the same calls.
    const ComparedTrace compared = compareEntry(d, label);
    std::uint64_t comparedCalls = 0;
    for (const CompareRow& row : compared.rows)
        comparedCalls += row.impl.empty() ? 0 : row.calls.calls;
    EXPECT_EQ(comparedCalls, a.calls.size());
    // A bar of a row's roles per call is as tall as the row's kernel time per call: one answer.
    for (const CompareRow& row : compared.rows) {
        if (!row.calls.calls || !row.roles.total()) continue;
        double bar = 0;
        for (double part : row.roleNsPerCall())
            bar += part;
        EXPECT_NEAR(bar, double(row.calls.kernelNsPerCall()), 1.0) << row.impl;
    }

    // Verdicts that hold: rates under the roofs they were held to, latency-bound only for small work, beyond
    // a roof named so; the roofline's points no further than their kernels.
    std::uint64_t beyond = 0;
    for (const KernelAnalysis& k : a.kernels) {
        const std::string name = nameOf(t, k.event);
        EXPECT_EQ(k.beyondRoof, k.verdict == Verdict::BeyondRoof) << name;
        const Track& track = t.track(k.event.track);
        beyond += k.beyondRoof && isKernelEvent(t, track, k.event.index); // copies are not the roofline's
        if (k.cost == CostSource::Unknown) {
            EXPECT_EQ(k.verdict, Verdict::Unknown) << name;
        }
        if (k.verdict == Verdict::Unknown || k.verdict == Verdict::BeyondRoof) continue;
        EXPECT_LE(k.computeShare, 1 + 1e-9) << name;
        EXPECT_LE(k.memoryShare, 1 + 1e-9) << name;
        const DeviceSpec* roofs = a.roofsOf(t, k.event);
        ASSERT_NE(roofs, nullptr) << name;
        if (k.verdict == Verdict::LatencyBound) {
            EXPECT_TRUE(tooSmallToFill(k, *roofs)) << name;
            EXPECT_LT(double(track.events.duration[k.event.index]), kLatencyMaxSeconds * 1e9) << name;
        }
    }
    EXPECT_EQ(beyond, a.beyondRoof()); // the header's count is the verdict table's
    for (const RooflinePoint& p : a.tables.roofline) {
        if (!p.costed) continue;
        // A row's rates are of its costed kernels, and so is its verdict: never "unknown" beside rates.
        EXPECT_TRUE(p.verdict == Verdict::MemoryBound || p.verdict == Verdict::ComputeBound ||
                    p.verdict == Verdict::LatencyBound)
            << t.str(p.name);
        EXPECT_LE(p.costedCount, p.count) << t.str(p.name);
        EXPECT_LE(p.computeShare, 1 + 1e-9) << t.str(p.name);
        EXPECT_LE(p.memoryShare, 1 + 1e-9) << t.str(p.name);
        EXPECT_GT(p.bytesPerSec, 0) << t.str(p.name) << ": a costed point has its bandwidth";
        // A reader's division: the rates are the costed kernels' FLOPs and bytes over their time.
        EXPECT_NEAR(p.bytesPerSec, p.bytes / (double(p.costedNs) * 1e-9), 1e-9 * p.bytesPerSec)
            << t.str(p.name);
        EXPECT_LE(p.costedCount, p.count) << t.str(p.name);
        EXPECT_LE(p.costedNs, p.totalNs) << t.str(p.name);
    }

    // Findings: no share above 100%, no time at stake above the span that holds it (one trace), a title of
    // one line, no more places shown than counted.
    for (const Finding& f : *d.findings) {
        EXPECT_GE(f.timeNs, 0) << f.id;
        EXPECT_GE(f.share, 0) << f.id;
        EXPECT_LE(f.share, 1 + 1e-9) << f.id;
        EXPECT_LE(f.timeNs, s.spanNs) << f.id; // a job's: per rank, of the job's span
        EXPECT_EQ(f.title.find('\n'), std::string::npos) << f.id;
        EXPECT_LE(f.title.size(), kFindingTitleMax) << f.id << ": " << f.title;
        EXPECT_LE(f.evidence.size(), std::max<std::uint64_t>(f.count, 1)) << f.id;
    }

    // The same trace, the same answer, on one thread as on many.
    const DeviceSpec* cpu = a.cpuShare && t.info().opKernels ? &*a.cpuShare : nullptr;
    if (!a.cpuShare || cpu) {
        const TraceAnalysis again =
            analyzeTrace(t, cpu, DeviceSpecs::standard(), RoleRules::standard(), nullptr, 1);
        ASSERT_EQ(again.calls.size(), a.calls.size());
        for (std::size_t c = 0; c < a.calls.size(); ++c) {
            EXPECT_EQ(again.calls[c].impl, a.calls[c].impl);
            EXPECT_EQ(again.calls[c].kernels, a.calls[c].kernels);
        }
        ASSERT_EQ(again.kernels.size(), a.kernels.size());
        for (std::size_t k = 0; k < a.kernels.size(); ++k) {
            EXPECT_EQ(again.kernels[k].role, a.kernels[k].role);
            EXPECT_EQ(again.kernels[k].verdict, a.kernels[k].verdict);
        }
    }
}

} // namespace attnscope::test
