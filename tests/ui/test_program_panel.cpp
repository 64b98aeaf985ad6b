// SPDX-License-Identifier: MIT
// A user's own program profiled from the Program panel, as a user does it: its steps open while it
// runs, each with its attention calls, its output shows in the panel, and what cannot run says why.
#include "support/test_support.h"
#include "ui/attention_panel.h"
#include "ui/main_window.h"
#include "ui/profile_controller.h"
#include "ui/program_panel.h"
#include "ui/ui_test_support.h"

#include "core/analysis/analysis.h"
#include "core/document/document.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>

#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

const std::string kPython = ATTNSCOPE_TORCH_PYTHON;
const std::string kTrainLoop = ATTNSCOPE_SOURCE_DIR "/tests/app/programs/train_loop.py";

TEST(ProgramPanel, TheFieldsMakeTheConfigurationOrSayWhatIsWrong) {
    ProgramPanel panel;
    auto* command = panel.findChild<QLineEdit*>("programCommand");
    auto* env = panel.findChild<QPlainTextEdit*>("programEnvironment");
    ASSERT_TRUE(command && env);
    QString problem;
    command->setText("python 'my script.py' --lr \"1e-3\" a\\ b \"x\\\"y\" it's'ok");
    env->setPlainText("OMP_NUM_THREADS=1\n# a comment\n\nHF_HOME=/tmp/h=f");
    kernels::ProfileConfig c = panel.config(&problem);
    EXPECT_EQ(problem, "");
    EXPECT_EQ(c.command,
              (std::vector<std::string>{"python", "my script.py", "--lr", "1e-3", "a b", "x\"y", "itsok"}));
    ASSERT_EQ(c.environment.size(), 2u);
    EXPECT_EQ(c.environment[1], (std::pair<std::string, std::string>{"HF_HOME", "/tmp/h=f"}));
    EXPECT_TRUE(c.captureOutput);
    // The panel shows a configuration as it was given, and gives it back the same.
    panel.setConfig(c);
    EXPECT_EQ(panel.config(&problem).command, c.command);
    env->setPlainText("NOT AN ASSIGNMENT");
    panel.config(&problem);
    EXPECT_EQ(problem, "The environment's line 'NOT AN ASSIGNMENT' is not NAME=value");
    env->clear();
    command->setText("python 'unclosed.py");
    panel.config(&problem);
    EXPECT_EQ(problem, "The command line has a quote that is not closed");
    command->clear();
    panel.config(&problem);
    EXPECT_TRUE(problem.startsWith("Which program?"));
}

TEST(ProgramPanel, StepsOpenWhileTheProgramRunsWithTheirAttentionCalls) {
    ASSERT_TRUE(std::filesystem::exists(kPython)) << "no Python with PyTorch at " << kPython;
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    auto* controller = w.findChild<ProfileController*>();
    ASSERT_TRUE(controller);
    QSignalSpy snapshots(controller, &ProfileController::snapshot);
    QSignalSpy finished(&w, &MainWindow::profileFinished);
    // The program trains until the window has shown two snapshots: they came while it ran.
    TempDir dir;
    kernels::ProfileConfig config;
    config.command = {kPython, kTrainLoop, "--gate", dir.path("gate")};
    config.schedule = {kernels::ProfileSchedule::Steps::Optimizer, 0, 0, 1, 0};
    w.startProfile(config);
    EXPECT_TRUE(w.profiling());
    ASSERT_TRUE(waitWhile([&] { return snapshots.count() < 2; }, 120000));
    EXPECT_TRUE(w.profiling());
    writeFile(dir.path("gate"), "");
    ASSERT_TRUE(waitWhile([&] { return finished.count() == 0; }, 120000));
    // Every optimizer step after the first is a step of its own; the window took several snapshots
    // while the program ran, each a document with its analysis.
    ASSERT_GE(snapshots.count(), 2);
    EXPECT_TRUE(snapshots.first().at(1).toBool());
    EXPECT_FALSE(snapshots.last().at(1).toBool());
    const auto doc = snapshots.last().at(0).value<std::shared_ptr<const Document>>();
    ASSERT_TRUE(doc && doc->analysis);
    EXPECT_EQ(w.document(), doc);
    std::size_t naive = 0;
    for (const AttentionCall& c : doc->analysis->calls)
        naive += c.impl == "naive";
    EXPECT_GE(naive, 2u); // the loop's hand-written attention, once a forward pass
    // The Attention dock lists it, the panel shows the program's output and how it ended.
    QTableWidget* table = w.attention()->table();
    ASSERT_GE(table->rowCount(), 1);
    EXPECT_EQ(table->item(0, 0)->text(), "naive");
    const QString output = w.programPanel()->findChild<QPlainTextEdit*>("programOutput")->toPlainText();
    EXPECT_TRUE(output.contains("iter 0\niter 1\n")) << output.toStdString();
    EXPECT_TRUE(output.contains("done")) << output.toStdString();
    EXPECT_TRUE(w.windowTitle().contains("train_loop.py")) << w.windowTitle().toStdString();
    EXPECT_FALSE(w.profiling());
}

// The window fits the screen it is on: a traceback or a long path in the panel never grows it past it.
void expectFitsTheScreen(const MainWindow& w) {
    const QRect available = w.screen()->availableGeometry();
    EXPECT_TRUE(available.contains(w.frameGeometry()))
        << w.x() << "," << w.y() << " " << w.width() << "x" << w.height() << " on " << available.x() << ","
        << available.y() << " " << available.width() << "x" << available.height();
}

TEST(ProgramPanel, StopEndsTheProgramAndKeepsItsSteps) {
    ASSERT_TRUE(std::filesystem::exists(kPython));
    MainWindow w;
    w.show();
    auto* controller = w.findChild<ProfileController*>();
    QSignalSpy snapshots(controller, &ProfileController::snapshot);
    QSignalSpy failed(controller, &ProfileController::failed);
    QSignalSpy finished(&w, &MainWindow::profileFinished);
    kernels::ProfileConfig config;
    config.command = {kPython, kTrainLoop, "--forever"};
    config.schedule = {kernels::ProfileSchedule::Steps::Optimizer, 0, 0, 1, 0};
    w.startProfile(config);
    ASSERT_TRUE(waitWhile([&] { return snapshots.count() < 2; }, 120000));
    w.findChild<QPushButton*>("programStop")->click();
    ASSERT_TRUE(waitWhile([&] { return finished.count() == 0; }, 30000));
    ASSERT_TRUE(w.document());
    EXPECT_GE(w.document()->trace->eventCount(), 100u);
    // A stop is the user's: said as one line, no dialog; the traceback it caused is in the output.
    EXPECT_EQ(failed.count(), 0);
    const QString state = w.programPanel()->findChild<QLabel*>("programState")->text();
    const QString outcome = state.section('\n', 0, 0); // first, before what the profiler said on the way
    EXPECT_TRUE(outcome.startsWith("Stopped python train_loop.py --forever after ") &&
                outcome.endsWith("; kept"))
        << state.toStdString();
    EXPECT_FALSE(state.contains("KeyboardInterrupt")) << state.toStdString(); // in the output, not here
    EXPECT_TRUE(w.programPanel()->output().contains("KeyboardInterrupt"));
    expectFitsTheScreen(w);
}

// However a started program ends — an exit status it chose, an exception, a crash, Ctrl+C in its terminal —
// the window says how in one status line, keeps the steps, shows no dialog and stays on the screen.
TEST(ProgramPanel, HoweverAProgramEndsItIsAStatusLineAndNoDialog) {
    ASSERT_TRUE(std::filesystem::exists(kPython));
    struct Case {
        std::vector<std::string> args;
        QString said;
        bool traceback;
    };
    for (const Case& c : {Case{{"--exit", "3"}, " exited with status 3 after ", false},
                          Case{{"--crash", "3"}, " exited with status 1 after ", true},
                          Case{{"--segfault", "3"}, " was killed by SIGSEGV", false},
                          Case{{"--interrupt", "3"}, " was killed by SIGINT", true}}) {
        MainWindow w;
        w.show();
        auto* controller = w.findChild<ProfileController*>();
        QSignalSpy failed(controller, &ProfileController::failed);
        QSignalSpy status(controller, &ProfileController::status);
        QSignalSpy finished(&w, &MainWindow::profileFinished);
        kernels::ProfileConfig config;
        config.command = {kPython, kTrainLoop, "--iters", "4"};
        config.command.insert(config.command.end(), c.args.begin(), c.args.end());
        config.schedule = {kernels::ProfileSchedule::Steps::Optimizer, 0, 0, 1, 0};
        w.startProfile(config);
        ASSERT_TRUE(waitWhile([&] { return finished.count() == 0; }, 120000)) << c.said.toStdString();
        EXPECT_EQ(failed.count(), 0) << c.said.toStdString();
        ASSERT_GE(status.count(), 1);
        const QString last = status.last().at(0).toString();
        EXPECT_TRUE(last.startsWith("python train_loop.py") && last.contains(c.said) &&
                    last.endsWith("; kept"))
            << last.toStdString();
        EXPECT_TRUE(w.document()) << c.said.toStdString(); // the steps before the end are kept
        const QString state = w.programPanel()->findChild<QLabel*>("programState")->text();
        EXPECT_TRUE(state.startsWith(last)) << state.toStdString();
        if (c.traceback) {
            EXPECT_TRUE(state.contains("last words are at the end of the output")) << state.toStdString();
            EXPECT_TRUE(w.programPanel()->output().contains("Traceback")) << c.said.toStdString();
        }
        expectFitsTheScreen(w);
    }
}

// Profiles `command` in the window to its end: the Program panel's state, and how many dialogs it raised
// (ProfileController::failed), or nullopt when it did not end in time.
struct Ended {
    QString state;
    qsizetype failed = 0;
};
std::optional<Ended> profileToTheEnd(MainWindow& w, std::vector<std::string> command, int timeoutMs) {
    QSignalSpy failed(w.findChild<ProfileController*>(), &ProfileController::failed);
    QSignalSpy finished(&w, &MainWindow::profileFinished);
    kernels::ProfileConfig config;
    config.command = std::move(command);
    w.startProfile(config);
    if (!waitWhile([&] { return finished.count() == 0; }, timeoutMs)) return std::nullopt;
    return Ended{w.programPanel()->findChild<QLabel*>("programState")->text(), failed.count()};
}

TEST(ProgramPanel, AProgramThatProfilesNothingSaysWhy) {
    MainWindow w;
    const std::optional<Ended> ended = profileToTheEnd(w, {"/bin/echo", "hi"}, 120000);
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->failed, 0);
    const QString& state = ended->state;
    EXPECT_TRUE(state.startsWith("echo hi finished: 0 steps recorded")) << state.toStdString();
    EXPECT_TRUE(state.contains("did not run Python")) << state.toStdString();
    EXPECT_FALSE(w.document());
}

TEST(ProgramPanel, TheSettingsAreKeptAndTheFieldsFollowWhatAStepIs) {
    kernels::ProfileConfig config;
    config.command = {"python", "train.py"};
    config.folder = "/tmp";
    config.environment = {{"A", "1"}};
    config.schedule = {kernels::ProfileSchedule::Steps::Time, 2, 3, 4, 5, 0.5, 1.5, 30};
    {
        ProgramPanel panel;
        panel.setConfig(config);
        panel.findChild<QPushButton*>("programProfile")->click(); // saves, then asks for the profile
    }
    ProgramPanel again;
    const kernels::ProfileConfig kept = again.config();
    EXPECT_EQ(kept.command, config.command);
    EXPECT_EQ(kept.folder, "/tmp");
    EXPECT_EQ(kept.environment, config.environment);
    const kernels::ProfileSchedule& s = kept.schedule;
    EXPECT_EQ(s.steps, kernels::ProfileSchedule::Steps::Time);
    EXPECT_EQ(std::vector<int>({s.wait, s.warmup, s.active, s.repeat}), std::vector<int>({2, 3, 4, 5}));
    EXPECT_EQ(std::vector<double>({s.slice, s.delay, s.duration}), std::vector<double>({0.5, 1.5, 30}));
    // Slices of time: the optimizer's schedule does not apply; optimizer steps: the slice does not.
    auto* steps = again.findChild<QComboBox*>("programSteps");
    auto enabled = [&](const char* label) {
        for (QSpinBox* box : again.findChildren<QSpinBox*>())
            if (box->toolTip().contains(label)) return box->isEnabled();
        ADD_FAILURE() << label;
        return false;
    };
    auto* slice = again.findChild<QDoubleSpinBox*>("programSlice");
    ASSERT_TRUE(steps && slice);
    EXPECT_FALSE(enabled("skipped"));
    EXPECT_TRUE(slice->isEnabled());
    steps->setCurrentIndex(steps->findData(int(kernels::ProfileSchedule::Steps::Optimizer)));
    EXPECT_TRUE(enabled("skipped"));
    EXPECT_TRUE(enabled("recorded per cycle"));
    EXPECT_FALSE(slice->isEnabled());
    steps->setCurrentIndex(steps->findData(int(kernels::ProfileSchedule::Steps::Auto)));
    EXPECT_TRUE(enabled("Cycles"));
    EXPECT_TRUE(slice->isEnabled());
}

TEST(ProgramPanel, AProgramThatCannotStartSaysWhy) {
    MainWindow w;
    const std::optional<Ended> ended = profileToTheEnd(w, {"attnscope-no-such-program"}, 60000);
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->state, "Could not start: 'attnscope-no-such-program': command not found");
    EXPECT_EQ(ended->failed, 1); // the one outcome that is the window's to report
    EXPECT_FALSE(w.document());
}

// A geometry saved on a larger screen (or by a window that had grown) is not restored: the window opens
// on the screen, its status bar and tabs in view.
TEST(ProgramPanel, ASavedGeometryThatDoesNotFitTheScreenIsNotRestored) {
    {
        MainWindow big;
        const QRect available = big.screen()->availableGeometry();
        big.setGeometry(available.x(), available.y(), available.width() + 200, available.height() + 300);
        big.show();
        big.close(); // saves the layout as the user's quit does
    }
    MainWindow again;
    expectFitsTheScreen(again);
}

// A window closed and opened again comes back where it was, not a title bar's height lower each start.
TEST(ProgramPanel, TheWindowReopensWhereItWasClosed) {
    QSettings().clear(); // a first start, where the window is put at the screen's corner
    QRect closedAt;
    for (int start = 0; start < 4; ++start) {
        MainWindow w;
        w.show();
        QApplication::processEvents();
        if (start == 0) closedAt = w.geometry();
        if (start == 2) { // moved by the user
            w.move(w.pos() + QPoint(30, 40));
            QApplication::processEvents();
            closedAt = w.geometry();
        } else {
            EXPECT_EQ(w.geometry(), closedAt) << "start " << start;
        }
        w.close();
    }
}

// However its docks are arranged by default, the window can be made small enough for a laptop's screen.
TEST(ProgramPanel, TheWindowFitsALaptopScreen) {
    const QList<QScreen*> screens = QGuiApplication::screens();
    const auto laptop = std::find_if(screens.begin(), screens.end(),
                                     [](const QScreen* s) { return s->size() == QSize(1366, 768); });
    ASSERT_NE(laptop, screens.end()) << "the tests' offscreen screens are a desktop and a laptop";
    MainWindow w;
    w.show();
    const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
    EXPECT_LE(least.width(), 1366);
    EXPECT_LE(least.height(), 768 - 40) << "and room for a panel or title bar";
    // A first start there (nothing saved) opens within it, not at the desktop's default size.
    w.setScreen(*laptop);
    w.restoreFittingGeometry({});
    expectFitsTheScreen(w);
}

} // namespace
