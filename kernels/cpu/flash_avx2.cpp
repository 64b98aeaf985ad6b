// SPDX-License-Identifier: MIT
// The fused CPU kernel for AVX2 + FMA (built with -mavx2 -mfma): 16 rows a block, 4 keys and 4 output
// columns at a time (8 accumulators of the 16 registers).
#include "flash_kernel.h"

namespace attnscope::kernels {

void flashRowsAvx2(const FlashRows& rows) {
    flashRows<Avx2, 2, 4, 4>(rows);
}

} // namespace attnscope::kernels
