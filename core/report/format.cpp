// SPDX-License-Identifier: MIT
#include "core/report/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnscope {

std::string formatDuration(TimeNs ns) {
    char buf[64];
    const double v = static_cast<double>(ns);
    const DurationUnit unit = durationUnit(std::abs(v));
    if (unit.exponent == 0)
        std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    else
        std::snprintf(buf, sizeof buf, "%.3f %.*s", v / unit.ns, int(unit.name.size()), unit.name.data());
    return buf;
}

SiPrefix siPrefix(double value) {
    static constexpr SiPrefix kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (const SiPrefix& p : kPrefixes)
        if (value >= p.scale) return p;
    return {1, ""};
}

std::string formatRate(double value, std::string_view unit) {
    const SiPrefix p = siPrefix(value);
    char text[64];
    std::snprintf(text, sizeof text, "%.4g %.*s%.*s", value / p.scale, int(p.prefix.size()), p.prefix.data(),
                  int(unit.size()), unit.data());
    return text;
}

std::string formatCount(std::uint64_t n, std::string_view one, std::string_view many) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
        out.push_back(digits[i]);
    }
    out.push_back(' ');
    out += n == 1 ? one : many;
    return out;
}

std::string formatPercent(double fraction, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f%%", decimals, 100 * fraction);
    return text;
}

std::string formatShare(double fraction) {
    std::string out = formatPercent(fraction);
    if (out.size() > 3 && out.ends_with(".0%")) out.erase(out.size() - 3, 2); // 26%, 12.5%, 3.1%
    return out;
}

std::vector<std::string> wholeShares(const std::vector<double>& parts) {
    double all = 0;
    for (double part : parts)
        all += std::max(0.0, part);
    std::vector<int> percent(parts.size());
    std::vector<std::pair<double, std::size_t>> remainders;
    int given = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const double exact = all > 0 ? 100.0 * std::max(0.0, parts[i]) / all : 0;
        percent[i] = int(exact);
        given += percent[i];
        remainders.push_back({exact - percent[i], i});
    }
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; k < remainders.size() && given < 100 && all > 0; ++k, ++given)
        ++percent[remainders[k].second];
    std::vector<std::string> out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        // A part with time but under half a point is there, not "0%".
        out.push_back(percent[i] || parts[i] <= 0 ? std::to_string(percent[i]) + "%" : std::string("<1%"));
    return out;
}

std::string formatRatio(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, ratio >= 0.1 || ratio == 0 ? "%.2f\u00d7" : "%.2g\u00d7", ratio);
    return text;
}

DurationUnit durationUnit(double ns) {
    if (ns >= 1e9) return {1e9, "s", 9};
    if (ns >= 1e6) return {1e6, "ms", 6};
    if (ns >= 1e3) return {1e3, "\u00b5s", 3};
    return {};
}

std::string formatOffset(TimeNs offset, TimeNs step) {
    // A tick 100 ms apart reads in seconds ("+0.1 s"): the unit of ten steps.
    const DurationUnit unit = durationUnit(10.0 * double(step));
    const int decimals =
        std::max(0, unit.exponent - int(std::floor(std::log10(double(std::max<TimeNs>(step, 1))))));
    char text[64];
    std::snprintf(text, sizeof text, "%s%.*f %.*s", offset < 0 ? "\u2212" : "+", decimals,
                  std::abs(double(offset)) / unit.ns, int(unit.name.size()), unit.name.data());
    return text;
}

std::string formatNumber(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

} // namespace attnscope
