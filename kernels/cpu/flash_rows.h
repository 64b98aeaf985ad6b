// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnscope::kernels {

// A run of query rows of one KV head's group for the fused CPU kernel. The query heads that share a
// K/V head are consecutive, so their rows are too: row t of the group is query t % seq of the group's
// head t / seq, at q + t·dim (and its output at o + t·dim).
struct FlashRows {
    const float* q = nullptr; // the group's first row
    float* o = nullptr;
    const float* k = nullptr; // the KV head: keys × dim, row-major
    const float* v = nullptr;
    std::size_t first = 0, count = 0; // rows [first, first + count) of the group
    std::size_t seq = 0;              // query rows per head
    std::size_t keys = 0;             // keys at k and v
    std::size_t keyBegin = 0;  // the position of k's first key among all of the head's (a split's start)
    std::size_t totalKeys = 0; // all of the head's keys (0: keys)
    std::size_t dim = 0;
    bool causal = false;      // query i sees keys up to i + totalKeys − seq (the last query sees them all)
    float scaleLog2e = 0;     // 1/√dim · log2(e): the kernel works in powers of 2
    float* scratch = nullptr; // flashScratchFloats(dim) floats, one worker's own
    // A split of the keys (decode): o gets the unnormalized sums, and each row's maximum (in powers of
    // 2) and sum of probabilities go to partialMax and partialSum (indexed from first), to be combined.
    float* partialMax = nullptr;
    float* partialSum = nullptr;
    // The AMX kernel's K and V of the whole head in its tile layout (packAmxKeys, packAmxValues).
    const std::uint16_t* kPacked = nullptr;
    const std::uint16_t* vPacked = nullptr;
};

// The scratch one worker needs for rows of this head dimension, in floats (for any instruction set).
constexpr std::size_t flashScratchFloats(std::size_t dim) {
    constexpr std::size_t rows = 64, keys = 64; // the widest block: 4 vectors of 16 rows
    return 2 * dim * rows + keys * rows + 4 * rows;
}

// One head's rows of materialized scores (rows × keys) for the naive attention's softmax, in place:
// scaled, masked (causal: row i sees keys up to i + keys − rows) and normalized; masked keys get 0.
struct SoftmaxRows {
    float* scores = nullptr;
    std::size_t rows = 0, keys = 0;
    bool causal = false;
    float scaleLog2e = 0; // 1/√dim · log2(e)
};
void softmaxRowsAvx512(const SoftmaxRows& rows);
void softmaxRowsAvx2(const SoftmaxRows& rows);
void softmaxRowsScalar(const SoftmaxRows& rows);

// The fused kernel over rows, per instruction set (flash_avx512.cpp, flash_avx2.cpp, flash_scalar.cpp).
void flashRowsAvx512(const FlashRows& rows);
void flashRowsAvx2(const FlashRows& rows);
void flashRowsScalar(const FlashRows& rows);
// bf16 on AMX tiles (flash_amx.cpp): prefill rows only (no split of the keys), dim a multiple of 32,
// with the head's K and V packed first; the caller has checked that the CPU and OS allow AMX.
void flashRowsAmx(const FlashRows& rows);
std::size_t amxPackedElements(std::size_t keys, std::size_t dim); // of K's or V's packing
void packAmxKeys(const float* k, std::size_t keys, std::size_t dim, std::uint16_t* out);
void packAmxValues(const float* v, std::size_t keys, std::size_t dim, std::uint16_t* out);
// The naive attention's products in bf16 on the tiles, for one head (dim a multiple of 32, K and V
// packed as above, fp32 results): scores (n × keys) = Q·Kᵀ, and o (n × dim) = P·V with the
// probabilities p (n × keys) rounded to bf16, as PyTorch's bf16 matmuls do.
void amxScoresGemm(const float* q, std::size_t n, const std::uint16_t* kPacked, std::size_t keys,
                   std::size_t dim, float* scores);
void amxOutputGemm(const float* p, std::size_t n, std::size_t keys, const std::uint16_t* vPacked,
                   std::size_t dim, float* o);

} // namespace attnscope::kernels
