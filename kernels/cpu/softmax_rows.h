// SPDX-License-Identifier: MIT
#pragma once
// The naive attention's softmax over materialized rows of scores, written once over a vector type
// (simd.h) and built per instruction set by the translation units that include it (internal
// linkage: see simd.h), like the fused kernel.

#include "flash_rows.h"
#include "simd.h"

namespace attnscope::kernels {
namespace {

// row[j] = 2^(c·row[j] − c·max) / Σ for j < valid (c = scale·log2 e), 0 from valid to count: the
// maximum, then the powers and their sum, then the division, each pass over a row that stays in
// the cache. Four vectors a step, with their own maxima and sums, so no step waits on the last.
template <class V> void softmaxRow(float* row, std::size_t valid, std::size_t count, float scaleLog2e) {
    constexpr std::size_t W = V::W, U = 4 * W;
    typename V::T top[4] = {V::set1(-INFINITY), V::set1(-INFINITY), V::set1(-INFINITY), V::set1(-INFINITY)};
    std::size_t j = 0;
    for (; j + U <= valid; j += U)
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u)
            top[u] = V::max(top[u], V::load(row + j + std::size_t(u) * W));
    float max = -INFINITY;
    for (; j < valid; ++j)
        max = row[j] > max ? row[j] : max;
    for (const typename V::T& t : top) {
        alignas(64) float lanes[W];
        V::store(lanes, t);
        for (float x : lanes)
            max = x > max ? x : max;
    }
    const typename V::T c = V::set1(scaleLog2e), shift = V::set1(-max * scaleLog2e);
    typename V::T sums[4] = {V::zero(), V::zero(), V::zero(), V::zero()};
    for (j = 0; j + U <= valid; j += U)
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) {
            float* at = row + j + std::size_t(u) * W;
            const typename V::T p = V::exp2(V::fma(V::load(at), c, shift));
            V::store(at, p);
            sums[u] = V::add(sums[u], p);
        }
    float sum = 0;
    for (; j < valid; ++j) {
        row[j] = Scalar::exp2(row[j] * scaleLog2e - max * scaleLog2e);
        sum += row[j];
    }
    alignas(64) float lanes[W];
    V::store(lanes, V::add(V::add(sums[0], sums[1]), V::add(sums[2], sums[3])));
    for (float x : lanes)
        sum += x;
    const typename V::T inv = V::set1(1.0f / sum);
    for (j = 0; j + W <= valid; j += W)
        V::store(row + j, V::mul(V::load(row + j), inv));
    for (; j < valid; ++j)
        row[j] *= 1.0f / sum;
    for (j = valid; j < count; ++j)
        row[j] = 0.0f;
}

template <class V> void softmaxRows(const SoftmaxRows& in) {
    for (std::size_t i = 0; i < in.rows; ++i) {
        const std::size_t valid = in.causal ? std::min(in.keys, i + 1 + (in.keys - in.rows)) : in.keys;
        softmaxRow<V>(in.scores + i * in.keys, valid, in.keys, in.scaleLog2e);
    }
}

} // namespace
} // namespace attnscope::kernels
