// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string_view>

namespace attnscope {

// What a GPU kernel does, for the timeline's colours and legend. Coarse on purpose: a name-based
// first cut; TODO(issue 5): rules as data in resources/, QK/PV GEMMs told apart by their attention call.
enum class KernelRole : std::uint8_t { Gemm, Softmax, FusedAttention, Elementwise, Copy, Other, Count };

// From the kernel's name and category (gpu_memcpy / gpu_memset are copies whatever their name).
KernelRole classifyKernel(std::string_view name, std::string_view category);
std::string_view roleLabel(KernelRole role); // "GEMM", "softmax", "fused attention", …

} // namespace attnscope
