// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/precision.h"
#include "core/model/role.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope::kernels {

// One attention call: Q and O are [batch][heads][seq][dim], K and V [batch][kvHeads][keys][dim],
// row-major. Grouped-query attention: heads / kvHeads consecutive query heads share one K/V head
// (kvHeads 1: multi-query). A decode step: a few queries (seq) against a KV cache of kvLen keys.
// Causal: query i sees keys up to i + keys − seq (the last query sees every key).
struct AttentionShape {
    int batch = 1;
    int heads = 8;
    int seq = 2048;
    int dim = 64;
    bool causal = false;
    Precision dtype = Precision::F32;
    int kvHeads = 0; // 0: as many as heads
    int kvLen = 0;   // 0: seq

    int kvHeadCount() const { return kvHeads > 0 ? kvHeads : heads; }
    int keys() const { return kvLen > 0 ? kvLen : seq; }
    std::size_t elements() const { return std::size_t(batch) * heads * seq * dim; }              // of Q or O
    std::size_t kvElements() const { return std::size_t(batch) * kvHeadCount() * keys() * dim; } // of K or V
    std::size_t scoreElements() const { return std::size_t(batch) * heads * seq * std::size_t(keys()); }
    // The (query, key) pairs a call computes: every pair, or under the causal diagonal seq·keys − seq²/2
    // (half the square for prefill, as FlashAttention and PyTorch count it).
    double visiblePairs() const;
    double scale() const; // 1 / sqrt(dim)
    bool operator==(const AttentionShape&) const = default;
};

// "B=1 H=8 N=2048 D=64 fp32 causal", then " · GQA 8:2" or " · MQA" and " · 32768 keys" when set.
std::string describeShape(const AttentionShape& shape);

// A workload kernel's role (written into its events' args) is one of the analysis' roles: QkGemm,
// Softmax, PvGemm or FusedAttention (core/model/role.h). Its element type is the analysis Precision
// (fp32, fp16 or bf16 for a workload).

// FLOPs and bytes one kernel of a role does for a whole attention call, from the shape alone.
// FLOPs count the useful work: a multiply-add is 2, so QKᵀ and PV are 2·B·H·pairs·D each and the
// fused kernel 4·B·H·pairs·D (pairs: visiblePairs(), N² or N²/2 for prefill); softmax counts 5
// operations per visible score (scale, max, exp, sum, divide). Bytes are what must move to and from
// memory at least: the naive kernels read and write the whole N×keys scores (scoreBytes per score: 4
// on the CPU, the element size for cuBLAS), the fused one only Q, K, V and O — for a decode step
// that is the whole KV cache, which is why it is memory-bound.
struct KernelCost {
    double flops = 0;
    double bytes = 0;
};
// elementBytes: what one element of Q, K, V and O takes where the kernel reads it (0: the dtype's size;
// the CPU kernels hold every dtype in fp32, 4).
KernelCost kernelCost(const AttentionShape& shape, KernelRole role, int scoreBytes = 4, int elementBytes = 0);

// The clock CPU kernels and runs are timed with (steady, in ns).
std::int64_t steadyClockNs();

// The args AttnScope writes on its own runs' events (keys from core/model/run_args.h; values as JSON
// text), the same for the CPU run session and the CUDA plugin.
using RunArgs = std::vector<std::pair<std::string, std::string>>;
// The workload's shape: batch, heads, seq, dim, dtype, causal.
RunArgs shapeArgs(const AttentionShape& s);
// One kernel of a call: its role, implementation, call number and exact cost.
RunArgs kernelArgs(KernelRole role, const std::string& impl, long call, const KernelCost& cost);
// A double as JSON, exactly ("%.17g").
std::string jsonNumber(double v);

} // namespace attnscope::kernels
