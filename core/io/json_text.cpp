// SPDX-License-Identifier: MIT
#include "core/io/json_text.h"

#include <charconv>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace attnscope::json {

std::string_view trimRight(std::string_view s) {
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

// Replaces bytes that are not valid UTF-8 with '?', in place; returns how many were replaced.
std::size_t replaceInvalidUtf8(char* data, std::size_t n) {
    std::size_t replaced = 0;
    auto* p = reinterpret_cast<unsigned char*>(data);
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        bool ok = len != 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (p[i + k] & 0xc0) == 0x80;
        if (ok && len == 2) ok = c >= 0xc2;
        if (ok && len == 3) {
            const unsigned cp = (c & 0xfu) << 12 | (p[i + 1] & 0x3fu) << 6 | (p[i + 2] & 0x3fu);
            ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
        }
        if (ok && len == 4) {
            const unsigned cp =
                (c & 0x7u) << 18 | (p[i + 1] & 0x3fu) << 12 | (p[i + 2] & 0x3fu) << 6 | (p[i + 3] & 0x3fu);
            ok = cp >= 0x10000 && cp <= 0x10ffff;
        }
        if (ok) {
            i += len;
        } else {
            p[i++] = '?';
            ++replaced;
        }
    }
    return replaced;
}

std::optional<std::uint64_t> parseUnsigned(std::string_view s) {
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr == s.data()) return std::nullopt;
    return v;
}

std::optional<std::int64_t> parseSigned(std::string_view s) {
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

// A number token as JSON allows it (the parser only checks a value's first byte).
bool isJsonNumber(std::string_view t) {
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') ++i;
    const std::size_t digits = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9')
        ++i;
    if (i == digits) return false;
    if (i < t.size() && t[i] == '.') {
        const std::size_t frac = ++i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9')
            ++i;
        if (i == frac) return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        const std::size_t exp = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9')
            ++i;
        if (i == exp) return false;
    }
    return i == t.size();
}

// The text of a key between its quotes, escapes kept; raw points just past the opening quote and
// the parser's padding makes reading 16 bytes past any key safe. Keys have irregular lengths, so a
// byte loop mispredicts its exit once per key; a 16-byte compare does not.
std::string_view escapedKey(const char* raw) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    for (const char* p = raw;; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const unsigned q = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)));
        const unsigned b = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)));
        if (b) break; // escapes: take the byte loop
        if (q) return {raw, std::size_t(p - raw) + static_cast<std::size_t>(__builtin_ctz(q))};
    }
#endif
    const char* p = raw;
    while (*p != '"')
        p += *p == '\\' ? 2 : 1;
    return {raw, std::size_t(p - raw)};
}

} // namespace attnscope::json
