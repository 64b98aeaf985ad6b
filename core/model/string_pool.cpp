// SPDX-License-Identifier: MIT
#include "core/model/string_pool.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace attnscope {

StringPool::StringPool() : m_slots(1024) {
    intern({});
}

StringPool::StringPool(const StringPool& other, Borrowed)
    : m_strings(other.m_strings), m_slots(other.m_slots),
      m_borrowedBytes(other.m_borrowedBytes + other.m_arena.bytesReserved()) {}

std::size_t StringPool::slotFor(std::string_view s, std::uint64_t hash) const {
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = hash & mask;
    while (true) {
        const Slot& slot = m_slots[i];
        if (slot.id == StringId::kInvalid || (slot.hash == hash && m_strings[slot.id] == s)) return i;
        i = (i + 1) & mask;
    }
}

StringId StringPool::find(std::string_view s) const {
    const std::uint64_t hash = std::hash<std::string_view>{}(s);
    const Slot& slot = m_slots[slotFor(s, hash)];
    return slot.id == StringId::kInvalid ? StringId{} : StringId(slot.id);
}

StringId StringPool::intern(std::string_view s) {
    const std::uint64_t hash = std::hash<std::string_view>{}(s);
    std::size_t i = slotFor(s, hash);
    if (m_slots[i].id != StringId::kInvalid) return StringId(m_slots[i].id);
    const auto id = static_cast<std::uint32_t>(m_strings.size());
    m_strings.push_back(s.empty() ? std::string_view{} : m_arena.store(s));
    m_slots[i] = {hash, id};
    if (m_strings.size() * 2 > m_slots.size()) grow();
    return StringId(id);
}

void StringPool::grow() {
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    const std::size_t mask = m_slots.size() - 1;
    for (const Slot& slot : old) {
        if (slot.id == StringId::kInvalid) continue;
        std::size_t i = slot.hash & mask;
        while (m_slots[i].id != StringId::kInvalid)
            i = (i + 1) & mask;
        m_slots[i] = slot;
    }
}

std::size_t StringPool::bytesUsed() const {
    return m_borrowedBytes + m_arena.bytesReserved() + m_strings.capacity() * sizeof(std::string_view) +
           m_slots.capacity() * sizeof(Slot);
}

std::size_t InternCache::slotOf(std::string_view s) {
    constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
    // Words put together from whole loads: a short copy into a zeroed stack word was read back
    // before its bytes were stored (a store-forwarding stall on every name of every event).
    const char* p = s.data();
    const std::size_t n = s.size();
    auto load = [](const char* at, auto word) { return std::uint64_t(loadWord<decltype(word)>(at)); };
    std::uint64_t h = (n + 1) * k;
    if (n >= 8) {
        h = (h ^ load(p, std::uint64_t())) * k;
        if (n > 8) h = (h ^ load(p + n - 8, std::uint64_t())) * k;
        if (n > 16) h = (h ^ load(p + n / 2 - 4, std::uint64_t())) * k;
    } else if (n >= 4) {
        h = (h ^ (load(p, std::uint32_t()) | load(p + n - 4, std::uint32_t()) << 32)) * k;
    } else if (n > 0) {
        h = (h ^ (std::uint64_t(std::uint8_t(p[0])) | std::uint64_t(std::uint8_t(p[n / 2])) << 8 |
                  std::uint64_t(std::uint8_t(p[n - 1])) << 16)) *
            k;
    }
    return static_cast<std::size_t>(h >> 52);
}

} // namespace attnscope
