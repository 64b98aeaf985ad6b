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

} // namespace attnscope
