// SPDX-License-Identifier: MIT
#pragma once

#include <QAction>
#include <QGuiApplication>
#include <QKeySequence>
#include <QScreen>
#include <QWidget>

namespace attnscope::ui {

// A panel in a dock behind another tab of its dock area: Qt keeps it visible, with nothing of it on
// screen. What it would draw can wait until its tab is brought up (QDockWidget::visibilityChanged).
inline bool behindAnotherTab(const QWidget* w) {
    return w->isVisible() && w->visibleRegion().isEmpty();
}

// A window's first size: the size it prefers, no larger than the screen it opens on (less its title bar
// and borders where it has them already), so that a 1366×768 laptop shows its status bar too.
inline void resizeWithinScreen(QWidget* window, QSize preferred) {
    const QScreen* on = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    const QRect available = on ? on->availableGeometry() : QRect();
    const QSize frame = window->frameGeometry().size() - window->geometry().size();
    window->resize(available.isEmpty() ? preferred : preferred.boundedTo(available.size() - frame));
}

// A window of its own closes with the platform's Close keys (Ctrl+W), as a document window does.
inline void closesWithTheCloseKeys(QWidget* window) {
    auto* close = new QAction(QObject::tr("Close"), window);
    close->setShortcut(QKeySequence::Close);
    close->setShortcutContext(Qt::WindowShortcut);
    QObject::connect(close, &QAction::triggered, window, &QWidget::close);
    window->addAction(close);
}

} // namespace attnscope::ui
