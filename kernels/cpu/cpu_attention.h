// SPDX-License-Identifier: MIT
#pragma once

#include "kernels/attention.h"
#include "worker_pool.h"

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace attnscope::kernels {

// One worker's part of one kernel: what the CPU collector turns into an event on that worker's
// track. cost is the part's share of the kernel's cost (by the heads it did).
struct CpuKernelSpan {
    std::string_view name;
    KernelRole role;
    unsigned worker = 0;
    std::int64_t startNs = 0; // steady clock
    std::int64_t endNs = 0;
    KernelCost cost;
};
using SpanSink = std::function<void(const CpuKernelSpan&)>; // called from the workers, concurrently

// The instruction sets the CPU kernels are built for, chosen at run time: the binary runs on any x86-64.
// Amx: AVX-512 for fp32, and bf16 on the AMX tiles (Sapphire Rapids and newer, where the OS allows it).
enum class CpuIsa : std::uint8_t { Scalar, Avx2, Avx512, Amx };
CpuIsa bestCpuIsa(); // the widest this CPU has
std::string_view isaName(CpuIsa isa);

// Naive attention as PyTorch computes it, three separately timed kernels over all heads, each split
// between the workers by (batch, head): QKᵀ into the seq×keys scores (OpenBLAS's sgemm, one
// single-threaded call per head on each worker: the workers are the parallelism, and each worker's
// share of a kernel stays one span), scale + causal mask + softmax in place (AttnScope's own
// vectorized rows, softmax_rows.h, for isa), then P·V (sgemm). bf16 on a CPU with AMX runs both
// products in bf16 on the tiles instead, as PyTorch does there. scores must hold
// shape.scoreElements() floats.
void cpuNaiveAttention(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o,
                       float* scores, WorkerPool& pool, const SpanSink& sink, CpuIsa isa = bestCpuIsa());

// FlashAttention-style fused kernel (flash_kernel.h): blocks of 64 query rows against blocks of 64
// keys with an online softmax, never holding more than a block of scores; keys past a block's last
// visible one (causal) are not computed. The query heads sharing a K/V head (GQA) go through it
// together. isa: the kernel to use (a set this CPU lacks falls back to scalar).
void cpuFlashAttention(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o,
                       WorkerPool& pool, const SpanSink& sink, CpuIsa isa = bestCpuIsa());

// The double-precision reference both are checked against.
void referenceAttention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                        double* o);

// Rounds values to what the dtype can hold (fp16, bf16: round to nearest even), for inputs and
// outputs of the CPU kernels, which compute in fp32.
void roundToPrecision(std::vector<float>& values, Precision dtype);

} // namespace attnscope::kernels
