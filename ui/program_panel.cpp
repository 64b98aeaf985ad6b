// SPDX-License-Identifier: MIT
#include "program_panel.h"

#include "qt_text.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace attnscope::ui {

namespace {

using Steps = kernels::ProfileSchedule::Steps;

QSpinBox* steps(QWidget* parent, int lo, const QString& tip) {
    auto* s = new QSpinBox(parent);
    s->setRange(lo, 1000000);
    s->setToolTip(tip);
    return s;
}

QDoubleSpinBox* seconds(QWidget* parent, double lo, const QString& special, const QString& tip) {
    auto* s = new QDoubleSpinBox(parent);
    s->setRange(lo, 1e6);
    s->setDecimals(2);
    s->setSuffix(QStringLiteral(" s"));
    s->setSpecialValueText(special);
    s->setToolTip(tip);
    return s;
}

// A command line split as a POSIX shell splits words: 'single' and "double" quotes, backslash escapes
// (outside quotes, and before " \\ $ ` inside double ones). False when a quote is not closed.
bool splitCommandLine(const QString& line, QStringList& words) {
    QString word;
    bool inWord = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (c == '\'') {
            const qsizetype close = line.indexOf('\'', i + 1);
            if (close < 0) return false;
            word += line.mid(i + 1, close - i - 1);
            inWord = true;
            i = close;
        } else if (c == '"') {
            qsizetype j = i + 1;
            for (; j < line.size() && line[j] != '"'; ++j) {
                if (line[j] == '\\' && j + 1 < line.size() && QStringLiteral("\"\\$`").contains(line[j + 1]))
                    ++j;
                word += line[j];
            }
            if (j >= line.size()) return false;
            inWord = true;
            i = j;
        } else if (c == '\\' && i + 1 < line.size()) {
            word += line[++i];
            inWord = true;
        } else if (c.isSpace()) {
            if (inWord) words << word;
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord) words << word;
    return true;
}

constexpr int kOutputLines = 5000;

} // namespace

ProgramPanel::ProgramPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Your own Python program with PyTorch, profiled with no change to its code: "
                                "each finished step opens here as it is written."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    m_command = new QLineEdit(this);
    m_command->setObjectName("programCommand");
    m_command->setPlaceholderText(tr("python train.py --epochs 1"));
    m_command->setToolTip(
        tr("The command line, as a shell splits it (torchrun … works: each worker is a rank)"));
    form->addRow(tr("Command"), m_command);
    // What to press and how it went, before the settings: in a short dock they are what is in view.
    auto* buttons = new QHBoxLayout;
    m_profile = new QPushButton(tr("Profile"), this);
    m_profile->setObjectName("programProfile");
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setObjectName("programStop");
    m_stop->setToolTip(tr("Ends the program (as Ctrl+C) and keeps the steps recorded so far"));
    m_stop->setEnabled(false);
    buttons->addWidget(m_profile);
    buttons->addWidget(m_stop);
    buttons->addStretch(1);
    form->addRow(buttons);
    m_state = new QLabel(this);
    m_state->setObjectName("programState");
    m_state->setWordWrap(true);
    m_state->setTextFormat(Qt::PlainText);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long word (a path) wraps nowhere: it is cut at the panel's edge rather than widening the window.
    m_state->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);
    form->addRow(m_state);
    auto* folderRow = new QHBoxLayout;
    m_folder = new QLineEdit(this);
    m_folder->setObjectName("programFolder");
    m_folder->setPlaceholderText(tr("(AttnScope's own)"));
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Working Folder"), m_folder->text());
        if (!dir.isEmpty()) m_folder->setText(dir);
    });
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    form->addRow(tr("Working folder"), folderRow);
    m_environment = new QPlainTextEdit(this);
    m_environment->setObjectName("programEnvironment");
    m_environment->setPlaceholderText(tr("NAME=value, one a line (over AttnScope's environment)"));
    m_environment->setMaximumHeight(m_environment->fontMetrics().lineSpacing() * 4 + 12);
    form->addRow(tr("Environment"), m_environment);
    m_steps = new QComboBox(this);
    m_steps->setObjectName("programSteps");
    m_steps->addItem(tr("auto: optimizer steps, time before the first"), int(Steps::Auto));
    m_steps->addItem(tr("the program's optimizer steps"), int(Steps::Optimizer));
    m_steps->addItem(tr("slices of time"), int(Steps::Time));
    form->addRow(tr("A step is"), m_steps);
    auto* schedule = new QGridLayout; // two a row: the panel stays narrow enough to share the window
    m_wait = steps(this, 0, tr("Optimizer steps skipped at the start of each cycle"));
    m_warmup = steps(this, 0, tr("Optimizer steps the profiler warms up on, not recorded"));
    m_active = steps(this, 1, tr("Optimizer steps recorded per cycle, each opened as it ends"));
    m_repeat = steps(this, 0, tr("Cycles (0: as long as the program runs)"));
    m_repeat->setSpecialValueText(tr("no end"));
    int at = 0;
    for (auto [label, box] : {std::pair{tr("wait"), m_wait},
                              {tr("warm-up"), m_warmup},
                              {tr("active"), m_active},
                              {tr("repeat"), m_repeat}}) {
        schedule->addWidget(new QLabel(label, this), at / 2, (at % 2) * 2);
        schedule->addWidget(box, at / 2, (at % 2) * 2 + 1);
        ++at;
    }
    form->addRow(tr("Schedule"), schedule);
    m_slice = seconds(this, 0.05, QString(), tr("How long a time step lasts"));
    m_slice->setObjectName("programSlice");
    form->addRow(tr("Time step"), m_slice);
    m_delay = seconds(this, 0, tr("none"), tr("Seconds from the program's start before recording"));
    form->addRow(tr("Delay"), m_delay);
    m_duration = seconds(this, 0, tr("until the program ends"), tr("Seconds of recording at most"));
    form->addRow(tr("Duration"), m_duration);
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("The program's output"), this));
    m_output = new QPlainTextEdit(this);
    m_output->setObjectName("programOutput");
    m_output->setReadOnly(true);
    m_output->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_output->setMaximumBlockCount(kOutputLines);
    m_output->setFont(QFont(QStringLiteral("monospace")));
    m_output->setMinimumHeight(m_output->fontMetrics().lineSpacing() * 8); // a traceback's end, in view
    layout->addWidget(m_output, 1);
    connect(m_steps, &QComboBox::currentIndexChanged, this, &ProgramPanel::stepsChanged);
    connect(m_profile, &QPushButton::clicked, this, [this] {
        save();
        Q_EMIT profileRequested();
    });
    connect(m_command, &QLineEdit::returnPressed, m_profile, &QPushButton::click);
    connect(m_stop, &QPushButton::clicked, this, &ProgramPanel::stopRequested);
    restore();
}

kernels::ProfileConfig ProgramPanel::config(QString* problem) const {
    kernels::ProfileConfig c;
    auto fail = [&](const QString& why) {
        if (problem) *problem = why;
        return c;
    };
    const QString line = m_command->text().trimmed();
    if (line.isEmpty()) return fail(tr("Which program? Enter its command line, e.g. python train.py"));
    QStringList words;
    if (!splitCommandLine(line, words)) return fail(tr("The command line has a quote that is not closed"));
    for (const QString& arg : words)
        c.command.push_back(arg.toStdString());
    c.folder = m_folder->text().trimmed().toStdString();
    const QStringList env = m_environment->toPlainText().split('\n');
    for (const QString& raw : env) {
        const QString entry = raw.trimmed();
        if (entry.isEmpty() || entry.startsWith('#')) continue;
        const qsizetype eq = entry.indexOf('=');
        if (eq <= 0) return fail(tr("The environment's line '%1' is not NAME=value").arg(entry));
        c.environment.emplace_back(entry.left(eq).toStdString(), entry.mid(eq + 1).toStdString());
    }
    kernels::ProfileSchedule& s = c.schedule;
    s.steps = Steps(m_steps->currentData().toInt());
    s.wait = m_wait->value();
    s.warmup = m_warmup->value();
    s.active = m_active->value();
    s.repeat = m_repeat->value();
    s.slice = m_slice->value();
    s.delay = m_delay->value();
    s.duration = m_duration->value();
    c.captureOutput = true;
    if (problem) problem->clear();
    return c;
}

void ProgramPanel::setConfig(const kernels::ProfileConfig& c) {
    QStringList args;
    for (const std::string& a : c.command) {
        QString arg = qs(a);
        const bool plain =
            !arg.isEmpty() && !arg.contains(QRegularExpression(QStringLiteral("[\\s'\"\\\\$`]")));
        args << (plain ? arg : "'" + arg.replace('\'', QStringLiteral("'\\''")) + "'");
    }
    m_command->setText(args.join(' '));
    m_folder->setText(qs(c.folder));
    QStringList env;
    for (const auto& [name, value] : c.environment)
        env << qs(name) + '=' + qs(value);
    m_environment->setPlainText(env.join('\n'));
    m_steps->setCurrentIndex(m_steps->findData(int(c.schedule.steps)));
    m_wait->setValue(c.schedule.wait);
    m_warmup->setValue(c.schedule.warmup);
    m_active->setValue(c.schedule.active);
    m_repeat->setValue(c.schedule.repeat);
    m_slice->setValue(c.schedule.slice);
    m_delay->setValue(c.schedule.delay);
    m_duration->setValue(c.schedule.duration);
    stepsChanged();
}

void ProgramPanel::stepsChanged() {
    const bool optimizer = Steps(m_steps->currentData().toInt()) != Steps::Time;
    for (QWidget* w : {static_cast<QWidget*>(m_wait), static_cast<QWidget*>(m_warmup),
                       static_cast<QWidget*>(m_active), static_cast<QWidget*>(m_repeat)})
        w->setEnabled(optimizer);
    m_slice->setEnabled(Steps(m_steps->currentData().toInt()) != Steps::Optimizer);
}

void ProgramPanel::setRunning(bool running) {
    m_profile->setEnabled(!running);
    m_stop->setEnabled(running);
}

void ProgramPanel::setState(const QString& text) {
    m_state->setText(text);
}

void ProgramPanel::appendOutput(const QStringList& lines) {
    for (const QString& line : lines)
        m_output->appendPlainText(line);
}

void ProgramPanel::showOutputEnd() {
    m_output->moveCursor(QTextCursor::End);
    m_output->ensureCursorVisible();
}

void ProgramPanel::clearOutput() {
    m_output->clear();
}

QString ProgramPanel::output() const {
    return m_output->toPlainText();
}

void ProgramPanel::focusCommand() {
    m_command->setFocus();
    m_command->selectAll();
}

void ProgramPanel::save() const {
    QString problem;
    const kernels::ProfileConfig c = config(&problem);
    QSettings s;
    s.setValue("program/command", m_command->text());
    s.setValue("program/folder", m_folder->text());
    s.setValue("program/environment", m_environment->toPlainText());
    s.setValue("program/steps", int(c.schedule.steps));
    s.setValue("program/wait", c.schedule.wait);
    s.setValue("program/warmup", c.schedule.warmup);
    s.setValue("program/active", c.schedule.active);
    s.setValue("program/repeat", c.schedule.repeat);
    s.setValue("program/slice", c.schedule.slice);
    s.setValue("program/delay", c.schedule.delay);
    s.setValue("program/duration", c.schedule.duration);
}

void ProgramPanel::restore() {
    const kernels::ProfileSchedule d;
    QSettings s;
    m_command->setText(s.value("program/command").toString());
    m_folder->setText(s.value("program/folder").toString());
    m_environment->setPlainText(s.value("program/environment").toString());
    m_steps->setCurrentIndex(std::max(0, m_steps->findData(s.value("program/steps", int(d.steps)).toInt())));
    m_wait->setValue(s.value("program/wait", d.wait).toInt());
    m_warmup->setValue(s.value("program/warmup", d.warmup).toInt());
    m_active->setValue(s.value("program/active", d.active).toInt());
    m_repeat->setValue(s.value("program/repeat", d.repeat).toInt());
    m_slice->setValue(s.value("program/slice", d.slice).toDouble());
    m_delay->setValue(s.value("program/delay", d.delay).toDouble());
    m_duration->setValue(s.value("program/duration", d.duration).toDouble());
    stepsChanged();
}

} // namespace attnscope::ui
