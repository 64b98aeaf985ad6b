// SPDX-License-Identifier: MIT
#pragma once

class QAction;
class QMenu;

namespace attnscope::ui {

class TimelineView;

// The View menu's timeline entries: zoom, pan and fit (their single-letter keys belong to the
// timeline, so typing in a text field never zooms: the menu shows them as hints and works from
// anywhere), back and forward through the view history, clear the range, the legend, folded
// attention calls, and what kernels are coloured by (the last two choices remembered).
struct TimelineActions {
    QAction* back = nullptr;
    QAction* forward = nullptr;
    QAction* fitAll = nullptr;
};
TimelineActions addTimelineActions(QMenu* view, TimelineView* timeline);

} // namespace attnscope::ui
