// SPDX-License-Identifier: MIT
#pragma once

// What an op's name says about its part in attention, one meaning for the analysis and the findings.
#include <string_view>

namespace attnscope {

// An op that builds an attention mask from nothing (the causal mask a call makes again each time: ones,
// then tril): the kernels it launches are the mask's making, not the scores' scale or mask, so they take
// no softmax role in a call.
constexpr bool buildsAMask(std::string_view op) {
    for (std::string_view maker : {"aten::tril", "aten::triu", "aten::ones", "aten::ones_like", "aten::full",
                                   "aten::arange", "aten::logical_not"})
        if (op == maker) return true;
    return false;
}

// The ops a copy is made through, not for: the copy itself, a clone, a cast's copy, the empty tensor it
// goes into. The op around them is the one that asked for the copy.
constexpr bool copiesFor(std::string_view op) {
    for (std::string_view plumbing : {"aten::copy_", "aten::clone", "aten::_to_copy", "aten::empty",
                                      "aten::empty_like", "aten::empty_strided"})
        if (op == plumbing) return true;
    return false;
}

// An op that lays a tensor out again (a strided view made contiguous): the copy it makes is of the layout
// the tensor was in, not of attention's arithmetic (layout_copies names those).
constexpr bool laysOutAgain(std::string_view op) {
    for (std::string_view layout :
         {"aten::reshape", "aten::contiguous", "aten::flatten", "aten::view", "aten::_unsafe_view"})
        if (op == layout) return true;
    return false;
}

} // namespace attnscope
