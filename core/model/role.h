// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnscope {

// What a kernel does: one vocabulary for the analysis of any trace and for AttnScope's own workloads
// (their kernels write these names into their args). QkGemm and PvGemm are GEMMs of a recognized
// attention call (analysis.h); by its name alone a kernel is at most Gemm. Header-only, so the CUDA
// plugin, which links none of core, shares it too.
enum class KernelRole : std::uint8_t {
    QkGemm,
    Softmax,
    PvGemm,
    FusedAttention,
    Gemm,
    Elementwise,
    Reduction,
    Copy,
    Communication,
    Other,
    Count
};

namespace detail {
inline constexpr std::array<std::string_view, std::size_t(KernelRole::Count)> kRoleNames{
    "qk_gemm",     "softmax",   "pv_gemm", "fused_attention", "gemm",
    "elementwise", "reduction", "copy",    "communication",   "other"};
inline constexpr std::array<std::string_view, std::size_t(KernelRole::Count)> kRoleLabels{
    "QKᵀ GEMM",    "softmax",   "PV GEMM", "fused attention", "GEMM",
    "elementwise", "reduction", "copy",    "communication",   "other"};
} // namespace detail

// "qk_gemm", "softmax", … as files and JSON write them.
constexpr std::string_view roleName(KernelRole role) {
    return role < KernelRole::Count ? detail::kRoleNames[std::size_t(role)] : "other";
}
// "QKᵀ GEMM", "softmax", "fused attention", … as people read them.
constexpr std::string_view roleLabel(KernelRole role) {
    return role < KernelRole::Count ? detail::kRoleLabels[std::size_t(role)] : "other";
}
constexpr std::optional<KernelRole> roleNamed(std::string_view name) {
    for (std::size_t i = 0; i < detail::kRoleNames.size(); ++i)
        if (detail::kRoleNames[i] == name) return KernelRole(i);
    return std::nullopt;
}

} // namespace attnscope
