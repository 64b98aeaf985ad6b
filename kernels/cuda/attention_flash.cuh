// SPDX-License-Identifier: MIT
#pragma once
// flash: a FlashAttention-2-style forward kernel on tensor cores. A block of 4 warps takes 64 query
// rows (16 per warp) and walks the keys in tiles of 64: S = Q·Kᵀ and O += P·V are mma.sync
// m16n8k16 products (fp16 or bf16 in, fp32 accumulate), the softmax is online (running max and
// sum per row, in registers), and S's accumulator fragments are reused as P's operand fragments,
// so the N×N scores never leave the registers. Q stays in registers; K and V (stored transposed)
// are staged in shared memory, rows padded by 8 elements so the fragment loads hit 32 banks.
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

// Copies rows [row0, row0 + 64) of a [seq][D] matrix into shared memory (stride D + kPad), zeros
// past the end; 16 bytes per thread per step.
template <class T, int D> __device__ void loadRows(T* dst, const T* src, int row0, int seq) {
    constexpr int kChunks = D / 8;
    for (int idx = threadIdx.x; idx < kBlockRows * kChunks; idx += kThreads) {
        const int r = idx / kChunks, c = (idx % kChunks) * 8;
        uint4 value = make_uint4(0, 0, 0, 0);
        if (row0 + r < seq) value = *reinterpret_cast<const uint4*>(src + std::size_t(row0 + r) * D + c);
        *reinterpret_cast<uint4*>(dst + r * (D + kPad) + c) = value;
    }
}

// Copies V's rows [key0, key0 + 64) transposed: dst[d][key] (stride kBlockKeys + kPad).
template <class T, int D> __device__ void loadTransposed(T* dst, const T* src, int key0, int seq) {
    constexpr int kChunks = D / 8;
    for (int idx = threadIdx.x; idx < kBlockKeys * kChunks; idx += kThreads) {
        const int r = idx / kChunks, c = (idx % kChunks) * 8;
        uint4 value = make_uint4(0, 0, 0, 0);
        if (key0 + r < seq) value = *reinterpret_cast<const uint4*>(src + std::size_t(key0 + r) * D + c);
        const T* v = reinterpret_cast<const T*>(&value);
#pragma unroll
        for (int i = 0; i < 8; ++i)
            dst[(c + i) * (kBlockKeys + kPad) + r] = v[i];
    }
}

} // namespace

// Long on purpose: a GPU kernel is one body, so its fragments stay in registers across the loop.
template <class T, int D>
__global__ void __launch_bounds__(kThreads)
    flashForwardKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                       T* __restrict__ o, int seq, int queryBlocks, float scaleLog2, int causal) {
    constexpr int kStride = D + kPad, kVStride = kBlockKeys + kPad;
    constexpr int kDimSteps = D / 16, kKeyTiles = kBlockKeys / 8, kDimTiles = D / 8;
    ATTNSCOPE_DYNAMIC_SHARED(unsigned char, shared);
    T* qs = reinterpret_cast<T*>(shared);
    T* ks = qs + kBlockRows * kStride;
    T* vt = ks + kBlockKeys * kStride;

    // The last query blocks have the most keys under a causal mask: start them first.
    const int qBlock = queryBlocks - 1 - int(blockIdx.x % queryBlocks);
    const std::size_t head = blockIdx.x / queryBlocks;
    const int q0 = qBlock * kBlockRows;
    const T* qh = q + head * seq * D;
    const T* kh = k + head * seq * D;
    const T* vh = v + head * seq * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, group = lane / 4, quad = lane % 4;
    const int rowA = q0 + warp * 16 + group, rowB = rowA + 8; // the two rows this thread holds

    loadRows<T, D>(qs, qh, q0, seq);
    __syncthreads();
    std::uint32_t qa[kDimSteps][4];
#pragma unroll
    for (int s = 0; s < kDimSteps; ++s) {
        const T* base = qs + (warp * 16 + group) * kStride + s * 16 + quad * 2;
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

    const int keyEnd = causal ? min(seq, q0 + kBlockRows) : seq;
    for (int key0 = 0; key0 < keyEnd; key0 += kBlockKeys) {
        __syncthreads(); // everyone is done with the previous tile
        loadRows<T, D>(ks, kh, key0, seq);
        loadTransposed<T, D>(vt, vh, key0, seq);
        __syncthreads();

        float s[kKeyTiles][4];
#pragma unroll
        for (int t = 0; t < kKeyTiles; ++t) {
            s[t][0] = s[t][1] = s[t][2] = s[t][3] = 0.0f;
#pragma unroll
            for (int d = 0; d < kDimSteps; ++d) {
                const T* base = ks + (t * 8 + group) * kStride + d * 16 + quad * 2;
                mma<T>(s[t], qa[d], load32(base), load32(base + 8));
            }
        }

        // Scale into log2 units, mask (past the end, and above the diagonal when causal), row maxima.
        float tileMaxA = -INFINITY, tileMaxB = -INFINITY;
#pragma unroll
        for (int t = 0; t < kKeyTiles; ++t)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int key = key0 + t * 8 + quad * 2 + (e & 1);
                const int row = e < 2 ? rowA : rowB;
                float x = s[t][e] * scaleLog2;
                if (key >= seq || (causal && key > row)) x = -INFINITY;
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

        // O += P·V: the accumulators of key tiles 2j and 2j+1 are the A fragments of keys 16j…16j+15.
#pragma unroll
        for (int j = 0; j < kBlockKeys / 16; ++j) {
            const std::uint32_t pa[4] = {pack<T>(s[2 * j][0], s[2 * j][1]), pack<T>(s[2 * j][2], s[2 * j][3]),
                                         pack<T>(s[2 * j + 1][0], s[2 * j + 1][1]),
                                         pack<T>(s[2 * j + 1][2], s[2 * j + 1][3])};
#pragma unroll
            for (int t = 0; t < kDimTiles; ++t) {
                const T* base = vt + (t * 8 + group) * kVStride + j * 16 + quad * 2;
                mma<T>(acc[t], pa, load32(base), load32(base + 8));
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

} // namespace attnscope_cuda
