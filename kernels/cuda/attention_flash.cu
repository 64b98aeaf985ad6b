// SPDX-License-Identifier: MIT
// flash's launch: the kernel is in attention_flash.cuh.
#include "attention_flash.cuh"
#include "device_attention.h"
#include "plugin_api.h"

namespace attnscope_cuda {

namespace {

template <class T, int D>
cudaError_t launch(const Problem& p, const void* q, const void* k, const void* v, void* o) {
    constexpr int kShared = flashSharedBytes<T, D>();
    auto kernel = flashForwardKernel<T, D>;
    // Over 48 KiB of shared memory a kernel must ask for it: once (the first call is a warm-up, not a
    // timed one), not on every launch inside the timed region.
    static const cudaError_t asked = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared);
    if (asked) return asked;
    const int queryBlocks = (p.seq + kBlockRows - 1) / kBlockRows;
    const float scaleLog2 = p.scale() * 1.4426950408889634f;
    kernel<<<unsigned(p.heads_total() * queryBlocks), kThreads, kShared, p.stream>>>(
        static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v), static_cast<T*>(o),
        p.seq, p.keys(), p.heads / p.kvHeadCount(), queryBlocks, scaleLog2, p.causal ? 1 : 0);
    return cudaGetLastError();
}

} // namespace

cudaError_t launchFlashMma(const Problem& p, const void* q, const void* k, const void* v, void* o) {
    if (p.dtype == ATTNSCOPE_CUDA_F16)
        return p.dim == 64 ? launch<__half, 64>(p, q, k, v, o) : launch<__half, 128>(p, q, k, v, o);
    if (p.dtype == ATTNSCOPE_CUDA_BF16)
        return p.dim == 64 ? launch<__nv_bfloat16, 64>(p, q, k, v, o)
                           : launch<__nv_bfloat16, 128>(p, q, k, v, o);
    return cudaErrorInvalidValue;
}

} // namespace attnscope_cuda
