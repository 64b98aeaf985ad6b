// SPDX-License-Identifier: MIT
// A list whose copies share its memory until one is written (shared_list.h): each copy reads what it
// held, whatever the others wrote since; writing copies the chunk written, and no other.
#include "core/model/shared_list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

using namespace attnscope;

namespace {

using List = SharedList<std::string, 2>; // chunks of 4 after the first

std::vector<std::string> elements(const List& list) { return {list.begin(), list.end()}; }

List numbered(std::size_t from, std::size_t n) {
    List list;
    for (std::size_t i = from; i < from + n; ++i)
        list.push_back(std::to_string(i));
    return list;
}

} // namespace

TEST(SharedList, ACopyIsWrittenApartAndSharesTheChunksItDidNotWrite) {
    List list = numbered(0, 3); // grown alone: one chunk
    ASSERT_EQ(list.chunks(), 1u);
    const List shown = list;
    for (int i = 3; i < 13; ++i) // the first chunk is held: the rest goes into chunks of 4
        list.push_back(std::to_string(i));
    EXPECT_EQ(list.chunks(), 4u);
    EXPECT_EQ(elements(shown), (std::vector<std::string>{"0", "1", "2"}));
    EXPECT_EQ(list.sharedChunks(shown), 1u);
    const List before = list;
    list[5] = "five"; // its chunk copied; the other three still shared
    EXPECT_EQ(before[5], "5");
    EXPECT_EQ(list[5], "five");
    EXPECT_EQ(list.sharedChunks(before), 3u);
    for (std::size_t i = 0; i < list.size(); ++i)
        EXPECT_EQ(list[i], i == 5 ? std::string("five") : before[i]) << i;
    EXPECT_EQ(list.at(12), "12");
    EXPECT_THROW((void)list.at(13), std::out_of_range);
}

TEST(SharedList, ShortenedWhereACopyHoldsItThenGrownAgain) {
    List list = numbered(0, 6);
    const List shown = list;
    const std::string& fifth = shown[4];
    list.resize(4); // nothing copied: the first chunk is read no further than 4
    EXPECT_EQ(list.sharedChunks(shown), 1u);
    EXPECT_EQ(&shown[4], &fifth); // the copy's elements stay where they were, as they were
    EXPECT_EQ(elements(shown), (std::vector<std::string>{"0", "1", "2", "3", "4", "5"}));
    list.push_back("x");
    list.push_back("y");
    EXPECT_EQ(elements(list), (std::vector<std::string>{"0", "1", "2", "3", "x", "y"}));
    EXPECT_EQ(elements(shown), (std::vector<std::string>{"0", "1", "2", "3", "4", "5"}));
    // Alone, a shortened first chunk drops what was left beyond before it grows again.
    List alone = numbered(0, 6);
    alone.resize(2);
    alone.resize(4);
    EXPECT_EQ(elements(alone), (std::vector<std::string>{"0", "1", "", ""}));
    alone.resize(3);
    alone.push_back("z");
    EXPECT_EQ(elements(alone), (std::vector<std::string>{"0", "1", "", "z"}));
    // Across chunks: whole chunks let go, then the last shortened.
    List many = numbered(0, 2);
    const List held = many;
    for (int i = 2; i < 14; ++i)
        many.push_back(std::to_string(i));
    many.resize(7);
    EXPECT_EQ(elements(many), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6"}));
    many.resize(1);
    EXPECT_EQ(elements(many), (std::vector<std::string>{"0"}));
    many.push_back("a");
    EXPECT_EQ(elements(many), (std::vector<std::string>{"0", "a"}));
    EXPECT_EQ(elements(held), (std::vector<std::string>{"0", "1"}));
}

TEST(SharedList, SortedAndErasedAsAVectorIs) {
    List list = numbered(0, 2);
    const List kept = list;
    for (int i : {9, 3, 7, 5, 11, 4, 8})
        list.push_back(std::to_string(i));
    std::vector<std::string> expected(list.begin(), list.end());
    auto byNumber = [](const std::string& a, const std::string& b) { return std::stoi(a) < std::stoi(b); };
    std::stable_sort(list.begin(), list.end(), byNumber);
    std::stable_sort(expected.begin(), expected.end(), byNumber);
    EXPECT_EQ(elements(list), expected);
    EXPECT_EQ(elements(kept), (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(erase_if(list, [](const std::string& s) { return std::stoi(s) % 2 == 1; }), 6u);
    EXPECT_EQ(elements(list), (std::vector<std::string>{"0", "4", "8"}));
    EXPECT_EQ(list.chunks(), 1u);
    EXPECT_NE(list.data(), nullptr);
    EXPECT_TRUE(List() == List(std::vector<std::string>{}));
    List moved = std::move(list); // a list moved from is empty, and grows again from nothing
    EXPECT_EQ(elements(moved), (std::vector<std::string>{"0", "4", "8"}));
    EXPECT_TRUE(list.empty()); // NOLINT(bugprone-use-after-move): what a move leaves is part of the type
    list.push_back("again");
    EXPECT_EQ(elements(list), (std::vector<std::string>{"again"}));
    list = std::move(moved);
    EXPECT_TRUE(list == List({"0", "4", "8"}));
}
