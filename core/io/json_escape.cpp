// SPDX-License-Identifier: MIT
#include "core/io/json_escape.h"

#include <cstdio>

namespace attnscope {

std::size_t utf8SequenceLength(std::string_view s) {
    if (s.empty()) return 0;
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = b(0);
    if (lead < 0x80) return 1;
    std::size_t n;
    unsigned lo = 0x80, hi = 0xBF; // the allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        n = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        n = 3;
        if (lead == 0xE0) lo = 0xA0; // overlong
        if (lead == 0xED) hi = 0x9F; // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        n = 4;
        if (lead == 0xF0) lo = 0x90; // overlong
        if (lead == 0xF4) hi = 0x8F; // beyond U+10FFFF
    } else {
        return 0;
    }
    if (s.size() < n || b(1) < lo || b(1) > hi) return 0;
    for (std::size_t i = 2; i < n; ++i)
        if (b(i) < 0x80 || b(i) > 0xBF) return 0;
    return n;
}

void appendJsonString(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                out += buf;
            } else if (static_cast<unsigned char>(c) >= 0x80) {
                const std::size_t n = utf8SequenceLength(s.substr(i));
                if (n == 0) {
                    out += "\xEF\xBF\xBD"; // U+FFFD for a byte that is not UTF-8
                } else {
                    out.append(s.substr(i, n));
                    i += n;
                    continue;
                }
            } else {
                out += c;
            }
        }
        ++i;
    }
    out += '"';
}

std::string jsonQuoted(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    appendJsonString(out, s);
    return out;
}

} // namespace attnscope
