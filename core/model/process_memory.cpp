// SPDX-License-Identifier: MIT
#include "core/model/process_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnscope {

void keepLargeBlocksInHeap() {
#if defined(__GLIBC__)
    // Up to 512 MB a block comes from the heap, and up to that much free at its top stays there.
    constexpr int kLimit = 512 << 20;
    mallopt(M_MMAP_THRESHOLD, kLimit);
    mallopt(M_TRIM_THRESHOLD, kLimit);
#endif
}

void releaseFreeMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace attnscope
