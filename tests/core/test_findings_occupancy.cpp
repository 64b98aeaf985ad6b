// SPDX-License-Identifier: MIT
// Low occupancy: the calculator, the launch configuration, and tiled kernels held down by design.
#include "analysis_test_support.h"
#include "core/report/kernel_explanation.h"
#include "findings_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

TEST(Findings, OccupancyFollowsTheCalculatorWithTheReservedSharedMemory) {
    const DeviceLimits h100 = deviceLimitsFor(9, 0, 2048, 65536, 233472, 32);
    EXPECT_EQ(h100.maxBlocksPerSm, 32);
    EXPECT_EQ(h100.reservedSharedPerBlock, 1024);
    // 48 KiB a block: 233472 / 48 KiB = 4.75, but with 1 KiB reserved each 233472 / 50176 = 4 blocks.
    EXPECT_EQ(residentBlocks(h100, 128, 32, 48 * 1024), 4);
    // 57 KiB: 4 blocks without the reserve (233472 / 58368 = 4), 3 with it (233472 / 59392 = 3.93).
    EXPECT_EQ(residentBlocks(h100, 128, 32, 57 * 1024), 3);
    EXPECT_EQ(occupancyLimiter(h100, 128, 32, 57 * 1024), OccupancyLimiter::SharedMemory);
    // What holds each launch down, by hand: 255 registers × 128 threads → 2 blocks (registers); 1,024
    // threads of 16 registers → 2 blocks of 32 warps (threads); 32 threads of 16 registers → 32 blocks,
    // the SM's block slots.
    EXPECT_EQ(occupancyLimiter(h100, 128, 255, 49152), OccupancyLimiter::Registers);
    EXPECT_EQ(residentBlocks(h100, 128, 255, 49152), 2);
    EXPECT_EQ(occupancyLimiter(h100, 1024, 16, 0), OccupancyLimiter::Threads);
    EXPECT_EQ(residentBlocks(h100, 1024, 16, 0), 2);
    EXPECT_EQ(occupancyLimiter(h100, 32, 16, 0), OccupancyLimiter::BlockSlots);
    EXPECT_EQ(residentBlocks(h100, 32, 16, 0), 32);
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(h100, 128, 255, 49152),
                     0.125); // FlashAttention-2's launch: registers
    const DeviceLimits volta = deviceLimitsFor(7, 0, 2048, 65536, 98304, 32);
    EXPECT_EQ(volta.reservedSharedPerBlock, 0);
    EXPECT_EQ(deviceLimitsFor(8, 6, 1536, 65536, 102400, 32).maxBlocksPerSm, 16);
}

TEST(Findings, LowOccupancyOfAFusedAttentionKernelHeldByItsRegistersIsByDesign) {
    // FlashAttention-2's launch (255 registers, 128 threads: 12.5%) under SDPA's flash op, far from its
    // roofs: still no finding, since the registers are its tiles.
    GpuTrace t;
    for (int k = 0; k < 20; ++k)
        t.launch("aten::_flash_attention_forward", "[[1,8,2048,64],[1,8,2048,64],[1,8,2048,64]]",
                 R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])", k * 1000, 3,
                 "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>", k * 1000 + 10, 900,
                 launchArgs(255, 49152));
    const auto trace = loadText(t.text());
    EXPECT_EQ(findingOf(findingsOf(*trace), "low_occupancy"), nullptr); // (a pointer only compared)
    // The same launch of a kernel that is not tiled attention or a GEMM is a finding.
    GpuTrace other;
    for (int k = 0; k < 20; ++k)
        other.launch("aten::_flash_attention_forward", "[[1,8,2048,64],[1,8,2048,64],[1,8,2048,64]]",
                     R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])", k * 1000, 3, "my_scatter_kernel",
                     k * 1000 + 10, 900, launchArgs(255, 49152));
    const auto found = findingsOf(*loadText(other.text()));
    const Finding* f = findingOf(found, "low_occupancy");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u); // one name: one place, as listed
    EXPECT_EQ(f->evidence.size(), 1u);
}

TEST(Findings, LowOccupancyOfLongKernelsAndTheZeroKinetoWritesForLaunchKernelEx) {
    GpuTrace t;
    // 255 registers a thread, 128 threads: 12.5%; launched with cudaLaunchKernelExC, estimate 0.
    for (int k = 0; k < 20; ++k)
        t.launch("aten::mm", "[[4096,4096],[4096,4096]]", R"(["c10::BFloat16","c10::BFloat16"])", k * 300, 3,
                 "heavy_kernel", k * 300 + 10, 280, launchArgs(255, 49152, 0), "cudaLaunchKernelExC");
    const auto trace = loadText(t.text());
    const auto found = findingsOf(*trace);
    const Finding* f = findingOf(found, "low_occupancy");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u); // one kernel name
    EXPECT_NE(f->title.find("1 long-running kernel under"), std::string::npos) << f->title;
    EXPECT_EQ(f->timeNs, 20 * 280'000);
    ASSERT_EQ(f->evidence.size(), 1u);
    EXPECT_NE(f->evidence[0].note.find("12.5%"), std::string::npos) << f->evidence[0].note;
    EXPECT_NE(f->explanation.find("0 for 20 kernels launched with cudaLaunchKernelEx"), std::string::npos)
        << f->explanation;
    EXPECT_NE(f->explanation.find("(Kineto writes 0 for them); the figures here are computed instead."),
              std::string::npos)
        << f->explanation;
    EXPECT_NE(
        f->explanation.find("Fused attention and GEMM kernels whose registers or shared memory hold their "
                            "tiles are left out: their occupancy is low by design."),
        std::string::npos)
        << f->explanation;
    // Above the threshold, silent: 32 registers and no shared memory fill the SM.
    GpuTrace full;
    for (int k = 0; k < 20; ++k)
        full.launch("aten::mm", "[[4096,4096],[4096,4096]]", R"(["c10::BFloat16","c10::BFloat16"])", k * 300,
                    3, "heavy_kernel", k * 300 + 10, 280, launchArgs(32, 0));
    EXPECT_EQ(findingOf(findingsOf(*loadText(full.text())), "low_occupancy"), nullptr);
}

// A kernel's launch configuration is read by its keys, whatever their order.
TEST(Findings, LaunchConfigurationByItsKeysInAnyOrder) {
    GpuTrace t;
    t.launch(
        "aten::mm", "[[16,16],[16,16]]", R"(["float","float"])", 0, 3, "k", 10, 50,
        R"(,"block":[128,1,1],"External id":5,"grid":[4,2,1],"registers per thread":64,"shared memory":1024)");
    const auto trace = loadText(t.text());
    std::optional<LaunchConfig> config;
    for (std::uint32_t tr = 0; tr < trace->tracks().size(); ++tr)
        for (std::uint32_t i = 0; i < trace->tracks()[tr].size(); ++i)
            if (trace->str(trace->tracks()[tr].events.name[i]) == "k")
                config = launchConfigOf(*trace, {TrackId{tr}, i});
    ASSERT_TRUE(config);
    EXPECT_EQ(config->blockThreads, 128);
    EXPECT_EQ(config->gridBlocks, 8);
    EXPECT_EQ(config->registersPerThread, 64);
    EXPECT_EQ(config->sharedMemory, 1024);
}

// A naive call's QKᵀ and PV GEMMs keep their tiles in registers as any GEMM does: no low-occupancy
// finding for them either.
TEST(Findings, ANaiveCallsGemmsLowOccupancyIsByDesignToo) {
    GpuTrace t;
    for (int call = 0; call < 20; ++call) {
        const double at = call * 1000;
        t.launch("aten::bmm", "[[16,1024,64],[16,64,1024]]", R"(["float","float"])", at, 3,
                 "ampere_sgemm_128x64_tn", at + 10, 300, launchArgs(255, 0));
        t.launch("aten::_softmax", "[[16,1024,1024],[],[]]", R"(["float"])", at + 5, 3,
                 "void at::native::cunn_SoftMaxForward<4, float>", at + 320, 100);
        t.launch("aten::bmm", "[[16,1024,1024],[16,1024,64]]", R"(["float","float"])", at + 8, 3,
                 "ampere_sgemm_128x64_nn", at + 430, 300, launchArgs(255, 0));
    }
    const auto trace = loadText(t.text());
    const DeviceSpec cpu;
    const TraceAnalysis a = analyzeTrace(*trace, &cpu);
    int gemms = 0;
    for (const KernelAnalysis& k : a.kernels)
        if (k.role == KernelRole::QkGemm || k.role == KernelRole::PvGemm) {
            ++gemms;
            EXPECT_NE(
                lowOccupancyByDesign(*trace, k, 0.5).find("low by design: a GEMM kernel whose registers"),
                std::string::npos)
                << roleName(k.role);
        }
    EXPECT_EQ(gemms, 40);
    const auto found = findFindings({*trace, a});
    EXPECT_EQ(findingOf(found, "low_occupancy"), nullptr);
}

TEST(Findings, TheV100ConvolutionsTiledOccupancyIsNoFinding) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "v100_ns_decimals.json.gz");
    const auto trace = loadTraceFile(path);
    const TraceAnalysis a = analyzeTrace(*trace);
    for (const Finding& f : findFindings({*trace, a}))
        EXPECT_NE(f.id, "low_occupancy") << f.explanation;
}

// The explanation of a kernel's occupancy is this kernel's: Kineto's 0 is its cuLaunchKernelEx caveat only
// for a kernel launched so; a cudaLaunchKernel grid of 2 blocks on 132 SMs reaches 0, and that 0 is real.
TEST(Findings, TheOccupancyEstimatesZeroIsExplainedByItsOwnLaunch) {
    GpuTrace t;
    const std::string small =
        R"(,"grid":[2,1,1],"block":[128,1,1],"registers per thread":32,"shared memory":0,"est. achieved occupancy %":0)";
    t.launch("aten::add", "[[4]]", R"(["float"])", 100, 10, "small_grid_kernel", 120, 50, small);
    t.launch("aten::mm", "[[4]]", R"(["float"])", 200, 10, "sm90_xmma_gemm_ex", 220, 50,
             launchArgs(168, 0, 0), "cuLaunchKernelEx");
    const auto trace = loadText(t.text());
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_EQ(a.kernels.size(), 2u);
    const std::string grid = occupancyExplanation(*trace, &a, a.kernels[0].event);
    EXPECT_NE(
        grid.find("the trace's estimate of 0 is real: a grid of 2 blocks leaves most of the 132 SMs idle"),
        std::string::npos)
        << grid;
    EXPECT_EQ(grid.find("Kineto"), std::string::npos) << grid;
    const std::string ex = occupancyExplanation(*trace, &a, a.kernels[1].event);
    EXPECT_NE(ex.find("Kineto writes 0 for kernels launched with cuLaunchKernelEx"), std::string::npos) << ex;
}
