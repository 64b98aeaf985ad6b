// SPDX-License-Identifier: MIT
#pragma once

// Where the timeline has been, after hotspot's filter-and-zoom stack: back and forward over the places
// a user navigated from, a burst of steps (a wheel spun, a key held) one entry. No widget: the
// timeline, the Compare window and tests drive it alike, with the time passed in.
#include "time_viewport.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace attnscope::ui {

// A place on the timeline: the time shown and how far down the rows are scrolled.
struct ViewPlace {
    TimeViewport viewport;
    int scrollY = 0;
    bool operator==(const ViewPlace& o) const { return viewport == o.viewport && scrollY == o.scrollY; }
};

class ZoomHistory {
public:
    // Steps closer together than this are one burst, and one entry.
    static constexpr std::int64_t kBurstMs = 600;
    static constexpr std::size_t kMostEntries = 100;

    // Before a navigation away from `here` at nowMs: remembers it unless the step continues a burst
    // (discrete steps — a click, a fit, a key — never do); forward is forgotten.
    void leave(const ViewPlace& here, bool discrete, std::int64_t nowMs);
    // The place to go back (forward) to, leaving `here` on the other side; none when there is none.
    std::optional<ViewPlace> back(const ViewPlace& here);
    std::optional<ViewPlace> forward(const ViewPlace& here);
    bool canGoBack() const { return !m_back.empty(); }
    bool canGoForward() const { return !m_forward.empty(); }
    void clear();

private:
    static std::optional<ViewPlace> step(std::vector<ViewPlace>& from, std::vector<ViewPlace>& to,
                                         const ViewPlace& here);
    std::vector<ViewPlace> m_back, m_forward;
    std::int64_t m_lastMs = std::numeric_limits<std::int64_t>::min() / 2;
};

} // namespace attnscope::ui
