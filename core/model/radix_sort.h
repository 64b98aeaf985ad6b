// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/block_arena.h"

#include <array>
#include <cstdint>
#include <utility>

namespace attnscope {

// Stable LSD radix sort of v by an unsigned 64-bit key, 11 bits per pass (the counts stay in L1),
// skipping the passes above the largest key. The builder sorts millions of correlation and flow ids: this is
// linear where std::sort compares ~20 times per element.
template <class T, class Key> void radixSortByKey(BigVector<T>& v, Key key) {
    if (v.size() < 2) return;
    std::uint64_t maxKey = 0;
    for (const T& x : v)
        maxKey |= key(x);
    BigVector<T> tmp(v.size());
    constexpr int kBits = 11;
    constexpr std::uint64_t kMask = (1u << kBits) - 1;
    for (int shift = 0; shift < 64 && (maxKey >> shift) != 0; shift += kBits) {
        std::array<std::size_t, kMask + 2> count{};
        for (const T& x : v)
            ++count[((key(x) >> shift) & kMask) + 1];
        for (std::size_t i = 1; i < count.size(); ++i)
            count[i] += count[i - 1];
        for (T& x : v)
            tmp[count[(key(x) >> shift) & kMask]++] = std::move(x);
        v.swap(tmp);
    }
}

} // namespace attnscope
