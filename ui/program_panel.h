// SPDX-License-Identifier: MIT
#pragma once

// moc (Qt 6.4) stops at C++20 standard headers it follows through this one; it needs none of them.
#ifndef Q_MOC_RUN
#include "kernels/program_profile.h"
#endif

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace attnscope::ui {

// The Program panel (File → Profile a Program…): the user's own program — its command line, working
// folder and environment — and what a step is (the program's optimizer steps, or slices of time, with
// torch.profiler.schedule's wait / warm-up / active / repeat), then Profile / Stop, what the profile is
// doing, and the program's output as it runs (its last lines: a crash's error stays on show). The last
// settings are kept (QSettings).
class ProgramPanel : public QWidget {
    Q_OBJECT
public:
    explicit ProgramPanel(QWidget* parent = nullptr);

    // The configuration the fields say, or the reason they do not make one (an empty command, a line
    // of the environment that is not NAME=value, an unbalanced quote).
    kernels::ProfileConfig config(QString* problem = nullptr) const;
    void setConfig(const kernels::ProfileConfig& config);
    void setRunning(bool running);
    void setState(const QString& text);
    // The program's output: lines added at the end, the oldest let go past a few thousand.
    void appendOutput(const QStringList& lines);
    void showOutputEnd(); // scrolled to its last line, where a traceback ends
    void clearOutput();
    QString output() const;
    void focusCommand();

Q_SIGNALS:
    void profileRequested();
    void stopRequested();

private:
    void save() const;
    void restore();
    void stepsChanged();

    QLineEdit* m_command = nullptr;
    QLineEdit* m_folder = nullptr;
    QPlainTextEdit* m_environment = nullptr;
    QComboBox* m_steps = nullptr;
    QSpinBox* m_wait = nullptr;
    QSpinBox* m_warmup = nullptr;
    QSpinBox* m_active = nullptr;
    QSpinBox* m_repeat = nullptr;
    QDoubleSpinBox* m_slice = nullptr;
    QDoubleSpinBox* m_delay = nullptr;
    QDoubleSpinBox* m_duration = nullptr;
    QPushButton* m_profile = nullptr;
    QPushButton* m_stop = nullptr;
    QLabel* m_state = nullptr;
    QPlainTextEdit* m_output = nullptr;
};

} // namespace attnscope::ui
