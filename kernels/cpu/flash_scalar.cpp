// SPDX-License-Identifier: MIT
// The fused CPU kernel for any x86-64 (and other CPUs): the same blocks, one lane at a time.
#include "flash_kernel.h"

namespace attnscope::kernels {

void flashRowsScalar(const FlashRows& rows) {
    flashRows<Scalar, 4, 4, 4>(rows);
}

} // namespace attnscope::kernels
