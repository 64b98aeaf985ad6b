// SPDX-License-Identifier: MIT
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace attnscope {

// Time is int64 nanoseconds everywhere.
using TimeNs = std::int64_t;

// A 32-bit id that cannot be mixed up with an id of another kind.
template <class Tag> struct TypedId {
    static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t value = kInvalid;

    constexpr TypedId() = default;
    constexpr explicit TypedId(std::uint32_t v) : value(v) {}
    constexpr bool valid() const { return value != kInvalid; }
    constexpr auto operator<=>(const TypedId&) const = default;
};

using StringId = TypedId<struct StringTag>;
using TrackId = TypedId<struct TrackTag>;
using ProcessId = TypedId<struct ProcessTag>;

// One event of one track: the track and the event's index in that track's sorted arrays.
struct EventRef {
    TrackId track;
    std::uint32_t index = 0;
    constexpr auto operator<=>(const EventRef&) const = default;
};

} // namespace attnscope

template <class Tag> struct std::hash<attnscope::TypedId<Tag>> {
    std::size_t operator()(attnscope::TypedId<Tag> id) const noexcept {
        return std::hash<std::uint32_t>{}(id.value);
    }
};
