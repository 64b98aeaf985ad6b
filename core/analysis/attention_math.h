// SPDX-License-Identifier: MIT
#pragma once

namespace attnscope {

// The FLOPs of attention, counted one way for AttnScope's own workloads and for the ops of PyTorch
// traces: a multiply-add is 2; a causal mask halves the work (the scores above the diagonal are
// skipped); softmax with its scale and mask is 5 per score. heads = batch × heads; n queries, s keys.
constexpr double scoreGemmFlops(double heads, double n, double s, double d, bool causal) {
    return 2 * heads * n * s * d * (causal ? 0.5 : 1.0); // Q·Kᵀ (d = head dim) or P·V (d = value dim)
}
constexpr double softmaxFlops(double scores) {
    return 5 * scores;
}
constexpr double attentionFlops(double heads, double n, double s, double dq, double dv, bool causal) {
    return scoreGemmFlops(heads, n, s, dq, causal) + scoreGemmFlops(heads, n, s, dv, causal);
}

} // namespace attnscope
