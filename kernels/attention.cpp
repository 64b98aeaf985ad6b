// SPDX-License-Identifier: MIT
#include "attention.h"

#include "core/analysis/attention_math.h"
#include "core/model/run_args.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace attnscope::kernels {

double AttentionShape::scale() const {
    return 1.0 / std::sqrt(double(dim));
}

double AttentionShape::visiblePairs() const {
    const double n = seq, s = keys();
    return causal ? n * s - n * n / 2 : n * s;
}

KernelCost kernelCost(const AttentionShape& s, KernelRole role, int scoreBytes, int elementBytes) {
    const double bh = double(s.batch) * s.heads;
    const double pairs = bh * s.visiblePairs(), d = s.dim;
    const double elem = elementBytes ? elementBytes : precisionBytes(s.dtype);
    const double scores = double(s.scoreElements()) * scoreBytes; // seq × keys per head, all of them
    const double q = double(s.elements()) * elem, kv = double(s.kvElements()) * elem;
    switch (role) {
    case KernelRole::QkGemm:
        return {2 * pairs * d, q + kv + scores};
    case KernelRole::Softmax:
        return {softmaxFlops(pairs), 2 * scores};
    case KernelRole::PvGemm:
        return {2 * pairs * d, scores + kv + q};
    case KernelRole::FusedAttention:
    default:
        return {4 * pairs * d, 2 * q + 2 * kv};
    }
}

std::string describeShape(const AttentionShape& s) {
    std::string text = "B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) +
                       " N=" + std::to_string(s.seq) + " D=" + std::to_string(s.dim) + " " +
                       std::string(precisionName(s.dtype)) + (s.causal ? " causal" : "");
    if (s.kvHeadCount() == 1 && s.heads > 1)
        text += " · MQA";
    else if (s.kvHeadCount() != s.heads)
        text += " · GQA " + std::to_string(s.heads) + ":" + std::to_string(s.kvHeadCount());
    if (s.keys() != s.seq) text += " · " + std::to_string(s.keys()) + " keys";
    return text;
}

std::int64_t steadyClockNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string jsonNumber(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

RunArgs shapeArgs(const AttentionShape& s) {
    using namespace runargs;
    return {{std::string(kBatch), std::to_string(s.batch)},
            {std::string(kHeads), std::to_string(s.heads)},
            {std::string(kSeq), std::to_string(s.seq)},
            {std::string(kDim), std::to_string(s.dim)},
            {std::string(kDtype), "\"" + std::string(precisionName(s.dtype)) + "\""},
            {std::string(kCausal), s.causal ? "true" : "false"},
            {std::string(kKvHeads), std::to_string(s.kvHeadCount())},
            {std::string(kKvLen), std::to_string(s.keys())}};
}

RunArgs kernelArgs(KernelRole role, const std::string& impl, long call, const KernelCost& cost) {
    using namespace runargs;
    // Role and implementation names are AttnScope's own: nothing to escape.
    return {{std::string(kRole), "\"" + std::string(roleName(role)) + "\""},
            {std::string(kImpl), "\"" + impl + "\""},
            {std::string(kCall), std::to_string(call)},
            {std::string(kFlops), jsonNumber(cost.flops)},
            {std::string(kBytes), jsonNumber(cost.bytes)}};
}

} // namespace attnscope::kernels
