// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace attnscope {

// Appends s as a JSON string literal, as JSON requires: quotes and backslashes escaped, control
// characters as \n, \t, \r or \u00XX, and bytes that are not UTF-8 as U+FFFD — so every JSON file
// AttnScope writes parses, whatever bytes the names in a trace hold. The one escaper of the project.
void appendJsonString(std::string& out, std::string_view s);
// The same, as a new string: "\"name\"".
std::string jsonQuoted(std::string_view s);

// The length of the valid UTF-8 sequence at the start of s (1–4), or 0 when it is not one
// (a stray continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
std::size_t utf8SequenceLength(std::string_view s);

} // namespace attnscope
