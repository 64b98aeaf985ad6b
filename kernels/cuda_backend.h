// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace attnscope::kernels {

// Whether CUDA runs are possible here, and one line that says why or why not: the plugin is
// missing (a build without CUDA), cannot load (CUDA libraries missing), or finds no device.
struct CudaAvailability {
    int devices = 0;
    bool runnable = false; // TODO(issue 4): true once the CUDA workloads exist
    std::string message;
};
CudaAvailability probeCuda();

// One fp32 attention call of a CUDA implementation ("naive_simt", "flash_simt") on device 0, from
// host arrays; "" on success, else why not (no plugin, no device, an error on the device).
std::string runCudaAttention(const std::string& impl, int batch, int heads, int seq, int dim, bool causal,
                             const float* q, const float* k, const float* v, float* o);

} // namespace attnscope::kernels
