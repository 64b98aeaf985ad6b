// SPDX-License-Identifier: MIT
#pragma once

// A what-if run: an attention call read from a trace (call_inputs.h) as a PyTorch run of its shape, as it
// was and as each alternative, and what of the call the run cannot re-create. One plan for `attnscope
// whatif` and the window's "Try the Alternatives…".
#include "kernels/run_session.h"

#include "core/analysis/call_inputs.h"

#include <string>
#include <vector>

namespace attnscope::kernels {

struct WhatIfPlan {
    RunConfig config;               // Backend::Torch, the call's shape, the implementations to try
    std::vector<std::string> notes; // what of the call is not re-created, each a sentence
};

// tries: PyTorch's implementations to run (empty: all of torchImpls()); repeat: measured calls of each.
WhatIfPlan whatIfPlan(const CallInputs& call, std::vector<std::string> tries, int repeat, std::string python);

} // namespace attnscope::kernels
