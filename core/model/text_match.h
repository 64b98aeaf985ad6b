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

// s without the spaces, tabs and carriage returns around it.
inline std::string_view trimBlanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// f(line number from 1, the line trimmed) for each line of a data file that is neither blank nor a
// '#' comment.
template <class F> void forEachDataLine(std::string_view text, F f) {
    std::size_t lineNumber = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = trimBlanks(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        ++lineNumber;
        if (!line.empty() && line.front() != '#') f(lineNumber, line);
    }
}

// Whether haystack contains lowerNeedle (already lower case), ignoring ASCII case.
inline bool containsNoCase(std::string_view haystack, std::string_view lowerNeedle) {
    return std::search(haystack.begin(), haystack.end(), lowerNeedle.begin(), lowerNeedle.end(),
                       [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }) !=
           haystack.end();
}

} // namespace attnscope
