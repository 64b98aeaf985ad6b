// SPDX-License-Identifier: MIT
// The CUDA implementations against the double-precision reference on small shapes, causal and not,
// in each dtype they run; and CUDA runs through RunSession with CUPTI collection. Without a device
// each such test says so and is skipped (here: no NVIDIA driver); on a machine with one,
// tests/gpu/check.sh runs them. What a machine without a device must do is tested everywhere.
#include "kernels/cpu/cpu_attention.h"
#include "kernels/cuda_backend.h"
#include "kernels/run_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <thread>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

#define ATTNSCOPE_REQUIRE_CUDA_DEVICE()                                                                      \
    do {                                                                                                     \
        const CudaAvailability cuda = probeCuda();                                                           \
        if (cuda.devices == 0) GTEST_SKIP() << "no CUDA device here: " << cuda.message;                      \
    } while (0)

double maxError(const std::vector<float>& out, const std::vector<double>& ref) {
    double worst = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
        worst = std::max(worst, std::isfinite(out[i]) ? std::abs(double(out[i]) - ref[i]) : INFINITY);
    return worst;
}

// Largest error of impl at shape s against the reference, on inputs rounded to the dtype.
double errorOf(const char* impl, const AttentionShape& s, std::string& error) {
    std::mt19937 rng(unsigned(s.seq * 131 + s.dim));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> q(s.elements()), k(s.kvElements()), v(s.kvElements());
    for (auto* t : {&q, &k, &v}) {
        for (float& x : *t)
            x = u(rng);
        roundToPrecision(*t, s.dtype);
    }
    std::vector<double> ref(s.elements());
    referenceAttention(s, q.data(), k.data(), v.data(), ref.data());
    std::vector<float> out(s.elements(), NAN);
    error = runCudaAttention(impl, s, q.data(), k.data(), v.data(), out.data());
    return maxError(out, ref);
}

// The tolerance per dtype: fp32 accumulates in fp32; fp16 and bf16 round the probabilities (and
// for naive the scores) to 11 and 8 significant bits before the second product.
double tolerance(Precision t) {
    return t == Precision::F32 ? 1e-4 : t == Precision::F16 ? 5e-3 : 3e-2;
}

std::string describe(const AttentionShape& s) {
    return "B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) +
           " KV heads=" + std::to_string(s.kvHeadCount()) + " N=" + std::to_string(s.seq) +
           " keys=" + std::to_string(s.keys()) + " D=" + std::to_string(s.dim) + " " +
           std::string(precisionName(s.dtype)) + (s.causal ? " causal" : "");
}

void expectMatches(const char* impl, const std::vector<AttentionShape>& shapes) {
    for (const AttentionShape& s : shapes) {
        SCOPED_TRACE(std::string(impl) + " " + describe(s));
        std::string error;
        const double worst = errorOf(impl, s, error);
        ASSERT_EQ(error, "");
        EXPECT_LE(worst, tolerance(s.dtype));
    }
}

KernelRole roleNamed(const std::string& name) {
    for (KernelRole r : {KernelRole::QkGemm, KernelRole::Softmax, KernelRole::PvGemm})
        if (roleName(r) == name) return r;
    return KernelRole::FusedAttention;
}

std::vector<AttentionShape> withEveryMask(std::vector<AttentionShape> shapes) {
    const std::size_t n = shapes.size();
    for (std::size_t i = 0; i < n; ++i) {
        AttentionShape c = shapes[i];
        c.causal = !c.causal;
        shapes.push_back(c);
    }
    return shapes;
}

} // namespace

TEST(CudaAttention, SimtImplementationsMatchTheReference) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    const auto shapes = withEveryMask({{2, 3, 67, 32, false, Precision::F32},
                                       {1, 2, 130, 64, false, Precision::F32},
                                       {1, 1, 1, 16, false, Precision::F32},
                                       {1, 4, 257, 128, false, Precision::F32}});
    expectMatches("naive_simt", shapes);
    expectMatches("flash_simt", shapes);
}

TEST(CudaAttention, CublasNaiveMatchesTheReferenceInEveryDtype) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    for (Precision t : {Precision::F32, Precision::F16, Precision::BF16})
        expectMatches("naive", withEveryMask({{2, 3, 67, 32, false, t}, {1, 2, 130, 128, false, t}}));
}

TEST(CudaAttention, TensorCoreFlashMatchesTheReference) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    // Lengths that are not multiples of the 64-row tiles, one shorter than a tile, and several tiles.
    for (Precision t : {Precision::F16, Precision::BF16})
        for (int dim : {64, 128})
            expectMatches("flash", withEveryMask({{2, 3, 67, dim, false, t},
                                                  {1, 2, 1, dim, false, t},
                                                  {1, 2, 300, dim, false, t},
                                                  {1, 1, 512, dim, false, t}}));
}

// Grouped-query heads and decode steps against a KV cache (flash only), against the same reference as
// the CPU's: 8 query heads on 2 and on 1 K/V head, 1 and 3 queries against 4000 keys (causal: the
// queries are the cache's last), a prefill of 300 queries over a 700-key cache.
TEST(CudaAttention, TensorCoreFlashRunsGroupedHeadsAndDecodeSteps) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    auto shape = [](int heads, int seq, int dim, Precision t, int kvHeads, int kvLen, bool causal) {
        AttentionShape s{1, heads, seq, dim, causal, t};
        s.kvHeads = kvHeads;
        s.kvLen = kvLen;
        return s;
    };
    for (Precision t : {Precision::F16, Precision::BF16})
        for (int dim : {64, 128})
            expectMatches("flash", {shape(8, 67, dim, t, 2, 0, true), shape(8, 1, dim, t, 1, 4000, false),
                                    shape(8, 3, dim, t, 2, 4000, true), shape(4, 300, dim, t, 4, 700, true)});
    std::string error;
    errorOf("naive", shape(8, 16, 64, Precision::BF16, 2, 0, false), error);
    EXPECT_NE(error.find("flash"), std::string::npos) << error; // the others say where GQA runs
}

TEST(CudaAttention, UnsupportedImplementationsAndShapesAreRefused) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    std::string error;
    errorOf("fancy", {1, 1, 4, 64, false, Precision::F32}, error);
    EXPECT_NE(error.find("unknown"), std::string::npos) << error;
    errorOf("flash_simt", {1, 1, 4, 256, false, Precision::F32}, error);
    EXPECT_NE(error.find("head dims up to 128"), std::string::npos) << error;
    errorOf("flash", {1, 1, 4, 64, false, Precision::F32}, error);
    EXPECT_NE(error.find("fp16 and bf16"), std::string::npos) << error;
    errorOf("flash", {1, 1, 4, 96, false, Precision::BF16}, error);
    EXPECT_NE(error.find("64 and 128"), std::string::npos) << error;
}

TEST(CudaRun, RecordsKernelsWithRolesLaunchesAndCalls) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    RunConfig c;
    c.backend = Backend::Cuda;
    c.impls = {"naive", "flash"};
    c.shape = {1, 4, 256, 64, true, Precision::BF16};
    c.warmup = 1;
    c.iters = 2;
    RunSession session(c);
    session.start();
    session.wait();
    ASSERT_EQ(session.error(), "");
    for (const std::string& notice : session.takeNotices())
        ADD_FAILURE() << "collection notice: " << notice;
    const std::vector<RunEvent> events = session.takeEvents();
    std::set<std::pair<std::string, std::string>> kernelRoles; // impl, role
    int calls = 0, launches = 0;
    for (const RunEvent& e : events) {
        if (e.category == "kernel" && !e.role.empty()) {
            EXPECT_GE(e.device, 0);
            EXPECT_GT(e.endNs, e.startNs);
            EXPECT_NE(e.correlation, 0u);
            kernelRoles.insert({e.impl, e.role});
            const auto flops =
                std::find_if(e.args.begin(), e.args.end(), [](auto& a) { return a.first == "flops"; });
            ASSERT_NE(flops, e.args.end());
            // Exact, from the shape: scores in bf16 (2 bytes), FLOPs halved by the causal mask.
            EXPECT_EQ(std::stod(flops->second), kernelCost(c.shape, roleNamed(e.role), 2).flops) << e.role;
        }
        if (e.category == "user_annotation" && e.call >= 0) {
            ++calls;
            EXPECT_GT(e.measuredNs, 0);
        }
        if (e.category == "cuda_runtime" && e.name.find("Launch") != std::string::npos) ++launches;
    }
    const std::set<std::pair<std::string, std::string>> expected = {
        {"naive", "qk_gemm"}, {"naive", "softmax"}, {"naive", "pv_gemm"}, {"flash", "fused_attention"}};
    EXPECT_EQ(kernelRoles, expected);
    EXPECT_EQ(calls, 2 * (c.warmup + c.iters));
    EXPECT_GT(launches, 0);
    // In the trace, a kernel links back to the runtime call that launched it.
    const auto trace = buildRunTrace(events, Backend::Cuda);
    bool linked = false;
    for (std::uint32_t t = 0; t < trace->tracks().size() && !linked; ++t) {
        const Track& track = trace->tracks()[t];
        for (std::uint32_t i = 0; i < track.size() && !linked; ++i)
            if (trace->str(track.events.category[i]) == "kernel" && trace->launchOf({TrackId{t}, i}))
                linked = true;
    }
    EXPECT_TRUE(linked);
    const auto stats = runStats(c, events);
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0].callMs.size(), 2u);
    EXPECT_EQ(stats[0].roleMs.size(), 3u);
}

TEST(CudaRun, StopEndsARunWithinASecond) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    RunConfig c;
    c.backend = Backend::Cuda;
    c.impls = {"flash"};
    c.shape = {4, 16, 4096, 128, false, Precision::BF16};
    c.warmup = 0;
    c.iters = 10000;
    RunSession session(c);
    session.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto asked = steadyClockNs();
    session.stop();
    session.wait();
    EXPECT_LT(steadyClockNs() - asked, 1'000'000'000);
    EXPECT_EQ(session.error(), "");
    EXPECT_GT(session.recorded(), 0u);
}

TEST(CudaRun, WithoutADeviceTheRunSaysWhy) {
    const CudaAvailability cuda = probeCuda();
    if (cuda.devices > 0) GTEST_SKIP() << "there is a CUDA device here: " << cuda.message;
    EXPECT_FALSE(cuda.runnable);
    EXPECT_EQ(cuda.message.rfind("no CUDA", 0), 0u) << cuda.message;
    std::vector<float> t(16, 0.5f), o(16);
    EXPECT_FALSE(runCudaAttention("naive_simt", AttentionShape{1, 1, 4, 4, false, Precision::F32}, t.data(),
                                  t.data(), t.data(), o.data())
                     .empty());
    RunConfig c;
    c.backend = Backend::Cuda;
    c.impls = {"naive_simt"};
    c.shape = {1, 1, 16, 16, false, Precision::F32};
    RunSession session(c);
    session.start();
    session.wait();
    EXPECT_EQ(session.error().rfind("no CUDA device", 0), 0u) << session.error();
    EXPECT_TRUE(session.takeEvents().empty());
}
