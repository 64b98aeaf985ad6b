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

// Naive attention as three separately timed kernels over all heads, each split between the
// workers by (batch, head): QKᵀ into the N×N scores (cache-blocked), scale + causal mask + softmax
// in place, then P·V. scores must hold batch·heads·seq·seq floats.
void cpuNaiveAttention(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o,
                       float* scores, WorkerPool& pool, const SpanSink& sink);

// FlashAttention-style fused kernel: tiles of queries against tiles of keys with an online softmax,
// never holding more than a tile of scores. Causal tiles above the diagonal are skipped.
void cpuFlashAttention(const AttentionShape& shape, const float* q, const float* k, const float* v, float* o,
                       WorkerPool& pool, const SpanSink& sink);

// The double-precision reference both are checked against.
void referenceAttention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                        double* o);

// Rounds values to what the dtype can hold (fp16, bf16: round to nearest even), for inputs and
// outputs of the CPU kernels, which compute in fp32.
void roundToPrecision(std::vector<float>& values, Precision dtype);

} // namespace attnscope::kernels
