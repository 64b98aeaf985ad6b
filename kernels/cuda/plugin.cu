// SPDX-License-Identifier: MIT
// The CUDA backend plugin. cudart is linked statically and finds the driver (libcuda) at run time,
// so without a driver the probe answers with the reason instead of failing to load.
#include "plugin_api.h"

#include <cuda_runtime.h>

#include <cstdio>

extern "C" __attribute__((visibility("default"))) int attnscope_cuda_probe(char* message, int size) {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        std::snprintf(message, size_t(size), "no CUDA device: %s (%s, %d)", cudaGetErrorString(error),
                      cudaGetErrorName(error), int(error));
        return 0;
    }
    if (count == 0) {
        std::snprintf(message, size_t(size), "no CUDA device: the driver reports none");
        return 0;
    }
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    std::snprintf(message, size_t(size), "%d CUDA device%s; device 0: %s, compute capability %d.%d, %d SMs", count,
                  count == 1 ? "" : "s", p.name, p.major, p.minor, p.multiProcessorCount);
    return count;
}
