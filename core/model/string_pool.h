// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/block_arena.h"
#include "core/model/types.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace attnscope {

// Interns strings once; every name, category and key in the model is a 32-bit StringId.
// Id 0 is always the empty string.
class StringPool {
public:
    StringPool();
    // The same ids and strings, the text left where it is: for a snapshot of a growing trace, which
    // keeps `other`'s storage alive while it lives (trace_append.h). It interns nothing more.
    struct Borrowed {};
    StringPool(const StringPool& other, Borrowed);

    StringId intern(std::string_view s);
    std::string_view get(StringId id) const { return id.valid() ? m_strings[id.value] : std::string_view{}; }
    // The id of s if it was interned, else an invalid id.
    StringId find(std::string_view s) const;
    std::size_t size() const { return m_strings.size(); }
    std::size_t bytesUsed() const;

    static constexpr StringId empty() { return StringId(0); }

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t id = StringId::kInvalid;
    };
    std::size_t slotFor(std::string_view s, std::uint64_t hash) const;
    void grow();

    BlockArena m_arena{1u << 20};
    std::vector<std::string_view> m_strings;
    std::vector<Slot> m_slots;
    std::size_t m_borrowedBytes = 0; // the text a borrowing pool reads from another's storage
};

// The Word (an unsigned integer) at p, by one unaligned load.
template <class Word> Word loadWord(const char* p) {
    Word w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

// Whether a and b hold the same n bytes, without a library call for the short names and keys the
// readers compare millions of times: whole loads from both ends, never past either string.
inline bool sameBytes(const char* a, const char* b, std::size_t n) {
    auto load = [](const char* p, auto word) { return loadWord<decltype(word)>(p); };
    if (n >= 8) {
        if (load(a, std::uint64_t()) != load(b, std::uint64_t()) ||
            load(a + n - 8, std::uint64_t()) != load(b + n - 8, std::uint64_t()))
            return false;
        return n <= 16 || std::memcmp(a + 8, b + 8, n - 16) == 0;
    }
    if (n >= 4)
        return load(a, std::uint32_t()) == load(b, std::uint32_t()) &&
               load(a + n - 4, std::uint32_t()) == load(b + n - 4, std::uint32_t());
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}
inline bool sameText(std::string_view a, std::string_view b) {
    return a.size() == b.size() && sameBytes(a.data(), b.data(), a.size());
}

// A small direct-mapped cache in front of a pool for a reader's hot path: names repeat, and a hit
// costs a compare instead of hashing the whole string. Always exact: a hit is verified.
class InternCache {
public:
    StringId intern(StringPool& pool, std::string_view s) {
        StringId& slot = m_slots[slotOf(s)];
        if (slot.valid() && sameText(pool.get(slot), s)) return slot;
        slot = pool.intern(s);
        return slot;
    }

private:
    static std::size_t slotOf(std::string_view s);
    std::array<StringId, 4096> m_slots{};
};

} // namespace attnscope
