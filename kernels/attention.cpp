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

KernelCost kernelCost(const AttentionShape& s, KernelRole role, int scoreBytes) {
    const double bh = double(s.batch) * s.heads;
    const double n = s.seq, d = s.dim;
    const double elem = precisionBytes(s.dtype);
    const double scores = bh * n * n * scoreBytes; // N×N per head
    const double tensor = bh * n * d * elem;
    switch (role) {
    case KernelRole::QkGemm:
        return {scoreGemmFlops(bh, n, n, d, s.causal), 2 * tensor + scores};
    case KernelRole::Softmax:
        return {softmaxFlops(bh * n * n * (s.causal ? 0.5 : 1.0)), 2 * scores};
    case KernelRole::PvGemm:
        return {scoreGemmFlops(bh, n, n, d, s.causal), scores + 2 * tensor};
    case KernelRole::FusedAttention:
    default:
        return {attentionFlops(bh, n, n, d, d, s.causal), 4 * tensor};
    }
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
            {std::string(kCausal), s.causal ? "true" : "false"}};
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
