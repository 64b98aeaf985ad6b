// SPDX-License-Identifier: MIT
#pragma once

// naive: the two GEMMs of attention as PyTorch eager runs them, batched cuBLAS calls over all heads.
// cuBLAS is loaded with dlopen on first use, so the plugin loads (and the other implementations
// run) where it is not installed.
#include "device_attention.h"

#include <string>

namespace attnscope_cuda {

class Cublas {
public:
    ~Cublas();
    // Loads cuBLAS and makes a handle on the problem's stream; false with the reason in why.
    bool open(cudaStream_t stream, std::string& why);
    // S = Q·Kᵀ and O = P·V over every head, in the problem's element type, fp32 accumulation.
    // "" on success, else what cuBLAS said.
    std::string qk(const Problem& p, const void* q, const void* k, void* s);
    std::string pv(const Problem& p, const void* probabilities, const void* v, void* o);

private:
    std::string gemm(const Problem& p, bool transposeA, int m, int n, int k, const void* a, int lda,
                     long long strideA, const void* b, int ldb, long long strideB, void* c, int ldc,
                     long long strideC);
    void* m_handle = nullptr;
};

} // namespace attnscope_cuda
