// SPDX-License-Identifier: MIT
#pragma once

// Every number a person reads, spelled one way on every screen, chart, report and export: durations,
// rates and sizes with an SI prefix, counts with their noun, shares as percentages, and the unit a
// duration axis or ruler reads in. (Files written for programs — JSON, CSV — keep raw numbers.)
#include "core/model/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// "1.234 ms", "56.700 µs", "800 ns": durations for people.
std::string formatDuration(TimeNs ns);
// "989.4 TFLOP/s", "3.35 TB/s", "12.58 MB", "1.311 MFLOP": a quantity with an SI prefix, four digits.
std::string formatRate(double value, std::string_view unit);
// "1 kernel", "1,566 kernels": a count with its noun in the right number, thousands grouped.
std::string formatCount(std::uint64_t n, std::string_view one, std::string_view many);
// "0.1", "1e-05", "3": a plain number in its shortest form (six significant digits), as a person writes it.
std::string formatNumber(double value);
// "12.5%": a fraction as a percentage with `decimals` digits after the point.
std::string formatPercent(double fraction, int decimals = 1);
// "26%", "12.5%", "3.1%": a share as prose says it (one decimal, none when it is 0).
std::string formatShare(double fraction);
// Parts of a whole as whole percents that add up to 100 ("18%", "<1%" for a part with time under half a
// point): each part's floor, and the points left to the largest remainders. Every view that shows parts
// of one whole as percents uses these, so that a part reads the same in the table and on the chart.
std::vector<std::string> wholeShares(const std::vector<double>& parts);
// "0.87×", "0.0012×": a ratio, two decimals, or two significant digits below 0.1.
std::string formatRatio(double ratio);

// The unit a duration reads in: seconds from 1 s, milliseconds from 1 ms, microseconds from 1 µs,
// else nanoseconds; `exponent` is the unit's power of ten in nanoseconds.
struct DurationUnit {
    double ns = 1;
    std::string_view name = "ns";
    int exponent = 0;
};
DurationUnit durationUnit(double ns);
// A ruler's tick: "+1.5 ms", "−200 µs", in the unit and with the digits that a tick `step` apart needs.
std::string formatOffset(TimeNs offset, TimeNs step);

// The SI prefix a value reads with: {1e12, "T"} for 989e12, {1, ""} below 1000.
struct SiPrefix {
    double scale = 1;
    std::string_view prefix;
};
SiPrefix siPrefix(double value);

} // namespace attnscope
