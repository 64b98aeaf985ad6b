// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/role.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace attnscope::kernels {

enum class DType : std::uint8_t { F32, F16, BF16 };
std::string_view dtypeName(DType t); // "fp32", "fp16", "bf16"
int dtypeBytes(DType t);

// One attention call: Q, K, V and O are [batch][heads][seq][dim], row-major.
struct AttentionShape {
    int batch = 1;
    int heads = 8;
    int seq = 2048;
    int dim = 64;
    bool causal = false;
    DType dtype = DType::F32;

    std::size_t elements() const { return std::size_t(batch) * heads * seq * dim; } // of one of Q, K, V, O
    double scale() const;                                                           // 1 / sqrt(dim)
};

// A workload kernel's role (written into its events' args) is one of the analysis' roles: QkGemm,
// Softmax, PvGemm or FusedAttention (core/role.h).

// FLOPs and bytes one kernel of a role does for a whole attention call, from the shape alone.
// FLOPs count the useful work: a multiply-add is 2, so QKᵀ and PV are 2·B·H·N²·D each and the fused
// kernel 4·B·H·N²·D, all halved when causal; softmax counts 5 operations per score (scale, max,
// exp, sum, divide). Bytes are what must move to and from memory at least: the naive kernels
// read and write the N×N scores (scoreBytes per score: 4 on the CPU, the element size for cuBLAS),
// the fused one only Q, K, V and O.
struct KernelCost {
    double flops = 0;
    double bytes = 0;
};
KernelCost kernelCost(const AttentionShape& shape, KernelRole role, int scoreBytes = 4);

// The clock CPU kernels and runs are timed with (steady, in ns).
std::int64_t steadyClockNs();

} // namespace attnscope::kernels
