// SPDX-License-Identifier: MIT
#pragma once

// What an attention call computes, read from the trace: its shape and the options a user would pass to
// run it again — the call's own run args (AttnScope's runs), the inputs of its SDPA op, or the inputs of
// its QKᵀ GEMM's op (attention written by hand). Compare says when the calls it compares are not the same
// work; a what-if run takes them.
#include "analysis.h"

#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attnscope {

struct CallInputs {
    std::int64_t batch = 0;   // 0: folded into the heads (a bmm's batch is batch × heads)
    std::int64_t heads = 0;   // query heads (batch × heads when batch is 0)
    std::int64_t kvHeads = 0; // 0: as many as the query's (or not known apart from them)
    std::int64_t queryLen = 0, keyLen = 0, headDim = 0;
    Precision precision = Precision::Unknown;
    // The options, where the trace records them (an SDPA op's concrete inputs, a run's args); a call
    // written by hand records none.
    bool optionsKnown = false;
    bool causal = false;
    std::string mask; // the attn_mask's dtype ("bool", "float", …); empty: none
    double dropout = 0;
    bool enableGqa = false;
    // Attention written by hand: a mask applied between QKᵀ and the softmax (masked_fill, where), whose
    // kind (causal, padding) the trace does not record.
    bool masked = false;
    // The op that applied it, as the call was written: "aten::masked_fill" (out of place: a copy of the
    // scores first), "aten::masked_fill_", "aten::where", "aten::add" (an additive mask); empty: unknown.
    std::string maskOp;
    std::string from; // what was read: "run args", or the op's name
    // "batch 1 × 32 heads (8 KV) · 128 queries × 128 keys · head dim 64 · bf16 · causal"
    std::string text() const;
    // The same work: the same shape and precision (options aside).
    bool sameShape(const CallInputs& other) const;
};

// The call's inputs, when the trace records them.
std::optional<CallInputs> callInputs(const Trace& trace, const TraceAnalysis& analysis,
                                     const AttentionCall& call);

} // namespace attnscope
