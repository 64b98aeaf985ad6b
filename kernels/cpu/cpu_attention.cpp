// SPDX-License-Identifier: MIT
#include "cpu_attention.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

namespace attnscope::kernels {

namespace {

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Runs one kernel over all (batch, head) pairs on the pool; each worker's share is one span.
template <class Body>
void runKernel(const AttentionShape& shape, std::string_view name, WorkloadRole role, WorkerPool& pool,
               const SpanSink& sink, Body body) {
    const std::size_t heads = std::size_t(shape.batch) * shape.heads;
    const KernelCost whole = kernelCost(shape, role);
    pool.run(heads, [&](unsigned worker, std::size_t begin, std::size_t end) {
        const std::int64_t start = nowNs();
        for (std::size_t bh = begin; bh < end; ++bh)
            body(bh);
        const double share = double(end - begin) / double(heads);
        if (sink) sink({name, role, worker, start, nowNs(), {whole.flops * share, whole.bytes * share}});
    });
}

float dot(const float* a, const float* b, int n) {
    // Four partial sums: the compiler vectorizes them without reassociating a single sum.
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; ++i)
        s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

constexpr int kBlock = 64; // rows of Q and K per block: two blocks of 64×64 floats stay in L1/L2

} // namespace

void cpuNaiveAttention(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                       float* scores, WorkerPool& pool, const SpanSink& sink) {
    const std::size_t n = std::size_t(s.seq), d = std::size_t(s.dim);
    const float scale = float(s.scale());
    // QKᵀ: S = Q·Kᵀ for every head, blocked so a block of K rows is reused by a block of Q rows.
    runKernel(s, "naive_qk_gemm", WorkloadRole::QkGemm, pool, sink, [&](std::size_t bh) {
        const float* qh = q + bh * n * d;
        const float* kh = k + bh * n * d;
        float* sh = scores + bh * n * n;
        for (std::size_t i0 = 0; i0 < n; i0 += kBlock)
            for (std::size_t j0 = 0; j0 < n; j0 += kBlock)
                for (std::size_t i = i0; i < std::min(n, i0 + kBlock); ++i)
                    for (std::size_t j = j0; j < std::min(n, j0 + kBlock); ++j)
                        sh[i * n + j] = dot(qh + i * d, kh + j * d, int(d));
    });
    // Scale, mask and softmax each row in place.
    runKernel(s, "naive_softmax", WorkloadRole::Softmax, pool, sink, [&](std::size_t bh) {
        float* sh = scores + bh * n * n;
        for (std::size_t i = 0; i < n; ++i) {
            float* row = sh + i * n;
            const std::size_t valid = s.causal ? i + 1 : n;
            float max = -std::numeric_limits<float>::infinity();
            for (std::size_t j = 0; j < valid; ++j) {
                row[j] *= scale;
                max = std::max(max, row[j]);
            }
            float sum = 0;
            for (std::size_t j = 0; j < valid; ++j) {
                row[j] = std::exp(row[j] - max);
                sum += row[j];
            }
            const float inv = 1.0f / sum;
            for (std::size_t j = 0; j < valid; ++j)
                row[j] *= inv;
            std::fill(row + valid, row + n, 0.0f);
        }
    });
    // P·V: each output row accumulates rows of V weighted by P (contiguous in the head dimension).
    runKernel(s, "naive_pv_gemm", WorkloadRole::PvGemm, pool, sink, [&](std::size_t bh) {
        const float* ph = scores + bh * n * n;
        const float* vh = v + bh * n * d;
        float* oh = o + bh * n * d;
        for (std::size_t i = 0; i < n; ++i) {
            float* out = oh + i * d;
            std::fill(out, out + d, 0.0f);
            const std::size_t valid = s.causal ? i + 1 : n;
            for (std::size_t j = 0; j < valid; ++j) {
                const float p = ph[i * n + j];
                const float* vr = vh + j * d;
                for (std::size_t c = 0; c < d; ++c)
                    out[c] += p * vr[c];
            }
        }
    });
}

void cpuFlashAttention(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                       WorkerPool& pool, const SpanSink& sink) {
    const std::size_t n = std::size_t(s.seq), d = std::size_t(s.dim);
    const float scale = float(s.scale());
    runKernel(s, "flash_attention_fwd", WorkloadRole::FusedAttention, pool, sink, [&](std::size_t bh) {
        const float* qh = q + bh * n * d;
        const float* kh = k + bh * n * d;
        const float* vh = v + bh * n * d;
        float* oh = o + bh * n * d;
        std::vector<float> tile(std::size_t(kBlock) * kBlock), acc(std::size_t(kBlock) * d);
        std::vector<float> rowMax(kBlock), rowSum(kBlock);
        for (std::size_t i0 = 0; i0 < n; i0 += kBlock) {
            const std::size_t rows = std::min<std::size_t>(kBlock, n - i0);
            std::fill(rowMax.begin(), rowMax.end(), -std::numeric_limits<float>::infinity());
            std::fill(rowSum.begin(), rowSum.end(), 0.0f);
            std::fill(acc.begin(), acc.end(), 0.0f);
            const std::size_t keysEnd = s.causal ? i0 + rows : n; // tiles wholly above the diagonal: skipped
            for (std::size_t j0 = 0; j0 < keysEnd; j0 += kBlock) {
                const std::size_t cols = std::min<std::size_t>(kBlock, keysEnd - j0);
                for (std::size_t r = 0; r < rows; ++r) {
                    const std::size_t i = i0 + r;
                    float* t = tile.data() + r * kBlock;
                    float tileMax = -std::numeric_limits<float>::infinity();
                    std::size_t valid = cols;
                    if (s.causal) valid = i >= j0 ? std::min(cols, i - j0 + 1) : 0;
                    for (std::size_t c = 0; c < valid; ++c) {
                        t[c] = dot(qh + i * d, kh + (j0 + c) * d, int(d)) * scale;
                        tileMax = std::max(tileMax, t[c]);
                    }
                    if (valid == 0) continue;
                    // Online softmax: rescale what was summed so far to the new maximum.
                    const float newMax = std::max(rowMax[r], tileMax);
                    const float correction = std::exp(rowMax[r] - newMax);
                    float sum = 0;
                    for (std::size_t c = 0; c < valid; ++c) {
                        t[c] = std::exp(t[c] - newMax);
                        sum += t[c];
                    }
                    rowSum[r] = rowSum[r] * correction + sum;
                    rowMax[r] = newMax;
                    float* a = acc.data() + r * d;
                    for (std::size_t x = 0; x < d; ++x)
                        a[x] *= correction;
                    for (std::size_t c = 0; c < valid; ++c) {
                        const float p = t[c];
                        const float* vr = vh + (j0 + c) * d;
                        for (std::size_t x = 0; x < d; ++x)
                            a[x] += p * vr[x];
                    }
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

void roundToDType(std::vector<float>& values, DType dtype) {
    if (dtype == DType::F32) return;
    for (float& f : values) {
        if (dtype == DType::F16) {
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
