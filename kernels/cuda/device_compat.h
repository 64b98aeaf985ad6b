// SPDX-License-Identifier: MIT
#pragma once

// What a kernel body (*.cuh) needs whether nvcc compiles it for a GPU or the tests compile it as C++
// for the host emulation: the 16-bit float types, and dynamic shared memory spelled one way.
#ifdef ATTNSCOPE_HOST_EMULATION
#include "host_emulation.h"
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define ATTNSCOPE_DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#endif
