// SPDX-License-Identifier: MIT
#pragma once

// The CUDA backend is a plugin, libattnscope_cuda.so, that the program loads with dlopen only when
// a CUDA run is asked for: the executable never links libcuda, libcudart, libcublas or libcupti,
// so it starts on machines without the NVIDIA driver. These are the plugin's entry points.
extern "C" {

// Looks for CUDA devices. Writes one line saying what it found into message (at most size bytes,
// NUL-terminated) and returns the number of usable devices: 0 with the reason when there is none.
typedef int (*AttnscopeCudaProbe)(char* message, int size);
#define ATTNSCOPE_CUDA_PROBE "attnscope_cuda_probe"

// Runs one attention call of implementation impl ("naive_simt", "flash_simt") on device 0, fp32:
// Q, K, V and O are host arrays of batch·heads·seq·dim floats. Returns 0, or non-zero with the
// reason in message.
typedef int (*AttnscopeCudaAttention)(const char* impl, int batch, int heads, int seq, int dim, int causal,
                                      const float* q, const float* k, const float* v, float* o, char* message,
                                      int size);
#define ATTNSCOPE_CUDA_ATTENTION "attnscope_cuda_attention"
}
