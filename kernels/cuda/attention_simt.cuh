// SPDX-License-Identifier: MIT
#pragma once
// SIMT attention kernels in fp32, for teaching and as the reference on the device: naive (QKᵀ,
// softmax, PV as three kernels over the N×N scores) and a fused kernel with an online softmax
// (one block per query row, keys in tiles of 128: the scores never leave the block). The softmax
// kernel also serves the cuBLAS naive implementation in every element type, and the helpers that
// fill and convert arrays live here too.
//
// The kernels' bodies: compiled by nvcc through attention_simt.cu, and as C++ for the host emulation in
// the tests (host_emulation.h).
#include "device_compat.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace attnscope_cuda {

constexpr int kTile = 16;
constexpr int kRowThreads = 128;

__global__ void qkKernel(const float* q, const float* k, float* s, int n, int d) {
    const size_t bh = blockIdx.z;
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int i = blockIdx.y * kTile + ty, j = blockIdx.x * kTile + tx;
    const int keyRow = blockIdx.x * kTile + ty; // the key this thread loads
    __shared__ float qs[kTile][kTile + 1], ks[kTile][kTile + 1];
    float acc = 0;
    for (int c0 = 0; c0 < d; c0 += kTile) {
        qs[ty][tx] = (i < n && c0 + tx < d) ? q[(bh * n + i) * d + c0 + tx] : 0.0f;
        ks[ty][tx] = (keyRow < n && c0 + tx < d) ? k[(bh * n + keyRow) * d + c0 + tx] : 0.0f;
        __syncthreads();
        for (int c = 0; c < kTile; ++c)
            acc += qs[ty][c] * ks[tx][c];
        __syncthreads();
    }
    if (i < n && j < n) s[(bh * n + i) * n + j] = acc;
}

// Block-wide reduction of one value per thread (kRowThreads threads); every thread gets the result.
template <class Op> __device__ float blockReduce(float value, float* scratch, Op op) {
    scratch[threadIdx.x] = value;
    __syncthreads();
    for (int stride = kRowThreads / 2; stride > 0; stride /= 2) {
        if (int(threadIdx.x) < stride)
            scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
        __syncthreads();
    }
    const float result = scratch[0];
    __syncthreads();
    return result;
}

struct MaxOp {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
    __device__ float operator()(float a, float b) const { return a + b; }
};

template <class T> __device__ float toFloat(T x) {
    return float(x);
}
template <> __device__ float toFloat(__half x) {
    return __half2float(x);
}
template <> __device__ float toFloat(__nv_bfloat16 x) {
    return __bfloat162float(x);
}
template <class T> __device__ T fromFloat(float x) {
    return T(x);
}
template <> __device__ __half fromFloat(float x) {
    return __float2half_rn(x);
}
template <> __device__ __nv_bfloat16 fromFloat(float x) {
    return __float2bfloat16_rn(x);
}

// One block per row of scores: scale, causal mask, softmax in place (in fp32 whatever T is).
template <class T> __global__ void softmaxKernel(T* s, int n, float scale, int causal) {
    __shared__ float scratch[kRowThreads];
    const size_t row = blockIdx.x;
    const int i = int(row % n);
    T* r = s + row * n;
    const int valid = causal ? i + 1 : n;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < valid; j += kRowThreads)
        m = fmaxf(m, toFloat(r[j]) * scale);
    m = blockReduce(m, scratch, MaxOp{});
    float sum = 0;
    for (int j = threadIdx.x; j < valid; j += kRowThreads)
        sum += expf(toFloat(r[j]) * scale - m);
    sum = blockReduce(sum, scratch, SumOp{});
    const float inverse = 1.0f / sum;
    for (int j = threadIdx.x; j < n; j += kRowThreads)
        r[j] = fromFloat<T>(j < valid ? expf(toFloat(r[j]) * scale - m) * inverse : 0.0f);
}

__global__ void pvKernel(const float* p, const float* v, float* o, int n, int d) {
    const size_t bh = blockIdx.z;
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int i = blockIdx.y * kTile + ty, c = blockIdx.x * kTile + tx;
    __shared__ float ps[kTile][kTile + 1], vs[kTile][kTile + 1];
    float acc = 0;
    for (int j0 = 0; j0 < n; j0 += kTile) {
        ps[ty][tx] = (i < n && j0 + tx < n) ? p[(bh * n + i) * n + j0 + tx] : 0.0f;
        vs[ty][tx] = (j0 + ty < n && c < d) ? v[(bh * n + j0 + ty) * d + c] : 0.0f;
        __syncthreads();
        for (int jj = 0; jj < kTile; ++jj)
            acc += ps[ty][jj] * vs[jj][tx];
        __syncthreads();
    }
    if (i < n && c < d) o[(bh * n + i) * d + c] = acc;
}

// One block per query row; thread t scores key j0 + t of each tile and owns output column t.
__global__ void flashRowKernel(const float* q, const float* k, const float* v, float* o, int n, int d,
                               float scale, int causal) {
    __shared__ float qs[kRowThreads], ps[kRowThreads], scratch[kRowThreads];
    const size_t row = blockIdx.x;
    const size_t bh = row / n;
    const int i = int(row % n);
    const int t = threadIdx.x;
    const float* kh = k + bh * n * d;
    const float* vh = v + bh * n * d;
    if (t < d) qs[t] = q[row * d + t];
    __syncthreads();
    const int keys = causal ? i + 1 : n;
    float m = -INFINITY, l = 0, acc = 0;
    for (int j0 = 0; j0 < keys; j0 += kRowThreads) {
        const int j = j0 + t;
        float score = -INFINITY;
        if (j < keys) {
            score = 0;
            for (int c = 0; c < d; ++c)
                score += qs[c] * kh[size_t(j) * d + c];
            score *= scale;
        }
        const float newMax = fmaxf(m, blockReduce(score, scratch, MaxOp{}));
        const float correction = expf(m - newMax); // 0 on the first tile (m = -inf)
        const float p = j < keys ? expf(score - newMax) : 0.0f;
        ps[t] = p;
        l = l * correction + blockReduce(p, scratch, SumOp{}); // also orders ps before it is read
        if (t < d) {
            acc *= correction;
            const int count = min(kRowThreads, keys - j0);
            for (int jj = 0; jj < count; ++jj)
                acc += ps[jj] * vh[size_t(j0 + jj) * d + t];
        }
        m = newMax;
        __syncthreads();
    }
    if (t < d) o[row * d + t] = acc / l;
}

template <class T> __global__ void fillKernel(T* p, size_t n, uint32_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        uint32_t h = uint32_t(i) * 0x9E3779B1u ^ uint32_t(i >> 32) ^ seed; // a small integer hash
        h ^= h >> 16;
        h *= 0x85EBCA6Bu;
        h ^= h >> 13;
        h *= 0xC2B2AE35u;
        h ^= h >> 16;
        p[i] = fromFloat<T>(float(h >> 8) * (2.0f / 16777216.0f) - 1.0f);
    }
}

template <class T> __global__ void fromFloatKernel(const float* src, T* dst, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = fromFloat<T>(src[i]);
}

template <class T> __global__ void toFloatKernel(const T* src, float* dst, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = toFloat(src[i]);
}

} // namespace attnscope_cuda
