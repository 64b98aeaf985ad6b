// SPDX-License-Identifier: MIT
#include "core/io/timestamp.h"

#include <cstdint>
#include <limits>
#include <string>

namespace attnscope {

// Long on purpose: every timestamp of a JSON trace goes through here; digits are read in place
// with no allocation.
std::optional<TimeNs> parseMicrosToNs(std::string_view s) {
    // Fast path for what traces hold: [-]digits[.digits] with at most three decimals.
    {
        std::size_t i = s.size() && s[0] == '-' ? 1 : 0;
        const bool negative = i == 1;
        std::uint64_t whole = 0;
        const std::size_t wholeStart = i;
        while (i < s.size() && i - wholeStart < 16 && s[i] >= '0' && s[i] <= '9')
            whole = whole * 10 + unsigned(s[i++] - '0');
        if (i > wholeStart) {
            std::uint64_t frac = 0;
            int fracDigits = 0;
            bool simple = true;
            if (i < s.size() && s[i] == '.') {
                ++i;
                while (i < s.size() && fracDigits < 3 && s[i] >= '0' && s[i] <= '9') {
                    frac = frac * 10 + unsigned(s[i++] - '0');
                    ++fracDigits;
                }
                simple = fracDigits > 0;
            }
            if (simple && i == s.size()) {
                while (fracDigits < 3) {
                    frac *= 10;
                    ++fracDigits;
                }
                const std::uint64_t magnitude = whole * 1000 + frac;
                constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<TimeNs>::max());
                if (magnitude > kMax + (negative ? 1 : 0)) return std::nullopt;
                if (negative)
                    return magnitude == kMax + 1 ? std::numeric_limits<TimeNs>::min()
                                                 : -static_cast<TimeNs>(magnitude);
                return static_cast<TimeNs>(magnitude);
            }
        }
    }
    std::size_t i = 0;
    const std::size_t n = s.size();
    bool negative = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
    // Significant digits as an unsigned integer, and where the decimal point falls.
    unsigned __int128 mantissa = 0;
    int pointShift = 0; // decimal digits after the point that went into the mantissa
    bool anyDigit = false;
    bool roundUp = false;
    constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(1) << 100;
    auto take = [&](char c, bool afterPoint) {
        anyDigit = true;
        if (mantissa < kLimit) {
            mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
            if (afterPoint) ++pointShift;
        } else if (!afterPoint) {
            --pointShift; // an integer digit we could not keep still scales the value
        }
    };
    while (i < n && s[i] >= '0' && s[i] <= '9')
        take(s[i++], false);
    if (i < n && s[i] == '.') {
        ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            take(s[i++], true);
    }
    if (!anyDigit) return std::nullopt;
    int exponent = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < n && (s[i] == '-' || s[i] == '+')) expNegative = s[i++] == '-';
        if (i >= n || s[i] < '0' || s[i] > '9') return std::nullopt;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (exponent < 100000) exponent = exponent * 10 + (s[i] - '0');
            ++i;
        }
        if (expNegative) exponent = -exponent;
    }
    if (i != n) return std::nullopt;
    // value = mantissa * 10^(exponent - pointShift) µs = mantissa * 10^(exponent - pointShift + 3) ns
    int scale = exponent - pointShift + 3;
    if (scale > 40) return mantissa == 0 ? std::optional<TimeNs>(0) : std::nullopt;
    while (scale > 0) {
        mantissa *= 10;
        if (mantissa > static_cast<unsigned __int128>(1) << 64) return std::nullopt;
        --scale;
    }
    while (scale < 0 && mantissa != 0) {
        const unsigned last = static_cast<unsigned>(mantissa % 10);
        mantissa /= 10;
        ++scale;
        if (scale == 0) roundUp = last >= 5;
    }
    if (roundUp) ++mantissa;
    const auto maxValue = static_cast<unsigned __int128>(std::numeric_limits<TimeNs>::max());
    if (mantissa > maxValue + (negative ? 1 : 0)) return std::nullopt;
    if (negative && mantissa == maxValue + 1) return std::numeric_limits<TimeNs>::min();
    const auto value = static_cast<TimeNs>(mantissa);
    return negative ? -value : value;
}

std::string formatNsAsMicros(TimeNs ns) {
    std::string out;
    std::uint64_t magnitude;
    if (ns < 0) {
        out.push_back('-');
        magnitude = static_cast<std::uint64_t>(-(ns + 1)) + 1;
    } else {
        magnitude = static_cast<std::uint64_t>(ns);
    }
    out += std::to_string(magnitude / 1000);
    const unsigned frac = static_cast<unsigned>(magnitude % 1000);
    if (frac) {
        out.push_back('.');
        out.push_back(char('0' + frac / 100));
        out.push_back(char('0' + frac / 10 % 10));
        out.push_back(char('0' + frac % 10));
    }
    return out;
}

} // namespace attnscope
