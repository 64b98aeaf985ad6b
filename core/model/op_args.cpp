// SPDX-License-Identifier: MIT
#include "core/model/op_args.h"

#include <charconv>

namespace attnscope {

std::optional<std::vector<std::vector<std::int64_t>>> parseDims(std::string_view s) {
    std::vector<std::vector<std::int64_t>> out;
    std::size_t i = 0;
    auto skip = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == ','))
            ++i;
    };
    skip();
    if (i >= s.size() || s[i] != '[') return std::nullopt;
    ++i;
    for (;;) {
        skip();
        if (i >= s.size()) return std::nullopt;
        if (s[i] == ']') return out;
        if (s[i] != '[') return std::nullopt;
        ++i;
        std::vector<std::int64_t> dims;
        for (;;) {
            skip();
            if (i >= s.size()) return std::nullopt;
            if (s[i] == ']') {
                ++i;
                break;
            }
            std::int64_t v = 0;
            const auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
            if (ec != std::errc() || v < 0) return std::nullopt;
            dims.push_back(v);
            i = std::size_t(end - s.data());
        }
        out.push_back(std::move(dims));
    }
}

std::vector<std::string> parseStrings(std::string_view s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while ((i = s.find('"', i)) != std::string_view::npos) {
        const std::size_t end = s.find('"', i + 1);
        if (end == std::string_view::npos) break;
        out.emplace_back(s.substr(i + 1, end - i - 1));
        i = end + 1;
    }
    return out;
}

std::vector<std::int64_t> parseInts(std::string_view s) {
    std::vector<std::int64_t> out;
    const char* p = s.data();
    const char* end = p + s.size();
    while (p < end) {
        if ((*p >= '0' && *p <= '9') || *p == '-') {
            std::int64_t v = 0;
            const auto [next, ec] = std::from_chars(p, end, v);
            if (ec != std::errc()) break;
            out.push_back(v);
            p = next;
        } else {
            ++p;
        }
    }
    return out;
}

std::uint64_t inputElements(const std::vector<std::vector<std::int64_t>>& dims) {
    std::uint64_t total = 0;
    for (const std::vector<std::int64_t>& tensor : dims) {
        if (tensor.empty()) continue; // a scalar or an argument that is no tensor
        std::uint64_t n = 1;
        for (std::int64_t d : tensor)
            n = __builtin_mul_overflow(n, std::uint64_t(d), &n) ? UINT64_MAX : n;
        total = total + n < total ? UINT64_MAX : total + n;
    }
    return total;
}

} // namespace attnscope
