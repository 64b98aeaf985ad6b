// SPDX-License-Identifier: MIT
#pragma once

namespace attnscope {

// glibc serves each block above its mmap threshold (which it raises to at most 32 MB as such blocks
// are freed) with pages fresh from the kernel and unmaps it when it is freed. A live profile makes its
// analysis again at each snapshot, tens of MB at a million events, and faulting in and zeroing fresh
// pages cost more than the copy into them: kept in the heap, a freed snapshot's memory is the next
// one's. Called once at start, before any thread. A no-op without glibc.
void keepLargeBlocksInHeap();

// Gives the heap's free memory back to the system: after a document that is not followed by a
// snapshot of the same run is let go (the heap keeps what keepLargeBlocksInHeap leaves in it).
void releaseFreeMemory();

} // namespace attnscope
