// SPDX-License-Identifier: MIT
#include "core/model/string_pool.h"

#include <gtest/gtest.h>

#include <string>

using namespace attnscope;

TEST(StringPool, InternsOnce) {
    StringPool pool;
    EXPECT_EQ(pool.intern(""), StringPool::empty());
    const StringId a = pool.intern("aten::mm");
    const StringId b = pool.intern("aten::bmm");
    EXPECT_NE(a, b);
    EXPECT_EQ(pool.intern(std::string("aten::") + "mm"), a);
    EXPECT_EQ(pool.get(a), "aten::mm");
    EXPECT_EQ(pool.find("aten::bmm"), b);
    EXPECT_FALSE(pool.find("aten::addmm").valid());
}

TEST(StringPool, KeepsEveryStringThroughGrowth) {
    StringPool pool;
    std::vector<StringId> ids;
    for (int i = 0; i < 100000; ++i)
        ids.push_back(pool.intern("kernel_" + std::to_string(i)));
    for (int i = 0; i < 100000; i += 997) {
        EXPECT_EQ(pool.get(ids[i]), "kernel_" + std::to_string(i));
        EXPECT_EQ(pool.intern("kernel_" + std::to_string(i)), ids[i]);
    }
    EXPECT_EQ(pool.size(), 100001u);
}

TEST(StringPool, HoldsBinaryAndLongStrings) {
    StringPool pool;
    const std::string withNul("a\0b", 3);
    const std::string longName(100000, 'x');
    const StringId a = pool.intern(withNul);
    const StringId b = pool.intern(longName);
    EXPECT_EQ(pool.get(a), withNul);
    EXPECT_EQ(pool.get(b), longName);
    EXPECT_NE(pool.intern(std::string("a\0c", 3)), a);
}

TEST(InternCache, AgreesWithThePoolEvenWhenSlotsCollide) {
    StringPool pool;
    InternCache cache;
    // Same length, same first and last eight bytes, different middles: likely the same slot.
    const std::string a = "void kernel<" + std::string(40, 'a') + ">(float*)";
    const std::string b = "void kernel<" + std::string(20, 'a') + std::string(20, 'b') + ">(float*)";
    for (int round = 0; round < 3; ++round) {
        EXPECT_EQ(cache.intern(pool, a), pool.intern(a));
        EXPECT_EQ(cache.intern(pool, b), pool.intern(b));
    }
    EXPECT_NE(pool.intern(a), pool.intern(b));
}

// The short-string compare agrees with memcmp at every length from 0 to 40, for a difference at
// every position (the loads from both ends must between them cover each byte).
TEST(SameBytes, FindsADifferenceAtAnyPositionOfAnyLength) {
    const std::string base = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
    for (std::size_t n = 0; n <= base.size(); ++n) {
        const std::string a = base.substr(0, n);
        EXPECT_TRUE(sameBytes(a.data(), base.data(), n)) << n;
        for (std::size_t at = 0; at < n; ++at) {
            std::string b = a;
            b[at] = '#';
            EXPECT_FALSE(sameBytes(a.data(), b.data(), n)) << n << " at " << at;
        }
    }
    EXPECT_TRUE(sameText("Input Dims", "Input Dims"));
    EXPECT_FALSE(sameText("Input Dims", "Input Dim"));
}
