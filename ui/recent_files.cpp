// SPDX-License-Identifier: MIT
#include "recent_files.h"

#include <QSettings>

namespace attnscope::ui {

namespace {
constexpr int kMaxRecent = 10;
} // namespace

RecentFilesMenu::RecentFilesMenu(QWidget* parent) : QMenu(tr("Open &Recent"), parent) {
    rebuild();
}

void RecentFilesMenu::remember(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuild();
}

void RecentFilesMenu::rebuild() {
    clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& path : recent)
        addAction(path, this, [this, path] { Q_EMIT openRequested(path); });
    setEnabled(!recent.isEmpty());
}

} // namespace attnscope::ui
