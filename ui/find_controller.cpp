// SPDX-License-Identifier: MIT
#include "find_controller.h"

#include "find_bar.h"
#include "timeline_view.h"

#include "core/model/timeline_index.h"

#include <algorithm>

namespace attnscope::ui {

FindController::FindController(FindBar* bar, TimelineView* timeline, QObject* parent)
    : QObject(parent), m_bar(bar), m_timeline(timeline) {
    connect(m_bar, &FindBar::searchChanged, this, &FindController::search);
    connect(m_bar, &FindBar::next, this, [this] { step(+1); });
    connect(m_bar, &FindBar::previous, this, [this] { step(-1); });
    connect(m_bar, &FindBar::closed, this, [this] {
        search({});
        m_timeline->setFocus();
    });
}

void FindController::setTrace(std::shared_ptr<const Trace> trace) {
    m_trace = std::move(trace);
    m_matches.clear();
    m_bar->setCount(0, 0);
    if (!m_bar->text().isEmpty()) search(m_bar->text());
}

std::vector<std::uint8_t> FindController::highlight() const {
    if (!m_trace || m_bar->text().isEmpty()) return {};
    return namesContaining(*m_trace, m_bar->text().toStdString());
}

void FindController::search(const QString& text) {
    if (!m_trace || text.isEmpty()) {
        m_matches.clear();
        m_timeline->setMatches({});
        m_timeline->setHighlight({});
        m_bar->setCount(0, 0);
        return;
    }
    const std::string needle = text.toStdString();
    m_matches = findEvents(*m_trace, needle);
    m_timeline->setMatches(m_matches);
    m_timeline->setHighlight(namesContaining(*m_trace, needle));
    m_bar->setCount(0, int(m_matches.size()));
}

void FindController::step(int direction) {
    if (m_matches.empty()) return;
    const auto current = m_timeline->selected();
    auto it = current ? std::find(m_matches.begin(), m_matches.end(), *current) : m_matches.end();
    const std::size_t n = m_matches.size();
    std::size_t next;
    if (it != m_matches.end()) {
        const std::size_t i = std::size_t(it - m_matches.begin());
        next = direction > 0 ? (i + 1) % n : (i + n - 1) % n;
    } else {
        const TimeNs from = m_timeline->viewport().start();
        auto first = std::partition_point(m_matches.begin(), m_matches.end(), [&](const EventRef& e) {
            return m_trace->track(e.track).events.start[e.index] < from;
        });
        next = first == m_matches.end() ? 0 : std::size_t(first - m_matches.begin());
        if (direction < 0) next = (next + n - 1) % n;
    }
    m_timeline->selectEvent(m_matches[next], true);
    m_bar->setCount(int(next) + 1, int(n));
}

} // namespace attnscope::ui
