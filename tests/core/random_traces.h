// SPDX-License-Identifier: MIT
#pragma once
// Random traces for the invariant tests: small Kineto traces, each drawn from a seed, of the shapes real
// ones have — several streams, naive attention chains (QKᵀ GEMM, scale, mask, softmax, dropout, PV GEMM)
// launched by cpu_ops with their input shapes, fused kernels of many families under SDPA's ops, user
// ranges around calls, steps, compiled regions and graph launches that ask for many kernels at once,
// copies, collectives, a rank's distributed info, and CPU-only traces whose aten:: ops are their kernels.
// The same seed gives the same text.
#include <cstdint>
#include <string>

namespace attnscope::test {

std::string randomTrace(std::uint32_t seed);

} // namespace attnscope::test
