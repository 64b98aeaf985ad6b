// SPDX-License-Identifier: MIT
#pragma once

// The plugin's attention kernels, as host functions that launch them on a stream. Q, K, V, O and
// the scores are device arrays laid out [batch][heads][seq][dim] (scores [batch][heads][seq][seq]),
// of the problem's element type.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace attnscope_cuda {

struct Problem {
    int batch = 1, heads = 1, seq = 1, dim = 1;
    int kvHeads = 0, kvLen = 0; // K/V heads (GQA) and keys a head (a KV cache); 0: heads, seq
    bool causal = false;
    int dtype = 0; // ATTNSCOPE_CUDA_F32, _F16, _BF16
    cudaStream_t stream = nullptr;

    std::size_t heads_total() const { return std::size_t(batch) * heads; }
    std::size_t elements() const { return heads_total() * seq * dim; }
    std::size_t scoreElements() const { return heads_total() * seq * seq; }
    int kvHeadCount() const { return kvHeads > 0 ? kvHeads : heads; }
    std::size_t kvElements() const { return std::size_t(batch) * kvHeadCount() * keys() * dim; }
    int keys() const { return kvLen > 0 ? kvLen : seq; }
    int elementBytes() const { return dtype == 0 ? 4 : 2; }
    float scale() const;
};

// naive_simt (fp32 only): QKᵀ and PV as tiled SIMT GEMMs.
cudaError_t launchQkSimt(const Problem& p, const float* q, const float* k, float* s);
cudaError_t launchPvSimt(const Problem& p, const float* probabilities, const float* v, float* o);
// naive and naive_simt: scale, causal mask and softmax of the scores in place, any element type.
cudaError_t launchSoftmax(const Problem& p, void* scores);
// flash_simt (fp32 only, head dims up to 128): one block per query row, online softmax.
cudaError_t launchFlashSimt(const Problem& p, const float* q, const float* k, const float* v, float* o);
// flash: FlashAttention-2-style tiles on tensor cores (mma.sync), fp16 or bf16, head dim 64 or 128;
// K and V [batch][kvHeads][keys][dim] (grouped-query heads, a KV cache longer than the queries).
cudaError_t launchFlashMma(const Problem& p, const void* q, const void* k, const void* v, void* o);

// Why an implementation cannot run this problem, or null when it can.
const char* unsupported(const char* impl, const Problem& p);

// Fills n elements with a reproducible uniform pattern in [-1, 1).
cudaError_t launchFill(const Problem& p, void* data, std::size_t n, std::uint32_t seed);
// Converts n floats to the element type (dst) or back (src → float).
cudaError_t launchFromFloat(const Problem& p, const float* src, void* dst, std::size_t n);
cudaError_t launchToFloat(const Problem& p, const void* src, float* dst, std::size_t n);

} // namespace attnscope_cuda
