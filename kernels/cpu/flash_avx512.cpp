// SPDX-License-Identifier: MIT
// The CPU kernels for AVX-512 (built with -mavx512f -mfma): the fused one, 64 rows a block, 6 keys and 6
// output columns at a time (24 accumulators of the 32 registers), and the naive attention's softmax.
#include "flash_kernel.h"
#include "softmax_rows.h"

namespace attnscope::kernels {

void flashRowsAvx512(const FlashRows& rows) {
    flashRows<Avx512, 4, 6, 6>(rows);
}

void softmaxRowsAvx512(const SoftmaxRows& rows) {
    softmaxRows<Avx512>(rows);
}

} // namespace attnscope::kernels
