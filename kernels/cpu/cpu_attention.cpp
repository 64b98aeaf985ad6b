// SPDX-License-Identifier: MIT
#include "cpu_attention.h"

#include "flash_rows.h"

#include "blas.h"

#include "core/analysis/machine_roofs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace attnscope::kernels {

namespace {

// Runs one kernel over `items` on the pool; each worker's share is one span, costed by its share of
// the items.
template <class Body>
void runKernel(const AttentionShape& shape, std::size_t items, std::string_view name, KernelRole role,
               WorkerPool& pool, const SpanSink& sink, Body body) {
    // fp16 and bf16 inputs are held as the fp32 values they round to: every element moved is 4 bytes.
    const KernelCost whole = kernelCost(shape, role, 4, 4);
    pool.run(items, [&](unsigned worker, std::size_t begin, std::size_t end) {
        const std::int64_t start = steadyClockNs();
        for (std::size_t item = begin; item < end; ++item)
            body(worker, item);
        const double share = double(end - begin) / double(items);
        if (sink)
            sink({name, role, worker, start, steadyClockNs(), {whole.flops * share, whole.bytes * share}});
    });
}

} // namespace

void cpuNaiveAttention(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                       float* scores, WorkerPool& pool, const SpanSink& sink, CpuIsa isa) {
    const Blas* gemm = blas();
    if (!gemm) throw std::runtime_error(blasProblem());
    const std::size_t n = std::size_t(s.seq), keys = std::size_t(s.keys()), d = std::size_t(s.dim);
    const std::size_t heads = std::size_t(s.batch) * s.heads, group = std::size_t(s.heads / s.kvHeadCount());
    if (isa > bestCpuIsa()) isa = CpuIsa::Scalar; // never instructions this CPU does not have
    void (*softmaxRows)(const SoftmaxRows&) = isa >= CpuIsa::Avx512 ? softmaxRowsAvx512
                                              : isa == CpuIsa::Avx2 ? softmaxRowsAvx2
                                                                    : softmaxRowsScalar;
    // Query head bh reads K/V head bh / group (the heads of a group are consecutive).
    auto kvOf = [&](const float* base, std::size_t bh) { return base + bh / group * keys * d; };
    // bf16 where the CPU has AMX tiles: both products in bf16 on the tiles, as PyTorch's bf16 matmuls
    // run there (OpenBLAS has no bf16 GEMM in Debian's build); K and V put in the tiles' layout per
    // head, inside the product's time.
    const bool amx = isa == CpuIsa::Amx && s.dtype == Precision::BF16 && d % 32 == 0;
    auto packed = [&](void (*pack)(const float*, std::size_t, std::size_t, std::uint16_t*), const float* m) {
        thread_local std::vector<std::uint16_t> buffer;
        buffer.resize(amxPackedElements(keys, d));
        pack(m, keys, d, buffer.data());
        return buffer.data();
    };
    // QKᵀ: S = Q·Kᵀ per head, one BLAS call each.
    runKernel(s, heads, "naive_qk_gemm", KernelRole::QkGemm, pool, sink, [&](unsigned, std::size_t bh) {
        if (amx)
            return amxScoresGemm(q + bh * n * d, n, packed(packAmxKeys, kvOf(k, bh)), keys, d,
                                 scores + bh * n * keys);
        gemm->sgemm(kBlasRowMajor, kBlasNoTrans, kBlasTrans, int(n), int(keys), int(d), 1.0f, q + bh * n * d,
                    int(d), kvOf(k, bh), int(d), 0.0f, scores + bh * n * keys, int(keys));
    });
    // Scale, mask and softmax each row in place.
    runKernel(s, heads, "naive_softmax", KernelRole::Softmax, pool, sink, [&](unsigned, std::size_t bh) {
        SoftmaxRows rows;
        rows.scores = scores + bh * n * keys;
        rows.rows = n;
        rows.keys = keys;
        rows.causal = s.causal;
        rows.scaleLog2e = float(s.scale() * 1.4426950408889634);
        softmaxRows(rows);
    });
    // P·V: O = P·V per head.
    runKernel(s, heads, "naive_pv_gemm", KernelRole::PvGemm, pool, sink, [&](unsigned, std::size_t bh) {
        if (amx)
            return amxOutputGemm(scores + bh * n * keys, n, keys, packed(packAmxValues, kvOf(v, bh)), d,
                                 o + bh * n * d);
        gemm->sgemm(kBlasRowMajor, kBlasNoTrans, kBlasNoTrans, int(n), int(d), int(keys), 1.0f,
                    scores + bh * n * keys, int(keys), kvOf(v, bh), int(d), 0.0f, o + bh * n * d, int(d));
    });
}

CpuIsa bestCpuIsa() {
    static const CpuIsa best = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) return amxBf16Usable() ? CpuIsa::Amx : CpuIsa::Avx512;
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::Avx2;
        return CpuIsa::Scalar;
    }();
    return best;
}

std::string_view isaName(CpuIsa isa) {
    switch (isa) {
    case CpuIsa::Amx:
        return "AMX";
    case CpuIsa::Avx512:
        return "AVX-512";
    case CpuIsa::Avx2:
        return "AVX2";
    default:
        return "scalar";
    }
}

void cpuFlashAttention(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                       WorkerPool& pool, const SpanSink& sink, CpuIsa isa) {
    const std::size_t n = std::size_t(s.seq), keys = std::size_t(s.keys()), d = std::size_t(s.dim);
    const std::size_t groups = std::size_t(s.batch) * s.kvHeadCount(),
                      group = std::size_t(s.heads / s.kvHeadCount());
    if (isa > bestCpuIsa()) isa = CpuIsa::Scalar; // never instructions this CPU does not have
    void (*kernel)(const FlashRows&) = isa >= CpuIsa::Avx512 ? flashRowsAvx512
                                       : isa == CpuIsa::Avx2 ? flashRowsAvx2
                                                             : flashRowsScalar;
    // bf16 prefill on the AMX tiles: each K/V head put in the tiles' layout once, by the first worker
    // that needs it (inside the kernel's time).
    const bool amx = isa == CpuIsa::Amx && s.dtype == Precision::BF16 && d % 32 == 0 && n > 16;
    const std::size_t packed = amx ? amxPackedElements(keys, d) : 0;
    // Kept from call to call on this thread (a run's own, so they go when the run ends): zeroing and
    // faulting in fresh megabytes each call cost more than the packing, which writes every element,
    // padding included. The workers see them through the pointers: a thread_local named in their
    // lambdas would be theirs.
    thread_local std::vector<std::uint16_t> kPackedKept, vPackedKept;
    if (kPackedKept.size() < groups * packed)
        kPackedKept.resize(groups * packed), vPackedKept.resize(groups * packed);
    std::uint16_t* const kPacked = kPackedKept.data();
    std::uint16_t* const vPacked = vPackedKept.data();
    std::unique_ptr<std::once_flag[]> packOnce(amx ? new std::once_flag[groups] : nullptr);
    if (amx) kernel = flashRowsAmx;
    const std::size_t rows = group * n;
    std::vector<std::vector<float>> scratch(pool.size());
    auto rowsOf = [&](unsigned worker, std::size_t g) {
        if (scratch[worker].empty()) scratch[worker].resize(flashScratchFloats(d));
        FlashRows in;
        in.q = q + g * rows * d;
        in.o = o + g * rows * d;
        in.k = k + g * keys * d;
        in.v = v + g * keys * d;
        in.count = rows;
        in.seq = n;
        in.keys = keys;
        in.dim = d;
        in.causal = s.causal;
        in.scaleLog2e = float(s.scale() * 1.4426950408889634);
        in.scratch = scratch[worker].data();
        return in;
    };
    constexpr std::size_t kRows = 64;
    if (n > 16) {
        // Tasks: runs of up to 64 rows of one K/V head's group of query heads. Causal rows late in a
        // head see more keys: tasks are dealt from both ends of each group in turn, so the workers'
        // contiguous shares carry about the same work.
        const std::size_t perGroup = (rows + kRows - 1) / kRows;
        runKernel(s, groups * perGroup, "flash_attention_fwd", KernelRole::FusedAttention, pool, sink,
                  [&](unsigned worker, std::size_t item) {
                      const std::size_t g = item / perGroup, turn = item % perGroup;
                      const std::size_t block = turn % 2 == 0 ? turn / 2 : perGroup - 1 - turn / 2;
                      FlashRows in = rowsOf(worker, g);
                      in.first = block * kRows;
                      in.count = std::min(kRows, rows - in.first);
                      if (amx) {
                          std::call_once(packOnce[g], [&] {
                              packAmxKeys(in.k, keys, d, kPacked + g * packed);
                              packAmxValues(in.v, keys, d, vPacked + g * packed);
                          });
                          in.kPacked = kPacked + g * packed;
                          in.vPacked = vPacked + g * packed;
                      }
                      kernel(in);
                  });
        return;
    }
    // A decode step: a few queries per head, and the whole KV cache to read. With fewer K/V heads
    // than twice the workers, each head's keys are split so every worker reads its part of the cache
    // (FlashAttention's split-KV); the splits' partial sums are combined after, by their maxima.
    const std::size_t workers = pool.size();
    std::size_t splits = groups >= 2 * workers ? 1 : (2 * workers + groups - 1) / groups;
    splits = std::max<std::size_t>(1, std::min(splits, keys / 512));
    const std::size_t perSplit = (keys + splits - 1) / splits;
    std::vector<float> partial(splits > 1 ? groups * splits * rows * (d + 2) : 0);
    runKernel(s, groups * splits, "flash_decode_fwd", KernelRole::FusedAttention, pool, sink,
              [&](unsigned worker, std::size_t item) {
                  const std::size_t g = item / splits, split = item % splits;
                  FlashRows in = rowsOf(worker, g);
                  if (splits > 1) {
                      const std::size_t begin = split * perSplit, end = std::min(keys, begin + perSplit);
                      float* out = partial.data() + item * rows * (d + 2);
                      in.k += begin * d;
                      in.v += begin * d;
                      in.keys = end - begin;
                      in.keyBegin = begin;
                      in.totalKeys = keys;
                      in.o = out;
                      in.q = q + g * rows * d;
                      in.partialMax = out + rows * d;
                      in.partialSum = in.partialMax + rows;
                  }
                  kernel(in);
              });
    for (std::size_t g = 0; splits > 1 && g < groups; ++g)
        for (std::size_t r = 0; r < rows; ++r) {
            float top = -INFINITY;
            for (std::size_t split = 0; split < splits; ++split)
                top = std::max(top, partial[(g * splits + split) * rows * (d + 2) + rows * d + r]);
            float* out = o + (g * rows + r) * d;
            std::fill(out, out + d, 0.0f);
            float sum = 0;
            for (std::size_t split = 0; split < splits; ++split) {
                const float* part = partial.data() + (g * splits + split) * rows * (d + 2);
                const float m = part[rows * d + r], l = part[rows * d + rows + r];
                if (l == 0) continue; // a split wholly after this row's last visible key
                const float w = std::exp2(m - top);
                sum += l * w;
                for (std::size_t c = 0; c < d; ++c)
                    out[c] += part[r * d + c] * w;
            }
            for (std::size_t c = 0; c < d; ++c)
                out[c] /= sum;
        }
}

void referenceAttention(const AttentionShape& s, const float* q, const float* k, const float* v, double* o) {
    const std::size_t n = std::size_t(s.seq), keys = std::size_t(s.keys()), d = std::size_t(s.dim);
    const std::size_t group = std::size_t(s.heads / s.kvHeadCount());
    const double scale = s.scale();
    std::vector<double> p(keys);
    for (std::size_t bh = 0; bh < std::size_t(s.batch) * s.heads; ++bh) {
        const float* qh = q + bh * n * d;
        const float* kh = k + bh / group * keys * d;
        const float* vh = v + bh / group * keys * d;
        double* oh = o + bh * n * d;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t valid = s.causal ? i + 1 + (keys - n) : keys;
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
