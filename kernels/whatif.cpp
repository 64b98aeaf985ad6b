// SPDX-License-Identifier: MIT
#include "kernels/whatif.h"

namespace attnscope::kernels {

WhatIfPlan whatIfPlan(const CallInputs& in, std::vector<std::string> tries, int repeat, std::string python) {
    WhatIfPlan plan;
    RunConfig& c = plan.config;
    c.backend = Backend::Torch;
    const bool all = tries.empty();
    c.impls = all ? torchImpls() : std::move(tries);
    c.shape.batch = int(in.batch ? in.batch : 1);
    c.shape.heads = int(in.heads);
    c.shape.kvHeads = int(in.kvHeads);
    c.shape.seq = int(in.queryLen);
    c.shape.kvLen = in.keyLen == in.queryLen ? 0 : int(in.keyLen);
    c.shape.dim = int(in.headDim);
    c.shape.causal = in.causal;
    c.shape.dtype =
        in.precision == Precision::BF16 || in.precision == Precision::F16 ? in.precision : Precision::F32;
    // Half precision is an alternative only to a call that ran fp32 (asked for, the runner says why not).
    if (all && c.shape.dtype != Precision::F32) std::erase(c.impls, "flash_bf16");
    c.warmup = 1;
    c.iters = repeat;
    c.stepsAfter = true; // the calls timed with nothing of ours beside them
    c.python = std::move(python);
    std::vector<std::string>& notes = plan.notes;
    if (!in.batch)
        notes.push_back("its batch and heads are one number in its matmul: run as batch 1 × " +
                        std::to_string(in.heads) + " heads (the same work)");
    if (!in.optionsKnown && in.masked && in.queryLen == in.keyLen) {
        // A square mask applied by hand is most often the causal one; what kind it was is not recorded.
        c.shape.causal = true;
        notes.push_back("its mask (masked_fill or where) is not recorded: run causal, as a square mask most "
                        "often is");
    } else if (!in.optionsKnown) {
        notes.push_back(in.masked ? "its mask (masked_fill or where) is not recorded: run without a mask"
                                  : "the trace shows no mask between QKᵀ and the softmax: run without one");
    }
    if (!in.mask.empty())
        notes.push_back("its " + in.mask + " attn_mask is not re-created: run " +
                        (in.causal ? std::string("causal") : std::string("without a mask")));
    if (in.dropout > 0) notes.push_back("run without its dropout (the runner runs inference)");
    if (in.precision != Precision::Unknown && in.precision != c.shape.dtype)
        notes.push_back("its " + std::string(precisionName(in.precision)) + " run as fp32");
    return plan;
}

} // namespace attnscope::kernels
