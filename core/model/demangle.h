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

} // namespace attnscope
