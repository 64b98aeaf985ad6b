// SPDX-License-Identifier: MIT
// The SIMT kernels' launches and the helpers' (fill, convert): the kernels are in attention_simt.cuh.
#include "attention_simt.cuh"
#include "device_attention.h"
#include "plugin_api.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace attnscope_cuda {

namespace {

unsigned gridFor(size_t n) {
    return unsigned(std::min<size_t>((n + 255) / 256, 65536));
}

// Calls f with a null pointer of the problem's element type.
template <class F> cudaError_t byType(int dtype, F f) {
    switch (dtype) {
    case ATTNSCOPE_CUDA_F32:
        return f(static_cast<float*>(nullptr));
    case ATTNSCOPE_CUDA_F16:
        return f(static_cast<__half*>(nullptr));
    case ATTNSCOPE_CUDA_BF16:
        return f(static_cast<__nv_bfloat16*>(nullptr));
    default:
        return cudaErrorInvalidValue;
    }
}

} // namespace

cudaError_t launchQkSimt(const Problem& p, const float* q, const float* k, float* s) {
    const unsigned tiles = unsigned((p.seq + kTile - 1) / kTile);
    qkKernel<<<dim3(tiles, tiles, unsigned(p.heads_total())), dim3(kTile, kTile), 0, p.stream>>>(
        q, k, s, p.seq, p.dim);
    return cudaGetLastError();
}

cudaError_t launchPvSimt(const Problem& p, const float* probabilities, const float* v, float* o) {
    const dim3 grid(unsigned((p.dim + kTile - 1) / kTile), unsigned((p.seq + kTile - 1) / kTile),
                    unsigned(p.heads_total()));
    pvKernel<<<grid, dim3(kTile, kTile), 0, p.stream>>>(probabilities, v, o, p.seq, p.dim);
    return cudaGetLastError();
}

cudaError_t launchSoftmax(const Problem& p, void* scores) {
    return byType(p.dtype, [&](auto* type) {
        using T = std::remove_pointer_t<decltype(type)>;
        softmaxKernel<T><<<unsigned(p.heads_total() * p.seq), kRowThreads, 0, p.stream>>>(
            static_cast<T*>(scores), p.seq, p.scale(), p.causal ? 1 : 0);
        return cudaGetLastError();
    });
}

cudaError_t launchFlashSimt(const Problem& p, const float* q, const float* k, const float* v, float* o) {
    flashRowKernel<<<unsigned(p.heads_total() * p.seq), kRowThreads, 0, p.stream>>>(
        q, k, v, o, p.seq, p.dim, p.scale(), p.causal ? 1 : 0);
    return cudaGetLastError();
}

cudaError_t launchFill(const Problem& p, void* data, size_t n, uint32_t seed) {
    return byType(p.dtype, [&](auto* type) {
        using T = std::remove_pointer_t<decltype(type)>;
        fillKernel<T><<<gridFor(n), 256, 0, p.stream>>>(static_cast<T*>(data), n, seed);
        return cudaGetLastError();
    });
}

cudaError_t launchFromFloat(const Problem& p, const float* src, void* dst, size_t n) {
    return byType(p.dtype, [&](auto* type) {
        using T = std::remove_pointer_t<decltype(type)>;
        fromFloatKernel<T><<<gridFor(n), 256, 0, p.stream>>>(src, static_cast<T*>(dst), n);
        return cudaGetLastError();
    });
}

cudaError_t launchToFloat(const Problem& p, const void* src, float* dst, size_t n) {
    return byType(p.dtype, [&](auto* type) {
        using T = std::remove_pointer_t<decltype(type)>;
        toFloatKernel<T><<<gridFor(n), 256, 0, p.stream>>>(static_cast<const T*>(src), dst, n);
        return cudaGetLastError();
    });
}

} // namespace attnscope_cuda
