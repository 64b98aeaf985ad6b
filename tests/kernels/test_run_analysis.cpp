// SPDX-License-Identifier: MIT
// What the analysis and the findings make of a CPU run: roles and FLOPs as the workload wrote them, verdicts
// against fixed roofs that never move, naive attention's finding with its time at stake measured where the run
// holds flash, and a what-if's saving said with its spread.
#include "kernels/run_session.h"
#include "kernels/whatif.h"

#include "core/analysis/analysis.h"
#include "core/analysis/machine_roofs.h"
#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "core/model/sorting.h"
#include "core/report/findings.h"
#include "core/report/format.h"
#include "core/report/rank_record.h"
#include "support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

// A CPU of fixed roofs for verdict tests, so no verdict depends on what a measurement of the moment
// gave on a loaded machine: 100 GFLOP/s and 2 GB/s for all cores, the ridge at 50 FLOP/byte.
DeviceSpec fixedCpu() {
    DeviceSpec cpu;
    cpu.name = "test CPU";
    cpu.source = "fixed for the tests";
    // Above what two cores do, cache included (a kernel beyond its roof gets no verdict, and roofs
    // never move), with the ridge (10 FLOP/byte) far right of the softmax's 0.625.
    cpu.fp32 = 1e12;
    cpu.bandwidth = 100e9;
    return cpu;
}

// The trace of a CPU run of these implementations at this shape, two calls each and no warm-up.
std::shared_ptr<const Trace> twoCallsEach(std::vector<std::string> impls, AttentionShape shape) {
    RunConfig c;
    c.shape = shape;
    c.impls = std::move(impls);
    c.warmup = 0;
    c.iters = 2;
    RunSession session(c);
    session.start();
    session.wait();
    EXPECT_EQ(session.error(), "");
    return buildRunTrace(session.takeEvents());
}

} // namespace

// The issue's check on the project's own CPU run: the analysis reads roles and FLOPs exactly as the
// workload wrote them, and naive attention's softmax is memory-bound on this machine's measured roofs.
TEST(RunSession, OwnCpuRunOnTheRoofline) {
    const AttentionShape shape{1, 8, 1024, 64, false, Precision::F32};
    const auto trace = twoCallsEach(RunConfig().impls, shape);
    const DeviceSpec cpu = fixedCpu();
    const TraceAnalysis a = analyzeTrace(*trace, &cpu);
    std::map<KernelRole, double> flops;
    for (const KernelAnalysis& k : a.kernels) {
        EXPECT_EQ(k.cost, CostSource::Exact);
        flops[k.role] += k.flops;
    }
    // Per call the workers' shares add up to the workload's own numbers: 2 measured calls.
    for (auto [role, workload] : {std::pair{KernelRole::QkGemm, KernelRole::QkGemm},
                                  std::pair{KernelRole::Softmax, KernelRole::Softmax},
                                  std::pair{KernelRole::PvGemm, KernelRole::PvGemm},
                                  std::pair{KernelRole::FusedAttention, KernelRole::FusedAttention}})
        EXPECT_NEAR(flops[role], 2 * kernelCost(shape, workload).flops, 1e-6 * flops[role])
            << roleName(role);
    // The calls are the run's own: 2 per implementation.
    int naiveCalls = 0, flashCalls = 0;
    for (const AttentionCall& call : a.calls) {
        naiveCalls += call.impl == "naive";
        flashCalls += call.impl == "flash";
    }
    EXPECT_EQ(naiveCalls, 2);
    EXPECT_EQ(flashCalls, 2);
}

// The findings of a real run: naive attention is hand-written attention (one finding, each naive call
// counted, its softmax kernels as the places); a flash-only run raises no such finding.
TEST(RunSession, NaiveRunsRaiseHandWrittenAttentionAndFlashRunsDoNot) {
    auto findingsOf = [](std::vector<std::string> impls) {
        const auto trace = twoCallsEach(std::move(impls), {1, 4, 512, 64, false, Precision::F32});
        const DeviceSpec cpu = fixedCpu();
        return findFindings({*trace, analyzeTrace(*trace, &cpu)});
    };
    const auto naive = findingsOf({"naive", "flash"});
    const auto hand = std::find_if(naive.begin(), naive.end(),
                                   [](const Finding& f) { return f.id == "hand_written_attention"; });
    ASSERT_NE(hand, naive.end());
    EXPECT_NE(hand->title.find(": 2 calls materialize"), std::string::npos) << hand->title;
    EXPECT_EQ(hand->count, 4u); // the softmax kernels of both calls on both workers
    ASSERT_FALSE(hand->evidence.empty());
    for (const Evidence& e : hand->evidence)
        EXPECT_EQ(e.name, "naive_softmax");
    EXPECT_LE(hand->share, 1.0);
    // The run measured flash on the same shape: the time at stake is that measured saving, said so.
    EXPECT_NE(hand->explanation.find("Measured in this trace: flash's 2 calls of the same shape"),
              std::string::npos)
        << hand->explanation;
    if (hand->timeNs == 0) {
        EXPECT_NE(hand->explanation.find("saves nothing"), std::string::npos) << hand->explanation;
    }
    for (const Finding& f : findingsOf({"flash"}))
        EXPECT_NE(f.id, "hand_written_attention");
}

// A measured saving beats an estimated one: where a run holds flash's calls of the naive calls' shape, the
// finding's time at stake is the naive calls' kernel time less flash's per call (the tables' figures),
// and with only naive calls it is the roofs' estimate, said so.
TEST(RunSession, HandWrittenAttentionsTimeAtStakeIsMeasuredWhereTheRunHoldsFlash) {
    auto run = [](std::vector<std::string> impls) {
        return twoCallsEach(std::move(impls), {1, 8, 1024, 64, false, Precision::F32});
    };
    const DeviceSpec cpu = fixedCpu();
    const auto both = run({"naive", "flash"});
    const TraceAnalysis a = analyzeTrace(*both, &cpu);
    const auto findings = findFindings({*both, a});
    const auto hand = std::find_if(findings.begin(), findings.end(),
                                   [](const Finding& f) { return f.id == "hand_written_attention"; });
    ASSERT_NE(hand, findings.end());
    const auto flashRow = std::find_if(a.tables.implCalls.begin(), a.tables.implCalls.end(),
                                       [](const ImplCalls& r) { return r.impl == "flash"; });
    ASSERT_NE(flashRow, a.tables.implCalls.end());
    const ImplCalls& flash = *flashRow;
    const TimeNs flashPerCall = flash.kernelNs / TimeNs(flash.calls);
    TimeNs expected = 0;
    for (const AttentionCall& call : a.calls) {
        if (call.impl != "naive") continue;
        std::vector<std::pair<TimeNs, TimeNs>> ran;
        for (std::uint32_t k : call.kernels) {
            const Track& t = both->track(a.kernels[k].event.track);
            ran.emplace_back(t.events.start[a.kernels[k].event.index], t.end(a.kernels[k].event.index));
        }
        expected += std::max<TimeNs>(0, unionLength(ran) - flashPerCall);
    }
    EXPECT_EQ(hand->timeNs, expected);
    EXPECT_NE(hand->explanation.find("took " + formatDuration(flashPerCall) + " a call"), std::string::npos)
        << hand->explanation;
    // Naive alone: nothing measured to hold it to, the roofs' estimate.
    const auto alone = run({"naive"});
    const auto only = findFindings({*alone, analyzeTrace(*alone, &cpu)});
    const auto estimated = std::find_if(only.begin(), only.end(),
                                        [](const Finding& f) { return f.id == "hand_written_attention"; });
    ASSERT_NE(estimated, only.end());
    EXPECT_EQ(estimated->explanation.find("Measured in this trace"), std::string::npos);
    EXPECT_NE(estimated->explanation.find("At the device's roofs"), std::string::npos)
        << estimated->explanation;
}

// The verdict depends on the machine running optimized code: a sanitizer or debug build runs the
// softmax an order of magnitude slower, and it is then rightly latency-bound.
// Naive attention's softmax reads and writes the N×N scores for a few FLOPs per element: it lies left
// of any CPU's ridge, on the memory side, whatever the machine's speed (roofs fixed: on a loaded
// machine a measured roof of the moment once made this flaky). Each worker's share is memory-bound,
// or latency-bound only if it reached under a tenth of its 50 GB/s share.
TEST(RunSession, OwnCpuSoftmaxIsMemoryBound) {
    const auto trace = twoCallsEach({"naive"}, {1, 8, 1024, 64, false, Precision::F32});
    const DeviceSpec cpu = fixedCpu();
    const TraceAnalysis a = analyzeTrace(*trace, &cpu);
    ASSERT_TRUE(a.cpuShare);
    const double ridge = a.cpuShare->fp32 / a.cpuShare->bandwidth;
    int softmax = 0, memoryBound = 0;
    for (const KernelAnalysis& k : a.kernels) {
        if (k.role != KernelRole::Softmax) continue;
        ++softmax;
        // By hand: 5 FLOPs per score (scale, max, exp, sum, divide) over its 4-byte read and write.
        EXPECT_DOUBLE_EQ(k.intensity, 5.0 / 8.0);
        EXPECT_LT(k.intensity, ridge);
        EXPECT_NE(k.verdict, Verdict::ComputeBound);
        memoryBound += k.verdict == Verdict::MemoryBound;
    }
    ASSERT_EQ(softmax, 2 * 2); // two calls, two workers
    EXPECT_GT(memoryBound, 0);
}

// No share is ever above its roof, and no roof moves: a kernel that beats its roof (roofs far too
// low, as a cache measured on a busy machine would hold) has no verdict and says so, and the roofs
// stay as given. A run made here is held to this machine's roofs; the same trace from another host
// gets none unless the user says so.
TEST(RunSession, NoKernelExceedsItsRoofAndRoofsNeverMove) {
    RunConfig c;
    c.shape = {1, 4, 512, 64, false, Precision::F32};
    c.warmup = 0;
    c.iters = 1;
    c.threads = 2;
    RunSession session(c);
    session.start();
    session.wait();
    ASSERT_EQ(session.error(), "");
    const auto trace = buildRunTrace(session.takeEvents());
    EXPECT_EQ(trace->info().hostName, thisHostName());
    auto withinRoofs = [](const TraceAnalysis& a) {
        int placed = 0;
        for (const KernelAnalysis& k : a.kernels) {
            if (k.verdict == Verdict::Unknown || k.verdict == Verdict::BeyondRoof) {
                EXPECT_EQ(k.verdict, Verdict::BeyondRoof); // every kernel of a run has its exact cost
                EXPECT_TRUE(k.beyondRoof);
                EXPECT_TRUE(k.computeShare > 1 || k.memoryShare > 1);
                continue;
            }
            ++placed;
            EXPECT_LE(k.computeShare, 1.0);
            EXPECT_LE(k.memoryShare, 1.0);
        }
        return placed;
    };
    std::string why;
    const auto roofs = cpuRoofsFor(*trace, CpuRoofsChoice::Auto, why);
    ASSERT_TRUE(roofs) << why;
    const TraceAnalysis machine = analyzeWithCpuRoofs(*trace, roofs);
    ASSERT_TRUE(machine.cpuShare);
    // The machine's bandwidth roof is DRAM's: a kernel whose data is still in cache can beat it (and
    // then has no verdict), so how many are placed under it depends on the run (the tests' order made
    // it none). Each is either placed under its roofs or beyond them and says so; roofs far above any
    // kernel place every one.
    (void)withinRoofs(machine);
    DeviceSpec high = roofs->allCoresSpec();
    high.fp32 = 1e18;
    high.bandwidth = 1e18;
    high.fp16 = 0;
    const TraceAnalysis roomy = analyzeTrace(*trace, &high);
    ASSERT_FALSE(roomy.kernels.empty());
    EXPECT_EQ(withinRoofs(roomy), int(roomy.kernels.size()));

    DeviceSpec low = roofs->allCoresSpec();
    low.fp32 = 1e6; // 1 MFLOP/s and 1 MB/s for all cores: every kernel beats its workers' share
    low.bandwidth = 1e6;
    low.fp16 = 0;
    const TraceAnalysis beaten = analyzeTrace(*trace, &low);
    ASSERT_TRUE(beaten.cpuShare);
    EXPECT_DOUBLE_EQ(beaten.cpuShare->fp32, 0.5e6); // each of the two workers: half, as given
    EXPECT_DOUBLE_EQ(beaten.cpuShare->bandwidth, 0.5e6);
    EXPECT_EQ(withinRoofs(beaten), 0);
    EXPECT_EQ(beaten.beyondRoof(), beaten.kernels.size());

    // The same run as if saved on another machine: its CPU's roofs are unknown unless asked for.
    const test::TempDir dir;
    const std::string path = dir.path("other_host.json");
    writeChromeTrace(*trace, path);
    std::string text = test::readAllBytes(path);
    const std::string host = "\"host_name\":\"" + thisHostName() + "\"";
    ASSERT_NE(text.find(host), std::string::npos);
    text.replace(text.find(host), host.size(), "\"host_name\":\"elsewhere-gpu-node\"");
    const auto other = test::loadText(text);
    EXPECT_FALSE(cpuRoofsFor(*other, CpuRoofsChoice::Auto, why));
    EXPECT_NE(why.find("recorded on elsewhere-gpu-node"), std::string::npos) << why;
    const TraceAnalysis unknown = analyzeWithCpuRoofs(*other, std::nullopt, why);
    EXPECT_FALSE(unknown.cpuShare);
    EXPECT_EQ(unknown.cpuNote, why);
    for (const KernelAnalysis& k : unknown.kernels)
        EXPECT_EQ(k.verdict, Verdict::Unknown);
    EXPECT_TRUE(cpuRoofsFor(*other, CpuRoofsChoice::ThisMachine, why));
    EXPECT_FALSE(cpuRoofsFor(*trace, CpuRoofsChoice::None, why));
}

// A saving is within the noise when the middle half of its pairs disagree on its sign, and when the mean
// the headline prints and the pairs' median do (an independent check read "441 µs a call less … -800 µs at
// the median" with no such word).
TEST(WhatIfSaving, AMeanAndAMedianOfOtherSignsAreWithinTheNoise) {
    kernels::WhatIfSaving s;
    s.impl = "math";
    s.rounds = 10;
    s.perCall = 441'122;
    s.pairs = {-2'549'000, -1'200'000, -799'729, -300'000, 5'838'000};
    EXPECT_TRUE(s.withinNoise()) << "the mean less, the median more";
    s.perCall = -100'000;
    EXPECT_FALSE(s.withinNoise()) << "both more, the middle half too";
    s.pairs = {-2'000'000, -500'000, 100'000, 600'000, 3'000'000};
    s.perCall = 200'000;
    EXPECT_TRUE(s.withinNoise()) << "the middle half across zero";
    s.pairs = {1'000'000, 2'000'000, 3'000'000, 4'000'000, 9'000'000};
    s.perCall = 3'500'000;
    EXPECT_FALSE(s.withinNoise()) << "flash: a saving in every pair";
    s.rounds = 1;
    s.pairs = {-1, -1, -1, -1, -1};
    EXPECT_FALSE(s.withinNoise()) << "one round has no spread to be within";
}

// The host's saving is said with its spread over the same rounds, as the kernels' is; one round has none. And a
// trace of profiler steps has the saving a step.
TEST(WhatIfSaving, TheHostsSavingIsSaidWithItsSpread) {
    kernels::WhatIfSaving s;
    s.impl = "flash";
    s.rounds = 3;
    s.perCall = 50'000'000;
    s.pairs = {46'000'000, 48'000'000, 50'000'000, 52'000'000, 53'000'000};
    s.hostPerCall = 69'700'000;
    s.hostRounds = 3;
    s.hostPairs = {-1'000'000, 60'000'000, 70'000'000, 75'000'000, 80'000'000};
    const std::string text = kernels::whatIfSavingText(s, 5);
    EXPECT_NE(text.find("; on the host 69.700 ms a call less (the calls' ranges), 70.000 ms at the median "
                        "(-1.000 ms to 80.000 ms)"),
              std::string::npos)
        << text;
    s.hostRounds = 1;
    EXPECT_EQ(kernels::whatIfSavingText(s, 5).find(", 70.000 ms at the median"), std::string::npos);
    // A trace of profiler steps: the saving over its calls, a step (5 calls over 2 steps).
    EXPECT_NE(kernels::whatIfSavingText(s, 5, 2).find("(250.000 ms over the trace's 5 calls, 125.000 ms a step "
                                                       "over its 2 steps)"),
              std::string::npos)
        << kernels::whatIfSavingText(s, 5, 2);
    EXPECT_EQ(kernels::whatIfSavingText(s, 5).find("a step"), std::string::npos);
}

// A what-if's rounds paired on the kernels and on the host: a round whose call has no host range is left out of
// the host's spread (and counted out of its rounds), not paired with another round's; a call's host time is its
// scope's range before the run's range around it; a trace's profiler steps are each counted once, however many
// threads record them.
TEST(WhatIfSaving, TheHostsRoundsAreTheRoundsWithHostTimes) {
    // Four kernels of 10, 30, 20 and 50 µs (naive, flash, naive, flash: two rounds), one op around the first.
    const auto trace = test::loadText(R"({"traceEvents":[
        {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":0,"dur":10},
        {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":100,"dur":30},
        {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":200,"dur":20},
        {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":300,"dur":50},
        {"ph":"X","cat":"cpu_op","name":"attn","pid":2,"tid":2,"ts":0,"dur":90},
        {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":2,"tid":2,"ts":0,"dur":400},
        {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":2,"tid":5,"ts":0,"dur":400},
        {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":2,"tid":5,"ts":500,"dur":10}]})");
    EXPECT_EQ(profilerSteps(*trace), (std::vector<std::int64_t>{3, 4}));
    auto analysis = std::make_shared<TraceAnalysis>();
    std::optional<EventRef> op;
    for (std::uint32_t t = 0; t < trace->tracks().size(); ++t)
        for (std::uint32_t i = 0; i < trace->tracks()[t].size(); ++i) {
            const std::string_view name = trace->str(trace->tracks()[t].events.name[i]);
            if (name == "k") analysis->kernels.emplace_back().event = {TrackId{t}, i};
            if (name == "attn") op = EventRef{TrackId{t}, i};
        }
    ASSERT_EQ(analysis->kernels.size(), 4u);
    ASSERT_TRUE(op);
    const char* impls[] = {"naive", "flash", "naive", "flash"};
    const TimeNs ranges[] = {0, 40'000, 5'000, 60'000}; // the run's ranges (0: none)
    for (std::uint32_t k = 0; k < 4; ++k) {
        AttentionCall c;
        c.impl = impls[k];
        c.kernels = {k};
        if (ranges[k]) c.runRangeNs = ranges[k];
        analysis->calls.push_back(c);
    }
    analysis->calls[2].scope = op; // its scope's range (90 µs) is its host time, not the run's 5 µs
    EXPECT_EQ(callHostNs(*trace, analysis->calls[2]), 90'000);
    EXPECT_EQ(callHostNs(*trace, analysis->calls[1]), 40'000);
    EXPECT_EQ(callHostNs(*trace, analysis->calls[0]), std::nullopt);
    Document run;
    run.trace = trace;
    run.analysis = analysis;
    CompareRow naive, flash;
    naive.impl = "naive";
    naive.calls = {.impl = "naive", .calls = 2, .kernelNs = 30'000, .hostCalls = 1, .hostNs = 90'000};
    flash.impl = "flash";
    flash.calls = {.impl = "flash", .calls = 2, .kernelNs = 80'000, .hostCalls = 2, .hostNs = 100'000};
    const auto savings = kernels::whatIfSavings(run, naive, {&flash}, CallInputs{});
    ASSERT_EQ(savings.size(), 1u);
    EXPECT_EQ(savings[0].perCall, 15'000 - 40'000);
    EXPECT_EQ(savings[0].rounds, 2u);
    EXPECT_EQ(savings[0].pairs[0], -30'000); // 20 - 50 µs
    EXPECT_EQ(savings[0].pairs[4], -20'000); // 10 - 30 µs
    ASSERT_TRUE(savings[0].hostPerCall);
    EXPECT_EQ(*savings[0].hostPerCall, 90'000 - 50'000);
    EXPECT_EQ(savings[0].hostRounds, 1u); // the first round's naive call has no host time
    EXPECT_EQ(savings[0].hostPairs[2], 90'000 - 60'000); // the second round's two calls
}
