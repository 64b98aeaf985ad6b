// SPDX-License-Identifier: MIT
#include "file_dialogs.h"

#include "trace_header.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QSaveFile>
#include <QScreen>
#include <QSettings>
#include <QTreeView>

#include <algorithm>

namespace attnscope::ui {

void fitFileDialog(QFileDialog& dialog) {
    // Qt's own dialog opens about 600 px wide, its Name column a third of that: trace names such as
    // "h100_sdpa_flash_qwen.json.gz" and "nsys_2025_pytorch_h200.sqlite" read "h100_sdpa_…". Three
    // quarters of the screen, up to 1100 × 700, the names' column what the others leave. (A desktop's own
    // dialog, where Qt uses one, sizes itself.)
    const QScreen* screen = dialog.screen();
    const QRect room = screen ? screen->availableGeometry() : QRect(0, 0, 1366, 768);
    dialog.resize(std::min(1100, room.width() * 3 / 4), std::min(700, room.height() * 3 / 4));
    // Size, type and date as wide as what they hold, the names the rest.
    if (auto* files = dialog.findChild<QTreeView*>(QStringLiteral("treeView"))) {
        QHeaderView* header = files->header();
        header->setStretchLastSection(false);
        header->setSectionResizeMode(0, QHeaderView::Stretch);
        for (int column = 1; column < header->count(); ++column)
            header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
}

QStringList askTracePaths(QWidget* parent, const QString& title, bool several) {
    QSettings settings;
    QFileDialog dialog(parent, title, settings.value("lastOpenDir").toString(), traceFileFilter());
    dialog.setFileMode(several ? QFileDialog::ExistingFiles : QFileDialog::ExistingFile);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    fitFileDialog(dialog);
    if (dialog.exec() != QDialog::Accepted) return {};
    const QStringList paths = dialog.selectedFiles();
    if (paths.isEmpty() || paths.front().isEmpty()) return {};
    settings.setValue("lastOpenDir", QFileInfo(paths.front()).absolutePath());
    return paths;
}

QString askSavePath(QWidget* parent, const QString& title, const QString& suggestedName,
                    const QString& filter) {
    QSettings settings;
    QFileDialog dialog(parent, title,
                       QDir(settings.value("lastExportDir").toString()).filePath(suggestedName), filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    fitFileDialog(dialog);
    if (dialog.exec() != QDialog::Accepted) return {};
    const QString path = dialog.selectedFiles().value(0);
    if (!path.isEmpty()) settings.setValue("lastExportDir", QFileInfo(path).absolutePath());
    return path;
}

QString saveText(const QString& path, const std::string& text) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(text.data(), qint64(text.size())) != qint64(text.size()) || !file.commit())
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

} // namespace attnscope::ui
