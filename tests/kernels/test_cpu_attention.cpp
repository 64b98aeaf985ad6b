// SPDX-License-Identifier: MIT
// The CPU attention kernels against a double-precision reference, causal and not, per dtype; what
// they record (roles, workers, FLOPs); the cost model's formulas; the worker pool's split.
#include "kernels/cpu/cpu_attention.h"

#include "core/analysis/analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <set>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

struct Inputs {
    std::vector<float> q, k, v;
};

Inputs randomInputs(const AttentionShape& s, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Inputs in;
    for (auto* t : {&in.q, &in.k, &in.v}) {
        t->resize(t == &in.q ? s.elements() : s.kvElements());
        for (float& x : *t)
            x = u(rng);
        roundToPrecision(*t, s.dtype);
    }
    return in;
}

// Largest |out - ref| over the outputs, and the tolerance stated per dtype: the kernels compute in
// fp32 from inputs rounded to the dtype; outputs are rounded to the dtype (values are within ±1).
double tolerance(Precision t) {
    switch (t) {
    case Precision::F16:
        return 1e-3; // half a ulp of fp16 at 1 is 4.9e-4
    case Precision::BF16:
        return 8e-3; // half a ulp of bf16 at 1 is 3.9e-3
    default:
        return 2e-5;
    }
}

double maxError(const AttentionShape& s, std::vector<float> out, const std::vector<double>& ref) {
    roundToPrecision(out, s.dtype);
    double worst = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
        worst = std::max(worst, std::abs(double(out[i]) - ref[i]));
    return worst;
}

struct Recorded {
    std::mutex mutex;
    std::vector<CpuKernelSpan> spans;
    SpanSink sink() {
        return [this](const CpuKernelSpan& s) {
            std::lock_guard lock(mutex);
            spans.push_back(s);
        };
    }
};

} // namespace

// Every shape against the double-precision reference, naive and flash, the fused kernel built for each
// instruction set this CPU has (scalar, AVX2, AVX-512, AMX for bf16): ragged lengths, causal and not, each
// dtype, grouped-query (8 query heads on 2 K/V heads) and multi-query heads, and decode steps (1 and 3
// queries against a longer KV cache; causal: the queries are the cache's last), split between the
// workers when the cache is long.
TEST(CpuAttention, NaiveAndFlashMatchTheReference) {
    WorkerPool pool(3);
    auto shape = [](int batch, int heads, int seq, int dim, bool causal, Precision dtype, int kvHeads = 0,
                    int kvLen = 0) {
        AttentionShape s{batch, heads, seq, dim, causal, dtype};
        s.kvHeads = kvHeads;
        s.kvLen = kvLen;
        return s;
    };
    const AttentionShape shapes[] = {
        shape(2, 3, 67, 32, false, Precision::F32),
        shape(2, 3, 67, 32, true, Precision::F32),
        shape(1, 2, 130, 64, true, Precision::F32),
        shape(1, 1, 1, 16, false, Precision::F32),
        shape(1, 4, 64, 128, false, Precision::F16),
        shape(1, 4, 64, 128, true, Precision::F16),
        shape(1, 2, 96, 64, false, Precision::BF16),
        shape(1, 2, 96, 64, true, Precision::BF16),
        // bf16 on the AMX tiles where the CPU has them: ragged rows and keys (not multiples of the 64 of
        // a block or the 16 of a tile), head dims 64, 96 and 128, grouped heads, more keys than queries.
        shape(1, 2, 130, 64, false, Precision::BF16),
        shape(1, 2, 130, 128, true, Precision::BF16),
        shape(2, 8, 77, 64, true, Precision::BF16, 2),
        shape(1, 4, 100, 128, true, Precision::BF16, 1, 150),
        shape(1, 3, 50, 96, false, Precision::BF16),
        shape(1, 8, 70, 64, true, Precision::F32, 2),
        shape(2, 4, 33, 24, false, Precision::F32, 1),
        shape(1, 8, 1, 64, false, Precision::F32, 2, 300),
        shape(1, 4, 3, 128, true, Precision::F32, 1, 200),
        shape(1, 2, 5, 7, true, Precision::F32, 2, 70),
        // Few K/V heads and a long cache: the keys are split between the workers and combined.
        shape(1, 4, 1, 64, false, Precision::F32, 1, 2000),
        shape(1, 2, 3, 32, true, Precision::F32, 1, 1600),
    };
    std::vector<CpuIsa> isas;
    for (CpuIsa isa : {CpuIsa::Scalar, CpuIsa::Avx2, CpuIsa::Avx512, CpuIsa::Amx})
        if (isa <= bestCpuIsa()) isas.push_back(isa);
    for (const AttentionShape& s : shapes) {
        SCOPED_TRACE(testing::Message()
                     << "B=" << s.batch << " H=" << s.heads << " KV heads=" << s.kvHeadCount()
                     << " N=" << s.seq << " keys=" << s.keys() << " D=" << s.dim
                     << (s.causal ? " causal " : " ") << precisionName(s.dtype));
        const Inputs in = randomInputs(s, unsigned(s.seq * 7 + s.dim));
        std::vector<double> ref(s.elements());
        referenceAttention(s, in.q.data(), in.k.data(), in.v.data(), ref.data());

        for (CpuIsa isa : isas) {
            std::vector<float> naive(s.elements(), NAN), scores(s.scoreElements());
            cpuNaiveAttention(s, in.q.data(), in.k.data(), in.v.data(), naive.data(), scores.data(), pool, {},
                              isa);
            EXPECT_LE(maxError(s, naive, ref), tolerance(s.dtype)) << "naive " << isaName(isa);

            std::vector<float> flash(s.elements(), NAN);
            cpuFlashAttention(s, in.q.data(), in.k.data(), in.v.data(), flash.data(), pool, {}, isa);
            EXPECT_LE(maxError(s, flash, ref), tolerance(s.dtype)) << isaName(isa);
        }
    }
}

// A case worked by hand, independent of the reference (which shares the kernels' scale): D = 4, so
// scores are scaled by 1/√4 = 1/2. Row 0's scores 2·1/2 = 1 and 0 give weights e/(e+1) = 0.7310585786
// and 0.2689414214 on V's rows; row 1's are the other way round. Causal, row 0 sees only key 0.
TEST(CpuAttention, AHandWorkedCaseScaledByOneOverRootD) {
    EXPECT_DOUBLE_EQ((AttentionShape{1, 1, 8, 64, false, Precision::F32}.scale()), 0.125);
    const std::vector<float> q = {2, 0, 0, 0, 0, 2, 0, 0}, k = {1, 0, 0, 0, 0, 1, 0, 0},
                             v = {1, 2, 3, 4, 5, 6, 7, 8};
    const double a = 0.7310585786300049, b = 0.2689414213699951;
    const double full[] = {1 * a + 5 * b, 2 * a + 6 * b, 3 * a + 7 * b, 4 * a + 8 * b,
                           1 * b + 5 * a, 2 * b + 6 * a, 3 * b + 7 * a, 4 * b + 8 * a};
    const double causal[] = {1, 2, 3, 4, 1 * b + 5 * a, 2 * b + 6 * a, 3 * b + 7 * a, 4 * b + 8 * a};
    WorkerPool pool(2);
    for (bool isCausal : {false, true}) {
        SCOPED_TRACE(isCausal ? "causal" : "full");
        const AttentionShape s{1, 1, 2, 4, isCausal, Precision::F32};
        const double* expected = isCausal ? causal : full;
        std::vector<float> naive(8), flash(8), scores(4);
        std::vector<double> ref(8);
        cpuNaiveAttention(s, q.data(), k.data(), v.data(), naive.data(), scores.data(), pool, {});
        cpuFlashAttention(s, q.data(), k.data(), v.data(), flash.data(), pool, {});
        referenceAttention(s, q.data(), k.data(), v.data(), ref.data());
        for (int i = 0; i < 8; ++i) {
            EXPECT_NEAR(naive[i], expected[i], 2e-6) << i;
            EXPECT_NEAR(flash[i], expected[i], 2e-6) << i;
            EXPECT_NEAR(ref[i], expected[i], 1e-12) << i;
        }
    }
}

TEST(CpuAttention, CausalOutputsIgnoreLaterKeys) {
    // Changing the last key and value must not change any output row but the last.
    WorkerPool pool(2);
    const AttentionShape s{1, 1, 40, 16, true, Precision::F32};
    Inputs in = randomInputs(s, 5);
    std::vector<float> before(s.elements()), after(s.elements());
    cpuFlashAttention(s, in.q.data(), in.k.data(), in.v.data(), before.data(), pool, {});
    for (int x = 0; x < s.dim; ++x) {
        in.k[std::size_t(s.seq - 1) * s.dim + x] += 3;
        in.v[std::size_t(s.seq - 1) * s.dim + x] -= 3;
    }
    cpuFlashAttention(s, in.q.data(), in.k.data(), in.v.data(), after.data(), pool, {});
    const std::size_t lastRow = std::size_t(s.seq - 1) * s.dim;
    EXPECT_TRUE(std::equal(before.begin(), before.begin() + std::ptrdiff_t(lastRow), after.begin()));
    EXPECT_FALSE(std::equal(before.begin() + std::ptrdiff_t(lastRow), before.end(),
                            after.begin() + std::ptrdiff_t(lastRow)));
}

TEST(CpuAttention, EachWorkersShareOfEachKernelIsRecordedWithItsCost) {
    WorkerPool pool(2);
    const AttentionShape s{1, 4, 64, 32, false, Precision::F32};
    const Inputs in = randomInputs(s, 9);
    std::vector<float> out(s.elements()), scores(std::size_t(s.heads) * s.seq * s.seq);
    Recorded naive, flash;
    cpuNaiveAttention(s, in.q.data(), in.k.data(), in.v.data(), out.data(), scores.data(), pool,
                      naive.sink());
    cpuFlashAttention(s, in.q.data(), in.k.data(), in.v.data(), out.data(), pool, flash.sink());

    // Two workers, two heads each: every kernel has one span per worker, in role order for naive.
    ASSERT_EQ(naive.spans.size(), 6u);
    std::map<KernelRole, double> flops;
    std::map<KernelRole, std::set<unsigned>> workers;
    for (const CpuKernelSpan& span : naive.spans) {
        EXPECT_LE(span.startNs, span.endNs);
        flops[span.role] += span.cost.flops;
        workers[span.role].insert(span.worker);
    }
    for (KernelRole role : {KernelRole::QkGemm, KernelRole::Softmax, KernelRole::PvGemm}) {
        EXPECT_DOUBLE_EQ(flops[role], kernelCost(s, role).flops) << roleName(role);
        EXPECT_EQ(workers[role], (std::set<unsigned>{0, 1})) << roleName(role);
    }
    // The softmax starts after the whole QKᵀ ended: three kernels, one after the other.
    std::int64_t qkEnd = 0, softmaxStart = INT64_MAX;
    for (const CpuKernelSpan& span : naive.spans) {
        if (span.role == KernelRole::QkGemm) qkEnd = std::max(qkEnd, span.endNs);
        if (span.role == KernelRole::Softmax) softmaxStart = std::min(softmaxStart, span.startNs);
    }
    EXPECT_LE(qkEnd, softmaxStart);
    ASSERT_EQ(flash.spans.size(), 2u);
    EXPECT_EQ(flash.spans[0].name, "flash_attention_fwd");
    EXPECT_DOUBLE_EQ(flash.spans[0].cost.flops + flash.spans[1].cost.flops,
                     kernelCost(s, KernelRole::FusedAttention).flops);
}

TEST(KernelCost, FormulasFromTheShape) {
    AttentionShape s{4, 16, 4096, 128, false, Precision::BF16};
    const double fwd = 4.0 * 4 * 16 * 4096.0 * 4096 * 128;
    EXPECT_DOUBLE_EQ(kernelCost(s, KernelRole::FusedAttention).flops, fwd);
    EXPECT_DOUBLE_EQ(kernelCost(s, KernelRole::QkGemm).flops + kernelCost(s, KernelRole::PvGemm).flops, fwd);
    EXPECT_DOUBLE_EQ(kernelCost(s, KernelRole::FusedAttention).bytes, 4.0 * 4 * 16 * 4096 * 128 * 2);
    EXPECT_DOUBLE_EQ(kernelCost(s, KernelRole::Softmax).bytes, 2.0 * 4 * 16 * 4096.0 * 4096 * 4);
    s.causal = true;
    EXPECT_DOUBLE_EQ(kernelCost(s, KernelRole::FusedAttention).flops, fwd / 2);
    // Held in fp32 (the CPU kernels): 4 bytes an element whatever the dtype.
    EXPECT_DOUBLE_EQ(kernelCost(s, KernelRole::FusedAttention, 4, 4).bytes, 4.0 * 4 * 16 * 4096 * 128 * 4);
    // A decode step, one query against 32768 keys, 8 query heads on 1 K/V head, D=128, fp32: 4·8·32768·128
    // = 134,217,728 FLOPs; Q and O 2·8·128·4 = 8,192 bytes, K and V 2·32768·128·4 = 33,554,432 bytes:
    // 4 FLOP/byte, far under any CPU's or GPU's ridge.
    AttentionShape decode{1, 8, 1, 128, false, Precision::F32};
    decode.kvHeads = 1;
    decode.kvLen = 32768;
    EXPECT_DOUBLE_EQ(kernelCost(decode, KernelRole::FusedAttention).flops, 134217728.0);
    EXPECT_DOUBLE_EQ(kernelCost(decode, KernelRole::FusedAttention).bytes, 8192.0 + 33554432.0);
    // Its scores: 8 heads × 32768, written by QKᵀ, read and written by softmax, read by PV.
    EXPECT_DOUBLE_EQ(kernelCost(decode, KernelRole::Softmax).bytes, 2.0 * 8 * 32768 * 4);
    EXPECT_DOUBLE_EQ(kernelCost(decode, KernelRole::QkGemm).bytes, 4096.0 + 16777216.0 + 8 * 32768 * 4.0);
    // Causal, the query is the cache's last and sees every key but counts as 32768 − ½ pairs.
    decode.causal = true;
    EXPECT_DOUBLE_EQ(kernelCost(decode, KernelRole::FusedAttention).flops, 4.0 * 8 * 32767.5 * 128);
    EXPECT_EQ(describeShape(decode), "B=1 H=8 N=1 D=128 fp32 causal · MQA · 32768 keys");
    decode.kvHeads = 2;
    EXPECT_EQ(describeShape(decode), "B=1 H=8 N=1 D=128 fp32 causal · GQA 8:2 · 32768 keys");
    EXPECT_EQ(roleName(KernelRole::PvGemm), "pv_gemm");
    EXPECT_EQ(precisionName(Precision::BF16), "bf16");
}

// One attention FLOP formula: what AttnScope's own runs write for a call equals what the analysis
// infers for PyTorch's SDPA op of the same shape, causal or not; softmax likewise.
TEST(KernelCost, OwnRunsAndInferredPyTorchOpsCountAlike) {
    for (const bool causal : {false, true}) {
        AttentionShape s{2, 8, 1024, 64, causal, Precision::BF16};
        const auto sdpa = opCost("aten::scaled_dot_product_attention",
                                 "[[2,8,1024,64],[2,8,1024,64],[2,8,1024,64],[],[],[],[]]",
                                 "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]",
                                 causal ? "[\"\",\"\",\"\",\"\",\"0.\",\"True\"]" : "");
        ASSERT_TRUE(sdpa) << causal;
        EXPECT_DOUBLE_EQ(sdpa->flops, kernelCost(s, KernelRole::FusedAttention).flops) << causal;
        EXPECT_DOUBLE_EQ(sdpa->flops,
                         kernelCost(s, KernelRole::QkGemm).flops + kernelCost(s, KernelRole::PvGemm).flops);
    }
    AttentionShape s{2, 8, 1024, 64, false, Precision::F32};
    const auto softmax = opCost("aten::_softmax", "[[2,8,1024,1024],[],[]]", "[\"float\"]", "");
    ASSERT_TRUE(softmax);
    EXPECT_DOUBLE_EQ(softmax->flops, kernelCost(s, KernelRole::Softmax).flops);
}

TEST(WorkerPool, SplitsItemsIntoContiguousSharesOncePerRun) {
    WorkerPool pool(3);
    for (std::size_t items : {0u, 1u, 2u, 3u, 10u, 1000u}) {
        std::vector<std::atomic<int>> seen(items);
        std::atomic<int> calls{0};
        pool.run(items, [&](unsigned, std::size_t begin, std::size_t end) {
            ++calls;
            for (std::size_t i = begin; i < end; ++i)
                ++seen[i];
        });
        for (std::size_t i = 0; i < items; ++i)
            ASSERT_EQ(seen[i].load(), 1) << items << " " << i;
        EXPECT_EQ(calls.load(), int(std::min<std::size_t>(items, 3))) << items;
    }
}

TEST(RoundToPrecision, KeepsWhatTheTypeHolds) {
    std::vector<float> v{1.0f, 1.0f + 1.0f / 1024, 1.0f + 1.0f / 4096, 3.14159265f, -0.0f, INFINITY};
    std::vector<float> bf = v, h = v;
    roundToPrecision(bf, Precision::BF16);
    roundToPrecision(h, Precision::F16);
    EXPECT_EQ(h[1], 1.0f + 1.0f / 1024); // fp16 has 10 mantissa bits
    EXPECT_EQ(h[2], 1.0f);
    EXPECT_EQ(bf[1], 1.0f); // bf16 has 7
    EXPECT_EQ(bf[3], 3.140625f);
    EXPECT_EQ(h[3], 3.140625f);
    EXPECT_TRUE(std::isinf(bf[5]) && std::isinf(h[5]));
}
