// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace attnscope {

// A C++ kernel name as people read it: Itanium-mangled names ("_Z…") demangled, anything else
// (most traces already hold demangled names) returned as it is.
std::string demangle(std::string_view name);

// The function's own name, for labels on small boxes: "void ns::flash_fwd_kernel<…>(…)" →
// "flash_fwd_kernel". Names that are not C++ signatures or templates come back as they are.
std::string_view shortKernelName(std::string_view name);

// The name from the function's own name on, its template arguments and parameters kept:
// "void at::native::vectorized_elementwise_kernel<4, at::native::sqrt_kernel_cuda(…)…>(…)" →
// "vectorized_elementwise_kernel<4, at::native::sqrt_kernel_cuda(…)…>(…)". Cut at its end, a column
// still tells two instances of one template apart; the whole name cut in its middle reads alike.
std::string_view kernelNameFromOwn(std::string_view name);

// A template kernel's own name with the names inside its arguments that tell its instances apart (the
// op's functor or kernel: PyTorch's elementwise kernels differ only there), for a column too narrow for
// the whole: "vectorized_elementwise_kernel<… sqrt_kernel_cuda …>", "elementwise_kernel<…
// MulFunctor …>" (BinaryFunctor, a wrapper, left out). A name with none of those is kernelNameFromOwn's.
std::string tellingKernelName(std::string_view name);

} // namespace attnscope
