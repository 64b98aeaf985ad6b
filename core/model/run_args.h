// SPDX-License-Identifier: MIT
#pragma once

// The args AttnScope writes on its own runs' events and reads back (the analysis takes a run's
// kernels' roles, calls and exact costs from them): one vocabulary for the CPU run session, the CUDA
// plugin and the analysis. Header-only, so the plugin shares it.
#include <string_view>

namespace attnscope::runargs {

inline constexpr std::string_view kRole = "role";     // a KernelRole's name ("qk_gemm", …)
inline constexpr std::string_view kImpl = "impl";     // the implementation ("naive", "flash", …)
inline constexpr std::string_view kCall = "call";     // the attention call's number in the run
inline constexpr std::string_view kFlops = "flops";   // the kernel's exact FLOPs
inline constexpr std::string_view kBytes = "bytes";   // its exact bytes moved
inline constexpr std::string_view kDtype = "dtype";   // a precisionName ("fp32", "bf16", …)
inline constexpr std::string_view kWorker = "worker"; // the CPU worker that ran this share
inline constexpr std::string_view kWarmup = "warmup"; // on a call's range: true for a warm-up call
// The process_labels of the process whose kernels ran on a CPU (its kernel tracks make it look like a
// GPU's): how a saved run says where its kernels ran.
inline constexpr std::string_view kCpuProcessLabel = "CPU";
// The shape of the workload, on the run's own metadata.
inline constexpr std::string_view kBatch = "batch", kHeads = "heads", kSeq = "seq", kDim = "dim",
                                  kCausal = "causal", kKvHeads = "kv_heads", kKvLen = "kv_len";

} // namespace attnscope::runargs
