// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/precision.h"
#include "core/model/role.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope::kernels {

// One attention call: Q, K, V and O are [batch][heads][seq][dim], row-major.
struct AttentionShape {
    int batch = 1;
    int heads = 8;
    int seq = 2048;
    int dim = 64;
    bool causal = false;
    Precision dtype = Precision::F32;

    std::size_t elements() const { return std::size_t(batch) * heads * seq * dim; } // of one of Q, K, V, O
    double scale() const;                                                           // 1 / sqrt(dim)
};

// A workload kernel's role (written into its events' args) is one of the analysis' roles: QkGemm,
// Softmax, PvGemm or FusedAttention (core/model/role.h). Its element type is the analysis Precision
// (fp32, fp16 or bf16 for a workload).

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

// The args AttnScope writes on its own runs' events (keys from core/model/run_args.h; values as JSON
// text), the same for the CPU run session and the CUDA plugin.
using RunArgs = std::vector<std::pair<std::string, std::string>>;
// The workload's shape: batch, heads, seq, dim, dtype, causal.
RunArgs shapeArgs(const AttentionShape& s);
// One kernel of a call: its role, implementation, call number and exact cost.
RunArgs kernelArgs(KernelRole role, const std::string& impl, long call, const KernelCost& cost);
// A double as JSON, exactly ("%.17g").
std::string jsonNumber(double v);

} // namespace attnscope::kernels
