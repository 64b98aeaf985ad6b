// SPDX-License-Identifier: MIT
#pragma once

// The nesting of one track's slices, told as they come in the order the track keeps (by start, the
// longer first): each one's parent and depth from the slices still open, as Perfetto's slice tracker
// does. A slice that overlaps an open one only in part goes one level deeper instead of being lost;
// past 65535 open slices the deepest share one level, and the track says so (kDepthClampedWarning).
// The trace builder lays a track out with it, and the appender carries it on over a join.
#include "core/model/trace.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace attnscope {

inline constexpr std::string_view kDepthClampedWarning =
    "more than 65535 events overlap on one track; the deepest share one level";

class SliceNester {
public:
    struct Placed {
        std::uint32_t parent; // kNoParent at the top
        std::uint16_t depth;
    };
    // The slice at index, from start for duration: where it sits; it stays open until its end.
    Placed place(TimeNs start, TimeNs duration, std::uint32_t index) {
        while (!m_open.empty() && m_open.back().end <= start)
            m_open.pop_back();
        const Placed placed{m_open.empty() ? kNoParent : m_open.back().index,
                            std::uint16_t(std::min<std::size_t>(m_open.size(), kMaxDepth))};
        m_clamped = m_clamped || m_open.size() > kMaxDepth;
        m_maxDepth = std::max(m_maxDepth, placed.depth);
        if (m_open.size() <= kMaxDepth) m_open.push_back({start + duration, index});
        return placed;
    }
    // Whether a slice still open at the end of what was placed ends after time.
    bool openAfter(TimeNs time) const {
        return std::any_of(m_open.begin(), m_open.end(), [&](const Open& o) { return o.end > time; });
    }
    std::uint16_t maxDepth() const { return m_maxDepth; }
    bool clamped() const { return m_clamped; } // some slices share the deepest level

private:
    static constexpr std::size_t kMaxDepth = 0xffff;
    struct Open {
        TimeNs end;
        std::uint32_t index;
    };
    std::vector<Open> m_open;
    std::uint16_t m_maxDepth = 0;
    bool m_clamped = false;
};

} // namespace attnscope
