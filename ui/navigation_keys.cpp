// SPDX-License-Identifier: MIT
#include "navigation_keys.h"

#include "timeline_view.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>

#include <string_view>

namespace attnscope::ui {

NavigationKeys::NavigationKeys(TimelineView* timeline) : QObject(timeline), m_timeline(timeline) {
    qApp->installEventFilter(this);
}

const std::array<NavigationKey, 6>& navigationKeys() {
    static const std::array<NavigationKey, 6> keys{{
        {NavigationAction::ZoomIn, Qt::Key_W, "W", QT_TRANSLATE_NOOP("QMenu", "Zoom In"), "zoom"},
        {NavigationAction::ZoomOut, Qt::Key_S, "S", QT_TRANSLATE_NOOP("QMenu", "Zoom Out"), "zoom"},
        {NavigationAction::PanLeft, Qt::Key_A, "A", QT_TRANSLATE_NOOP("QMenu", "Pan Left"), "pan"},
        {NavigationAction::PanRight, Qt::Key_D, "D", QT_TRANSLATE_NOOP("QMenu", "Pan Right"), "pan"},
        {NavigationAction::FitSelection, Qt::Key_F, "F", QT_TRANSLATE_NOOP("QMenu", "Fit Selection"), "fit"},
        {NavigationAction::FitAll, Qt::Key_0, "0", QT_TRANSLATE_NOOP("QMenu", "Fit All"), "fit all"},
    }};
    return keys;
}

std::optional<NavigationAction> navigationActionFor(int key) {
    for (const NavigationKey& k : navigationKeys())
        if (k.key == key) return k.action;
    return std::nullopt;
}

QString navigationHint() {
    QString hint;
    const auto& keys = navigationKeys();
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const bool pairsWithNext = i + 1 < keys.size() && std::string_view(keys[i].does) == keys[i + 1].does;
        if (!hint.isEmpty()) hint += QStringLiteral(" · ");
        hint += QString::fromLatin1(keys[i].hint);
        if (pairsWithNext) hint += '/' + QString::fromLatin1(keys[++i].hint);
        hint += ' ' + QString::fromLatin1(keys[i].does);
    }
    return hint;
}

bool NavigationKeys::isNavigationKey(int key) {
    return navigationActionFor(key).has_value();
}

bool NavigationKeys::takesText(const QWidget* widget) {
    if (auto* edit = qobject_cast<const QLineEdit*>(widget)) return !edit->isReadOnly();
    if (auto* edit = qobject_cast<const QTextEdit*>(widget)) return !edit->isReadOnly();
    if (auto* edit = qobject_cast<const QPlainTextEdit*>(widget)) return !edit->isReadOnly();
    if (auto* combo = qobject_cast<const QComboBox*>(widget)) return combo->isEditable();
    return qobject_cast<const QAbstractSpinBox*>(widget) != nullptr;
}

bool NavigationKeys::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::KeyPress || !m_timeline) return false;
    auto* key = static_cast<QKeyEvent*>(event);
    auto* widget = qobject_cast<QWidget*>(watched);
    // Only the first delivery (to the focus widget), only plain keys, never the timeline itself (it
    // handles them), never a popup or another window (menus, dialogs, the compare window).
    if (!widget || widget != widget->window()->focusWidget() || widget == m_timeline) return false;
    if (!isNavigationKey(key->key()) || (key->modifiers() & ~Qt::KeypadModifier)) return false;
    if (widget->window() != m_timeline->window() || takesText(widget) || !m_timeline->isVisible())
        return false;
    QKeyEvent copy(QEvent::KeyPress, key->key(), Qt::NoModifier, key->text(), key->isAutoRepeat());
    QApplication::sendEvent(m_timeline, &copy);
    return true;
}

} // namespace attnscope::ui
