// SPDX-License-Identifier: MIT
// The CPU kernels for any x86-64 (and other CPUs): the same blocks, one lane at a time.
#include "flash_kernel.h"
#include "softmax_rows.h"

namespace attnscope::kernels {

void flashRowsScalar(const FlashRows& rows) {
    flashRows<Scalar, 4, 4, 4>(rows);
}

void softmaxRowsScalar(const SoftmaxRows& rows) {
    softmaxRows<Scalar>(rows);
}

} // namespace attnscope::kernels
