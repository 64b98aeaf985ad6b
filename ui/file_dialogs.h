// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

#include <string>

class QFileDialog;
class QWidget;

namespace attnscope::ui {

// Sizes Qt's own file dialog to the screen, its names' column wide enough for a trace's name.
void fitFileDialog(QFileDialog& dialog);

// Asks for trace files (several: the ranks of one job, the variants to compare), starting in the folder
// last opened from in any window, and remembers the folder. Empty when the user cancelled.
QStringList askTracePaths(QWidget* parent, const QString& title, bool several);

// Asks where to save, starting in the folder last exported to from any window (the main window's
// exports, Compare Variants' table and chart), and remembers the folder. Empty when the user cancelled.
QString askSavePath(QWidget* parent, const QString& title, const QString& suggestedName,
                    const QString& filter);

// Writes text (a table, a report) to path through a temporary file renamed over it, so the file is whole
// or as it was: "" when written, else "cannot write PATH: why".
QString saveText(const QString& path, const std::string& text);

} // namespace attnscope::ui
