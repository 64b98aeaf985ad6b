// SPDX-License-Identifier: MIT
// The findings: each rule fires on a real fixture or a trace written for it, with the numbers an
// independent reading of the file gives, and stays silent on a trace without the problem.
#include "core/analysis/analysis.h"
#include "core/report/format.h"
#include "core/document/document.h"
#include "core/report/findings.h"
#include "core/report/findings_rules.h"
#include "core/report/summary.h"
#include "support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

using namespace attnscope;
using namespace attnscope::test;

namespace {

const Finding* findingOf(const std::vector<Finding>& all, std::string_view id) {
    for (const Finding& f : all)
        if (f.id == id) return &f;
    return nullptr;
}

std::shared_ptr<const Document> open(const std::string& path) {
    return openDocument(DocumentSource::file(path));
}

// The findings of a trace analysed against fixed roofs (a CPU run's kernels need the CPU's).
std::vector<Finding> findingsOf(const Trace& trace,
                                const FindingThresholds& th = FindingThresholds::standard()) {
    DeviceSpec cpu;
    cpu.name = "CPU (fixed for the test)";
    cpu.fp32 = 300e9;
    cpu.bandwidth = 15e9;
    const TraceAnalysis analysis = analyzeTrace(trace, &cpu);
    return findFindings({trace, analysis, nullptr, th});
}

// A GPU trace written for a test: an H100, one Python thread whose cpu_ops launch kernels through
// cudaLaunchKernel (correlation ids, as Kineto writes them), kernels on stream 7.
class GpuTrace {
public:
    // An op [ts, ts+dur) µs launching one kernel of kernelDur µs at kernelTs; returns the kernel's name.
    void launch(const std::string& op, const std::string& dims, const std::string& types, double ts,
                double dur, const std::string& kernel, double kernelTs, double kernelDur,
                const std::string& kernelArgs = "", const std::string& launchName = "cudaLaunchKernel",
                double launchDur = 2) {
        const int corr = ++m_corr;
        add(R"({"ph":"X","cat":"cpu_op","name":")" + op + R"(","pid":100,"tid":100,"ts":)" + num(ts) +
            R"(,"dur":)" + num(dur) + R"(,"args":{"Input Dims":)" + dims + R"(,"Input type":)" + types +
            "}}");
        add(R"({"ph":"X","cat":"cuda_runtime","name":")" + launchName + R"(","pid":100,"tid":100,"ts":)" +
            num(ts + 0.5) + R"(,"dur":)" + num(launchDur) + R"(,"args":{"correlation":)" +
            std::to_string(corr) + "}}");
        add(R"({"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":7,"ts":)" + num(kernelTs) +
            R"(,"dur":)" + num(kernelDur) + R"(,"args":{"device":0,"stream":7,"correlation":)" +
            std::to_string(corr) + kernelArgs + "}}");
    }
    void add(const std::string& event) { m_events.push_back(event); }
    std::string text() const {
        std::string out =
            R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3","computeMajor":9,)"
            R"("computeMinor":0,"maxThreadsPerMultiprocessor":2048,"regsPerMultiprocessor":65536,)"
            R"("sharedMemPerMultiprocessor":233472,"warpSize":32,"numSms":132}],"traceEvents":[)";
        for (std::size_t i = 0; i < m_events.size(); ++i)
            out += (i ? ",\n" : "") + m_events[i];
        return out + "]}";
    }

private:
    static std::string num(double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.3f", v);
        return b;
    }
    std::vector<std::string> m_events;
    int m_corr = 0;
};

// Kineto's args of one large kernel launch: 128 threads a block, the registers and shared memory given.
std::string launchArgs(int registers, int shared, int reported = 50) {
    return R"(,"grid":[132,8,1],"block":[128,1,1],"registers per thread":)" + std::to_string(registers) +
           R"(,"shared memory":)" + std::to_string(shared) + R"(,"est. achieved occupancy %":)" +
           std::to_string(reported);
}

} // namespace

TEST(Findings, ThresholdsAreDataWithTheirProblemsSaid) {
    std::vector<std::string> problems;
    const FindingThresholds t = FindingThresholds::parse("min_share 0.5 # a comment\n\n  max_evidence\t3\n"
                                                         "casts_window_us ten\nlow_occupancy -1\n",
                                                         &problems);
    EXPECT_DOUBLE_EQ(t["min_share"], 0.5);
    EXPECT_DOUBLE_EQ(t["max_evidence"], 3);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_NE(problems[0].find("line 4"), std::string::npos);
    EXPECT_NE(problems[1].find("line 5"), std::string::npos);
    EXPECT_THROW(t["casts_window_us"], std::logic_error); // unreadable lines set nothing
    // The built-in file names every threshold a rule reads.
    const FindingThresholds& standard = FindingThresholds::standard();
    for (const char* key :
         {"min_share", "critical_share", "warning_share", "max_evidence", "casts_window_us",
          "math_fallback_kernels_per_call", "gpu_idle_min_gap_us", "launch_bound_kernel_us",
          "launch_bound_min_kernels", "latency_bound_min_kernel_share", "low_occupancy",
          "low_occupancy_min_kernel_us", "low_occupancy_min_kernel_share", "rank_imbalance_excess"})
        EXPECT_GT(standard[key], 0) << key;
}

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

TEST(Findings, HandWrittenAttentionOnANaiveRunWithTheFusedKernelsEstimate) {
    const auto trace = loadText(cpuRunTraceText());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "hand_written_attention");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.find(": 1 call materializes"), std::string::npos) << f->title; // its two workers'
    // Its kernels' time, by hand: QKᵀ 9 ms, softmax 3 ms and PV 9 ms on each of two workers.
    EXPECT_NE(f->explanation.find("of their kernels' time (42.000 ms"), std::string::npos) << f->explanation;
    // Evidence: the softmax kernels of both workers, not the GEMMs nor flash; the count is theirs.
    EXPECT_EQ(f->count, 2u);
    ASSERT_EQ(f->evidence.size(), 2u);
    for (const Evidence& e : f->evidence)
        EXPECT_EQ(e.name, "naive_softmax");
    // The call took 21 ms (0 to 21 ms). Per worker a fused kernel needs max(0.2 GFLOP / 150 GFLOP/s,
    // (17.8 − 33.6 MB → 0) / 7.5 GB/s) = 1.333 ms of its 21 ms: the rest, 19.667 ms, is at stake.
    // (Each of two workers is held to half the CPU's roofs.)
    EXPECT_NEAR(double(f->timeNs), 21e6 * (1 - 1.3333e6 / 21e6), 2e4);
    EXPECT_LE(f->share, 1.0);
    EXPECT_NE(f->explanation.find("moved 67.2 MB of scores"), std::string::npos)
        << f->explanation; // 2 × 33.6 MB
}

TEST(Findings, FlashOnAnH100IsNotHandWrittenAndItsOccupancyIsComputed) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = open(path);
    const auto& all = *doc->findings;
    EXPECT_EQ(findingOf(all, "hand_written_attention"), nullptr);
    EXPECT_EQ(findingOf(all, "sdpa_math_fallback"), nullptr);
    EXPECT_EQ(findingOf(all, "pageable_memcpy"), nullptr); // its one copy is to pinned memory
    EXPECT_EQ(findingOf(all, "exposed_communication"), nullptr);
    // The flash kernel: 255 registers × 128 threads leave 2 blocks of 4 warps: 12.5%.
    const auto flash = std::find_if(
        doc->analysis->kernels.begin(), doc->analysis->kernels.end(), [&](const KernelAnalysis& k) {
            return doc->trace->str(doc->trace->track(k.event.track).events.name[k.event.index])
                       .find("flash_fwd_kernel") != std::string_view::npos;
        });
    ASSERT_NE(flash, doc->analysis->kernels.end());
    ASSERT_TRUE(kernelOccupancy(*doc->trace, flash->event));
    EXPECT_DOUBLE_EQ(*kernelOccupancy(*doc->trace, flash->event), 0.125);
    // The post's lesson: flash's occupancy is low by design (its registers hold its tiles), and the
    // cuBLAS GEMM at 18.8% runs at 61% of the bf16 peak. Neither is a finding; each says why.
    EXPECT_EQ(findingOf(all, "low_occupancy"), nullptr);
    EXPECT_NE(lowOccupancyByDesign(*doc->trace, *flash, 0.5)
                  .find("low by design: a fused attention kernel whose "
                        "registers"),
              std::string::npos)
        << lowOccupancyByDesign(*doc->trace, *flash, 0.5);
    const auto gemm = std::find_if(
        doc->analysis->kernels.begin(), doc->analysis->kernels.end(), [&](const KernelAnalysis& k) {
            return doc->trace->str(doc->trace->track(k.event.track).events.name[k.event.index])
                           .find("sm90_xmma_gemm") != std::string_view::npos &&
                   k.verdict == Verdict::ComputeBound && k.computeShare > 0.5;
        });
    ASSERT_NE(gemm, doc->analysis->kernels.end());
    EXPECT_NEAR(*kernelOccupancy(*doc->trace, gemm->event), 0.1875, 1e-9);
    EXPECT_NE(lowOccupancyByDesign(*doc->trace, *gemm, 0.5).find("of its roof"), std::string::npos);
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

TEST(Findings, CastsRightBeforeSdpaOnTheH100) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = open(path);
    const Finding* f = findingOf(*doc->findings, "casts_and_copies");
    ASSERT_NE(f, nullptr);
    // Independently: aten::contiguous ops ending at most 100 µs before an SDPA op on the same thread.
    const nlohmann::json j = nlohmann::json::parse(readAllBytes(path));
    std::vector<std::pair<double, double>> sdpa, casts;
    for (const auto& e : j["traceEvents"]) {
        if (e.value("cat", "") != "cpu_op") continue;
        const std::string n = e["name"];
        const double ts = e["ts"], dur = e["dur"];
        if (n == "aten::scaled_dot_product_attention") sdpa.emplace_back(ts, ts + dur);
        if (n == "aten::contiguous") casts.emplace_back(ts, ts + dur);
    }
    std::size_t before = 0;
    for (const auto& [s, e] : casts)
        for (const auto& [as, ae] : sdpa)
            if (e <= as && as - e <= 100) {
                ++before;
                break;
            }
    EXPECT_EQ(f->count, before);
    EXPECT_GT(before, 0u);
    EXPECT_NE(f->explanation.find("aten::contiguous ×" + std::to_string(before)), std::string::npos);
}

TEST(Findings, NoCastsFarFromAttention) {
    GpuTrace t;
    t.launch("aten::contiguous", "[[16,16,559,64]]", R"(["c10::BFloat16"])", 0, 30, "copy_kernel", 10, 20);
    // The attention op starts 1 ms after the copy: not "right before".
    t.launch("aten::scaled_dot_product_attention", "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[]]",
             R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16",""])", 1030, 50, "flash_fwd_kernel", 1040,
             100);
    const auto trace = loadText(t.text());
    EXPECT_EQ(findingOf(findingsOf(*trace), "casts_and_copies"), nullptr);
}

TEST(Findings, SdpaMathFallbackWithTheReasonsItsInputsGive) {
    GpuTrace t;
    for (int call = 0; call < 3; ++call) {
        const double at = call * 1000;
        // The public op around its _math op; fp32 inputs, an explicit mask, dropout 0.1.
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":100,"tid":100,"ts":)" +
            std::to_string(at) +
            R"(,"dur":500,"args":{"Input Dims":[[2,8,1024,64],[2,8,1024,64],[2,8,1024,64],[2,1,1024,1024],[],[]],)"
            R"("Input type":["float","float","float","float","Scalar","Scalar"],"Concrete Inputs":["","","","","0.1","False"]}})");
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_attention_math","pid":100,"tid":100,"ts":)" +
            std::to_string(at + 1) + R"(,"dur":498})");
        for (int k = 0; k < 10; ++k)
            t.launch("aten::bmm", "[[16,1024,64],[16,64,1024]]", R"(["float","float"])", at + 2 + k * 40, 30,
                     "kernel_" + std::to_string(k), at + 10 + k * 40, 20);
    }
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "sdpa_math_fallback");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 3u);
    EXPECT_EQ(f->timeNs, 3 * 10 * 20'000); // the kernels' time
    EXPECT_NE(f->explanation.find("10.0 kernels per call"), std::string::npos) << f->explanation;
    EXPECT_NE(f->explanation.find("fp32 inputs"), std::string::npos);
    EXPECT_NE(f->explanation.find("explicit attn_mask"), std::string::npos);
    EXPECT_NE(f->explanation.find("dropout_p 0.1"), std::string::npos);
    ASSERT_EQ(f->evidence.size(), 3u);
    EXPECT_EQ(f->evidence[0].name, "aten::_scaled_dot_product_attention_math");
    // The math backend's chain is this finding's, not hand-written attention's.
    EXPECT_EQ(findingOf(all, "hand_written_attention"), nullptr);
}

TEST(Findings, GpuIdleSplitByWhatTheGpuWaitedOn) {
    GpuTrace t;
    // Kernel 1 [10, 20); the next one's launch starts at 120, after the GPU ran dry: 100 µs host wait.
    t.launch("aten::mul", "[[4]]", R"(["float"])", 0, 5, "k1", 10, 10);
    t.launch("aten::mul", "[[4]]", R"(["float"])", 120, 5, "k2", 130, 10);
    // A sync ends at 300; the host then launches at 400: the 260 µs gap [140, 400) waited on the sync.
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":100,"tid":100,"ts":141,"dur":159})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 390, 5, "k3", 400, 10);
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "gpu_idle");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 110'000 + 260'000);
    EXPECT_EQ(f->count, 2u);
    EXPECT_NEAR(f->share, 370.0 / 400.0, 1e-9); // of the GPU's own span [10, 410)
    EXPECT_EQ(f->severity, Severity::Critical);
    EXPECT_NE(f->explanation.find("Waiting on the host to launch (the next work was launched only after the "
                                  "GPU ran dry): 110.000 µs"),
              std::string::npos)
        << f->explanation;
    EXPECT_NE(
        f->explanation.find(
            "waiting on a synchronization (the host sat in a sync, then had to launch again): 260.000 µs"),
        std::string::npos);
    ASSERT_EQ(f->evidence.size(), 2u);
    EXPECT_EQ(f->evidence[0].name, "k3"); // the longest gap first
    // The sync: one call, the GPU idle 100 µs after it (300 → 400).
    const Finding* s = findingOf(all, "synchronization");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->count, 1u);
    EXPECT_EQ(s->timeNs, 100'000);
}

TEST(Findings, BackToBackKernelsAreNotIdleNorLaunchBound) {
    GpuTrace t;
    // The host runs ahead: each launch 2 µs, long before its 50 µs kernel runs back to back.
    for (int k = 0; k < 200; ++k)
        t.launch("aten::mm", "[[8192,8192],[8192,8192]]", R"(["c10::BFloat16","c10::BFloat16"])", k * 3, 2.5,
                 "gemm", 1000 + k * 2000, 2000, launchArgs(64, 0));
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    EXPECT_EQ(findingOf(all, "gpu_idle"), nullptr);
    EXPECT_EQ(findingOf(all, "launch_bound"), nullptr);
    EXPECT_EQ(findingOf(all, "synchronization"), nullptr);
    EXPECT_EQ(findingOf(all, "latency_bound"), nullptr); // 1.1 TFLOP in 2 ms: compute-bound
    EXPECT_EQ(findingOf(all, "low_occupancy"), nullptr); // 64 registers: full occupancy
}

TEST(Findings, ShortKernelsLaunchedAsSlowlyAsTheyRunAreLaunchBoundAndLatencyBound) {
    GpuTrace t;
    for (int k = 0; k < 100; ++k)
        t.launch(k % 4 ? "aten::add" : "aten::mul", "[[16,16],[16,16]]", R"(["float","float"])", k * 10, 8,
                 "tiny", k * 10 + 5, 4, "", "cudaLaunchKernel", 6);
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "launch_bound");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.find("100 kernels run shorter"), std::string::npos) << f->title;
    EXPECT_EQ(f->count, 2u);           // its places: the two ops that launch them
    EXPECT_EQ(f->timeNs, 100 * 6'000); // the launches' time
    EXPECT_NE(f->explanation.find("aten::add (75), aten::mul (25)"), std::string::npos) << f->explanation;
    ASSERT_EQ(f->evidence.size(), 2u); // one place per op, the one that launched most first
    EXPECT_EQ(f->evidence[0].name, "aten::add");
}

// One launch call that enqueues several kernels (hipExtLaunchKernel's groups, a graph's nodes, a
// launch Kineto correlates with each of its kernels) is the host's time once: 60 kernels of 1 µs from
// 6 launch calls of 20 µs each are 120 µs of launching, not 60 × 20 µs (the 2021 MI300X trace's
// "972 ms of launching" in a 412 ms span). A graph's kernels are never launch-bound one by one.
TEST(Findings, LaunchTimeCountsEachLaunchCallOnceAndStaysWithinTheRuntimeCalls) {
    GpuTrace t;
    int corr = 1000;
    for (int l = 0; l < 6; ++l) {
        const double ts = l * 100.0;
        t.add(R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":100,"tid":100,"ts":)" +
              std::to_string(ts) + R"(,"dur":25})");
        t.add(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":100,"tid":100,"ts":)" +
              std::to_string(ts + 1) + R"(,"dur":20,"args":{"correlation":)" + std::to_string(++corr) + "}}");
        for (int k = 0; k < 10; ++k)
            t.add(R"({"ph":"X","cat":"kernel","name":"tiny","pid":0,"tid":7,"ts":)" +
                  std::to_string(ts + 30 + 2 * k) +
                  R"(,"dur":1,"args":{"device":0,"stream":7,"correlation":)" + std::to_string(corr) + "}}");
    }
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "launch_bound");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 6 * 20'000);
    EXPECT_NE(f->explanation.find("120.000 µs of the host's time went to their 6 launch calls"),
              std::string::npos)
        << f->explanation;
    TimeNs runtimeNs = 0; // the bound: the runtime calls' own time
    for (const Track& track : trace->tracks())
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (trace->str(track.events.category[i]) == "cuda_runtime") runtimeNs += track.events.duration[i];
    EXPECT_LE(f->timeNs, runtimeNs);
    EXPECT_LE(f->timeNs, trace->endNs() - trace->startNs());
    // The same kernels replayed by one graph launch: not launch-bound.
    GpuTrace g;
    g.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":100,"tid":100,"ts":0,"dur":200,"args":{"correlation":7}})");
    for (int k = 0; k < 60; ++k)
        g.add(R"({"ph":"X","cat":"kernel","name":"tiny","pid":0,"tid":7,"ts":)" + std::to_string(10 + 2 * k) +
              R"(,"dur":1,"args":{"device":0,"stream":7,"correlation":7}})");
    const auto graph = findingsOf(*loadText(g.text()));
    EXPECT_EQ(findingOf(graph, "launch_bound"), nullptr);
}

TEST(Findings, LatencyBoundKernelsHoldingTheKernelTime) {
    GpuTrace t;
    // aten::mm of 16×16 matrices (8 kFLOP) taking 50 µs each: far under both of the H100's roofs.
    for (int k = 0; k < 50; ++k)
        t.launch("aten::mm", "[[16,16],[16,16]]", R"(["float","float"])", k * 100, 3, "gemm_small",
                 k * 100 + 10, 50);
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "latency_bound");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.find("50 kernels are latency-bound"), std::string::npos) << f->title;
    EXPECT_EQ(f->count, 1u); // one place per name
    EXPECT_EQ(f->timeNs, 50 * 50'000);
    ASSERT_EQ(f->evidence.size(), 1u); // one place per name
    EXPECT_NE(f->evidence[0].note.find("50 kernels"), std::string::npos);
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

TEST(Findings, DlrmRankHasPageableCopiesSyncsAndExposedCommunication) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = open(path);
    const auto& all = *doc->findings;
    // Independently from the file: the pageable copies, their bytes, and the synchronizing calls.
    const nlohmann::json j = nlohmann::json::parse(readAllBytes(path));
    std::uint64_t pageable = 0, syncs = 0;
    double bytes = 0, blocked = 0;
    for (const auto& e : j["traceEvents"]) {
        const std::string n = e.value("name", "");
        if (e.value("cat", "") == "gpu_memcpy" && n.find("Pageable") != std::string::npos) {
            ++pageable;
            bytes += e["args"]["bytes"].get<double>();
        }
        if (e.value("cat", "") == "cuda_runtime" && n.find("Synchronize") != std::string::npos) {
            ++syncs;
            blocked += e["dur"].get<double>();
        }
    }
    const Finding* p = findingOf(all, "pageable_memcpy");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->count, pageable);
    EXPECT_NE(p->explanation.find(formatRate(bytes, "B")), std::string::npos) << p->explanation;
    const Finding* s = findingOf(all, "synchronization");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->count, syncs);
    EXPECT_NE(s->explanation.find("the host blocked " + formatDuration(TimeNs(blocked * 1000))),
              std::string::npos)
        << s->explanation;
    const Finding* c = findingOf(all, "exposed_communication");
    ASSERT_NE(c, nullptr);
    EXPECT_GT(c->timeNs, 0);
    EXPECT_LE(c->share, 1.0);
    EXPECT_NE(findingOf(all, "gpu_idle"), nullptr);
    // Every piece of evidence is a real event of the trace, with its own start and duration.
    for (const Finding& f : all)
        for (const Evidence& e : f.evidence) {
            const Track& track = doc->trace->track(e.event.track);
            EXPECT_EQ(track.events.start[e.event.index], e.startNs);
            EXPECT_EQ(track.events.duration[e.event.index], e.durNs);
            EXPECT_EQ(doc->trace->str(track.events.name[e.event.index]), e.name);
        }
}

TEST(Findings, CommunicationIsHiddenByComputeOnAnyStream) {
    // Compute on two streams, interleaved in time: stream 7 [100, 200) and [400, 500) µs, stream 8
    // [150, 350); an all-reduce on stream 20 [300, 600) is covered for [300, 350) and [400, 500): 150 µs
    // of its 300 exposed. (Joining the streams' kernels in stream order instead of time order would lose
    // stream 8's and say 200.)
    GpuTrace t;
    auto kernel = [&](const std::string& name, int stream, int ts, int dur) {
        t.add(R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":)" + std::to_string(stream) +
              R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
              R"(,"args":{"device":0,"stream":)" + std::to_string(stream) + "}}");
    };
    kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 7, 100, 100);
    kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 7, 400, 100);
    kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 8, 150, 200);
    kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 20, 300, 300);
    const std::vector<Finding> all = findingsOf(*loadText(t.text()));
    const Finding* c = findingOf(all, "exposed_communication");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->timeNs, 150000);
    EXPECT_EQ(c->count, 1u);
    ASSERT_EQ(c->evidence.size(), 1u);
    EXPECT_EQ(c->evidence[0].note, formatDuration(150000) + " of " + formatDuration(300000) + " exposed");
}

// The DLRM ranks: rank 1 has 87% more GPU busy time than rank 0, but it is rank 1 that waits — 5,585 µs
// in all from its arrival at each of the 8 collectives to rank 0's (an independent reading of the files
// in test_analysis.cpp). The finding names rank 0, the straggler, with the wait per rank as the time at
// stake, and says the compute busy times too; the job's other findings say they are summed over the
// ranks and give the mean per rank, of the one span.
TEST(Findings, TheStragglerIsWhoTheOthersWaitForAndJobFiguresArePerRank) {
    ATTNSCOPE_REQUIRE_FIXTURE(rank0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(rank1, "dlrm_2ranks/rank1.json");
    const auto doc = openDocument(DocumentSource::ranks({rank0, rank1}));
    const Finding* f = findingOf(*doc->findings, "rank_imbalance");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 5'585'000);
    EXPECT_NE(f->title.find("Rank 0 is the straggler"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("compute busy time"), std::string::npos) << f->explanation;
    const TimeNs span = doc->trace->endNs() - doc->trace->startNs();
    EXPECT_DOUBLE_EQ(f->share, 5'585'000.0 / double(span));
    EXPECT_EQ(f->count, 8u); // rank 0's collectives
    for (const Evidence& e : f->evidence)
        EXPECT_EQ(doc->trace->process(doc->trace->track(e.event.track).process).rank, 0);
    for (std::size_t i = 1; i < f->evidence.size(); ++i) // in the order the job reached them
        EXPECT_LT(f->evidence[i - 1].startNs, f->evidence[i].startNs);
    EXPECT_NE(f->explanation.find("Of 8 collectives matched on all 2 ranks"), std::string::npos)
        << f->explanation;
    EXPECT_NE(f->explanation.find("GPU busy time (6.571 ms to 12.302 ms)"), std::string::npos)
        << f->explanation;
    const Finding* idle = findingOf(*doc->findings, "gpu_idle");
    ASSERT_NE(idle, nullptr);
    EXPECT_EQ(idle->title.rfind("The GPUs idle", 0), 0u) << idle->title; // two GPUs
    for (const Finding& g : *doc->findings) {
        EXPECT_LE(g.timeNs, span) << g.id;
        EXPECT_NEAR(g.share, double(g.timeNs) / double(span), 1e-9) << g.id; // one denominator
        if (g.id != "rank_imbalance") {
            EXPECT_NE(g.title.find("(summed over 2 ranks)"), std::string::npos) << g.title;
            EXPECT_NE(g.explanation.find("mean per rank"), std::string::npos) << g.explanation;
        }
    }
    // Exposed communication leaves out the waits at the collectives (the straggler's, not the network's).
    const Finding* comm = findingOf(*doc->findings, "exposed_communication");
    ASSERT_NE(comm, nullptr);
    EXPECT_NE(comm->explanation.find("5.625 ms is ranks waiting at collectives"), std::string::npos)
        << comm->explanation;
    // 16.593 ms exposed on the two ranks, less their 5.625 ms of waits: 10.968 ms in all, 5.484 ms per rank.
    EXPECT_NE(comm->title.find("10.968 ms of 17.134 ms (summed over 2 ranks)"), std::string::npos)
        << comm->title;
    ASSERT_GE(comm->evidence.size(),
              2u); // the most exposed first: rank 1's first SendRecv, waiting for rank 0
    EXPECT_EQ(comm->evidence[0].note.rfind("7.611 ms of 7.635 ms exposed", 0), 0u) << comm->evidence[0].note;
    EXPECT_EQ(comm->timeNs, 5'484'000);

    // The threshold is rank_imbalance_excess, of the mean compute busy time (1.140 ms): the wait of
    // 5.585 ms is 4.9 times it.
    FindingThresholds high = FindingThresholds::standard();
    high.set("rank_imbalance_excess", 5.0);
    const auto above = findFindings({*doc->trace, *doc->analysis, doc->ranks.get(), high});
    EXPECT_EQ(findingOf(above, "rank_imbalance"), nullptr);
    high.set("rank_imbalance_excess", 4.8);
    const auto below = findFindings({*doc->trace, *doc->analysis, doc->ranks.get(), high});
    EXPECT_NE(findingOf(below, "rank_imbalance"), nullptr);
    // Even ranks: no straggler's wait and compute within 5% of the mean: silent.
    RankReport even = *doc->ranks;
    for (RankStats& s : even.ranks) {
        s.waitNs = 0;
        s.computeBusyNs = even.meanComputeNs;
    }
    even.maxComputeNs = even.minComputeNs = even.meanComputeNs;
    EXPECT_EQ(findingOf(findFindings({*doc->trace, *doc->analysis, &even}), "rank_imbalance"), nullptr);
    // Without matched collectives, the rank that computes most, at its excess over the mean (106 µs:
    // shown when no share is too small).
    RankReport unmatched = *doc->ranks;
    unmatched.stragglerRank = -1;
    unmatched.collectives = 0;
    FindingThresholds all = FindingThresholds::standard();
    all.set("min_share", 0);
    const auto found = findFindings({*doc->trace, *doc->analysis, &unmatched, all});
    const Finding* compute = findingOf(found, "rank_imbalance");
    ASSERT_NE(compute, nullptr);
    EXPECT_NE(compute->title.find("Rank 1 computes the most"), std::string::npos) << compute->title;
    EXPECT_EQ(compute->timeNs, unmatched.maxComputeNs - unmatched.meanComputeNs);
}

// Severity from the share at stake, at the built-in thresholds: critical from 20%, warning from 5%.
TEST(Findings, SeverityFollowsTheShareAtTheBuiltInThresholds) {
    const auto trace = loadText(
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":100}]})");
    const TraceAnalysis a = analyzeTrace(*trace);
    const findings::Context c({*trace, a});
    for (const auto& [share, severity] :
         {std::pair{0.049, Severity::Info}, std::pair{0.05, Severity::Warning},
          std::pair{0.199, Severity::Warning}, std::pair{0.2, Severity::Critical},
          std::pair{1.5, Severity::Critical}}) {
        Finding f;
        c.setShare(f, share);
        EXPECT_EQ(f.severity, severity) << share;
        EXPECT_LE(f.share, 1.0);
    }
}

// Idle gaps count from 5 µs: 40 gaps of 4 µs between back-to-back kernels are not idle time, the one of
// 100 µs is.
TEST(Findings, IdleGapsCountFromTheirThresholdInMicroseconds) {
    GpuTrace t;
    double ts = 0;
    for (int k = 0; k < 40; ++k, ts += 14)
        t.add(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(ts) +
              R"(,"dur":10,"args":{"device":0,"stream":7}})");
    t.add(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(ts + 96) +
          R"(,"dur":10,"args":{"device":0,"stream":7}})");
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "gpu_idle");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u);
    EXPECT_EQ(f->timeNs, 100'000);
}

// The synchronizations that cost most come first: the one the GPU idled 200 µs after, then the 20 µs one.
TEST(Findings, SynchronizationsThatCostMostComeFirst) {
    GpuTrace t;
    t.launch("aten::mul", "[[4]]", R"(["float"])", 0, 5, "k1", 10, 10);
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":100,"tid":100,"ts":12,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 30, 5, "k2", 42, 10); // idle 20 µs after the first sync
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":100,"tid":100,"ts":45,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 240, 5, "k3", 255, 10); // idle 200 µs after the second
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "synchronization");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->evidence.size(), 2u);
    EXPECT_EQ(f->evidence[0].name, "cudaDeviceSynchronize");
    EXPECT_NE(f->evidence[0].note.find("GPU idle 200.000 µs after"), std::string::npos)
        << f->evidence[0].note;
    EXPECT_EQ(f->evidence[1].name, "cudaStreamSynchronize");
    EXPECT_EQ(f->timeNs, 220'000);
}

TEST(Findings, MinShareHidesSmallFindingsAndSeverityFollowsTheShare) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = open(path);
    FindingThresholds strict = FindingThresholds::standard();
    strict.set("min_share", 0.5);
    strict.set("critical_share", 0.9);
    const auto all = findFindings({*doc->trace, *doc->analysis, nullptr, strict});
    for (const Finding& f : all) {
        const bool always = f.id == "hand_written_attention" || f.id == "sdpa_math_fallback" ||
                            f.id == "synchronization" || f.id == "pageable_memcpy";
        if (!always) {
            EXPECT_GE(f.share, 0.5) << f.id;
        }
        EXPECT_EQ(f.severity, f.share >= 0.9    ? Severity::Critical
                              : f.share >= 0.05 ? Severity::Warning
                                                : Severity::Info)
            << f.id;
    }
    EXPECT_LT(all.size(), doc->findings->size());
    // Most time at stake first.
    for (std::size_t i = 1; i < doc->findings->size(); ++i)
        EXPECT_GE((*doc->findings)[i - 1].timeNs, (*doc->findings)[i].timeNs);
}

TEST(Findings, SummaryJsonCarriesThemAsDocumented) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = open(path);
    const std::vector<SummaryResult> results = {{path, *doc->summary, {}}};
    const auto j = nlohmann::json::parse(formatSummaries(results, SummaryFormat::Json));
    const auto& findings = j["files"][0]["findings"];
    ASSERT_EQ(findings.size(), doc->findings->size());
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = (*doc->findings)[i];
        EXPECT_EQ(findings[i]["id"], f.id);
        EXPECT_EQ(findings[i]["severity"], std::string(severityName(f.severity)));
        EXPECT_EQ(findings[i]["time_ns"], f.timeNs);
        EXPECT_EQ(findings[i]["count"], f.count);
        // One count: the places, of which the evidence lists the first.
        EXPECT_FALSE(findings[i].contains("evidence_total"));
        EXPECT_LE(findings[i]["evidence"].size(), std::size_t(FindingThresholds::standard()["max_evidence"]));
        EXPECT_EQ(findings[i]["evidence"].size(),
                  std::min<std::size_t>(f.count, std::size_t(FindingThresholds::standard()["max_evidence"])));
        for (const char* key : {"title", "share", "explanation", "suggestion"})
            EXPECT_TRUE(findings[i].contains(key)) << key;
        for (const auto& e : findings[i]["evidence"])
            for (const char* key : {"track", "start_ns", "dur_ns", "name"})
                EXPECT_TRUE(e.contains(key)) << key;
    }
    // The findings-only CSV: one row per finding under its header.
    const std::string csv = formatFindings(results, SummaryFormat::Csv);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), std::ptrdiff_t(doc->findings->size() + 1));
    EXPECT_EQ(csv.rfind("file,id,severity,title,time_ns,share,count,explanation,suggestion\n", 0), 0u);
}

// Tests that the mutation run over the findings asked for (tests/mutate): each fails on a planted bug
// the others let through.

// One cast right before an attention op is a finding of one place; SDPA's math backend at inference
// (dropout_p 0) is not said to drop out.
TEST(Findings, OneCastBeforeAttentionAndNoDropoutReasonAtInference) {
    GpuTrace t;
    t.launch("aten::contiguous", "[[16,16,559,64]]", R"(["c10::BFloat16"])", 0, 30, "copy_kernel", 10, 20);
    t.launch("aten::scaled_dot_product_attention", "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[]]",
             R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16",""])", 40, 50, "flash_fwd_kernel", 60, 100);
    const auto casts = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(casts, "casts_and_copies");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u);

    GpuTrace m;
    m.add(
        R"({"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":100,"tid":100,"ts":0,)"
        R"("dur":500,"args":{"Input Dims":[[2,8,1024,64],[2,8,1024,64],[2,8,1024,64],[],[],[]],)"
        R"("Input type":["float","float","float","","Scalar","Scalar"],"Concrete Inputs":["","","","","0.","True"]}})");
    m.add(
        R"({"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_attention_math","pid":100,"tid":100,"ts":1,"dur":498})");
    for (int k = 0; k < 10; ++k)
        m.launch("aten::bmm", "[[16,1024,64],[16,64,1024]]", R"(["float","float"])", 2 + k * 40, 30,
                 "kernel_" + std::to_string(k), 10 + k * 40, 20);
    const auto math = findingsOf(*loadText(m.text()));
    const Finding* s = findingOf(math, "sdpa_math_fallback");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->explanation.find("dropout"), std::string::npos) << s->explanation;
    EXPECT_NE(s->explanation.find("fp32 inputs"), std::string::npos);
}

// Latency-bound kernels holding under 5% of the kernel time are no finding.
TEST(Findings, AFewLatencyBoundKernelsAreNoFinding) {
    GpuTrace t;
    for (int k = 0; k < 3; ++k) // 8 kFLOP each in 50 µs: latency-bound, 150 µs in all
        t.launch("aten::mm", "[[16,16],[16,16]]", R"(["float","float"])", k * 100, 3, "gemm_small",
                 k * 100 + 10, 50);
    // 10 ms of kernels without a cost: no verdict, but kernel time.
    t.launch("aten::add", "[[4]]", R"(["float"])", 400, 3, "big_kernel", 410, 10'000);
    const auto all = findingsOf(*loadText(t.text()));
    EXPECT_EQ(findingOf(all, "latency_bound"), nullptr);
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

// A GPU's busy time is its kernels, copies and memsets: a GPU-side annotation over a gap is no work.
TEST(Findings, AnAnnotationOnAStreamIsNotGpuWork) {
    GpuTrace t;
    t.add(
        R"({"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":0,"dur":10,"args":{"device":0,"stream":7}})");
    t.add(
        R"({"ph":"X","cat":"gpu_user_annotation","name":"step","pid":0,"tid":7,"ts":0,"dur":300,"args":{"device":0,"stream":7}})");
    t.add(
        R"({"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":200,"dur":10,"args":{"device":0,"stream":7}})");
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "gpu_idle");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 190'000);
    EXPECT_NE(f->title.find("The GPU idles"), std::string::npos) << f->title; // one GPU
}

// The costliest synchronization first even when it came first, and the calls listed by name.
TEST(Findings, TheCostliestSynchronizationFirstWhereverItIs) {
    GpuTrace t;
    t.launch("aten::mul", "[[4]]", R"(["float"])", 0, 5, "k1", 10, 10);
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":100,"tid":100,"ts":12,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 210, 5, "k2", 222, 10); // idle 200 µs after the first
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":100,"tid":100,"ts":225,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 240, 5, "k3", 255, 10); // idle 20 µs after the second
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "synchronization");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->evidence.size(), 2u);
    EXPECT_EQ(f->evidence[0].name, "cudaDeviceSynchronize");
    EXPECT_EQ(f->evidence[1].name, "cudaStreamSynchronize");
    EXPECT_NE(
        f->explanation.find("2 synchronizing calls (cudaDeviceSynchronize ×1, cudaStreamSynchronize ×1): "),
        std::string::npos)
        << f->explanation;
}

// What SDPA's inputs say of its math fallback, by hand: a head dim of 320 is over flash's 256, one of
// 256 is not; bf16 inputs with no mask and no dropout on a GPU give no reason at all (and no CPU's);
// a trace without shapes says it does not know.
TEST(Findings, TheMathFallbacksReasonsFromItsInputsEdgeByEdge) {
    auto math = [](const std::string& dims, const std::string& types, const std::string& concrete) {
        GpuTrace t;
        std::string args = dims.empty() ? std::string("{}")
                                        : R"({"Input Dims":)" + dims + R"(,"Input type":)" + types +
                                              R"(,"Concrete Inputs":)" + concrete + "}";
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":100,"tid":100,"ts":0,)"
            R"("dur":500,"args":)" +
            args + "}");
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_attention_math","pid":100,"tid":100,"ts":1,"dur":498})");
        for (int k = 0; k < 10; ++k)
            t.launch("aten::bmm", "[[16,1024,64],[16,64,1024]]", R"(["c10::BFloat16","c10::BFloat16"])",
                     2 + k * 40, 30, "kernel_" + std::to_string(k), 10 + k * 40, 20);
        const auto all = findingsOf(*loadText(t.text()));
        const Finding* f = findingOf(all, "sdpa_math_fallback");
        return f ? f->explanation : std::string("no finding");
    };
    const std::string bf16 = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar"])";
    const std::string none = R"(["","","","","0.","True"])";
    EXPECT_NE(
        math("[[2,8,1024,320],[2,8,1024,320],[2,8,1024,320],[],[],[]]", bf16, none).find("head dim 320"),
        std::string::npos);
    const std::string d256 = math("[[2,8,1024,256],[2,8,1024,256],[2,8,1024,256],[],[],[]]", bf16, none);
    EXPECT_EQ(d256.find("head dim"), std::string::npos) << d256;
    EXPECT_EQ(d256.find("What the inputs show"), std::string::npos) << d256;
    EXPECT_EQ(d256.find("CPU"), std::string::npos) << d256;
    EXPECT_NE(math("", "", "").find("does not record the op's inputs"), std::string::npos);
}

// On the CPU a cast counts when it copied: aten::to whose aten::copy_ ran right before SDPA's op.
TEST(Findings, ACpuCastThatCopiedIsAFinding) {
    const auto trace = loadText(R"({"deviceProperties":[],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::to","pid":7,"tid":7,"ts":0,"dur":40,"args":{"Input Dims":[[1,8,1024,64],[],[],[],[]],"Input type":["c10::BFloat16","","","",""]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_to_copy","pid":7,"tid":7,"ts":1,"dur":38,"args":{"Input Dims":[[1,8,1024,64]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":7,"tid":7,"ts":5,"dur":30,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":7,"tid":7,"ts":60,"dur":900,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":7,"tid":7,"ts":62,"dur":890,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}}]})");
    FindingThresholds all = FindingThresholds::standard();
    all.set("min_share", 0);
    const auto found = findingsOf(*trace, all);
    const Finding* f = findingOf(found, "casts_and_copies");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u);
    // A cast of a scalar (empty shapes: no op of it is a kernel) counts by the copy_ that ran inside it.
    const auto scalar = findingsOf(*loadText(R"({"deviceProperties":[],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::to","pid":7,"tid":7,"ts":0,"dur":40,"args":{"Input Dims":[[],[],[],[],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_to_copy","pid":7,"tid":7,"ts":1,"dur":38,"args":{"Input Dims":[[],[],[],[],[],[],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":7,"tid":7,"ts":5,"dur":30,"args":{"Input Dims":[[],[],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":7,"tid":7,"ts":62,"dur":890,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}}]})"),
                                   all);
    const Finding* s = findingOf(scalar, "casts_and_copies");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->count, 1u);
    // Nothing cast: no finding, even when none is too small to show.
    const auto flash = findingsOf(*loadText(R"({"deviceProperties":[],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":7,"tid":7,"ts":62,"dur":890,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}}]})"),
                                  all);
    EXPECT_EQ(findingOf(flash, "casts_and_copies"), nullptr);
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
