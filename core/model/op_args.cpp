// SPDX-License-Identifier: MIT
#include "core/model/op_args.h"
#include "core/model/kineto_args.h"

#include <charconv>
#include <iterator>

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

int inputTypeBytes(std::string_view type) {
    struct Size {
        std::string_view type;
        int bytes;
    };
    static constexpr Size kSizes[] = {{"float", 4},
                                      {"double", 8},
                                      {"c10::Half", 2},
                                      {"c10::BFloat16", 2},
                                      {"bool", 1},
                                      {"unsigned char", 1},
                                      {"signed char", 1},
                                      {"short int", 2},
                                      {"int", 4},
                                      {"long int", 8},
                                      {"long", 8},
                                      {"c10::complex<float>", 8},
                                      {"c10::complex<double>", 16},
                                      {"c10::complex<c10::Half>", 4}};
    for (const Size& s : kSizes)
        if (type == s.type) return s.bytes;
    return type.find("Float8") != std::string_view::npos ? 1 : 0;
}

int scalarTypeBytes(std::int64_t scalarType) {
    // c10::ScalarType: Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat,
    // ComplexDouble, Bool, QInt8, QUInt8, QInt32, BFloat16, …, Float8_e5m2 (23) to Float8_e4m3fnuz (26).
    static constexpr int kBytes[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2};
    if (scalarType >= 0 && scalarType < std::int64_t(std::size(kBytes))) return kBytes[scalarType];
    return scalarType >= 23 && scalarType <= 26 ? 1 : 0;
}

OpInputs opInputs(const Trace& trace, EventRef op) {
    std::string dims, types, concrete, strides;
    trace.forEachArg(op, [&](std::string_view key, std::string_view value) {
        if (key == kineto::kInputDims) dims = value;
        if (key == kineto::kInputType) types = value;
        if (key == kineto::kConcreteInputs) concrete = value;
        if (key == kineto::kInputStrides) strides = value;
    });
    return {parseDims(dims), parseStrings(types), parseStrings(concrete),
            strides.empty() ? std::nullopt : parseDims(strides)};
}

bool rowMajor(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& strides) {
    if (dims.size() != strides.size()) return false;
    std::int64_t expected = 1;
    for (std::size_t i = dims.size(); i-- > 0;) {
        if (dims[i] != 1 && strides[i] != expected) return false;
        expected *= dims[i];
    }
    return true;
}

} // namespace attnscope
