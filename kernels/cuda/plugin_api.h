// SPDX-License-Identifier: MIT
#pragma once

// The CUDA backend is a plugin, libattnscope_cuda.so, that the program loads with dlopen only when
// a CUDA run is asked for: the executable never links libcuda, libcudart, libcublas or libcupti,
// so it starts on machines without the NVIDIA driver. These are the plugin's entry points. The
// plugin is built from the same tree with the same compiler, so plain structs cross the boundary.
#include "core/model/precision.h"

#include <cstdint>

extern "C" {

// Looks for CUDA devices. Writes one line saying what it found into message (at most size bytes,
// NUL-terminated) and returns the number of usable devices: 0 with the reason when there is none.
typedef int (*AttnscopeCudaProbe)(char* message, int size);
#define ATTNSCOPE_CUDA_PROBE "attnscope_cuda_probe"

// Element types: the ABI's own numbering (attnscope::Precision converts with abiDtype / precisionOfAbi).
enum { ATTNSCOPE_CUDA_F32 = 0, ATTNSCOPE_CUDA_F16 = 1, ATTNSCOPE_CUDA_BF16 = 2 };

// Runs one attention call of implementation impl ("naive", "naive_simt", "flash", "flash_simt") on
// device 0: Q and O are host arrays of batch·heads·seq·dim floats, K and V of batch·kvHeads·kvLen·dim
// (kvHeads, kvLen 0: heads, seq), already rounded to dtype (the plugin converts them on the device).
// Returns 0, or non-zero with the reason in message.
typedef int (*AttnscopeCudaAttention)(const char* impl, int dtype, int batch, int heads, int seq, int dim,
                                      int kvHeads, int kvLen, int causal, const float* q, const float* k,
                                      const float* v, float* o, char* message, int size);
#define ATTNSCOPE_CUDA_ATTENTION "attnscope_cuda_attention"

// One thing a CUDA run recorded, with times in ns from the run's start. Strings live until the
// sink returns.
struct AttnscopeCudaRecord {
    int kind; // ATTNSCOPE_RECORD_*
    const char* name;
    const char* category; // "kernel", "gpu_memcpy", "cuda_runtime", "user_annotation", …
    std::int64_t startNs;
    std::int64_t endNs;
    int device;           // GPU work: the device; host records: -1
    std::uint32_t stream; // GPU work
    std::uint32_t thread; // host records: the OS thread id
    std::uint32_t correlation;
    const char* const* args; // the event's args: args[2i] a key, args[2i + 1] its value as JSON
    int argCount;
    // Attention calls and the workload's own kernels: what the statistics group by.
    const char* impl;   // "" when not known
    const char* role;   // "qk_gemm", …; "" when not a workload kernel
    int call;           // 0-based, warm-up calls first; -1 when not known
    int warmup;         // 1 for warm-up calls
    std::int64_t gpuNs; // attention calls: the call's time measured with CUDA events; 0 else
};
enum {
    ATTNSCOPE_RECORD_GPU = 0,  // kernels, copies, memsets on a stream
    ATTNSCOPE_RECORD_HOST = 1, // runtime and driver calls, synchronization, NVTX ranges
    ATTNSCOPE_RECORD_CALL = 2, // one attention call, as the run timed it
};

struct AttnscopeCudaRunRequest {
    const char* impls; // comma-separated: naive, naive_simt, flash, flash_simt
    int dtype;         // ATTNSCOPE_CUDA_*
    int batch, heads, seq, dim, causal;
    int kvHeads, kvLen; // grouped-query K/V heads and a KV cache's keys (0: heads, seq); flash only
    int warmup, iters;
    int collect; // 1: record kernels with CUPTI; 0: time the calls only (to measure CUPTI's overhead)
    void* user;
    // Non-zero ends the run after the call under way; asked before each call.
    int (*stopRequested)(void* user);
    // Batches of records, from the run's thread or the collector's; never one call per record.
    void (*records)(void* user, const AttnscopeCudaRecord* records, int count);
    // A line about the collection (CUPTI missing, dropped records, …), at most once per kind.
    void (*notice)(void* user, const char* text);
    // Records CUPTI had to drop so far (its buffers were full), reported as they are counted.
    void (*dropped)(void* user, std::uint64_t total);
};

// Runs the request on the calling thread until it ends or a stop is requested. Returns 0, or non-zero
// with the reason in message (no device, out of memory at the shape, a kernel failed).
typedef int (*AttnscopeCudaRun)(const AttnscopeCudaRunRequest* request, char* message, int size);
#define ATTNSCOPE_CUDA_RUN "attnscope_cuda_run"
}

// The ABI's element type numbers and the one Precision type, each way (fp32 for anything else).
inline int abiDtype(attnscope::Precision p) {
    return p == attnscope::Precision::F16    ? ATTNSCOPE_CUDA_F16
           : p == attnscope::Precision::BF16 ? ATTNSCOPE_CUDA_BF16
                                             : ATTNSCOPE_CUDA_F32;
}
inline attnscope::Precision precisionOfAbi(int dtype) {
    return dtype == ATTNSCOPE_CUDA_F16    ? attnscope::Precision::F16
           : dtype == ATTNSCOPE_CUDA_BF16 ? attnscope::Precision::BF16
                                          : attnscope::Precision::F32;
}
