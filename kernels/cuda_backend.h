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

} // namespace attnscope::kernels
