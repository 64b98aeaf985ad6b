// SPDX-License-Identifier: MIT
#include "attention.h"

#include "core/analysis/attention_math.h"

#include <chrono>
#include <cmath>

namespace attnscope::kernels {

std::string_view dtypeName(DType t) {
    switch (t) {
    case DType::F16:
        return "fp16";
    case DType::BF16:
        return "bf16";
    default:
        return "fp32";
    }
}

int dtypeBytes(DType t) {
    return t == DType::F32 ? 4 : 2;
}

double AttentionShape::scale() const {
    return 1.0 / std::sqrt(double(dim));
}

KernelCost kernelCost(const AttentionShape& s, KernelRole role, int scoreBytes) {
    const double bh = double(s.batch) * s.heads;
    const double n = s.seq, d = s.dim;
    const double elem = dtypeBytes(s.dtype);
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

} // namespace attnscope::kernels
