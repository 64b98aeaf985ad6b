// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

namespace attnscope::ui {

// A panel in a dock behind another tab of its dock area: Qt keeps it visible, with nothing of it on
// screen. What it would draw can wait until its tab is brought up (QDockWidget::visibilityChanged).
inline bool behindAnotherTab(const QWidget* w) {
    return w->isVisible() && w->visibleRegion().isEmpty();
}

} // namespace attnscope::ui
