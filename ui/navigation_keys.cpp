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

namespace attnscope::ui {

NavigationKeys::NavigationKeys(TimelineView* timeline) : QObject(timeline), m_timeline(timeline) {
    qApp->installEventFilter(this);
}

bool NavigationKeys::isNavigationKey(int key) {
    switch (key) {
    case Qt::Key_W:
    case Qt::Key_A:
    case Qt::Key_S:
    case Qt::Key_D:
    case Qt::Key_F:
    case Qt::Key_0:
        return true;
    default:
        return false;
    }
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
