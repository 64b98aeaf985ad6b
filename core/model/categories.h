// SPDX-License-Identifier: MIT
#pragma once

// The event categories of Kineto / Chrome traces, as readers, writers and the analysis name them:
// one spelling each (the legacy names of older PyTorch traces beside the current ones). Header-only,
// so the CUDA plugin and the CUPTI records, which link none of core, share it. The predicates over
// them are in trace.h (isKernelCategory, …).
#include <string_view>

namespace attnscope::category {

inline constexpr std::string_view kKernel = "kernel", kKernelLegacy = "Kernel";
inline constexpr std::string_view kMemcpy = "gpu_memcpy", kMemset = "gpu_memset";
inline constexpr std::string_view kMemcpyLegacy = "Memcpy", kMemsetLegacy = "Memset";
inline constexpr std::string_view kCpuOp = "cpu_op", kCpuOpLegacy = "Operator";
inline constexpr std::string_view kRuntime = "cuda_runtime", kDriver = "cuda_driver";
inline constexpr std::string_view kRuntimeLegacy = "Runtime", kMtiaRuntime = "mtia_runtime";
inline constexpr std::string_view kUserAnnotation = "user_annotation"; // record_function, NVTX ranges
inline constexpr std::string_view kGpuUserAnnotation = "gpu_user_annotation";
inline constexpr std::string_view kPythonFunction = "python_function";
inline constexpr std::string_view kFlow = "ac2g"; // Kineto's launch → kernel flow arrows
inline constexpr std::string_view kCudaSync = "cuda_sync", kProfilerRange = "cuda_profiler_range";
inline constexpr std::string_view kMtiaDevice = "mtia_ccp_events";
inline constexpr std::string_view kTraceMarker = "Trace"; // PyTorch's own "PyTorch Profiler" span
inline constexpr std::string_view kCpuInstant = "cpu_instant_event";
inline constexpr std::string_view kOverhead = "overhead"; // CUPTI's own time

} // namespace attnscope::category
