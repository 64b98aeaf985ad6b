// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace attnscope::kernels {

// OpenBLAS (Debian's libopenblas0), opened at run time for naive attention's GEMMs. Opened rather than
// linked so that its kernels can be chosen first: OpenBLAS picks them from the CPU's model when it is
// loaded, and on CPUs it does not know (virtual machines often report a generic model) it falls back
// to SSE3 kernels, a quarter of the speed. Unless OPENBLAS_CORETYPE is set, AttnScope sets it from the
// instruction sets the CPU has (Cooperlake with AVX-512 BF16, SkylakeX with AVX-512, Haswell with AVX2).
//
// chooseBlasKernels() sets the variable (and nothing else: the library is opened when a run first needs
// it); call it from main() before any thread starts, as setenv is not safe while other threads read
// the environment.
void chooseBlasKernels();

// Row-major C = alpha·op(A)·op(B) + beta·C, one thread (the caller's); false when OpenBLAS is missing.
using BlasSgemm = void (*)(int order, int transA, int transB, int m, int n, int k, float alpha,
                           const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
struct Blas {
    BlasSgemm sgemm = nullptr;
};
// The library, opened on the first call (choosing its kernels first if main did not), or null;
// blasProblem() then says why.
const Blas* blas();
std::string blasProblem();

constexpr int kBlasRowMajor = 101, kBlasNoTrans = 111, kBlasTrans = 112; // CBLAS's values

} // namespace attnscope::kernels
