// SPDX-License-Identifier: MIT
#pragma once

#include "kernels/attention.h"
#include "kernels/run_hooks.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnscope::kernels {

struct RunConfig;
struct RunEvent;

// Whether CUDA runs are possible here, and one line that says why or why not: the plugin is
// missing (a build without CUDA), cannot load (CUDA libraries missing), or finds no device.
struct CudaAvailability {
    int devices = 0;
    bool runnable = false;
    std::string message;
    std::string deviceName; // device 0's name ("NVIDIA H200"), for the roofline's specs
};
CudaAvailability probeCuda();

// Sets NVTX_INJECTION64_PATH (unless set) to the CUPTI a CUDA run will load: ATTNSCOPE_CUPTI_LIBRARY,
// else the toolkit's (CUDA_HOME, CUDA_PATH, /usr/local/cuda), found by its file. Call from main()
// before threads start (prepareRuns does).
void pointNvtxAtCupti();

// The CUDA implementations: naive (cuBLAS), naive_simt, flash (tensor cores), flash_simt.
const std::vector<std::string>& cudaImpls();

// One attention call of a CUDA implementation on device 0, from host arrays of floats already
// rounded to the dtype (K and V of the shape's K/V heads and keys); "" on success, else why not (no
// plugin, no device, an error on the device).
std::string runCudaAttention(const std::string& impl, const AttentionShape& shape, const float* q,
                             const float* k, const float* v, float* o);

// Runs the configuration on device 0 on the calling thread, kernels collected with CUPTI (when
// config.collect); "" when it ran, else why it could not or failed.
std::string runCuda(const RunConfig& config, const RunHooks& hooks);

} // namespace attnscope::kernels
