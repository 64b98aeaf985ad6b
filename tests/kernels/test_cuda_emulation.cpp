// SPDX-License-Identifier: MIT
// The CUDA kernels, run on the host: their bodies compiled as C++ with the CUDA built-ins emulated
// (kernels/cuda/host_emulation.h: threads as fibers, barriers, warp shuffles, mma.sync and ldmatrix
// from the PTX ISA's fragment layouts), against the double-precision reference. A GPU is not needed;
// tests/gpu/check.sh runs the same kernels on one.
#include "kernels/cuda/attention_flash.cuh"

#include "kernels/cpu/cpu_attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

template <class T> T fromFloat(float x) {
    if constexpr (std::is_same_v<T, __half>)
        return __float2half_rn(x);
    else
        return __float2bfloat16_rn(x);
}
template <class T> float toFloat(T x) {
    if constexpr (std::is_same_v<T, __half>)
        return __half2float(x);
    else
        return __bfloat162float(x);
}

// Runs the tensor-core flash kernel on the host emulation for a [batch·heads][seq][D] problem and
// returns the largest error against the reference, over elements scaled like the GPU tests'.
template <class T, int D> double flashError(int heads, int seq, bool causal) {
    const Precision dtype = std::is_same_v<T, __half> ? Precision::F16 : Precision::BF16;
    AttentionShape shape{1, heads, seq, D, causal, dtype};
    std::mt19937 rng(unsigned(seq * 31 + D + causal));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> q(shape.elements()), k(shape.elements()), v(shape.elements());
    for (auto* x : {&q, &k, &v}) {
        for (float& e : *x)
            e = uniform(rng);
        roundToPrecision(*x, dtype);
    }
    std::vector<T> qd(q.size()), kd(k.size()), vd(v.size()), od(q.size(), fromFloat<T>(NAN));
    for (std::size_t i = 0; i < q.size(); ++i) {
        qd[i] = fromFloat<T>(q[i]);
        kd[i] = fromFloat<T>(k[i]);
        vd[i] = fromFloat<T>(v[i]);
    }
    using namespace attnscope_cuda;
    const int queryBlocks = (seq + kBlockRows - 1) / kBlockRows;
    const float scaleLog2 = float(shape.scale() * 1.4426950408889634);
    const std::size_t shared = sizeof(T) * ((kBlockRows + kBlockKeys) * (D + kPad) + D * (kBlockKeys + kPad));
    attnscope_emu::launch({unsigned(heads * queryBlocks), 1, 1}, {kThreads, 1, 1}, shared, [&] {
        flashForwardKernel<T, D>(qd.data(), kd.data(), vd.data(), od.data(), seq, queryBlocks, scaleLog2,
                                 causal ? 1 : 0);
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
TEST(CudaEmulation, TensorCoreFlashMatchesTheReference) {
    for (int seq : {70, 130})
        for (bool causal : {false, true}) {
            SCOPED_TRACE(testing::Message() << "seq " << seq << (causal ? " causal" : ""));
            EXPECT_LE((flashError<__half, 64>(2, seq, causal)), tolerance(Precision::F16));
            EXPECT_LE((flashError<__nv_bfloat16, 64>(2, seq, causal)), tolerance(Precision::BF16));
            EXPECT_LE((flashError<__half, 128>(1, seq, causal)), tolerance(Precision::F16));
            EXPECT_LE((flashError<__nv_bfloat16, 128>(1, seq, causal)), tolerance(Precision::BF16));
        }
}

// The harness itself: with mma.sync's A fragment read in the wrong order (a1 and a2 swapped, a
// plausible mistake), the same kernel no longer matches — a layout error cannot pass unseen.
TEST(CudaEmulation, AWrongFragmentLayoutFails) {
    attnscope_emu::setBrokenLayout(attnscope_emu::Broken::MmaA);
    const double error = flashError<__half, 64>(1, 64, false);
    attnscope_emu::setBrokenLayout(attnscope_emu::Broken::None);
    EXPECT_GT(error, 10 * tolerance(Precision::F16));
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
