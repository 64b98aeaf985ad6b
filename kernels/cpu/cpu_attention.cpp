// SPDX-License-Identifier: MIT
#include "cpu_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace attnscope::kernels {

namespace {

// Runs one kernel over all (batch, head) pairs on the pool; each worker's share is one span.
template <class Body>
void runKernel(const AttentionShape& shape, std::string_view name, KernelRole role, WorkerPool& pool,
               const SpanSink& sink, Body body) {
    const std::size_t heads = std::size_t(shape.batch) * shape.heads;
    const KernelCost whole = kernelCost(shape, role);
    pool.run(heads, [&](unsigned worker, std::size_t begin, std::size_t end) {
        const std::int64_t start = steadyClockNs();
        for (std::size_t bh = begin; bh < end; ++bh)
            body(bh);
        const double share = double(end - begin) / double(heads);
        if (sink)
            sink({name, role, worker, start, steadyClockNs(), {whole.flops * share, whole.bytes * share}});
    });
}

constexpr int kBlock = 64; // rows of Q and K per block: two blocks of 64×64 floats stay in L1/L2

// The hot loops are built twice, for AVX2+FMA and for the baseline, and the loader picks one: the
// binary runs anywhere and uses the wide units where they exist.
#define ATTNSCOPE_HOT __attribute__((target_clones("arch=haswell", "default")))

// values[j] = exp(values[j] - max) for values ≤ max, and their sum. exp is 2^n · p(r) with
// n = round((v - max) / ln 2) and p the Cephes polynomial on the remainder (Cody–Waite split of
// ln 2), written without calls or branches so the loop is vectorized (this file is built with
// -fno-trapping-math, without which GCC keeps the float-to-int conversion scalar): the scalar expf
// was most of the softmax's time. Accurate to a few ulp; arguments below -87 give 2^-126-ish, not 0.
namespace {

inline float expNonPositive(float x) {
    x = std::max(x, -87.0f);
    const std::int32_t n = std::int32_t(x * 1.44269504f - 0.5f); // x <= 0: truncation rounds to nearest
    const float nf = float(n);
    const float r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    const std::uint32_t bits = std::uint32_t(n + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

} // namespace

// Eight lanes at a time with their own sums: GCC vectorizes this form in the haswell clone (a plain
// loop over j was left scalar there, at a quarter of the speed).
ATTNSCOPE_HOT float expShifted(float* values, std::size_t count, float max) {
    float lanes[8] = {};
    std::size_t j = 0;
    for (; j + 8 <= count; j += 8)
        for (int k = 0; k < 8; ++k) {
            const float e = expNonPositive(values[j + k] - max);
            values[j + k] = e;
            lanes[k] += e;
        }
    float sum = 0;
    for (; j < count; ++j) {
        values[j] = expNonPositive(values[j] - max);
        sum += values[j];
    }
    for (float lane : lanes)
        sum += lane;
    return sum;
}

// row[j] *= scale for every score, and their maximum: eight running maxima so the loop is vectorized.
ATTNSCOPE_HOT float scaleAndMax(float* row, std::size_t count, float scale) {
    float lanes[8];
    std::fill(lanes, lanes + 8, -std::numeric_limits<float>::infinity());
    std::size_t j = 0;
    for (; j + 8 <= count; j += 8)
        for (int k = 0; k < 8; ++k) {
            const float x = row[j + k] * scale;
            row[j + k] = x;
            lanes[k] = x > lanes[k] ? x : lanes[k];
        }
    float max = -std::numeric_limits<float>::infinity();
    for (; j < count; ++j) {
        row[j] *= scale;
        max = std::max(max, row[j]);
    }
    for (float lane : lanes)
        max = std::max(max, lane);
    return max;
}

ATTNSCOPE_HOT void scaleRow(float* row, std::size_t count, float factor) {
    for (std::size_t j = 0; j < count; ++j)
        row[j] *= factor;
}

// kt[c][j] = K[j0 + j][c] for a block of up to kBlock keys (zeros past `keys`): with keys along
// the fast axis, one query row's scores against the block are 64-wide multiply-adds.
void transposeKeys(const float* k, std::size_t keys, std::size_t d, float* kt) {
    for (std::size_t c = 0; c < d; ++c)
        for (std::size_t j = 0; j < std::size_t(kBlock); ++j)
            kt[c * kBlock + j] = j < keys ? k[j * d + c] : 0.0f;
}

// s[j] = q · K[j0 + j] for the block's keys, from its transposed tile.
ATTNSCOPE_HOT void blockScores(const float* q, const float* kt, std::size_t d, float* s) {
    float acc[kBlock] = {};
    for (std::size_t c = 0; c < d; ++c) {
        const float qc = q[c];
        const float* row = kt + c * kBlock;
        for (int j = 0; j < kBlock; ++j)
            acc[j] += qc * row[j];
    }
    std::copy(acc, acc + kBlock, s);
}

// out += Σ_j p[j] · v[j] over `rows` consecutive rows of V (one call per row of output, not per
// element: the loop over the head dimension is the wide one).
ATTNSCOPE_HOT void addWeightedRows(float* out, const float* p, const float* v, std::size_t rows,
                                   std::size_t d) {
    std::size_t c0 = 0;
    // 64 columns at a time held in a local block the compiler keeps in vector registers.
    for (; c0 + kBlock <= d; c0 += kBlock) {
        float acc[kBlock];
        std::copy(out + c0, out + c0 + kBlock, acc);
        for (std::size_t j = 0; j < rows; ++j) {
            const float w = p[j];
            const float* vr = v + j * d + c0;
            for (int x = 0; x < kBlock; ++x)
                acc[x] += w * vr[x];
        }
        std::copy(acc, acc + kBlock, out + c0);
    }
    for (std::size_t j = 0; j < rows; ++j)
        for (std::size_t c = c0; c < d; ++c)
            out[c] += p[j] * v[j * d + c];
}

} // namespace

void cpuNaiveAttention(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                       float* scores, WorkerPool& pool, const SpanSink& sink) {
    const std::size_t n = std::size_t(s.seq), d = std::size_t(s.dim);
    const float scale = float(s.scale());
    // QKᵀ: S = Q·Kᵀ for every head, blocked so a block of K rows is reused by a block of Q rows.
    runKernel(s, "naive_qk_gemm", KernelRole::QkGemm, pool, sink, [&](std::size_t bh) {
        const float* qh = q + bh * n * d;
        const float* kh = k + bh * n * d;
        float* sh = scores + bh * n * n;
        std::vector<float> kt(std::size_t(kBlock) * d);
        float block[kBlock];
        for (std::size_t j0 = 0; j0 < n; j0 += kBlock) {
            const std::size_t cols = std::min<std::size_t>(kBlock, n - j0);
            transposeKeys(kh + j0 * d, cols, d, kt.data());
            for (std::size_t i = 0; i < n; ++i) {
                blockScores(qh + i * d, kt.data(), d, block);
                std::copy(block, block + cols, sh + i * n + j0);
            }
        }
    });
    // Scale, mask and softmax each row in place.
    runKernel(s, "naive_softmax", KernelRole::Softmax, pool, sink, [&](std::size_t bh) {
        float* sh = scores + bh * n * n;
        for (std::size_t i = 0; i < n; ++i) {
            float* row = sh + i * n;
            const std::size_t valid = s.causal ? i + 1 : n;
            const float max = scaleAndMax(row, valid, scale);
            scaleRow(row, valid, 1.0f / expShifted(row, valid, max));
            std::fill(row + valid, row + n, 0.0f);
        }
    });
    // P·V: each output row accumulates rows of V weighted by P (contiguous in the head dimension).
    runKernel(s, "naive_pv_gemm", KernelRole::PvGemm, pool, sink, [&](std::size_t bh) {
        const float* ph = scores + bh * n * n;
        const float* vh = v + bh * n * d;
        float* oh = o + bh * n * d;
        for (std::size_t i = 0; i < n; ++i) {
            float* out = oh + i * d;
            std::fill(out, out + d, 0.0f);
            const std::size_t valid = s.causal ? i + 1 : n;
            addWeightedRows(out, ph + i * n, vh, valid, d);
        }
    });
}

void cpuFlashAttention(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                       WorkerPool& pool, const SpanSink& sink) {
    const std::size_t n = std::size_t(s.seq), d = std::size_t(s.dim);
    const float scale = float(s.scale());
    runKernel(s, "flash_attention_fwd", KernelRole::FusedAttention, pool, sink, [&](std::size_t bh) {
        const float* qh = q + bh * n * d;
        const float* kh = k + bh * n * d;
        const float* vh = v + bh * n * d;
        float* oh = o + bh * n * d;
        std::vector<float> tile(std::size_t(kBlock) * kBlock), acc(std::size_t(kBlock) * d);
        std::vector<float> kt(std::size_t(kBlock) * d);
        std::vector<float> rowMax(kBlock), rowSum(kBlock);
        for (std::size_t i0 = 0; i0 < n; i0 += kBlock) {
            const std::size_t rows = std::min<std::size_t>(kBlock, n - i0);
            std::fill(rowMax.begin(), rowMax.end(), -std::numeric_limits<float>::infinity());
            std::fill(rowSum.begin(), rowSum.end(), 0.0f);
            std::fill(acc.begin(), acc.end(), 0.0f);
            const std::size_t keysEnd = s.causal ? i0 + rows : n; // tiles wholly above the diagonal: skipped
            for (std::size_t j0 = 0; j0 < keysEnd; j0 += kBlock) {
                const std::size_t cols = std::min<std::size_t>(kBlock, keysEnd - j0);
                transposeKeys(kh + j0 * d, cols, d, kt.data());
                for (std::size_t r = 0; r < rows; ++r) {
                    const std::size_t i = i0 + r;
                    float* t = tile.data() + r * kBlock;
                    std::size_t valid = cols;
                    if (s.causal) valid = i >= j0 ? std::min(cols, i - j0 + 1) : 0;
                    if (valid == 0) continue;
                    blockScores(qh + i * d, kt.data(), d, t);
                    float tileMax = -std::numeric_limits<float>::infinity();
                    for (std::size_t c = 0; c < valid; ++c) {
                        t[c] *= scale;
                        tileMax = std::max(tileMax, t[c]);
                    }
                    // Online softmax: rescale what was summed so far to the new maximum.
                    const float newMax = std::max(rowMax[r], tileMax);
                    const float correction = std::exp(rowMax[r] - newMax);
                    rowSum[r] = rowSum[r] * correction + expShifted(t, valid, newMax);
                    rowMax[r] = newMax;
                    float* a = acc.data() + r * d;
                    for (std::size_t x = 0; x < d; ++x)
                        a[x] *= correction;
                    addWeightedRows(a, t, vh + j0 * d, valid, d);
                }
            }
            for (std::size_t r = 0; r < rows; ++r) {
                const float inv = 1.0f / rowSum[r];
                for (std::size_t x = 0; x < d; ++x)
                    oh[(i0 + r) * d + x] = acc[r * d + x] * inv;
            }
        }
    });
}

void referenceAttention(const AttentionShape& s, const float* q, const float* k, const float* v, double* o) {
    const std::size_t n = std::size_t(s.seq), d = std::size_t(s.dim);
    const double scale = s.scale();
    std::vector<double> p(n);
    for (std::size_t bh = 0; bh < std::size_t(s.batch) * s.heads; ++bh) {
        const float* qh = q + bh * n * d;
        const float* kh = k + bh * n * d;
        const float* vh = v + bh * n * d;
        double* oh = o + bh * n * d;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t valid = s.causal ? i + 1 : n;
            double max = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < valid; ++j) {
                double dotp = 0;
                for (std::size_t x = 0; x < d; ++x)
                    dotp += double(qh[i * d + x]) * double(kh[j * d + x]);
                p[j] = dotp * scale;
                max = std::max(max, p[j]);
            }
            double sum = 0;
            for (std::size_t j = 0; j < valid; ++j) {
                p[j] = std::exp(p[j] - max);
                sum += p[j];
            }
            for (std::size_t x = 0; x < d; ++x) {
                double out = 0;
                for (std::size_t j = 0; j < valid; ++j)
                    out += p[j] * double(vh[j * d + x]);
                oh[i * d + x] = out / sum;
            }
        }
    }
}

void roundToPrecision(std::vector<float>& values, Precision dtype) {
    if (dtype == Precision::F32) return;
    for (float& f : values) {
        if (dtype == Precision::F16) {
            f = float(static_cast<_Float16>(f));
        } else {
            std::uint32_t bits;
            std::memcpy(&bits, &f, 4);
            if ((bits & 0x7f800000u) != 0x7f800000u) // leave inf and NaN as they are
                bits += 0x7fffu + ((bits >> 16) & 1u);
            bits &= 0xffff0000u;
            std::memcpy(&f, &bits, 4);
        }
    }
}

} // namespace attnscope::kernels
