// SPDX-License-Identifier: MIT
#include "file_dialogs.h"

#include "trace_header.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace attnscope::ui {

QStringList askTracePaths(QWidget* parent, const QString& title, bool several) {
    QSettings settings;
    const QString dir = settings.value("lastOpenDir").toString();
    const QString filter = traceFileFilter();
    const QStringList paths = several ? QFileDialog::getOpenFileNames(parent, title, dir, filter)
                                      : QStringList{QFileDialog::getOpenFileName(parent, title, dir, filter)};
    if (paths.isEmpty() || paths.front().isEmpty()) return {};
    settings.setValue("lastOpenDir", QFileInfo(paths.front()).absolutePath());
    return paths;
}

QString askSavePath(QWidget* parent, const QString& title, const QString& suggestedName,
                    const QString& filter) {
    QSettings settings;
    const QString path = QFileDialog::getSaveFileName(
        parent, title, QDir(settings.value("lastExportDir").toString()).filePath(suggestedName), filter);
    if (!path.isEmpty()) settings.setValue("lastExportDir", QFileInfo(path).absolutePath());
    return path;
}

} // namespace attnscope::ui
