// SPDX-License-Identifier: MIT
// The fused CPU kernel for AVX-512 (built with -mavx512f -mfma): 64 rows a block, 6 keys and 6 output
// columns at a time (24 accumulators of the 32 registers).
#include "flash_kernel.h"

namespace attnscope::kernels {

void flashRowsAvx512(const FlashRows& rows) {
    flashRows<Avx512, 4, 6, 6>(rows);
}

} // namespace attnscope::kernels
