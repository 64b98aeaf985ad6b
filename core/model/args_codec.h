// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/string_pool.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// Event args are kept compactly: the object's key list (its "shape", shared by every event with the
// same keys in the same order, interned once) and the values as minified JSON texts, each after its
// length, so that reading one arg jumps over the others instead of scanning their JSON. Every value
// reads back exactly as the file wrote it (whitespace inside arrays and objects aside), so no number
// or string is reinterpreted.
//
// Encoded layout: shape id (4 bytes, host order), varint byte length of what follows, then per key
// of the shape: varint byte length, the value's text.
class ArgsEncoder {
public:
    void clear() {
        m_fields.clear();
        m_owned.clear();
    }
    // key as written between its quotes (escapes kept), value as minified JSON. Both are only
    // looked at, not copied: they must stay valid until encode().
    void add(std::string_view escapedKey, std::string_view valueJson) {
        m_fields.push_back({escapedKey, valueJson, kBorrowed});
    }
    // The same for a value that lives in a scratch buffer: it is copied now.
    void addCopy(std::string_view escapedKey, std::string_view valueJson) {
        m_fields.push_back({escapedKey, valueJson, m_owned.size()});
        m_owned.append(valueJson);
    }
    bool empty() const { return m_fields.empty(); }
    // Interns the shape in pool and writes the encoding into out, copying each value once.
    void encode(StringPool& pool, std::string& out);

private:
    static constexpr std::size_t kBorrowed = static_cast<std::size_t>(-1);
    struct Field {
        std::string_view key;
        std::string_view value; // for owned values: its length matters, the text is in m_owned
        std::size_t ownedAt;
    };
    // Events of one kind share their key list; a small cache finds its id without building it.
    struct ShapeSlot {
        std::uint64_t hash = 0;
        StringId id;
    };
    StringId shapeId(StringPool& pool);

    std::vector<Field> m_fields;
    std::string m_owned;
    std::string m_shapeText;
    std::array<ShapeSlot, 256> m_shapes{};
};

// The shape (the key list, keys separated by '\0') of an encoded blob; invalid when it has none.
// Events of one kind share it, so what a reader learns about one shape holds for all of them.
StringId encodedArgsShape(std::string_view encoded);

// Calls f(escapedKey, valueJson) for each arg of an encoded blob.
void forEachEncodedArg(const StringPool& pool, std::string_view encoded,
                       const std::function<void(std::string_view, std::string_view)>& f);
// The args as a minified JSON object.
std::string encodedArgsToJson(const StringPool& pool, std::string_view encoded);

} // namespace attnscope
