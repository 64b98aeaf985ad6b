// SPDX-License-Identifier: MIT
// The CPU kernels for AVX2 + FMA (built with -mavx2 -mfma): the fused one, 16 rows a block, 4 keys and 4
// output columns at a time (8 accumulators of the 16 registers), and the naive attention's softmax.
#include "flash_kernel.h"
#include "softmax_rows.h"

namespace attnscope::kernels {

void flashRowsAvx2(const FlashRows& rows) {
    flashRows<Avx2, 2, 4, 4>(rows);
}

void softmaxRowsAvx2(const SoftmaxRows& rows) {
    softmaxRows<Avx2>(rows);
}

} // namespace attnscope::kernels
