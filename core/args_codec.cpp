// SPDX-License-Identifier: MIT
#include "args_codec.h"

#include "string_pool.h"

#include <cstring>

namespace attnscope {

namespace {

void putVarint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

bool getVarint(std::string_view& in, std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
        const auto byte = static_cast<unsigned char>(in.front());
        in.remove_prefix(1);
        v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return true;
    }
    return false;
}

// Length of the minified JSON value at the start of s (strings and nesting respected).
std::size_t valueLength(std::string_view s) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        switch (c) {
        case '"': inString = true; break;
        case '{':
        case '[': ++depth; break;
        case '}':
        case ']': --depth; break;
        case ',':
            if (depth == 0) return i;
            break;
        default: break;
        }
    }
    return s.size();
}

} // namespace

void ArgsEncoder::encode(StringPool& pool, std::string& out) {
    out.clear();
    // A fixed-width shape id, so that merging builders can renumber it in place.
    const std::uint32_t shape = m_shapes.intern(pool, m_shape.view()).value;
    out.append(reinterpret_cast<const char*>(&shape), sizeof shape);
    putVarint(out, m_values.size);
    out.append(m_values.view());
}

void forEachEncodedArg(const StringPool& pool, std::string_view encoded,
                       const std::function<void(std::string_view, std::string_view)>& f) {
    std::uint32_t shapeId = 0;
    std::uint64_t length = 0;
    if (encoded.size() < sizeof shapeId) return;
    std::memcpy(&shapeId, encoded.data(), sizeof shapeId);
    encoded.remove_prefix(sizeof shapeId);
    if (!getVarint(encoded, length) || length > encoded.size() || shapeId >= pool.size()) return;
    std::string_view shape = pool.get(StringId(shapeId));
    std::string_view values = encoded.substr(0, length);
    while (!shape.empty()) {
        const std::size_t keyEnd = shape.find('\0');
        const std::string_view key = shape.substr(0, keyEnd);
        shape.remove_prefix(keyEnd == std::string_view::npos ? shape.size() : keyEnd + 1);
        const std::size_t n = valueLength(values);
        f(key, values.substr(0, n));
        values.remove_prefix(std::min(values.size(), n + 1));
    }
}

std::string encodedArgsToJson(const StringPool& pool, std::string_view encoded) {
    std::string out = "{";
    forEachEncodedArg(pool, encoded, [&](std::string_view key, std::string_view value) {
        if (out.size() > 1) out.push_back(',');
        out.push_back('"');
        out.append(key);
        out.append("\":");
        out.append(value);
    });
    out.push_back('}');
    return out;
}

} // namespace attnscope
