// SPDX-License-Identifier: MIT
#pragma once

// FLOPs and bytes of the PyTorch ops AttnScope models (GEMMs, convolutions, softmax,
// scaled-dot-product attention and its fused variants, and the ops that move memory: elementwise,
// copies and casts, fills, reductions, normalizations), from the shapes the profiler records with
// record_shapes.
#include "core/analysis/device_specs.h"
#include "core/model/op_args.h"
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
    // An op whose work is several kernels of its role (a convolution's backward: cuDNN's dgrad and
    // wgrad kernels): each part's cost goes to the one kernel whose name holds its word. Empty: the
    // op's one kernel of its role takes the whole cost.
    struct Part {
        std::string_view word;
        double flops = 0;
        double bytes = 0;
    };
    std::vector<Part> parts;
};
// Whether opCost models the op at all (by its name).
bool opCostModels(std::string_view op);
std::optional<OpCost> opCost(std::string_view op, std::string_view inputDims, std::string_view inputTypes,
                             std::string_view concreteInputs);

} // namespace attnscope
