// SPDX-License-Identifier: MIT
// The roofline: verdicts either side of the ridge, CPU workers' shares, roofs never moved.
#include "analysis_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

// Kernels on both sides of the ridge point, and one well under both roofs.
// Each line tested on both sides, with numbers worked by hand (ridge at 100 FLOP/byte; the latency
// line at a tenth of the roof that limits a kernel, for work that takes the roofs under 5 µs): just either
// side of the ridge, 9.9% and 10.1% of each roof, and work just either side of 5 µs at the roofs.
TEST(Roofline, JustEitherSideOfTheRidgeAndTheLatencyLine) {
    DeviceSpec spec;
    spec.fp32 = 100e12;
    spec.bandwidth = 1e12;
    KernelAnalysis k;
    k.cost = CostSource::Exact;
    k.precision = Precision::F32;
    auto verdictOf = [&](double flops, double bytes, TimeNs ns) {
        k.flops = flops;
        k.bytes = bytes;
        placeOnRoofline(k, ns, spec);
        return k.verdict;
    };
    // AI 99 and 101 at full speed on the roof that limits each: memory-, then compute-bound.
    EXPECT_EQ(verdictOf(99e9, 1e9, 1'000'000), Verdict::MemoryBound);   // 1 GB in 1 ms: 100%
    EXPECT_EQ(verdictOf(101e9, 1e9, 1'010'000), Verdict::ComputeBound); // 101 GFLOP in 1.01 ms: 100%
    // Memory side, AI 10: 4 MB (4 µs at the roof) at 101 GB/s (10.1%) and at 99 GB/s (9.9%).
    EXPECT_EQ(verdictOf(40e6, 4e6, TimeNs(4e6 / 101e9 * 1e9)), Verdict::MemoryBound);
    EXPECT_EQ(verdictOf(40e6, 4e6, TimeNs(4e6 / 99e9 * 1e9)), Verdict::LatencyBound);
    // Compute side, AI 1000: 400 MFLOP (4 µs) at 10.1 and at 9.9 TFLOP/s.
    EXPECT_EQ(verdictOf(4e8, 4e5, TimeNs(4e8 / 10.1e12 * 1e9)), Verdict::ComputeBound);
    EXPECT_EQ(verdictOf(4e8, 4e5, TimeNs(4e8 / 9.9e12 * 1e9)), Verdict::LatencyBound);
    // Work enough to fill the device (1 GB: 1 ms at the roof) at 9.9% is memory-bound, far below its roof;
    // 4.9 MB (4.9 µs) at 9.9% is latency-bound, 5.1 MB (5.1 µs) is not.
    EXPECT_EQ(verdictOf(10e9, 1e9, TimeNs(1e9 / 99e9 * 1e9)), Verdict::MemoryBound);
    EXPECT_EQ(verdictOf(49e6, 4.9e6, TimeNs(4.9e6 / 99e9 * 1e9)), Verdict::LatencyBound);
    EXPECT_EQ(verdictOf(51e6, 5.1e6, TimeNs(5.1e6 / 99e9 * 1e9)), Verdict::MemoryBound);
    EXPECT_EQ(verdictOf(1e12, 1e9, TimeNs(1e12 / 9.9e12 * 1e9)), Verdict::ComputeBound);
    // Little work (4 kB) that ran longer than any overhead explains (a CPU's first parallel op took 43 ms):
    // held at the share it reached, not latency-bound; just under a millisecond, still latency-bound.
    EXPECT_EQ(verdictOf(4e3, 4e3, 999'000), Verdict::LatencyBound);
    EXPECT_EQ(verdictOf(4e3, 4e3, 1'000'000), Verdict::MemoryBound);
    EXPECT_EQ(verdictOf(4e3, 4e3, 43'000'000), Verdict::MemoryBound);
}

TEST(Roofline, VerdictsOnEitherSideOfTheRidge) {
    DeviceSpec spec; // ridge at 100 FLOP/byte
    spec.fp32 = 100e12;
    spec.bandwidth = 1e12;
    KernelAnalysis k;
    k.cost = CostSource::Exact;
    k.precision = Precision::F32;
    // AI 10: memory side; 1 GB in 1.25 ms is 800 GB/s, 80% of the memory roof.
    k.flops = 10e9;
    k.bytes = 1e9;
    placeOnRoofline(k, 1'250'000, spec);
    EXPECT_EQ(k.verdict, Verdict::MemoryBound);
    EXPECT_DOUBLE_EQ(k.intensity, 10);
    EXPECT_NEAR(k.memoryShare, 0.8, 1e-12);
    EXPECT_NEAR(k.computeShare, 0.08, 1e-12);
    // AI 1000: compute side; 1 PFLOP... 1e12 FLOPs in 20 ms is 50 TFLOP/s, 50% of the compute roof.
    k.flops = 1e12;
    k.bytes = 1e9;
    placeOnRoofline(k, 20'000'000, spec);
    EXPECT_EQ(k.verdict, Verdict::ComputeBound);
    EXPECT_NEAR(k.computeShare, 0.5, 1e-12);
    // The same kernel taking 10× longer is at 5% of the roof that limits it: with 10 ms of work at the
    // roofs it is still compute-bound, far below its roof; a thousandth of the work at 5% is latency-bound.
    placeOnRoofline(k, 200'000'000, spec);
    EXPECT_EQ(k.verdict, Verdict::ComputeBound);
    EXPECT_NEAR(k.computeShare, 0.05, 1e-12);
    k.flops = 1e8;
    k.bytes = 1e5;
    placeOnRoofline(k, 20'000, spec);
    EXPECT_EQ(k.verdict, Verdict::LatencyBound);
    // No cost, no verdict.
    k.cost = CostSource::Unknown;
    placeOnRoofline(k, 1000, spec);
    EXPECT_EQ(k.verdict, Verdict::Unknown);
}

// AttnScope's CPU runs record each worker's share of a kernel, all run at once: with roofs of
// 100 GFLOP/s and 20 GB/s over all cores and 60 GFLOP/s and 8 GB/s on one, each of the two workers is
// held to min(60, 100/2) = 50 GFLOP/s and min(8, 20/2) = 8 GB/s (ridge 6.25 FLOP/byte).
TEST(Roofline, EachCpuWorkerIsHeldToItsShareOfTheCpuAndNoMoreThanOneCore) {
    const auto t = loadText(cpuRunTraceText());
    DeviceSpec cpu, core;
    cpu.name = "test CPU";
    cpu.fp32 = 100e9;
    cpu.bandwidth = 20e9;
    core.fp32 = 60e9;
    core.bandwidth = 8e9;
    const TraceAnalysis a = analyzeTrace(*t, &cpu, DeviceSpecs::standard(), RoleRules::standard(), &core);
    EXPECT_EQ(a.cpuWorkers, 2u);
    ASSERT_TRUE(a.cpuShare);
    EXPECT_EQ(a.cpuShare->name, "test CPU ÷ 2 workers");
    EXPECT_DOUBLE_EQ(a.cpuShare->fp32, 50e9);
    // The softmax moved 33.6 MB in 3 ms: 11.2 GB/s, above one core's 8: the roof stays, the softmax
    // has no verdict (its cost, or the measurement, is wrong), and the rest are placed as before.
    EXPECT_DOUBLE_EQ(a.cpuShare->bandwidth, 8e9);
    EXPECT_EQ(a.beyondRoof(), 2u); // the softmax of each of the two workers
    ASSERT_EQ(a.kernels.size(), 8u);
    for (const KernelAnalysis& k : a.kernels) {
        const Track& track = t->track(k.event.track);
        const std::string_view name = t->str(track.events.name[k.event.index]);
        const double seconds = double(track.events.duration[k.event.index]) * 1e-9;
        if (name == "naive_qk_gemm") {
            // 0.1 GFLOP in 9 ms = 11.1 GFLOP/s, 22.2% of 50; 11.2 FLOP/byte is past the ridge.
            EXPECT_EQ(k.verdict, Verdict::ComputeBound);
            EXPECT_NEAR(k.computeShare, 0.1e9 / seconds / 50e9, 1e-9);
            EXPECT_NEAR(k.computeShare, 0.2222, 1e-4);
        } else if (name == "naive_softmax") {
            EXPECT_EQ(k.verdict, Verdict::BeyondRoof);
            EXPECT_TRUE(k.beyondRoof);
            EXPECT_NEAR(k.memoryShare, 11.2 / 8, 1e-6);
        } else if (name == "flash_forward") {
            // 0.2 GFLOP in 15 ms = 13.3 GFLOP/s: 26.7% of 50.
            EXPECT_EQ(k.verdict, Verdict::ComputeBound);
            EXPECT_NEAR(k.computeShare, 0.2667, 1e-4);
        }
    }
    // Without one core's roofs each worker has half of all cores': 50 GFLOP/s and 10 GB/s.
    const TraceAnalysis halves = analyzeTrace(*t, &cpu);
    ASSERT_TRUE(halves.cpuShare);
    EXPECT_DOUBLE_EQ(halves.cpuShare->fp32, 50e9);
    EXPECT_DOUBLE_EQ(halves.cpuShare->bandwidth, 10e9);
    EXPECT_EQ(halves.beyondRoof(), 2u);
    // Without the CPU's roofs a CPU run's kernels get no verdict.
    for (const KernelAnalysis& k : analyzeTrace(*t).kernels)
        EXPECT_EQ(k.verdict, Verdict::Unknown);
}

// A GEMM whose cost is inferred from an op that does not say its types has no known precision: it
// is held to the fp32 roof. aten::mm of two 4096² matrices is 2·4096³ = 137.4 GFLOP; in 1 µs that is
// 137.4 PFLOP/s, above the A100's 19.5 TFLOP/s: its cost is wrong, so it gets no verdict, and the
// datasheet's roofs stay as they are (a roof is never moved to fit a kernel).
TEST(Roofline, AKernelBeyondADatasheetRoofHasAWrongCostAndNoVerdict) {
    const auto t = loadText(R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,
       "args":{"Input Dims":[[4096,4096],[4096,4096]]}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,
       "args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_tn","pid":0,"tid":7,"ts":5,"dur":1,
       "args":{"device":0,"stream":7,"correlation":1}}]})");
    const TraceAnalysis a = analyzeTrace(*t);
    ASSERT_EQ(a.kernels.size(), 1u);
    EXPECT_EQ(a.kernels[0].cost, CostSource::Inferred);
    EXPECT_EQ(a.kernels[0].precision, Precision::Unknown);
    EXPECT_DOUBLE_EQ(a.kernels[0].flops, 2.0 * 4096 * 4096 * 4096);
    ASSERT_TRUE(a.device);
    EXPECT_DOUBLE_EQ(a.device->fp32, 19.5e12);
    EXPECT_DOUBLE_EQ(a.device->bandwidth, 2039e9);
    EXPECT_TRUE(a.kernels[0].beyondRoof);
    EXPECT_EQ(a.kernels[0].verdict, Verdict::BeyondRoof); // named so, not "unknown"
    EXPECT_NEAR(a.kernels[0].computeShare, 137.4e15 / 19.5e12, 0.01 * 137.4e15 / 19.5e12);
    EXPECT_EQ(a.beyondRoof(), 1u);
    // Its summary says so, and holds no share above 100%.
    TraceSummary s = summarize(*t, 0);
    addAnalysis(s, *t, a);
    ASSERT_TRUE(s.roofline);
    EXPECT_EQ(s.roofline->beyondRoof, 1u);
    for (const RooflineKernel& k : s.roofline->kernels) {
        EXPECT_FALSE(k.costed);
        EXPECT_EQ(k.verdict, Verdict::BeyondRoof);
    }
}

// fp32 inputs on tensor cores are TF32: CUTLASS's "tensorop_s1688gemm" is held to the A100's 156 TFLOP/s
// TF32 roof, not to its 19.5 TFLOP/s fp32 one (where 68.7 TFLOP/s would be "beyond the roof: its cost is
// wrong"). The same op on a SIMT sgemm is fp32, and that speed is beyond its roof.
TEST(Roofline, Fp32GemmsOnTensorCoresAreHeldToTheTf32Roof) {
    auto trace = [](const std::string& kernel) {
        return loadText(R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,
       "args":{"Input Dims":[[4096,4096],[4096,4096]],"Input type":["float","float"]}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,
       "args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":")" +
                        kernel + R"(","pid":0,"tid":7,"ts":5,"dur":2000,
       "args":{"device":0,"stream":7,"correlation":1}}]})");
    };
    const auto tensorCores =
        trace("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(Params)");
    const TraceAnalysis tf32 = analyzeTrace(*tensorCores);
    ASSERT_EQ(tf32.kernels.size(), 1u);
    EXPECT_EQ(tf32.kernels[0].precision, Precision::TF32);
    EXPECT_EQ(tf32.kernels[0].verdict, Verdict::ComputeBound);
    EXPECT_NEAR(tf32.kernels[0].computeShare, 2.0 * 4096 * 4096 * 4096 / 2e-3 / 156e12, 1e-3);
    const auto simt = trace("ampere_sgemm_128x64_tn");
    const TraceAnalysis fp32 = analyzeTrace(*simt);
    ASSERT_EQ(fp32.kernels.size(), 1u);
    EXPECT_EQ(fp32.kernels[0].precision, Precision::F32);
    EXPECT_EQ(fp32.kernels[0].verdict, Verdict::BeyondRoof);
}
