// SPDX-License-Identifier: MIT
#pragma once

// FLOPs and bytes of the PyTorch ops AttnScope models (GEMMs, softmax, scaled-dot-product
// attention and its fused variants), from the shapes the profiler records with record_shapes.
#include "core/analysis/device_specs.h"
#include "core/model/role.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// FLOPs and bytes of a PyTorch op from its "Input Dims", "Input type" and "Concrete Inputs" args
// (as JSON); nullopt when the op is not one AttnScope models or its shapes are missing.
struct OpCost {
    double flops = 0;
    double bytes = 0;
    Precision precision = Precision::Unknown;
    KernelRole role = KernelRole::Other; // the role of the kernel that does the op's work
};
// Whether opCost models the op at all (by its name).
bool opCostModels(std::string_view op);
std::optional<OpCost> opCost(std::string_view op, std::string_view inputDims, std::string_view inputTypes,
                             std::string_view concreteInputs);

// The op args PyTorch records with record_shapes, read: "Input Dims" "[[16,559,1024],[1024,1024],[]]" →
// {{16,559,1024},{1024,1024},{}} (nullopt when not that shape); "Input type" and "Concrete Inputs"
// ["c10::BFloat16","","True"] → their strings (JSON escapes are not expected in these args).
std::optional<std::vector<std::vector<std::int64_t>>> parseDims(std::string_view s);
std::vector<std::string> parseStrings(std::string_view s);
// The integers in a value, in order: "[1, 1]" → {1, 1}; "2" → {2}.
std::vector<std::int64_t> parseInts(std::string_view s);

} // namespace attnscope
