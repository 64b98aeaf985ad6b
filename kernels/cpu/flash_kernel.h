// SPDX-License-Identifier: MIT
#pragma once
// The fused CPU attention kernel, written once over a vector type (simd.h) and built per instruction
// set by the translation unit that includes it (internal linkage: see simd.h).
//
// Query rows go in blocks of NV vectors (64 rows on AVX-512), stored transposed so that one vector
// holds a score, a running maximum or an output value of W different rows: the online softmax's
// maxima, sums and rescaling are then plain vertical vector operations, with no horizontal
// reduction anywhere. Per block of up to 64 keys:
//   Sᵀ = K·Qᵀ       RK keys at a time against the block's rows: RK·NV accumulators in registers,
//                   each K element broadcast once per NV multiply-adds;
//   softmax         the block's maximum per row, the correction of what was summed before, the
//                   probabilities 2^(s − max) in place (Q was scaled by log2(e)/√d), their sums;
//   Oᵀ = Oᵀ·c + Vᵀ·Pᵀ   RX output columns at a time, each V element broadcast once per NV.
// Causal masks are applied only in blocks that cross a row's last visible key.

#include "flash_rows.h"
#include "simd.h"

namespace attnscope::kernels {
namespace {

template <class V, int NV> struct FlashBlock {
    static constexpr int W = V::W;
    static constexpr int BR = NV * W; // rows per block
    static constexpr int KB = 64;     // keys per block

    // St[j·BR + r] = Σ_c K[j][c] · Qt[c·BR + r] for keys [0, kb): RK keys at a time.
    template <int RK> static void scoreKeys(const float* k, std::size_t dim, const float* qt, float* st) {
        typename V::T acc[RK][NV];
#pragma GCC unroll 16
        for (int a = 0; a < RK; ++a)
#pragma GCC unroll 16
            for (int b = 0; b < NV; ++b)
                acc[a][b] = V::zero();
        for (std::size_t c = 0; c < dim; ++c) {
            typename V::T q[NV];
#pragma GCC unroll 16
            for (int b = 0; b < NV; ++b)
                q[b] = V::load(qt + c * BR + b * W);
#pragma GCC unroll 16
            for (int a = 0; a < RK; ++a) {
                const typename V::T kc = V::set1(k[std::size_t(a) * dim + c]);
#pragma GCC unroll 16
                for (int b = 0; b < NV; ++b)
                    acc[a][b] = V::fma(kc, q[b], acc[a][b]);
            }
        }
#pragma GCC unroll 16
        for (int a = 0; a < RK; ++a)
#pragma GCC unroll 16
            for (int b = 0; b < NV; ++b)
                V::store(st + std::size_t(a) * BR + b * W, acc[a][b]);
    }

    template <int RK>
    static void scores(const float* k, std::size_t kb, std::size_t dim, const float* qt, float* st) {
        std::size_t j = 0;
        for (; j + RK <= kb; j += RK)
            scoreKeys<RK>(k + j * dim, dim, qt, st + j * BR);
        // The rest in fours and ones: a lone key's NV accumulators wait on each other's latency.
        if constexpr (RK > 4)
            for (; j + 4 <= kb; j += 4)
                scoreKeys<4>(k + j * dim, dim, qt, st + j * BR);
        for (; j < kb; ++j)
            scoreKeys<1>(k + j * dim, dim, qt, st + j * BR);
    }

    // Ot[x·BR + r] = Ot[x·BR + r] · corr[r] + Σ_j V[j][x] · Pt[j·BR + r] for columns [x, x + RX).
    template <int RX>
    static void outputColumns(const float* v, std::size_t kb, std::size_t dim, const float* pt,
                              const float* corr, float* ot) {
        typename V::T acc[RX][NV];
#pragma GCC unroll 16
        for (int b = 0; b < NV; ++b) {
            const typename V::T c = V::load(corr + b * W);
#pragma GCC unroll 16
            for (int a = 0; a < RX; ++a)
                acc[a][b] = V::mul(V::load(ot + std::size_t(a) * BR + b * W), c);
        }
        for (std::size_t j = 0; j < kb; ++j) {
            typename V::T p[NV];
#pragma GCC unroll 16
            for (int b = 0; b < NV; ++b)
                p[b] = V::load(pt + j * BR + b * W);
#pragma GCC unroll 16
            for (int a = 0; a < RX; ++a) {
                const typename V::T vx = V::set1(v[j * dim + std::size_t(a)]);
#pragma GCC unroll 16
                for (int b = 0; b < NV; ++b)
                    acc[a][b] = V::fma(vx, p[b], acc[a][b]);
            }
        }
#pragma GCC unroll 16
        for (int a = 0; a < RX; ++a)
#pragma GCC unroll 16
            for (int b = 0; b < NV; ++b)
                V::store(ot + std::size_t(a) * BR + b * W, acc[a][b]);
    }

    template <int RX>
    static void outputs(const float* v, std::size_t kb, std::size_t dim, const float* pt, const float* corr,
                        float* ot) {
        std::size_t x = 0;
        for (; x + RX <= dim; x += RX)
            outputColumns<RX>(v + x, kb, dim, pt, corr, ot + x * BR);
        if constexpr (RX > 4)
            for (; x + 4 <= dim; x += 4)
                outputColumns<4>(v + x, kb, dim, pt, corr, ot + x * BR);
        if constexpr (RX > 2)
            for (; x + 2 <= dim; x += 2)
                outputColumns<2>(v + x, kb, dim, pt, corr, ot + x * BR);
        for (; x < dim; ++x)
            outputColumns<1>(v + x, kb, dim, pt, corr, ot + x * BR);
    }

    // The online softmax over a block's scores Sᵀ (kb keys from key j0): probabilities in place, the
    // rows' maxima m and sums l brought up to date, corr the factor what was summed before is scaled
    // by. Masked: keys beyond a row's last visible one (lim) count as −∞.
    template <bool Masked>
    static void softmax(float* st, std::size_t kb, std::size_t j0, const float* lim, float* m, float* l,
                        float* corr) {
        const typename V::T minusInf = V::set1(-INFINITY);
#pragma GCC unroll 16
        for (int b = 0; b < NV; ++b) {
            const typename V::T limit = V::load(lim + b * W);
            const typename V::T before = V::load(m + b * W);
            typename V::T tileMax = minusInf;
            for (std::size_t j = 0; j < kb; ++j) {
                typename V::T s = V::load(st + j * BR + b * W);
                if constexpr (Masked) {
                    s = V::keepAtMost(s, V::set1(float(j0 + j)), limit, minusInf);
                    V::store(st + j * BR + b * W, s);
                }
                tileMax = V::max(tileMax, s);
            }
            const typename V::T now = V::max(before, tileMax);
            // A row that has seen no key yet keeps 0 as its shift (its probabilities are all 0).
            const typename V::T shift = V::zeroWhereMinusInf(now, now);
            const typename V::T c = V::exp2(V::sub(before, shift));
            typename V::T sum = V::zero();
            for (std::size_t j = 0; j < kb; ++j) {
                const typename V::T s = V::load(st + j * BR + b * W);
                typename V::T p = V::exp2(V::sub(s, shift));
                if constexpr (Masked) p = V::zeroWhereMinusInf(p, s);
                V::store(st + j * BR + b * W, p);
                sum = V::add(sum, p);
            }
            V::store(l + b * W, V::fma(V::load(l + b * W), c, sum));
            V::store(m + b * W, now);
            V::store(corr + b * W, c);
        }
    }

    template <int RK, int RX> static void run(const FlashRows& in) {
        const std::size_t dim = in.dim;
        float* qt = in.scratch;               // dim × BR
        float* ot = qt + dim * BR;            // dim × BR
        float* st = ot + dim * BR;            // KB × BR
        float* m = st + std::size_t(KB) * BR; // BR each
        float* l = m + BR;
        float* corr = l + BR;
        float* lim = corr + BR;
        // Row t's last visible key, counted from k's first: (t % seq) + shift (below 0: none).
        const double shift =
            double(in.totalKeys ? in.totalKeys : in.keys) - double(in.seq) - double(in.keyBegin);
        for (std::size_t t0 = in.first; t0 < in.first + in.count; t0 += BR) {
            const std::size_t rows =
                in.first + in.count - t0 < std::size_t(BR) ? in.first + in.count - t0 : BR;
            // Qᵀ scaled, each row's last visible key; rows past the end are zeros that see nothing.
            float lowest = float(in.keys), highest = -1;
            for (std::size_t r = 0; r < std::size_t(BR); ++r) {
                const float* q = in.q + (t0 + r) * dim;
                for (std::size_t c = 0; c < dim; ++c)
                    qt[c * BR + r] = r < rows ? q[c] * in.scaleLog2e : 0.0f;
                const double last = in.causal
                                        ? std::fmin(double((t0 + r) % in.seq) + shift, double(in.keys - 1))
                                        : double(in.keys - 1);
                lim[r] = r < rows ? float(last < -1 ? -1 : last) : -1.0f;
                if (r < rows) {
                    lowest = lim[r] < lowest ? lim[r] : lowest;
                    highest = lim[r] > highest ? lim[r] : highest;
                }
                m[r] = -INFINITY;
                l[r] = 0;
            }
            for (std::size_t i = 0; i < dim * BR; ++i)
                ot[i] = 0;
            const std::size_t end = std::size_t(highest + 1); // keys any row of the block sees (0: none)
            for (std::size_t j0 = 0; j0 < end; j0 += KB) {
                const std::size_t kb = end - j0 < std::size_t(KB) ? end - j0 : KB;
                scores<RK>(in.k + j0 * dim, kb, dim, qt, st);
                if (float(j0 + kb - 1) <= lowest)
                    softmax<false>(st, kb, j0, lim, m, l, corr);
                else
                    softmax<true>(st, kb, j0, lim, m, l, corr);
                outputs<RX>(in.v + j0 * dim, kb, dim, st, corr, ot);
            }
            for (std::size_t r = 0; r < rows; ++r) {
                float* o = in.o + (t0 + r) * dim;
                const float inv = in.partialSum ? 1.0f : 1.0f / l[r];
                for (std::size_t c = 0; c < dim; ++c)
                    o[c] = ot[c * BR + r] * inv;
                if (in.partialSum) {
                    in.partialMax[t0 + r - in.first] = m[r];
                    in.partialSum[t0 + r - in.first] = l[r];
                }
            }
        }
    }
};

// Big runs of rows in blocks of NV vectors, a short one (a decode step's few rows) in blocks of one.
template <class V, int NV, int RK, int RX> void flashRows(const FlashRows& in) {
    if (in.count <= std::size_t(V::W))
        FlashBlock<V, 1>::template run<RK * NV / 2, RX * NV / 2>(in);
    else
        FlashBlock<V, NV>::template run<RK, RX>(in);
}

} // namespace
} // namespace attnscope::kernels
