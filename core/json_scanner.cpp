// SPDX-License-Identifier: MIT
#include "json_scanner.h"

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace attnscope {

namespace {

// Position of the first '"' or '\\' in [p, end), or end.
inline const char* findStringSpecial(const char* p, const char* end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    while (p + 16 <= end) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (mask) return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\') ++p;
    return p;
}

// Position of the first of " { } [ ] in [p, end), or end.
inline const char* findStructural(const char* p, const char* end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i openCurly = _mm_set1_epi8('{');
    const __m128i closeCurly = _mm_set1_epi8('}');
    const __m128i openSquare = _mm_set1_epi8('[');
    const __m128i closeSquare = _mm_set1_epi8(']');
    while (p + 16 <= end) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i hits = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_or_si128(_mm_cmpeq_epi8(v, openCurly), _mm_cmpeq_epi8(v, closeCurly))),
            _mm_or_si128(_mm_cmpeq_epi8(v, openSquare), _mm_cmpeq_epi8(v, closeSquare)));
        const int mask = _mm_movemask_epi8(hits);
        if (mask) return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (p < end) {
        const char c = *p;
        if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') return p;
        ++p;
    }
    return p;
}

inline bool isSeparator(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ','; }

#if defined(__SSE2__)
// Bit i of each mask says what byte p[i] of a 64-byte block is.
struct BlockMasks {
    std::uint64_t quotes = 0, backslashes = 0, opens = 0, closes = 0;
};

inline BlockMasks classify(const char* p) {
    BlockMasks m;
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    // '[' and ']' differ from '{' and '}' only in bit 5, and no other byte maps onto them.
    const __m128i bit5 = _mm_set1_epi8(0x20);
    const __m128i openCurly = _mm_set1_epi8('{');
    const __m128i closeCurly = _mm_set1_epi8('}');
    for (int i = 0; i < 4; ++i) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
        const __m128i folded = _mm_or_si128(v, bit5);
        const auto bits = [&](__m128i x) {
            return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(x))) << (16 * i);
        };
        m.quotes |= bits(_mm_cmpeq_epi8(v, quote));
        m.backslashes |= bits(_mm_cmpeq_epi8(v, backslash));
        m.opens |= bits(_mm_cmpeq_epi8(folded, openCurly));
        m.closes |= bits(_mm_cmpeq_epi8(folded, closeCurly));
    }
    return m;
}

// Bit i set when an odd number of bits at or below i are set: "inside a string" from quote bits.
inline std::uint64_t prefixXor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

} // namespace

JsonElementScanner::Result JsonElementScanner::scan(const char* data, std::size_t from, std::size_t to) {
    Result r;
    const char* p = data + from;
    const char* const end = data + to;
    while (p < end) {
        if (m_inString) {
            if (m_escape) {
                m_escape = false;
                ++p;
                continue;
            }
            p = findStringSpecial(p, end);
            if (p == end) break;
            if (*p == '\\') {
                m_escape = true;
                ++p;
                continue;
            }
            m_inString = false;
            ++p;
            if (m_depth == 0) { // a bare string element closed
                r.lastElementEnd = std::size_t(p - data);
                r.pendingStart = kNone;
                if (m_singleValue) return r;
            }
            continue;
        }
        if (m_depth == 0) {
            // Between elements: separators, the closing bracket, or the start of an element.
            const char c = *p;
            if (isSeparator(c)) {
                if (m_inScalar) {
                    m_inScalar = false;
                    r.lastElementEnd = std::size_t(p - data);
                    r.pendingStart = kNone;
                    if (m_singleValue) return r;
                }
                ++p;
                continue;
            }
            if (c == ']' || c == '}') {
                if (m_inScalar) {
                    m_inScalar = false;
                    r.lastElementEnd = std::size_t(p - data);
                    r.pendingStart = kNone;
                }
                r.arrayEnd = std::size_t(p - data);
                return r;
            }
            if (r.pendingStart == kNone && !m_inScalar) r.pendingStart = std::size_t(p - data);
            if (c == '{' || c == '[') {
                m_depth = 1;
            } else if (c == '"') {
                m_inString = true;
            } else {
                m_inScalar = true;
            }
            ++p;
            continue;
        }
#if defined(__SSE2__)
        // Inside an element, 64 bytes at a time: strings are masked out with a prefix XOR of the
        // quotes, and only brackets are visited. Blocks with a backslash take the byte path.
        if (p + 64 <= end) {
            const BlockMasks m = classify(p);
            if (m.backslashes == 0) {
                const std::uint64_t inString = prefixXor(m.quotes);
                std::uint64_t brackets = (m.opens | m.closes) & ~inString;
                bool closed = false;
                while (brackets) {
                    const int bit = __builtin_ctzll(brackets);
                    brackets &= brackets - 1;
                    if (m.opens >> bit & 1) {
                        ++m_depth;
                    } else if (--m_depth == 0) {
                        p += bit + 1;
                        r.lastElementEnd = std::size_t(p - data);
                        r.pendingStart = kNone;
                        if (m_singleValue) return r;
                        closed = true;
                        break;
                    }
                }
                if (!closed) {
                    m_inString = inString >> 63;
                    p += 64;
                }
                continue;
            }
        }
#endif
        p = findStructural(p, end);
        if (p == end) break;
        const char c = *p++;
        if (c == '"') {
            m_inString = true;
        } else if (c == '{' || c == '[') {
            ++m_depth;
        } else if (--m_depth == 0) {
            r.lastElementEnd = std::size_t(p - data);
            r.pendingStart = kNone;
            if (m_singleValue) return r;
        }
    }
    return r;
}

} // namespace attnscope
