// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include "string_pool.h"

#include <cstring>
#include <functional>
#include <string>
#include <string_view>

namespace attnscope {


// Event args are kept compactly: the object's key list (its "shape", shared by every event with the
// same keys in the same order, interned once) and the values as minified JSON texts joined by
// commas. Every value reads back exactly as the file wrote it (whitespace inside arrays and
// objects aside), so no number or string is reinterpreted.
//
// Encoded layout: shape id (4 bytes, host order), varint byte length, the values text.
class ArgsEncoder {
public:
    void clear() {
        m_shape.clear();
        m_values.clear();
        m_count = 0;
    }
    // key as written between its quotes (escapes kept), value as minified JSON.
    void add(std::string_view escapedKey, std::string_view valueJson) {
        m_shape.append(escapedKey);
        m_shape.push_back('\0');
        if (m_count++) m_values.push_back(',');
        m_values.append(valueJson);
    }
    bool empty() const { return m_count == 0; }
    // Interns the shape in pool and writes the encoding into out.
    void encode(StringPool& pool, std::string& out);

private:
    // std::string::append and push_back per byte showed up in load profiles; this grows rarely.
    struct Buffer {
        std::string bytes = std::string(1024, '\0');
        std::size_t size = 0;
        void clear() { size = 0; }
        void push_back(char c) { append({&c, 1}); }
        void append(std::string_view s) {
            if (size + s.size() > bytes.size()) bytes.resize(2 * (size + s.size()));
            copySmall(bytes.data() + size, s.data(), s.size());
            size += s.size();
        }
        // Args keys and values are mostly a few bytes long: two overlapping fixed-size copies
        // cost less than a call to memcpy, and never touch a byte outside [src, src + n).
        static void copySmall(char* dst, const char* src, std::size_t n) {
            if (n >= 8 && n <= 16) {
                std::memcpy(dst, src, 8);
                std::memcpy(dst + n - 8, src + n - 8, 8);
            } else if (n >= 4 && n < 8) {
                std::memcpy(dst, src, 4);
                std::memcpy(dst + n - 4, src + n - 4, 4);
            } else if (n > 0 && n < 4) {
                dst[0] = src[0];
                dst[n / 2] = src[n / 2];
                dst[n - 1] = src[n - 1];
            } else if (n > 16) {
                std::memcpy(dst, src, n);
            }
        }
        std::string_view view() const { return {bytes.data(), size}; }
    };
    Buffer m_shape; // keys, each followed by '\0'
    Buffer m_values;
    std::size_t m_count = 0;
    InternCache m_shapes;
};

// Calls f(escapedKey, valueJson) for each arg of an encoded blob.
void forEachEncodedArg(const StringPool& pool, std::string_view encoded,
                       const std::function<void(std::string_view, std::string_view)>& f);
// The args as a minified JSON object.
std::string encodedArgsToJson(const StringPool& pool, std::string_view encoded);

} // namespace attnscope
