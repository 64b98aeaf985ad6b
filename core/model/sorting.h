// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/block_arena.h"
#include "core/model/types.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace attnscope {

// The ends of v's runs in order under less (each run sorted, the next one starting lower), or
// nothing when there are more than maxRuns: what a few sorted inputs appended one after another give.
template <class Vec, class Less>
std::optional<std::vector<std::size_t>> sortedRunEnds(const Vec& v, std::size_t maxRuns, Less less) {
    std::vector<std::size_t> ends;
    for (std::size_t i = 1; i < v.size(); ++i)
        if (less(v[i], v[i - 1])) {
            if (ends.size() + 1 >= maxRuns) return std::nullopt;
            ends.push_back(i);
        }
    ends.push_back(v.size());
    return ends;
}

// Sorts v, whose runs [0, runEnds[0]), [runEnds[0], runEnds[1]), … are each sorted under less, by
// merging the runs pairwise: n·log(runs) steps instead of a sort's n·log(n). Stable: equal elements
// keep their order.
template <class Vec, class Less> void mergeSortedRuns(Vec& v, std::vector<std::size_t> runEnds, Less less) {
    while (runEnds.size() > 1) {
        std::vector<std::size_t> merged;
        std::size_t from = 0;
        for (std::size_t i = 0; i < runEnds.size(); i += 2) {
            const std::size_t end = runEnds[std::min(i + 1, runEnds.size() - 1)];
            std::inplace_merge(v.begin() + std::ptrdiff_t(from), v.begin() + std::ptrdiff_t(runEnds[i]),
                               v.begin() + std::ptrdiff_t(end), less);
            merged.push_back(end);
            from = end;
        }
        runEnds = std::move(merged);
    }
}

// Up to this many sorted runs are merged rather than sorted from scratch.
inline constexpr std::size_t kMergedRuns = 16;

// Stable sort of v by an unsigned 64-bit key. Input in a few sorted runs (a file written in order,
// or one run per worker of a parallel load) is merged; anything else takes an LSD radix sort, 11
// bits per pass (the counts stay in L1), skipping the passes above the largest key. The builder
// sorts millions of correlation and flow ids: this is linear where std::sort compares ~20 times per
// element.
template <class T, class Key> void stableSortByKey(BigVector<T>& v, Key key) {
    if (v.size() < 2) return;
    const auto byKey = [&](const T& a, const T& b) { return key(a) < key(b); };
    if (auto runs = sortedRunEnds(v, kMergedRuns, byKey)) {
        mergeSortedRuns(v, std::move(*runs), byKey);
        return;
    }
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

// The union of [start, end) intervals, run by run (disjoint, in order) to `run`; sorts the input. Gathered
// track by track, each in start order, they are a few sorted runs: merged rather than sorted.
template <typename Run> void forEachUnionRun(std::vector<std::pair<TimeNs, TimeNs>>& intervals, Run run) {
    const std::less<std::pair<TimeNs, TimeNs>> less;
    if (auto runs = sortedRunEnds(intervals, kMergedRuns, less))
        mergeSortedRuns(intervals, std::move(*runs), less);
    else
        std::sort(intervals.begin(), intervals.end());
    bool open = false;
    TimeNs curStart = 0, curEnd = 0;
    for (const auto& [s, e] : intervals) {
        if (!open || s > curEnd) {
            if (open) run(curStart, curEnd);
            curStart = s;
            curEnd = e;
            open = true;
        } else {
            curEnd = std::max(curEnd, e);
        }
    }
    if (open) run(curStart, curEnd);
}

// The length of the intervals' union (what they cover, overlaps once); sorts the input.
inline TimeNs unionLength(std::vector<std::pair<TimeNs, TimeNs>>& intervals) {
    TimeNs total = 0;
    forEachUnionRun(intervals, [&total](TimeNs s, TimeNs e) { total += e - s; });
    return total;
}

} // namespace attnscope
