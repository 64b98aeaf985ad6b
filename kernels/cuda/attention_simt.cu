// SPDX-License-Identifier: MIT
// SIMT attention kernels in fp32, for teaching and as the reference on the device: naive (QKᵀ,
// softmax, PV as three kernels over the N×N scores) and a fused kernel with an online softmax
// (one block per query row, keys in tiles of 128: the scores never leave the block).
// TODO(issue 4): cuBLAS naive, and the tensor-core (mma.sync) FlashAttention-2 kernel for fp16/bf16.
#include "plugin_api.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {

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
        if (threadIdx.x < stride) scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
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

// One block per row of scores: scale, causal mask, softmax in place.
__global__ void softmaxKernel(float* s, int n, float scale, int causal) {
    __shared__ float scratch[kRowThreads];
    const size_t row = blockIdx.x;
    const int i = int(row % n);
    float* r = s + row * n;
    const int valid = causal ? i + 1 : n;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < valid; j += kRowThreads)
        m = fmaxf(m, r[j] * scale);
    m = blockReduce(m, scratch, MaxOp{});
    float sum = 0;
    for (int j = threadIdx.x; j < valid; j += kRowThreads) {
        const float e = expf(r[j] * scale - m);
        r[j] = e;
        sum += e;
    }
    sum = blockReduce(sum, scratch, SumOp{});
    for (int j = threadIdx.x; j < n; j += kRowThreads)
        r[j] = j < valid ? r[j] / sum : 0.0f;
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
__global__ void flashRowKernel(const float* q, const float* k, const float* v, float* o, int n, int d, float scale,
                               int causal) {
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

bool failed(cudaError_t e, const char* what, char* message, int size) {
    if (e == cudaSuccess) return false;
    std::snprintf(message, size_t(size), "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return true;
}

} // namespace

extern "C" __attribute__((visibility("default"))) int attnscope_cuda_attention(const char* impl, int batch, int heads,
                                                                               int seq, int dim, int causal,
                                                                               const float* q, const float* k,
                                                                               const float* v, float* o,
                                                                               char* message, int size) {
    const bool naive = !std::strcmp(impl, "naive_simt"), flash = !std::strcmp(impl, "flash_simt");
    if (!naive && !flash) {
        std::snprintf(message, size_t(size), "unknown CUDA implementation '%s'", impl);
        return 1;
    }
    if (flash && dim > kRowThreads) {
        std::snprintf(message, size_t(size), "flash_simt handles head dims up to %d, not %d", kRowThreads, dim);
        return 1;
    }
    const size_t bh = size_t(batch) * heads, elements = bh * seq * dim, bytes = elements * sizeof(float);
    const float scale = 1.0f / std::sqrt(float(dim));
    float *dq = nullptr, *dk = nullptr, *dv = nullptr, *dout = nullptr, *ds = nullptr;
    int rc = 1;
    if (failed(cudaMalloc(&dq, bytes), "cudaMalloc Q", message, size) ||
        failed(cudaMalloc(&dk, bytes), "cudaMalloc K", message, size) ||
        failed(cudaMalloc(&dv, bytes), "cudaMalloc V", message, size) ||
        failed(cudaMalloc(&dout, bytes), "cudaMalloc O", message, size) ||
        (naive && failed(cudaMalloc(&ds, bh * seq * seq * sizeof(float)), "cudaMalloc scores (out of memory at "
                                                                         "this shape?)",
                         message, size)) ||
        failed(cudaMemcpy(dq, q, bytes, cudaMemcpyHostToDevice), "copy Q", message, size) ||
        failed(cudaMemcpy(dk, k, bytes, cudaMemcpyHostToDevice), "copy K", message, size) ||
        failed(cudaMemcpy(dv, v, bytes, cudaMemcpyHostToDevice), "copy V", message, size))
        goto done;
    if (naive) {
        const dim3 block(kTile, kTile);
        qkKernel<<<dim3((seq + kTile - 1) / kTile, (seq + kTile - 1) / kTile, unsigned(bh)), block>>>(dq, dk, ds, seq,
                                                                                                      dim);
        softmaxKernel<<<unsigned(bh * seq), kRowThreads>>>(ds, seq, scale, causal);
        pvKernel<<<dim3((dim + kTile - 1) / kTile, (seq + kTile - 1) / kTile, unsigned(bh)), block>>>(ds, dv, dout,
                                                                                                      seq, dim);
    } else {
        flashRowKernel<<<unsigned(bh * seq), kRowThreads>>>(dq, dk, dv, dout, seq, dim, scale, causal);
    }
    if (failed(cudaGetLastError(), "launch", message, size) ||
        failed(cudaDeviceSynchronize(), "run", message, size) ||
        failed(cudaMemcpy(o, dout, bytes, cudaMemcpyDeviceToHost), "copy O", message, size))
        goto done;
    rc = 0;
done:
    cudaFree(dq);
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(dout);
    cudaFree(ds);
    return rc;
}
