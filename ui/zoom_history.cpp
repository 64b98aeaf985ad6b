// SPDX-License-Identifier: MIT
#include "zoom_history.h"

namespace attnscope::ui {

void ZoomHistory::leave(const ViewPlace& here, bool discrete, std::int64_t nowMs) {
    if (discrete || nowMs - m_lastMs > kBurstMs) {
        if (m_back.empty() || !(m_back.back() == here)) m_back.push_back(here);
        if (m_back.size() > kMostEntries) m_back.erase(m_back.begin());
        m_forward.clear();
    }
    m_lastMs = nowMs;
}

std::optional<ViewPlace> ZoomHistory::step(std::vector<ViewPlace>& from, std::vector<ViewPlace>& to,
                                           const ViewPlace& here) {
    if (from.empty()) return std::nullopt;
    to.push_back(here);
    const ViewPlace there = from.back();
    from.pop_back();
    return there;
}

std::optional<ViewPlace> ZoomHistory::back(const ViewPlace& here) {
    return step(m_back, m_forward, here);
}

std::optional<ViewPlace> ZoomHistory::forward(const ViewPlace& here) {
    return step(m_forward, m_back, here);
}

void ZoomHistory::clear() {
    m_back.clear();
    m_forward.clear();
}

} // namespace attnscope::ui
