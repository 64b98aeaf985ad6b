// SPDX-License-Identifier: MIT
#include "core/io/timestamp.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

using attnscope::formatNsAsMicros;
using attnscope::parseMicrosToNs;

TEST(Timestamp, ParsesTheThreeKinetoRegimesExactly) {
    // Integer epoch microseconds.
    EXPECT_EQ(parseMicrosToNs("1712195495519689"), 1712195495519689000LL);
    // Epoch microseconds with nanosecond decimals: a double keeps only ~0.25 us of this.
    EXPECT_EQ(parseMicrosToNs("1712195495519689.047"), 1712195495519689047LL);
    EXPECT_EQ(parseMicrosToNs("1712195495519689.048"), 1712195495519689048LL);
    // Relative microseconds with three decimals (current libkineto).
    EXPECT_EQ(parseMicrosToNs("88437691101.839"), 88437691101839LL);
}

TEST(Timestamp, DoubleWouldNotBeExact) {
    // The reason for parsing text: the nearest double is off by tens of nanoseconds.
    const double d = 1712195495519689.047;
    EXPECT_NE(static_cast<long long>(d * 1000.0), *parseMicrosToNs("1712195495519689.047"));
}

TEST(Timestamp, ParsesOtherNumberShapes) {
    EXPECT_EQ(parseMicrosToNs("0"), 0);
    EXPECT_EQ(parseMicrosToNs("68.0"), 68000);
    EXPECT_EQ(parseMicrosToNs("5"), 5000);
    EXPECT_EQ(parseMicrosToNs("0.010"), 10);
    EXPECT_EQ(parseMicrosToNs("-3"), -3000);
    EXPECT_EQ(parseMicrosToNs("-0.5"), -500);
    EXPECT_EQ(parseMicrosToNs("1.5e3"), 1500000);
    EXPECT_EQ(parseMicrosToNs("1E-3"), 1);
    EXPECT_EQ(parseMicrosToNs("2.5e-1"), 250);
    // Beyond nanoseconds: rounded half away from zero.
    EXPECT_EQ(parseMicrosToNs("0.0004"), 0);
    EXPECT_EQ(parseMicrosToNs("0.0005"), 1);
    EXPECT_EQ(parseMicrosToNs("12.3456789"), 12346);
    EXPECT_EQ(parseMicrosToNs("0.18181819"), 182);
}

// The edges of int64 nanoseconds, reached through the general path (an exponent), worked by hand:
// 9.223372036854775807e15 µs is INT64_MAX ns; one more does not fit; the negative side holds one more.
// A mantissa longer than the 100 bits kept still scales by its dropped integer digits.
TEST(Timestamp, TheEdgesOfInt64AndLongMantissas) {
    constexpr long long kMax = 9223372036854775807LL;
    EXPECT_EQ(parseMicrosToNs("9.223372036854775807e15"), kMax);
    EXPECT_EQ(parseMicrosToNs("9.223372036854775808e15"), std::nullopt);
    EXPECT_EQ(parseMicrosToNs("-9.223372036854775807e15"), -kMax);
    EXPECT_EQ(parseMicrosToNs("-9.223372036854775808e15"), -kMax - 1);
    EXPECT_EQ(parseMicrosToNs("-9.223372036854775809e15"), std::nullopt);
    // 10^33 × 10^-30 µs = 1000 µs, with 34 integer digits (more than 2^100 holds).
    EXPECT_EQ(parseMicrosToNs("1" + std::string(33, '0') + "e-30"), 1'000'000);
    EXPECT_EQ(parseMicrosToNs("1" + std::string(33, '0') + ".5e-30"), 1'000'000);
}

TEST(Timestamp, RejectsWhatIsNotAFiniteNumber) {
    for (const char* bad : {"", "-", ".", "abc", "NaN", "Infinity", "-Infinity", "1.2.3", "1e", "1e+", "0x10",
                            "12abc", " 12", "1e400", "99999999999999999999", "9223372036854775808"})
        EXPECT_FALSE(parseMicrosToNs(bad).has_value()) << bad;
    EXPECT_EQ(parseMicrosToNs("0e400"), 0);
}

TEST(Timestamp, FormatsAsKinetoDoesAndRoundTrips) {
    EXPECT_EQ(formatNsAsMicros(1712195495519689047LL), "1712195495519689.047");
    EXPECT_EQ(formatNsAsMicros(68000), "68");
    EXPECT_EQ(formatNsAsMicros(10), "0.010");
    EXPECT_EQ(formatNsAsMicros(-1500), "-1.500");
    for (long long v :
         {0LL, 1LL, 999LL, 1000LL, 123456789LL, -7LL, 9223372036854775807LL, -9223372036854775807LL - 1})
        EXPECT_EQ(parseMicrosToNs(formatNsAsMicros(v)), v) << v;
}
