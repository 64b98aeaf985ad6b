// SPDX-License-Identifier: MIT
// How numbers read: the one spelling of durations, rates, counts, shares and ruler ticks.
#include "core/report/format.h"

#include <gtest/gtest.h>

using namespace attnscope;

TEST(Format, DurationsInTheUnitTheyReadIn) {
    EXPECT_EQ(formatDuration(800), "800 ns");
    EXPECT_EQ(formatDuration(999), "999 ns");
    EXPECT_EQ(formatDuration(1000), "1.000 µs");
    EXPECT_EQ(formatDuration(56'700), "56.700 µs");
    EXPECT_EQ(formatDuration(1'234'000), "1.234 ms");
    EXPECT_EQ(formatDuration(2'500'000'000), "2.500 s");
    EXPECT_EQ(formatDuration(-1'234'000), "-1.234 ms");
    EXPECT_EQ(formatDuration(0), "0 ns");
}

TEST(Format, RatesAndSizesWithAnSiPrefix) {
    EXPECT_EQ(formatRate(989.4e12, "FLOP/s"), "989.4 TFLOP/s");
    EXPECT_EQ(formatRate(3.35e12, "B/s"), "3.35 TB/s");
    EXPECT_EQ(formatRate(1.979e15, "FLOP/s"), "1.979 PFLOP/s");
    EXPECT_EQ(formatRate(12'582'912, "B"), "12.58 MB");
    EXPECT_EQ(formatRate(999, "B"), "999 B");
    EXPECT_EQ(formatRate(0, "FLOP"), "0 FLOP");
    EXPECT_EQ(siPrefix(5e11).prefix, "G");
    EXPECT_EQ(siPrefix(5e11).scale, 1e9);
    EXPECT_EQ(siPrefix(12).prefix, "");
    // At each power of a thousand the larger prefix starts.
    EXPECT_EQ(siPrefix(1e9).prefix, "G");
    EXPECT_EQ(formatRate(1e3, "B/s"), "1 kB/s");
    EXPECT_EQ(formatRate(1e12, "FLOP/s"), "1 TFLOP/s");
}

TEST(Format, CountsWithTheirNounAndSharesAsPercent) {
    EXPECT_EQ(formatCount(1, "kernel", "kernels"), "1 kernel");
    EXPECT_EQ(formatCount(0, "kernel", "kernels"), "0 kernels");
    EXPECT_EQ(formatCount(1566, "kernel", "kernels"), "1,566 kernels");
    EXPECT_EQ(formatCount(1'234'567, "place", "places"), "1,234,567 places");
    EXPECT_EQ(formatPercent(0.125), "12.5%");
    EXPECT_EQ(formatPercent(0.61, 0), "61%");
}

// Parts of one whole as whole percents that add up to 100: the Compare table's role mix and the Share
// pie say one figure for one part (17.4% on the pie and 18% in the table were two answers).
TEST(Format, WholeSharesAddUpTo100) {
    // 17.4 + 41.3 + 41.3 floor to 17 + 41 + 41 = 99: the point left goes to the largest remainder (0.4).
    EXPECT_EQ(wholeShares({174, 413, 413}), (std::vector<std::string>{"18%", "41%", "41%"}));
    EXPECT_EQ(wholeShares({3, 1}), (std::vector<std::string>{"75%", "25%"}));
    // A part with time under half a point is there ("<1%"); a part with none is 0%.
    EXPECT_EQ(wholeShares({999, 1, 0}), (std::vector<std::string>{"100%", "<1%", "0%"}));
    EXPECT_EQ(wholeShares({0, 0}), (std::vector<std::string>{"0%", "0%"}));
    EXPECT_TRUE(wholeShares({}).empty());
}

// A ruler's ticks read in the unit of ten steps, with the digits the step needs.
TEST(Format, RulerTicksUseTheStepsUnit) {
    EXPECT_EQ(formatOffset(1'500'000, 500'000), "+1.5 ms");
    EXPECT_EQ(formatOffset(2'000'000'000, 1'000'000'000), "+2 s");
    EXPECT_EQ(formatOffset(200'000'000, 100'000'000), "+0.2 s");
    EXPECT_EQ(formatOffset(1200, 200), "+1.2 µs");
    EXPECT_EQ(formatOffset(40, 10), "+40 ns");
    EXPECT_EQ(formatOffset(-3'000'000, 1'000'000), "−3 ms");
    EXPECT_EQ(durationUnit(5e5).name, "µs");
    EXPECT_EQ(durationUnit(5e6).exponent, 6);
}
