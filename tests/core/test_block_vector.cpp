// SPDX-License-Identifier: MIT
#include "core/model/block_arena.h"
#include "core/model/block_vector.h"
#include "core/model/sorting.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace attnscope;

// Blocks of four elements, so that ten span three blocks: what goes in comes back by index, in
// order, and stays where it was put while more is appended.
TEST(BlockVector, KeepsItsElementsInPlaceAcrossBlocks) {
    BlockVector<std::uint64_t, 2> v;
    EXPECT_TRUE(v.empty());
    v.push_back(100);
    const std::uint64_t* first = &v[0];
    for (std::uint64_t i = 1; i < 10; ++i)
        v.push_back(100 + i);
    EXPECT_EQ(&v[0], first);
    ASSERT_EQ(v.size(), 10u);
    EXPECT_EQ(v[4], 104u);
    EXPECT_EQ(v.back(), 109u);
    v.back() = 7;
    std::vector<std::uint64_t> seen;
    for (const std::uint64_t x : v)
        seen.push_back(x);
    EXPECT_EQ(seen, (std::vector<std::uint64_t>{100, 101, 102, 103, 104, 105, 106, 107, 108, 7}));
    v.clear();
    EXPECT_TRUE(v.empty());
    v.push_back(5);
    EXPECT_EQ(v[0], 5u);
}

// A few sorted runs are merged, stably; many take the radix sort; both give a stable sort by key.
TEST(PodArray, ExtendsInPlaceUpToItsRoomAndOnlyFromItsLongestCopy) {
    PodArray<std::uint32_t> exact(3);
    for (std::uint32_t i = 0; i < 3; ++i)
        exact[i] = i + 1;
    const PodArray<std::uint32_t> roomy = exact.extended(4); // no room: copied, with room to grow
    EXPECT_NE(roomy.data(), exact.data());
    const std::size_t room = roomy.capacity();
    ASSERT_GT(room, 4u);
    PodArray<std::uint32_t> full = roomy.extended(room); // exactly its room: the same memory
    EXPECT_EQ(full.data(), roomy.data());
    full[room - 1] = 9;
    const PodArray<std::uint32_t> past = full.extended(room + 1); // one past: new memory, the same values
    EXPECT_NE(past.data(), full.data());
    EXPECT_EQ(past[0], 1u);
    EXPECT_EQ(past[2], 3u);
    EXPECT_EQ(past[3], 0u);
    EXPECT_EQ(past[room - 1], 9u);
    EXPECT_EQ(past[room], 0u);
    // A shorter copy may not write over what a longer one holds: it copies.
    const PodArray<std::uint32_t> fromShort = roomy.extended(5);
    EXPECT_NE(fromShort.data(), roomy.data());
    EXPECT_EQ(roomy.size(), 4u);
    EXPECT_EQ(roomy[3], 0u);
    EXPECT_EQ(full[room - 1], 9u);
}

TEST(Sorting, MergesAFewSortedRunsAndRadixSortsTheRest) {
    struct Item {
        std::uint64_t key;
        int id;
    };
    auto check = [](BigVector<Item> v) {
        BigVector<Item> expected = v;
        std::stable_sort(expected.begin(), expected.end(),
                         [](const Item& a, const Item& b) { return a.key < b.key; });
        stableSortByKey(v, [](const Item& x) { return x.key; });
        ASSERT_EQ(v.size(), expected.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            EXPECT_EQ(v[i].key, expected[i].key);
            EXPECT_EQ(v[i].id, expected[i].id) << i; // ties keep their order
        }
    };
    BigVector<Item> runs; // three sorted runs with equal keys across them
    int id = 0;
    for (int run = 0; run < 3; ++run)
        for (std::uint64_t k = 0; k < 50; k += 1 + run)
            runs.push_back({k, id++});
    EXPECT_TRUE(sortedRunEnds(runs, kMergedRuns, [](const Item& a, const Item& b) { return a.key < b.key; }));
    check(runs);
    BigVector<Item> scattered; // far more descents than runs to merge
    for (int i = 0; i < 500; ++i)
        scattered.push_back({std::uint64_t((i * 7919) % 97), i});
    EXPECT_FALSE(
        sortedRunEnds(scattered, kMergedRuns, [](const Item& a, const Item& b) { return a.key < b.key; }));
    check(scattered);
}
