// SPDX-License-Identifier: MIT
#include "kernel_role.h"

#include "text_match.h"

#include <algorithm>
#include <array>

namespace attnscope {

namespace {

bool containsAny(std::string_view name, std::initializer_list<std::string_view> needles) {
    return std::any_of(needles.begin(), needles.end(),
                       [&](std::string_view n) { return containsNoCase(name, n); });
}

} // namespace

KernelRole classifyKernel(std::string_view name, std::string_view category) {
    if (category == "gpu_memcpy" || category == "gpu_memset" || category == "Memcpy" || category == "Memset")
        return KernelRole::Copy;
    // Fused attention first: FlashAttention's kernels are CUTLASS GEMMs by their template names.
    if (containsAny(name, {"flash", "fmha", "attn_fwd", "attn_bwd", "attention", "sdpa"}))
        return KernelRole::FusedAttention;
    if (containsAny(name, {"softmax"})) return KernelRole::Softmax;
    if (containsAny(name, {"gemm", "xmma", "cutlass", "cublas", "matmul", "cijk_", "_mm_", "bmm"}))
        return KernelRole::Gemm;
    if (containsAny(name, {"memcpy", "memset", "copy_kernel", "copy_"})) return KernelRole::Copy;
    if (containsAny(name, {"elementwise", "vectorized", "unrolled", "pointwise", "triton_poi"}))
        return KernelRole::Elementwise;
    return KernelRole::Other;
}

std::string_view roleLabel(KernelRole role) {
    static constexpr std::array<std::string_view, std::size_t(KernelRole::Count)> labels{
        "GEMM", "softmax", "fused attention", "elementwise", "copy", "other"};
    return role < KernelRole::Count ? labels[std::size_t(role)] : "other";
}

} // namespace attnscope
