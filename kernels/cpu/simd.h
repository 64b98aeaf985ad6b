// SPDX-License-Identifier: MIT
#pragma once
// Vectors of floats for the CPU kernels, one type per instruction set: Avx512 (16 lanes), Avx2 (8) and
// Scalar (1). Each kernel built for an instruction set includes this header in a translation unit
// compiled for that set (flash_avx512.cpp with -mavx512f, …): a type exists only where its
// instructions may be used. Everything here has internal linkage, so code built for AVX-512 can never
// be what another translation unit calls.
//
// exp2 is 2^n · p(f) with n = round(x) and f = x − n in [−½, ½], p the Taylor polynomial of 2^f to
// degree 6 (relative error under 2e-7); x is expected ≤ 0 (the online softmax's shifted scores) and
// very negative arguments give 0 or a denormal, not garbage.

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace attnscope::kernels {
namespace {

// The Taylor coefficients of 2^f = e^(f·ln 2): (ln 2)^k / k!.
constexpr float kExp2C1 = 0.6931471805599453f, kExp2C2 = 0.2402265069591007f, kExp2C3 = 0.05550410866482158f,
                kExp2C4 = 0.009618129107628477f, kExp2C5 = 0.0013333558146428443f,
                kExp2C6 = 0.00015403530393381608f;

// 2^f for f in [−½, ½], by Horner's rule on any of the vector types below.
template <class V> typename V::T exp2Fraction(typename V::T f) {
    typename V::T p = V::set1(kExp2C6);
    constexpr float rest[] = {kExp2C5, kExp2C4, kExp2C3, kExp2C2, kExp2C1, 1.0f};
#pragma GCC unroll 8
    for (float c : rest)
        p = V::fma(p, f, V::set1(c));
    return p;
}

#if defined(__AVX512F__)
struct Avx512 {
    static constexpr int W = 16;
    using T = __m512;
    static T zero() { return _mm512_setzero_ps(); }
    static T set1(float x) { return _mm512_set1_ps(x); }
    static T load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
    static T fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
    static T add(T a, T b) { return _mm512_add_ps(a, b); }
    static T sub(T a, T b) { return _mm512_sub_ps(a, b); }
    static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
    static T max(T a, T b) { return _mm512_max_ps(a, b); }
    // a where a ≤ limit, else other.
    static T keepAtMost(T a, T value, T limit, T other) {
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(value, limit, _CMP_LE_OQ), other, a);
    }
    // a where b is not −∞, else zero.
    static T zeroWhereMinusInf(T a, T b) {
        return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(b, set1(-INFINITY), _CMP_NEQ_OQ), a);
    }
    static T exp2(T x) {
        x = _mm512_max_ps(x, set1(-150.0f)); // 2^-150 is 0 in fp32; keeps −∞ out of the arithmetic
        const T n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const T p = exp2Fraction<Avx512>(sub(x, n));
        return _mm512_scalef_ps(p, n);
    }
};
#endif

#if defined(__AVX2__) && defined(__FMA__)
struct Avx2 {
    static constexpr int W = 8;
    using T = __m256;
    static T zero() { return _mm256_setzero_ps(); }
    static T set1(float x) { return _mm256_set1_ps(x); }
    static T load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
    static T fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
    static T add(T a, T b) { return _mm256_add_ps(a, b); }
    static T sub(T a, T b) { return _mm256_sub_ps(a, b); }
    static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
    static T max(T a, T b) { return _mm256_max_ps(a, b); }
    static T keepAtMost(T a, T value, T limit, T other) {
        return _mm256_blendv_ps(other, a, _mm256_cmp_ps(value, limit, _CMP_LE_OQ));
    }
    static T zeroWhereMinusInf(T a, T b) {
        return _mm256_and_ps(a, _mm256_cmp_ps(b, set1(-INFINITY), _CMP_NEQ_OQ));
    }
    static T exp2(T x) {
        x = _mm256_max_ps(x, set1(-126.0f)); // 2^-126 and below: the smallest normal, a rounding error here
        const T n = _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const T p = exp2Fraction<Avx2>(sub(x, n));
        const __m256i bits =
            _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
        return mul(p, _mm256_castsi256_ps(bits));
    }
};
#endif

// One lane: the fallback for any x86-64 (and what the vector types are checked against).
struct Scalar {
    static constexpr int W = 1;
    using T = float;
    static T zero() { return 0.0f; }
    static T set1(float x) { return x; }
    static T load(const float* p) { return *p; }
    static void store(float* p, T v) { *p = v; }
    static T fma(T a, T b, T c) { return a * b + c; }
    static T add(T a, T b) { return a + b; }
    static T sub(T a, T b) { return a - b; }
    static T mul(T a, T b) { return a * b; }
    static T max(T a, T b) { return a > b ? a : b; }
    static T keepAtMost(T a, T value, T limit, T other) { return value <= limit ? a : other; }
    static T zeroWhereMinusInf(T a, T b) { return b == -INFINITY ? 0.0f : a; }
    static T exp2(T x) {
        if (x < -126.0f) return 0.0f;
        const float n = std::nearbyint(x);
        const float p = exp2Fraction<Scalar>(x - n);
        const std::uint32_t bits = std::uint32_t(std::int32_t(n) + 127) << 23;
        float scale;
        std::memcpy(&scale, &bits, sizeof scale);
        return p * scale;
    }
};

} // namespace
} // namespace attnscope::kernels
