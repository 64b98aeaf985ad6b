// SPDX-License-Identifier: MIT
#pragma once

// Inside op_cost: the ops that move memory more than they compute (elementwise, copies, fills,
// reductions, normalizations, a convolution's backward). Not for other users: opCost is.
#include "core/analysis/op_cost.h"

namespace attnscope::detail {

bool memoryOpModelled(std::string_view op);
std::optional<OpCost> memoryOpCost(std::string_view op, const std::vector<std::vector<std::int64_t>>& dims,
                                   const std::vector<std::string>& types,
                                   const std::vector<std::string>& concrete);

} // namespace attnscope::detail
