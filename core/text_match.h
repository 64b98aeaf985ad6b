// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace attnscope {

inline std::string asciiLower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Whether haystack contains lowerNeedle (already lower case), ignoring ASCII case.
inline bool containsNoCase(std::string_view haystack, std::string_view lowerNeedle) {
    return std::search(haystack.begin(), haystack.end(), lowerNeedle.begin(), lowerNeedle.end(),
                       [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }) !=
           haystack.end();
}

} // namespace attnscope
