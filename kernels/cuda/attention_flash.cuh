// SPDX-License-Identifier: MIT
#pragma once
// flash: a FlashAttention-2-style forward kernel on tensor cores. A block of 4 warps takes 64 query
// rows (16 per warp) and walks the keys in tiles of 64: S = Q·Kᵀ and O += P·V are mma.sync
// m16n8k16 products (fp16 or bf16 in, fp32 accumulate), the softmax is online (running max and
// sum per row, in registers), and S's accumulator fragments are reused as P's operand fragments,
// so the N×N scores never leave the registers. Q stays in registers; K and V tiles stream into shared
// memory through cp.async, two buffers each (the next tile loads while this one is computed on),
// rows padded by 8 elements so the fragment loads hit 32 banks; V stays row-major and its P·V
// fragments come transposed from ldmatrix.trans (as FlashAttention-2 does). Grouped-query heads and
// more keys than queries (a decode step's KV cache) are handled by the indexing.
//
// The kernel's body: compiled by nvcc through attention_flash.cu, and as C++ for the host emulation
// in the tests (host_emulation.h), where the inline PTX is replaced by the emulated instructions.
#include "device_compat.h"

#include <cmath>
#include <cstdint>

namespace attnscope_cuda {

namespace {

constexpr int kBlockRows = 64; // query rows per block
constexpr int kBlockKeys = 64; // keys per tile
constexpr int kThreads = 128;  // 4 warps × 16 rows
constexpr int kPad = 8;

template <class T> __device__ std::uint32_t pack(float lo, float hi);
template <> __device__ std::uint32_t pack<__half>(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
}
template <> __device__ std::uint32_t pack<__nv_bfloat16>(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
}

// c += a·b for one m16n8k16 tile: a is 16×16 (row-major fragments), b 16×8 (column-major).
template <class T>
__device__ void mma(float c[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1);
#ifdef ATTNSCOPE_HOST_EMULATION
template <>
__device__ void mma<__half>(float c[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1) {
    attnscope_emu::mma<__half>(c, a, b0, b1);
}
template <>
__device__ void mma<__nv_bfloat16>(float c[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1) {
    attnscope_emu::mma<__nv_bfloat16>(c, a, b0, b1);
}
#else
template <>
__device__ void mma<__half>(float c[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ void mma<__nv_bfloat16>(float c[4], const std::uint32_t a[4], std::uint32_t b0, std::uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif

template <class T> __device__ std::uint32_t load32(const T* p) {
    return *reinterpret_cast<const std::uint32_t*>(p);
}

// 16 bytes global → shared without passing through registers (cp.async, sm_80+), zeros when !valid;
// the copies of a thread are grouped by commit() and awaited with waitPending<N>() (all but the N
// newest groups landed). Every thread must wait, then the block must sync, before any reads them.
__device__ __forceinline__ void copyAsync16(void* dst, const void* src, bool valid) {
#ifdef ATTNSCOPE_HOST_EMULATION
    attnscope_emu::block().asyncCopy(dst, src, valid ? 16 : 0, 16);
#else
    const unsigned address = unsigned(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(src),
                 "r"(valid ? 16 : 0));
#endif
}
__device__ __forceinline__ void commit() {
#ifdef ATTNSCOPE_HOST_EMULATION
    attnscope_emu::block().commitGroup();
#else
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N> __device__ __forceinline__ void waitPending() {
#ifdef ATTNSCOPE_HOST_EMULATION
    attnscope_emu::block().waitGroup(N);
#else
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// Four 8×8 matrices of 16-bit elements from shared memory, transposed (ldmatrix .x4 .trans): lanes
// 8i…8i+7 give the rows of matrix i. Row-major V read this way gives P·V's B fragments.
__device__ __forceinline__ void loadMatricesTransposed(std::uint32_t out[4], const void* row) {
#ifdef ATTNSCOPE_HOST_EMULATION
    attnscope_emu::ldmatrixX4(out, row, true);
#else
    const unsigned address = unsigned(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                 : "r"(address));
#endif
}

// Starts copying rows [row0, row0 + 64) of a [rows][D] matrix into shared memory (stride D + kPad);
// rows past the end are zeros.
template <class T, int D> __device__ void copyRowsAsync(T* dst, const T* src, int row0, int rows) {
    constexpr int kChunks = D / 8;
    for (int idx = threadIdx.x; idx < kBlockRows * kChunks; idx += kThreads) {
        const int r = idx / kChunks, c = (idx % kChunks) * 8;
        const bool valid = row0 + r < rows;
        copyAsync16(dst + r * (D + kPad) + c, src + std::size_t(valid ? row0 + r : 0) * D + c, valid);
    }
}

} // namespace

// Long on purpose: a GPU kernel is one body, so its fragments stay in registers across the loop.
// q, o: [batch·heads][seq][D]; k, v: [batch·kvHeads][keys][D], the `group` query heads of a K/V head
// consecutive (grouped-query attention; group 1: one K/V head each). Causal: query i sees the keys up
// to i + keys − seq (the queries are the last of the keys, as in a decode step).
// K and V tiles stream through two buffers each: the next tile's copies (cp.async) are in flight
// while this one is computed on.
template <class T, int D>
__global__ void __launch_bounds__(kThreads, 2)
    flashForwardKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                       T* __restrict__ o, int seq, int keys, int group, int queryBlocks, float scaleLog2,
                       int causal) {
    constexpr int kStride = D + kPad, kTile = kBlockKeys * kStride;
    constexpr int kDimSteps = D / 16, kKeyTiles = kBlockKeys / 8, kDimTiles = D / 8;
    ATTNSCOPE_DYNAMIC_SHARED(unsigned char, shared);
    T* qs = reinterpret_cast<T*>(shared);
    T* ks = qs + kBlockRows * kStride; // two tiles
    T* vs = ks + 2 * kTile;            // two tiles, row-major

    // The last query blocks have the most keys under a causal mask: start them first.
    const int qBlock = queryBlocks - 1 - int(blockIdx.x % queryBlocks);
    const std::size_t head = blockIdx.x / queryBlocks;
    const int q0 = qBlock * kBlockRows;
    const T* qh = q + head * seq * D;
    const T* kh = k + head / group * keys * D;
    const T* vh = v + head / group * keys * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group8 = lane / 4, quad = lane % 4;
    const int rowA = q0 + warp * 16 + group8, rowB = rowA + 8; // the two rows this thread holds
    const int shift = keys - seq;                              // causal: row i sees keys ≤ i + shift

    const int keyEnd = causal ? max(0, min(keys, q0 + kBlockRows + shift)) : keys;
    // Q and the first K/V tile in one group; Q goes to registers at the first tile's barrier.
    copyRowsAsync<T, D>(qs, qh, q0, seq);
    if (keyEnd > 0) {
        copyRowsAsync<T, D>(ks, kh, 0, keys);
        copyRowsAsync<T, D>(vs, vh, 0, keys);
    }
    commit();
    waitPending<0>();
    __syncthreads();
    std::uint32_t qa[kDimSteps][4];
#pragma unroll
    for (int s = 0; s < kDimSteps; ++s) {
        const T* base = qs + (warp * 16 + group8) * kStride + s * 16 + quad * 2;
        qa[s][0] = load32(base);
        qa[s][1] = load32(base + 8 * kStride);
        qa[s][2] = load32(base + 8);
        qa[s][3] = load32(base + 8 * kStride + 8);
    }

    float acc[kDimTiles][4];
#pragma unroll
    for (int t = 0; t < kDimTiles; ++t)
        acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
    float maxA = -INFINITY, maxB = -INFINITY, sumA = 0.0f, sumB = 0.0f; // per thread: its columns' share

    // One barrier a tile: once this tile has landed and everyone is past the barrier, everyone is also
    // done with the previous tile, so its buffers take the next tile's copies while this one is used.
    for (int key0 = 0, buffer = 0; key0 < keyEnd; key0 += kBlockKeys, buffer ^= 1) {
        if (key0 > 0) {
            waitPending<0>(); // this tile has landed (the only copies in flight)
            __syncthreads();
        }
        if (key0 + kBlockKeys < keyEnd) {
            copyRowsAsync<T, D>(ks + (buffer ^ 1) * kTile, kh, key0 + kBlockKeys, keys);
            copyRowsAsync<T, D>(vs + (buffer ^ 1) * kTile, vh, key0 + kBlockKeys, keys);
            commit();
        }
        const T* kt = ks + buffer * kTile;
        const T* vt = vs + buffer * kTile;

        float s[kKeyTiles][4];
#pragma unroll
        for (int t = 0; t < kKeyTiles; ++t) {
            s[t][0] = s[t][1] = s[t][2] = s[t][3] = 0.0f;
#pragma unroll
            for (int d = 0; d < kDimSteps; ++d) {
                const T* base = kt + (t * 8 + group8) * kStride + d * 16 + quad * 2;
                mma<T>(s[t], qa[d], load32(base), load32(base + 8));
            }
        }

        // Scale into log2 units, mask (past the end, and past each row's last key when causal), row maxima.
        float tileMaxA = -INFINITY, tileMaxB = -INFINITY;
#pragma unroll
        for (int t = 0; t < kKeyTiles; ++t)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int key = key0 + t * 8 + quad * 2 + (e & 1);
                const int row = e < 2 ? rowA : rowB;
                float x = s[t][e] * scaleLog2;
                if (key >= keys || (causal && key > row + shift)) x = -INFINITY;
                s[t][e] = x;
                if (e < 2)
                    tileMaxA = fmaxf(tileMaxA, x);
                else
                    tileMaxB = fmaxf(tileMaxB, x);
            }
        // The four threads of a quad hold one row between them.
        tileMaxA = fmaxf(tileMaxA, __shfl_xor_sync(0xffffffffu, tileMaxA, 1));
        tileMaxA = fmaxf(tileMaxA, __shfl_xor_sync(0xffffffffu, tileMaxA, 2));
        tileMaxB = fmaxf(tileMaxB, __shfl_xor_sync(0xffffffffu, tileMaxB, 1));
        tileMaxB = fmaxf(tileMaxB, __shfl_xor_sync(0xffffffffu, tileMaxB, 2));
        const float newMaxA = fmaxf(maxA, tileMaxA), newMaxB = fmaxf(maxB, tileMaxB);
        // A row with every key masked so far keeps -inf: exponentiate against 0 so nothing is NaN.
        const float baseA = newMaxA == -INFINITY ? 0.0f : newMaxA;
        const float baseB = newMaxB == -INFINITY ? 0.0f : newMaxB;
        const float correctionA = exp2f(maxA - baseA), correctionB = exp2f(maxB - baseB);
        maxA = newMaxA;
        maxB = newMaxB;
        sumA *= correctionA;
        sumB *= correctionB;
#pragma unroll
        for (int t = 0; t < kDimTiles; ++t) {
            acc[t][0] *= correctionA;
            acc[t][1] *= correctionA;
            acc[t][2] *= correctionB;
            acc[t][3] *= correctionB;
        }
#pragma unroll
        for (int t = 0; t < kKeyTiles; ++t) {
            s[t][0] = exp2f(s[t][0] - baseA);
            s[t][1] = exp2f(s[t][1] - baseA);
            s[t][2] = exp2f(s[t][2] - baseB);
            s[t][3] = exp2f(s[t][3] - baseB);
            sumA += s[t][0] + s[t][1];
            sumB += s[t][2] + s[t][3];
        }

        // O += P·V: the accumulators of key tiles 2j and 2j+1 are the A fragments of keys 16j…16j+15;
        // V's B fragments for two 8-column tiles at a time come from one transposed matrix load.
        // Lanes 0–7 address keys 16j…16j+7 of columns 16x…, lanes 8–15 keys 16j+8…, lanes 16–31
        // the same keys of columns 16x+8….
        const int matrix = lane / 8, rowInMatrix = lane % 8;
#pragma unroll
        for (int j = 0; j < kBlockKeys / 16; ++j) {
            const std::uint32_t pa[4] = {pack<T>(s[2 * j][0], s[2 * j][1]), pack<T>(s[2 * j][2], s[2 * j][3]),
                                         pack<T>(s[2 * j + 1][0], s[2 * j + 1][1]),
                                         pack<T>(s[2 * j + 1][2], s[2 * j + 1][3])};
#pragma unroll
            for (int x = 0; x < D / 16; ++x) {
                std::uint32_t b[4];
                loadMatricesTransposed(b, vt + (j * 16 + (matrix % 2) * 8 + rowInMatrix) * kStride + x * 16 +
                                              (matrix / 2) * 8);
                mma<T>(acc[2 * x], pa, b[0], b[1]);
                mma<T>(acc[2 * x + 1], pa, b[2], b[3]);
            }
        }
    }

    sumA += __shfl_xor_sync(0xffffffffu, sumA, 1);
    sumA += __shfl_xor_sync(0xffffffffu, sumA, 2);
    sumB += __shfl_xor_sync(0xffffffffu, sumB, 1);
    sumB += __shfl_xor_sync(0xffffffffu, sumB, 2);
    const float inverseA = sumA > 0 ? 1.0f / sumA : 0.0f, inverseB = sumB > 0 ? 1.0f / sumB : 0.0f;
    T* oh = o + head * seq * D;
#pragma unroll
    for (int t = 0; t < kDimTiles; ++t) {
        const int col = t * 8 + quad * 2;
        if (rowA < seq)
            *reinterpret_cast<std::uint32_t*>(oh + std::size_t(rowA) * D + col) =
                pack<T>(acc[t][0] * inverseA, acc[t][1] * inverseA);
        if (rowB < seq)
            *reinterpret_cast<std::uint32_t*>(oh + std::size_t(rowB) * D + col) =
                pack<T>(acc[t][2] * inverseB, acc[t][3] * inverseB);
    }
}

// Dynamic shared memory: Q's tile and two tiles each of K and V.
template <class T, int D> constexpr int flashSharedBytes() {
    return int(sizeof(T)) * (kBlockRows + 4 * kBlockKeys) * (D + kPad);
}

} // namespace attnscope_cuda
