// SPDX-License-Identifier: MIT
#pragma once

#include <QMenu>

namespace attnscope::ui {

// File → Open Recent: the last ten files opened, newest first, kept in the settings.
class RecentFilesMenu : public QMenu {
    Q_OBJECT
public:
    explicit RecentFilesMenu(QWidget* parent = nullptr);
    void remember(const QString& path);

Q_SIGNALS:
    void openRequested(const QString& path);

private:
    void rebuild();
};

} // namespace attnscope::ui
