// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <QObject>

#include <memory>
#include <vector>

namespace attnscope::ui {

class FindBar;
class TimelineView;

// Find (Ctrl+F): the events whose name contains the text, marked on the timeline's ruler and their
// names highlighted; Enter / Shift+Enter step through them from the selected one, or from the left
// edge of the view when none is selected.
class FindController : public QObject {
    Q_OBJECT
public:
    FindController(FindBar* bar, TimelineView* timeline, QObject* parent = nullptr);
    // A new trace on show: the search runs again on it.
    void setTrace(std::shared_ptr<const Trace> trace);
    // The names the current search highlights (empty when there is none).
    std::vector<std::uint8_t> highlight() const;

private:
    void search(const QString& text);
    void step(int direction);

    FindBar* m_bar;
    TimelineView* m_timeline;
    std::shared_ptr<const Trace> m_trace;
    std::vector<EventRef> m_matches;
};

} // namespace attnscope::ui
