// SPDX-License-Identifier: MIT
// What each CUDA implementation can run, checked on the host before anything is launched: plain C++
// (no nvcc), so the tests check it on machines without a GPU or a CUDA compiler.
#include "device_attention.h"
#include "plugin_api.h"

#include <cmath>
#include <cstring>

namespace attnscope_cuda {

namespace {

constexpr int kTile = 16;                     // naive_simt's tiles (attention_simt.cuh)
constexpr int kRowThreads = 128;              // flash_simt's threads, the softmax kernel's
constexpr long long kMaxGridYZ = 65535;       // gridDim.y and gridDim.z
constexpr long long kMaxGridX = 2147483647LL; // gridDim.x

} // namespace

float Problem::scale() const {
    return 1.0f / std::sqrt(float(dim));
}

const char* unsupported(const char* impl, const Problem& p) {
    const bool fp32 = p.dtype == ATTNSCOPE_CUDA_F32;
    const bool grouped = p.kvHeadCount() != p.heads || p.keys() != p.seq;
    if (grouped && std::strcmp(impl, "flash") != 0)
        return "grouped K/V heads and KV caches run on flash (tensor cores) only";
    if (grouped && (p.kvHeadCount() <= 0 || p.heads % p.kvHeadCount() != 0 || p.keys() < p.seq))
        return "kv-heads must divide heads and the KV cache hold at least the queries";
    const long long heads = (long long)p.heads_total(), rows = heads * p.seq;
    // naive's softmax kernel and flash_simt take a block per query row (gridDim.x).
    const bool rowsFit = rows <= kMaxGridX;
    if (!std::strcmp(impl, "naive"))
        return rowsFit ? nullptr
                       : "naive's softmax runs a block per score row: batch·heads·seq must be below 2^31";
    if (!std::strcmp(impl, "naive_simt")) {
        if (!fp32) return "naive_simt runs fp32 only";
        // Its GEMMs put batch·heads in gridDim.z and the tiles of seq in gridDim.y.
        if (heads > kMaxGridYZ) return "naive_simt runs at most 65535 batch·heads (its grid's z)";
        if ((p.seq + kTile - 1) / kTile > kMaxGridYZ)
            return "naive_simt runs at most 1048560 queries a head (its grid's y)";
        return rowsFit
                   ? nullptr
                   : "naive_simt's softmax runs a block per score row: batch·heads·seq must be below 2^31";
    }
    if (!std::strcmp(impl, "flash_simt")) {
        if (!fp32) return "flash_simt runs fp32 only";
        if (p.dim > kRowThreads) return "flash_simt handles head dims up to 128";
        return rowsFit ? nullptr
                       : "flash_simt runs a block per query row: batch·heads·seq must be below 2^31";
    }
    if (!std::strcmp(impl, "flash")) {
        if (fp32) return "flash (tensor cores) runs fp16 and bf16; flash_simt runs fp32";
        return p.dim == 64 || p.dim == 128 ? nullptr : "flash (tensor cores) handles head dims 64 and 128";
    }
    return "unknown CUDA implementation (there are: naive, naive_simt, flash, flash_simt)";
}

} // namespace attnscope_cuda
