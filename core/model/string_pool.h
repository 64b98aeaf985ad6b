// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/block_arena.h"
#include "core/model/types.h"

#include <array>
#include <string_view>
#include <vector>

namespace attnscope {

// Interns strings once; every name, category and key in the model is a 32-bit StringId.
// Id 0 is always the empty string.
class StringPool {
public:
    StringPool();

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
};

// A small direct-mapped cache in front of a pool for a reader's hot path: names repeat, and a hit
// costs a compare instead of hashing the whole string. Always exact: a hit is verified.
class InternCache {
public:
    StringId intern(StringPool& pool, std::string_view s) {
        StringId& slot = m_slots[slotOf(s)];
        if (slot.valid() && pool.get(slot) == s) return slot;
        slot = pool.intern(s);
        return slot;
    }

private:
    static std::size_t slotOf(std::string_view s);
    std::array<StringId, 4096> m_slots{};
};

} // namespace attnscope
