// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>

class QWidget;

namespace attnscope::ui {

class TimelineView;

// The timeline's navigation keys (W/A/S/D zoom and pan, F fit the selection, 0 fit all) work anywhere
// in the timeline's window, as in Perfetto and Tracy, not only while the timeline has the focus: after
// a click on a Details link, a chart tab or a table they still steer the timeline. A key typed into a
// text field (the find bar, a filter, a spin box) stays text.
class NavigationKeys : public QObject {
    Q_OBJECT
public:
    // Watches the application's key presses for as long as the timeline lives.
    explicit NavigationKeys(TimelineView* timeline);

    static bool isNavigationKey(int key);
    // A widget that takes typed text (editable line edits, text edits, spin boxes, editable combos).
    static bool takesText(const QWidget* widget);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QPointer<TimelineView> m_timeline;
};

} // namespace attnscope::ui
