// SPDX-License-Identifier: MIT
#include "core/analysis/device_specs.h"

#include "core/analysis/resources.h"
#include "core/model/text_match.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace attnscope {

double DeviceSpec::peak(Precision p) const {
    switch (p) {
    case Precision::F8:
        if (fp8 > 0) return fp8;
        [[fallthrough]];
    case Precision::F16:
    case Precision::BF16:
        if (fp16 > 0) return fp16;
        [[fallthrough]];
    case Precision::TF32:
        if (p == Precision::TF32 && tf32 > 0) return tf32;
        [[fallthrough]];
    default:
        return fp32;
    }
}

DeviceSpecs DeviceSpecs::parse(std::string_view text, std::vector<std::string>* problems) {
    DeviceSpecs specs;
    std::size_t lineNumber = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = trimBlanks(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        ++lineNumber;
        if (line.empty() || line.front() == '#') continue;
        std::vector<std::string_view> fields;
        std::size_t from = 0;
        for (;;) {
            const std::size_t bar = line.find('|', from);
            fields.push_back(trimBlanks(line.substr(from, bar == std::string_view::npos ? bar : bar - from)));
            if (bar == std::string_view::npos) break;
            from = bar + 1;
        }
        std::vector<double> numbers;
        for (std::size_t i = 1; i < fields.size(); ++i) {
            double v = -1;
            const auto [p, ec] = std::from_chars(fields[i].data(), fields[i].data() + fields[i].size(), v);
            if (ec == std::errc() && p == fields[i].data() + fields[i].size() && v >= 0) numbers.push_back(v);
        }
        if (fields.size() != 6 || fields[0].empty() || numbers.size() != 5 || numbers[0] <= 0 ||
            numbers[4] <= 0) {
            if (problems)
                problems->push_back(
                    "line " + std::to_string(lineNumber) +
                    ": want 'name | fp32 | tf32 | fp16/bf16 | fp8 | TB/s' with positive fp32 and TB/s");
            continue;
        }
        DeviceSpec d;
        d.name = std::string(fields[0]);
        d.source = "datasheet";
        d.fp32 = numbers[0] * 1e12;
        d.tf32 = numbers[1] * 1e12;
        d.fp16 = numbers[2] * 1e12;
        d.fp8 = numbers[3] * 1e12;
        d.bandwidth = numbers[4] * 1e12;
        specs.m_specs.push_back(std::move(d));
    }
    return specs;
}

const DeviceSpecs& DeviceSpecs::standard() {
    static const DeviceSpecs specs = [] {
        DeviceSpecs all;
        if (const std::string path = userDataFile("ATTNSCOPE_DEVICE_SPECS", "device_specs.txt");
            !path.empty())
            all = parse(readTextFile(path));
        for (auto& spec : all.m_specs)
            spec.source = "your device_specs.txt";
        const DeviceSpecs builtin = parse(builtinDeviceSpecs());
        all.m_specs.insert(all.m_specs.end(), builtin.m_specs.begin(), builtin.m_specs.end());
        return all;
    }();
    return specs;
}

std::optional<DeviceSpec> DeviceSpecs::match(std::string_view deviceName) const {
    const std::string name = asciiLower(deviceName);
    const DeviceSpec* best = nullptr;
    for (const DeviceSpec& s : m_specs)
        if (name.find(asciiLower(s.name)) != std::string::npos &&
            (!best || s.name.size() > best->name.size()))
            best = &s;
    if (!best) return std::nullopt;
    return *best;
}

} // namespace attnscope
