// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <array>
#include <optional>

class QWidget;

namespace attnscope::ui {

class TimelineView;

// The timeline's navigation: each action with its key, the hint its View menu entry shows and the
// entry's text — one table for the keys, the menu and the key filter below.
enum class NavigationAction { ZoomIn, ZoomOut, PanLeft, PanRight, FitSelection, FitAll };
struct NavigationKey {
    NavigationAction action;
    int key;             // Qt::Key
    const char* hint;    // "W"
    const char* command; // "Zoom In" (translated in the QMenu context)
    const char* does;    // "zoom": what the status bar's hint says keys of a pair do
};
const std::array<NavigationKey, 6>& navigationKeys();
std::optional<NavigationAction> navigationActionFor(int key);
// The keys as the status bar lists them: "W/S zoom · A/D pan · F fit · 0 fit all".
QString navigationHint();
// Zoom: W (and one wheel notch) shows this share of the span, S its inverse; pan: A/D move the view
// by this share of its width.
inline constexpr double kZoomStep = 0.8;
inline constexpr double kPanFraction = 0.15;
inline constexpr double kWheelPanFraction = 0.1; // a horizontal wheel notch

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
