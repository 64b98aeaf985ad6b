// SPDX-License-Identifier: MIT
#pragma once

// Theoretical occupancy, as the CUDA occupancy calculator computes it: how many blocks of a kernel
// fit on one SM at once, limited by threads, blocks, registers and shared memory, as a share of the
// SM's warps. Header-only: the CUDA plugin (which links none of core) computes it for the kernels it
// records, and the analysis for the kernels of any trace that carries their launch configuration.
#include <algorithm>
#include <climits>

namespace attnscope {

// What limits how many blocks fit on one SM (cudaDeviceProp, or a trace's deviceProperties).
struct DeviceLimits {
    int maxThreadsPerSm = 2048;
    int maxBlocksPerSm = 32;
    int registersPerSm = 65536;
    int sharedMemoryPerSm = 233472; // bytes (H100/H200: 228 KiB)
    int warpSize = 32;
    int registerAllocationUnit = 256;  // registers per warp are allocated in these
    int sharedAllocationUnit = 128;    // shared memory per block is allocated in these bytes
    int reservedSharedPerBlock = 1024; // the runtime's own shared memory per block (sm_80 and newer)
};

// The limits of a device of compute capability major.minor with its reported per-SM resources: the
// blocks per SM and the reserved shared memory follow the compute capability (CUDA programming
// guide, table of technical specifications).
inline DeviceLimits deviceLimitsFor(int major, int minor, int maxThreadsPerSm, int registersPerSm,
                                    int sharedMemoryPerSm, int warpSize) {
    DeviceLimits l;
    l.maxThreadsPerSm = maxThreadsPerSm;
    l.registersPerSm = registersPerSm;
    l.sharedMemoryPerSm = sharedMemoryPerSm;
    l.warpSize = warpSize;
    const int cc = major * 10 + minor;
    l.maxBlocksPerSm = cc == 75 || cc == 86 || cc == 87 ? 16 : cc == 89 ? 24 : cc >= 50 ? 32 : 16;
    l.reservedSharedPerBlock = cc >= 80 ? 1024 : 0;
    l.sharedAllocationUnit = cc >= 70 ? 128 : 256;
    return l;
}

namespace detail {
inline int roundUpTo(int value, int unit) {
    return unit > 0 ? (value + unit - 1) / unit * unit : value;
}
} // namespace detail

// What holds the resident blocks down: the resource that allows the fewest.
enum class OccupancyLimiter { Threads, BlockSlots, Registers, SharedMemory };
inline const char* occupancyLimiterName(OccupancyLimiter l) {
    switch (l) {
    case OccupancyLimiter::Threads:
        return "threads per SM";
    case OccupancyLimiter::BlockSlots:
        return "blocks per SM";
    case OccupancyLimiter::Registers:
        return "registers";
    default:
        return "shared memory";
    }
}

// Blocks of blockThreads threads that fit on one SM at once (0: the kernel cannot launch so), and the
// resource that allows no more (registers before shared memory before block slots when several tie).
struct ResidentBlocks {
    int blocks = 0;
    OccupancyLimiter limiter = OccupancyLimiter::Threads;
};
inline ResidentBlocks residentBlocksAndLimiter(const DeviceLimits& l, int blockThreads,
                                               int registersPerThread, int sharedMemoryPerBlock) {
    if (blockThreads <= 0 || l.warpSize <= 0 || l.maxThreadsPerSm <= 0) return {};
    const int warpsPerBlock = (blockThreads + l.warpSize - 1) / l.warpSize;
    const int byThreads = (l.maxThreadsPerSm / l.warpSize) / warpsPerBlock;
    const int byRegisters = registersPerThread > 0
                                ? (l.registersPerSm / detail::roundUpTo(registersPerThread * l.warpSize,
                                                                        l.registerAllocationUnit)) /
                                      warpsPerBlock
                                : INT_MAX;
    // Every block holds the runtime's reserved shared memory too, whether it uses any or not.
    const int shared = detail::roundUpTo(std::max(0, sharedMemoryPerBlock), l.sharedAllocationUnit) +
                       l.reservedSharedPerBlock;
    const int byShared = shared > 0 ? l.sharedMemoryPerSm / shared : INT_MAX;
    const int blocks = std::max(0, std::min({l.maxBlocksPerSm, byThreads, byRegisters, byShared}));
    const OccupancyLimiter limiter = byRegisters == blocks        ? OccupancyLimiter::Registers
                                     : byShared == blocks         ? OccupancyLimiter::SharedMemory
                                     : l.maxBlocksPerSm == blocks ? OccupancyLimiter::BlockSlots
                                                                  : OccupancyLimiter::Threads;
    return {blocks, limiter};
}
inline int residentBlocks(const DeviceLimits& l, int blockThreads, int registersPerThread,
                          int sharedMemoryPerBlock) {
    return residentBlocksAndLimiter(l, blockThreads, registersPerThread, sharedMemoryPerBlock).blocks;
}
inline OccupancyLimiter occupancyLimiter(const DeviceLimits& l, int blockThreads, int registersPerThread,
                                         int sharedMemoryPerBlock) {
    return residentBlocksAndLimiter(l, blockThreads, registersPerThread, sharedMemoryPerBlock).limiter;
}

// Theoretical occupancy (0–1): the share of the SM's warps the resident blocks keep.
inline double theoreticalOccupancy(const DeviceLimits& l, int blockThreads, int registersPerThread,
                                   int sharedMemoryPerBlock) {
    const int blocks = residentBlocks(l, blockThreads, registersPerThread, sharedMemoryPerBlock);
    if (blocks == 0) return 0;
    const int warpsPerBlock = (blockThreads + l.warpSize - 1) / l.warpSize;
    return blocks * warpsPerBlock / double(l.maxThreadsPerSm / l.warpSize);
}

} // namespace attnscope
