// SPDX-License-Identifier: MIT
#pragma once

// The byte-level pieces the JSON trace reader shares between its event parser and its top-level
// walk: buffer padding and limits, whitespace, number tokens, UTF-8 repair, key text.
#include "core/model/types.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace attnscope::json {

inline constexpr std::size_t kPadding = 128; // >= SIMDJSON_PADDING, plus the ']' written after a chunk
inline constexpr std::size_t kMaxElementBytes = 256u << 20;
// Chunks parsed on the reading thread before workers start: traces of a few MB load without threads.
inline constexpr std::uint32_t kSerialChunks = 4;
// Relative Kineto timestamps are far below any epoch-based one (2001 in ns is 1e18).
inline constexpr TimeNs kRelativeTimeLimit = 100'000'000'000'000'000; // 1e17 ns

inline bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// key equals lit, for a key already known to have lit's length: a compare of constant size.
template <std::size_t N> inline bool is(std::string_view key, const char (&lit)[N]) {
    return std::memcmp(key.data(), lit, N - 1) == 0;
}

std::string_view trimRight(std::string_view s);

// Replaces bytes that are not valid UTF-8 with '?', in place; returns how many were replaced.
std::size_t replaceInvalidUtf8(char* data, std::size_t n);

std::optional<std::uint64_t> parseUnsigned(std::string_view s);

std::optional<std::int64_t> parseSigned(std::string_view s);

// A number token as JSON allows it (the parser only checks a value's first byte).
bool isJsonNumber(std::string_view t);

// The text of a key between its quotes, escapes kept; raw points just past the opening quote and
// the parser's padding makes reading 16 bytes past any key safe. Keys have irregular lengths, so a
// byte loop mispredicts its exit once per key; a 16-byte compare does not.
std::string_view escapedKey(const char* raw);

} // namespace attnscope::json
