// SPDX-License-Identifier: MIT
// The CUDA implementations against the double-precision reference on small shapes, causal and
// not. Without a device each test says so and is skipped (here: no NVIDIA driver); on a machine with
// one, tests/gpu/check.sh runs them.
#include "kernels/cpu/cpu_attention.h"
#include "kernels/cuda_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

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
        worst = std::max(worst, std::abs(double(out[i]) - ref[i]));
    return worst;
}

} // namespace

TEST(CudaAttention, SimtImplementationsMatchTheReference) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    const AttentionShape shapes[] = {
        {2, 3, 67, 32, false, DType::F32},   {2, 3, 67, 32, true, DType::F32},
        {1, 2, 130, 64, true, DType::F32},   {1, 1, 1, 16, false, DType::F32},
        {1, 4, 257, 128, false, DType::F32}, {1, 4, 257, 128, true, DType::F32},
    };
    for (const AttentionShape& s : shapes) {
        SCOPED_TRACE(testing::Message() << "B=" << s.batch << " H=" << s.heads << " N=" << s.seq
                                        << " D=" << s.dim << (s.causal ? " causal" : ""));
        std::mt19937 rng(unsigned(s.seq + s.dim));
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float> q(s.elements()), k(s.elements()), v(s.elements());
        for (auto* t : {&q, &k, &v})
            for (float& x : *t)
                x = u(rng);
        std::vector<double> ref(s.elements());
        referenceAttention(s, q.data(), k.data(), v.data(), ref.data());
        for (const char* impl : {"naive_simt", "flash_simt"}) {
            std::vector<float> out(s.elements(), NAN);
            const std::string error = runCudaAttention(impl, s.batch, s.heads, s.seq, s.dim, s.causal,
                                                       q.data(), k.data(), v.data(), out.data());
            ASSERT_EQ(error, "") << impl;
            EXPECT_LE(maxError(out, ref), 1e-4) << impl;
        }
    }
}

TEST(CudaAttention, UnknownImplementationsAndShapesAreRefused) {
    ATTNSCOPE_REQUIRE_CUDA_DEVICE();
    std::vector<float> t(4 * 256, 0.5f), o(4 * 256);
    EXPECT_NE(runCudaAttention("fancy", 1, 1, 4, 256, false, t.data(), t.data(), t.data(), o.data())
                  .find("unknown"),
              std::string::npos);
    EXPECT_NE(runCudaAttention("flash_simt", 1, 1, 4, 256, false, t.data(), t.data(), t.data(), o.data())
                  .find("head dims up to 128"),
              std::string::npos);
}

TEST(CudaAttention, WithoutADeviceItSaysWhy) {
    const CudaAvailability cuda = probeCuda();
    if (cuda.devices > 0) GTEST_SKIP() << "there is a CUDA device here: " << cuda.message;
    std::vector<float> t(16, 0.5f), o(16);
    const std::string error =
        runCudaAttention("naive_simt", 1, 1, 4, 4, false, t.data(), t.data(), t.data(), o.data());
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(cuda.message.rfind("no CUDA", 0), 0u) << cuda.message;
}
