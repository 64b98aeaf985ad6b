// SPDX-License-Identifier: MIT
#pragma once

#include "types.h"

#include <optional>
#include <string>
#include <string_view>

namespace attnscope {

// Parses a JSON number of microseconds ("1712195495519689.047", "68.0", "5", "1.5e3") into
// nanoseconds exactly, never through a double: digits past the third decimal are rounded half
// away from zero. nullopt for anything that is not a finite number that fits in int64 ns.
std::optional<TimeNs> parseMicrosToNs(std::string_view text);

// Formats nanoseconds as microseconds with three decimals ("1712195495519689.047"), the inverse.
std::string formatNsAsMicros(TimeNs ns);

} // namespace attnscope
