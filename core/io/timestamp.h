// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/types.h"

#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace attnscope {

// Parses a JSON number of microseconds ("1712195495519689.047", "68.0", "5", "1.5e3") into
// nanoseconds exactly, never through a double: digits past the third decimal are rounded half
// away from zero. nullopt for anything that is not a finite number that fits in int64 ns.
std::optional<TimeNs> parseMicrosToNs(std::string_view text);

// a + b, held at the ends of TimeNs's range instead of overflowing (a file's relative timestamps
// plus its baseTimeNanoseconds can exceed it).
inline TimeNs saturatingAdd(TimeNs a, TimeNs b) {
    TimeNs out;
    if (!__builtin_add_overflow(a, b, &out)) return out;
    return b > 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
}
inline TimeNs saturatingSub(TimeNs a, TimeNs b) {
    TimeNs out;
    if (!__builtin_sub_overflow(a, b, &out)) return out;
    return b < 0 ? std::numeric_limits<TimeNs>::max() : std::numeric_limits<TimeNs>::min();
}

// Formats nanoseconds as microseconds with three decimals ("1712195495519689.047"), the inverse.
std::string formatNsAsMicros(TimeNs ns);

} // namespace attnscope
