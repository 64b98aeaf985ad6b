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
}
