// SPDX-License-Identifier: MIT
// The CUDA kernels, run on the host: their bodies compiled as C++ with the CUDA built-ins emulated
// (kernels/cuda/host_emulation.h: threads as fibers, barriers, warp shuffles, mma.sync and ldmatrix
// from the PTX ISA's fragment layouts), against the double-precision reference. A GPU is not needed;
// tests/gpu/check.sh runs the same kernels on one.
// The plugin's host-side declarations first: cuda_runtime.h must not see the emulation's macros.
#include "kernels/cuda/device_attention.h"
#include "kernels/cuda/plugin_api.h"
#include "kernels/cuda/toolkit_paths.h"

#include "kernels/cuda/attention_flash.cuh"
#include "kernels/cuda/attention_simt.cuh"

#include "kernels/cpu/cpu_attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

using attnscope_cuda::fromFloat;
using attnscope_cuda::toFloat;

// Runs the tensor-core flash kernel on the host emulation for one batch of `heads` query heads over
// kvHeads K/V heads with kvLen keys (0: heads, seq) and returns the largest error against the
// reference.
template <class T, int D> double flashError(int heads, int seq, bool causal, int kvHeads = 0, int kvLen = 0) {
    const Precision dtype = std::is_same_v<T, __half> ? Precision::F16 : Precision::BF16;
    AttentionShape shape{1, heads, seq, D, causal, dtype};
    shape.kvHeads = kvHeads;
    shape.kvLen = kvLen;
    std::mt19937 rng(unsigned(seq * 31 + D + causal + kvLen));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> q(shape.elements()), k(shape.kvElements()), v(shape.kvElements());
    for (auto* x : {&q, &k, &v}) {
        for (float& e : *x)
            e = uniform(rng);
        roundToPrecision(*x, dtype);
    }
    auto device = [](const std::vector<float>& x) {
        std::vector<T> out(x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
            out[i] = fromFloat<T>(x[i]);
        return out;
    };
    const std::vector<T> qd = device(q), kd = device(k), vd = device(v);
    std::vector<T> od(q.size(), fromFloat<T>(NAN));
    using namespace attnscope_cuda;
    const int queryBlocks = (seq + kBlockRows - 1) / kBlockRows;
    const float scaleLog2 = float(shape.scale() * 1.4426950408889634);
    attnscope_emu::launch(
        {unsigned(heads * queryBlocks), 1, 1}, {kThreads, 1, 1}, flashSharedBytes<T, D>(), [&] {
            flashForwardKernel<T, D>(qd.data(), kd.data(), vd.data(), od.data(), seq, shape.keys(),
                                     heads / shape.kvHeadCount(), queryBlocks, scaleLog2, causal ? 1 : 0);
        });
    std::vector<double> ref(shape.elements());
    referenceAttention(shape, q.data(), k.data(), v.data(), ref.data());
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double got = toFloat(od[i]);
        if (!std::isfinite(got)) return INFINITY;
        worst = std::max(worst, std::abs(got - ref[i]));
    }
    return worst;
}

// The GPU tests' tolerances: the kernel rounds P to 16 bits for P·V.
double tolerance(Precision p) {
    return p == Precision::F16 ? 5e-3 : 3e-2;
}

} // namespace

// fp16 and bf16, head dims 64 and 128, causal and not, sequence lengths that are not multiples of the
// 64-row and 64-key tiles (the last tiles are partial: masked keys, rows not written).
// Both ways cp.async's copies may land (at their wait, or as issued): a missing wait and a missing
// barrier before a buffer is refilled each fail one of them.
TEST(CudaEmulation, TensorCoreFlashMatchesTheReference) {
    for (auto timing : {attnscope_emu::CopyTiming::AtWait, attnscope_emu::CopyTiming::AtIssue})
        for (int seq : {70, 130})
            for (bool causal : {false, true}) {
                attnscope_emu::copyTiming() = timing;
                SCOPED_TRACE(
                    testing::Message()
                    << "seq " << seq << (causal ? " causal" : "")
                    << (timing == attnscope_emu::CopyTiming::AtIssue ? ", copies land as issued" : ""));
                EXPECT_LE((flashError<__half, 64>(2, seq, causal)), tolerance(Precision::F16));
                EXPECT_LE((flashError<__nv_bfloat16, 64>(2, seq, causal)), tolerance(Precision::BF16));
                EXPECT_LE((flashError<__half, 128>(1, seq, causal)), tolerance(Precision::F16));
                EXPECT_LE((flashError<__nv_bfloat16, 128>(1, seq, causal)), tolerance(Precision::BF16));
            }
    attnscope_emu::copyTiming() = attnscope_emu::CopyTiming::AtWait;
}

// Grouped-query heads (4 query heads on 2 and on 1 K/V head) and a KV cache longer than the queries
// (a decode step of 1 or 3 queries against 200 keys; causal: the queries are the cache's last),
// multi-tile caches included.
TEST(CudaEmulation, TensorCoreFlashRunsGroupedHeadsAndDecodeSteps) {
    EXPECT_LE((flashError<__half, 64>(4, 70, true, 2)), tolerance(Precision::F16));
    EXPECT_LE((flashError<__nv_bfloat16, 128>(4, 50, false, 1)), tolerance(Precision::BF16));
    EXPECT_LE((flashError<__half, 64>(2, 1, false, 1, 200)), tolerance(Precision::F16));
    EXPECT_LE((flashError<__nv_bfloat16, 64>(4, 3, true, 2, 200)), tolerance(Precision::BF16));
    EXPECT_LE((flashError<__half, 128>(2, 70, true, 2, 150)), tolerance(Precision::F16));
}

// The harness itself: with mma.sync's A fragment read in the wrong order (a1 and a2 swapped, a
// plausible mistake), or ldmatrix's .trans ignored, the same kernel no longer matches — a layout
// error cannot pass unseen.
TEST(CudaEmulation, AWrongFragmentLayoutFails) {
    attnscope_emu::setBrokenLayout(attnscope_emu::Broken::MmaA);
    const double error = flashError<__half, 64>(1, 64, false);
    attnscope_emu::setBrokenLayout(attnscope_emu::Broken::LdmatrixTrans); // V's fragments untransposed
    const double untransposed = flashError<__half, 64>(1, 64, false);
    attnscope_emu::setBrokenLayout(attnscope_emu::Broken::None);
    EXPECT_GT(error, 10 * tolerance(Precision::F16));
    EXPECT_GT(untransposed, 10 * tolerance(Precision::F16));
    EXPECT_LE((flashError<__half, 64>(1, 64, false)), tolerance(Precision::F16)); // and back to right
}

// Threads that do not all reach a barrier, or lanes of a warp at different warp-wide operations, are
// reported, not hung.
TEST(CudaEmulation, DivergentBarriersAndShufflesAreReported) {
    EXPECT_THROW(attnscope_emu::launch({1, 1, 1}, {64, 1, 1}, 0,
                                       [] {
                                           if (threadIdx.x < 32) __syncthreads();
                                       }),
                 std::runtime_error);
    EXPECT_THROW(attnscope_emu::launch({1, 1, 1}, {32, 1, 1}, 0,
                                       [] {
                                           if (threadIdx.x % 2)
                                               __shfl_xor_sync(0xffffffffu, 1.0f, 1);
                                           else
                                               __syncthreads();
                                       }),
                 std::runtime_error);
    // A butterfly sum over a warp: every lane ends with the total.
    std::vector<float> out(32);
    attnscope_emu::launch({1, 1, 1}, {32, 1, 1}, 0, [&] {
        float v = float(threadIdx.x);
        for (int m = 16; m > 0; m /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, m);
        out[threadIdx.x] = v;
    });
    for (float v : out)
        EXPECT_EQ(v, 496.0f);
}

namespace {

struct Fp32Problem {
    AttentionShape shape;
    std::vector<float> q, k, v;
    std::vector<double> ref;
};

Fp32Problem fp32Problem(int heads, int seq, int dim, bool causal) {
    Fp32Problem p{{1, heads, seq, dim, causal, Precision::F32}, {}, {}, {}, {}};
    std::mt19937 rng(unsigned(seq * 7 + dim));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto* x : {&p.q, &p.k, &p.v}) {
        x->resize(p.shape.elements());
        for (float& e : *x)
            e = uniform(rng);
    }
    p.ref.resize(p.shape.elements());
    referenceAttention(p.shape, p.q.data(), p.k.data(), p.v.data(), p.ref.data());
    return p;
}

double maxError(const std::vector<float>& got, const std::vector<double>& ref) {
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i)
        worst = std::isfinite(got[i]) ? std::max(worst, std::abs(double(got[i]) - ref[i])) : INFINITY;
    return worst;
}

} // namespace

// naive_simt: QKᵀ and PV as tiled SIMT GEMMs around the softmax kernel (16×16 threads a tile, heads in
// gridDim.z), lengths not multiples of the tile; and the softmax kernel alone in 16-bit types.
TEST(CudaEmulation, SimtNaiveMatchesTheReference) {
    using namespace attnscope_cuda;
    for (bool causal : {false, true}) {
        const Fp32Problem p = fp32Problem(2, 37, 24, causal);
        const int n = p.shape.seq, d = p.shape.dim, heads = 2;
        std::vector<float> scores(std::size_t(heads) * n * n), o(p.shape.elements());
        const unsigned tiles = unsigned((n + kTile - 1) / kTile);
        attnscope_emu::launch({tiles, tiles, unsigned(heads)}, {kTile, kTile, 1}, 0,
                              [&] { qkKernel(p.q.data(), p.k.data(), scores.data(), n, d); });
        attnscope_emu::launch({unsigned(heads * n), 1, 1}, {kRowThreads, 1, 1}, 0, [&] {
            softmaxKernel<float>(scores.data(), n, float(p.shape.scale()), causal ? 1 : 0);
        });
        attnscope_emu::launch({unsigned((d + kTile - 1) / kTile), tiles, unsigned(heads)}, {kTile, kTile, 1},
                              0, [&] { pvKernel(scores.data(), p.v.data(), o.data(), n, d); });
        EXPECT_LE(maxError(o, p.ref), 1e-4) << (causal ? "causal" : "");
    }
}

// flash_simt: one block per query row, keys in tiles of 128 (a row with more keys than a tile).
TEST(CudaEmulation, SimtFlashMatchesTheReference) {
    using namespace attnscope_cuda;
    for (bool causal : {false, true}) {
        const Fp32Problem p = fp32Problem(2, 150, 64, causal);
        std::vector<float> o(p.shape.elements(), NAN);
        attnscope_emu::launch({unsigned(2 * p.shape.seq), 1, 1}, {kRowThreads, 1, 1}, 0, [&] {
            flashRowKernel(p.q.data(), p.k.data(), p.v.data(), o.data(), p.shape.seq, p.shape.dim,
                           float(p.shape.scale()), causal ? 1 : 0);
        });
        EXPECT_LE(maxError(o, p.ref), 1e-4) << (causal ? "causal" : "");
    }
}

// The helpers: the fill pattern is reproducible and in [-1, 1), conversions round to nearest even.
TEST(CudaEmulation, FillAndConversionKernels) {
    using namespace attnscope_cuda;
    const std::size_t n = 1000;
    std::vector<__nv_bfloat16> a(n), b(n);
    for (auto* x : {&a, &b})
        attnscope_emu::launch({2, 1, 1}, {256, 1, 1}, 0,
                              [&] { fillKernel<__nv_bfloat16>(x->data(), n, 7u); });
    std::vector<float> back(n), source(n);
    for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(__bfloat162float(a[i]), __bfloat162float(b[i]));
        EXPECT_GE(__bfloat162float(a[i]), -1.0f);
        EXPECT_LT(__bfloat162float(a[i]), 1.0f);
        source[i] = 1.0f + float(i) / 1024.0f; // 1 + i·2^-10: bf16 keeps 7 fraction bits
    }
    attnscope_emu::launch({1, 1, 1}, {256, 1, 1}, 0,
                          [&] { fromFloatKernel<__nv_bfloat16>(source.data(), a.data(), n); });
    attnscope_emu::launch({1, 1, 1}, {256, 1, 1}, 0,
                          [&] { toFloatKernel<__nv_bfloat16>(a.data(), back.data(), n); });
    std::vector<float> rounded = source;
    roundToPrecision(rounded, Precision::BF16);
    for (std::size_t i = 0; i < n; ++i)
        EXPECT_EQ(back[i], rounded[i]) << i;
}

// The grid's limits are checked before a launch: naive_simt's GEMMs put batch·heads in gridDim.z
// (65535 at most) and seq's tiles in gridDim.y; the row kernels take a block per row in gridDim.x.
TEST(CudaEmulation, ShapesBeyondTheGridAreRefused) {
    using attnscope_cuda::unsupported;
    attnscope_cuda::Problem p;
    p.dtype = ATTNSCOPE_CUDA_F32;
    p.dim = 64;
    p.batch = 1;
    p.heads = 65535;
    p.seq = 16;
    EXPECT_EQ(unsupported("naive_simt", p), nullptr);
    p.heads = 65536;
    ASSERT_NE(unsupported("naive_simt", p), nullptr);
    EXPECT_NE(std::string(unsupported("naive_simt", p)).find("65535"), std::string::npos);
    EXPECT_EQ(unsupported("flash_simt", p), nullptr); // its grid is x only
    p.heads = 1;
    p.seq = 1048560;
    EXPECT_EQ(unsupported("naive_simt", p), nullptr);
    p.seq = 1048561;
    EXPECT_NE(unsupported("naive_simt", p), nullptr);
    p.batch = 4096;
    p.heads = 4096;
    p.seq = 1024; // 2^34 rows
    EXPECT_NE(unsupported("naive", p), nullptr);
    EXPECT_NE(unsupported("flash_simt", p), nullptr);
    p.dtype = ATTNSCOPE_CUDA_BF16;
    EXPECT_EQ(unsupported("flash", p), nullptr); // flash's grid is batch·heads·seq/64 blocks
}

// Where the plugin looks for cuBLAS and CUPTI: by soname (the loader's path) first, then in the
// toolkit's folders (CUDA_HOME, CUDA_PATH, /usr/local/cuda), where distributions that do not register
// the toolkit with the loader leave them; ATTNSCOPE_CUPTI_LIBRARY first of all for CUPTI.
TEST(CudaLibraries, FoundByNameThenInTheToolkitsFolders) {
    const char* before = std::getenv("CUDA_HOME");
    const std::string saved = before ? before : "";
    setenv("CUDA_HOME", "/opt/cuda-x", 1);
    const attnscope_cuda::LibraryCandidates cublas = attnscope_cuda::cublasLibrary();
    ASSERT_FALSE(cublas.named.empty());
    EXPECT_EQ(cublas.named.front(), "libcublas.so.13");
    ASSERT_FALSE(cublas.inFolders.empty());
    EXPECT_EQ(cublas.inFolders.front(), "/opt/cuda-x/lib64/libcublas.so");
    EXPECT_NE(std::find(cublas.inFolders.begin(), cublas.inFolders.end(), "/usr/local/cuda/lib64/libcublas.so"),
              cublas.inFolders.end());
    setenv("ATTNSCOPE_CUPTI_LIBRARY", "/somewhere/libcupti.so", 1);
    EXPECT_EQ(attnscope_cuda::cuptiLibrary().named.front(), "/somewhere/libcupti.so");
    unsetenv("ATTNSCOPE_CUPTI_LIBRARY");
    EXPECT_EQ(attnscope_cuda::cuptiLibrary().named.front(), "libcupti.so.13");
    if (before)
        setenv("CUDA_HOME", saved.c_str(), 1);
    else
        unsetenv("CUDA_HOME");
}
