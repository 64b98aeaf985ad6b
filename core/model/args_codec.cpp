// SPDX-License-Identifier: MIT
#include "core/model/args_codec.h"

#include "core/model/string_pool.h"

#include <cstring>

namespace attnscope {

namespace {

// Writes v at p; returns the end of what it wrote.
char* putVarint(char* p, std::uint64_t v) {
    for (; v >= 0x80; v >>= 7)
        *p++ = static_cast<char>(v | 0x80);
    *p++ = static_cast<char>(v);
    return p;
}

std::size_t varintBytes(std::uint64_t v) {
    std::size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        ++n;
    return n;
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

} // namespace

StringId ArgsEncoder::shapeId(StringPool& pool) {
    // A cheap hash of the key list (length and a few bytes of each key); the cache entry is checked
    // key by key, so a weak hash only costs a miss.
    std::uint64_t h = m_fields.size();
    for (const Field& f : m_fields) {
        const std::string_view k = f.key;
        std::uint64_t bytes = k.size();
        if (!k.empty())
            bytes |= std::uint64_t(std::uint8_t(k[0])) << 16 |
                     std::uint64_t(std::uint8_t(k[k.size() / 2])) << 24 |
                     std::uint64_t(std::uint8_t(k.back())) << 32;
        h = (h ^ bytes) * 0x9E3779B97F4A7C15ull;
    }
    ShapeSlot& slot = m_shapes[h >> 56];
    if (slot.id.valid() && slot.hash == h) {
        const std::string_view shape = pool.get(slot.id);
        std::size_t at = 0;
        bool same = true;
        for (const Field& f : m_fields) {
            if (shape.size() < at + f.key.size() + 1 || shape[at + f.key.size()] != '\0' ||
                !sameBytes(shape.data() + at, f.key.data(), f.key.size())) {
                same = false;
                break;
            }
            at += f.key.size() + 1;
        }
        if (same && at == shape.size()) return slot.id;
    }
    m_shapeText.clear();
    for (const Field& f : m_fields) {
        m_shapeText.append(f.key);
        m_shapeText.push_back('\0');
    }
    slot = {h, pool.intern(m_shapeText)};
    return slot.id;
}

void ArgsEncoder::encode(StringPool& pool, std::string& out) {
    // A fixed-width shape id, so that merging builders can renumber it in place.
    const std::uint32_t shape = shapeId(pool).value;
    std::size_t length = 0;
    for (const Field& f : m_fields)
        length += varintBytes(f.value.size()) + f.value.size();
    out.resize(sizeof shape + varintBytes(length) + length);
    char* p = out.data();
    std::memcpy(p, &shape, sizeof shape);
    p = putVarint(p + sizeof shape, length);
    for (const Field& f : m_fields) {
        p = putVarint(p, f.value.size());
        std::memcpy(p, f.ownedAt == kBorrowed ? f.value.data() : m_owned.data() + f.ownedAt, f.value.size());
        p += f.value.size();
    }
}

StringId encodedArgsShape(std::string_view encoded) {
    std::uint32_t shapeId = 0;
    if (encoded.size() < sizeof shapeId) return {};
    std::memcpy(&shapeId, encoded.data(), sizeof shapeId);
    return StringId(shapeId);
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
        std::uint64_t n = 0;
        if (!getVarint(values, n) || n > values.size()) return;
        f(key, values.substr(0, n));
        values.remove_prefix(n);
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
