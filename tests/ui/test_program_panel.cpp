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
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>

#include <filesystem>

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

TEST(ProgramPanel, StopEndsTheProgramAndKeepsItsSteps) {
    ASSERT_TRUE(std::filesystem::exists(kPython));
    MainWindow w;
    auto* controller = w.findChild<ProfileController*>();
    QSignalSpy snapshots(controller, &ProfileController::snapshot);
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
    const QString state = w.programPanel()->findChild<QLabel*>("programState")->text();
    EXPECT_TRUE(state.contains("KeyboardInterrupt")) << state.toStdString(); // its last words
}

TEST(ProgramPanel, AProgramThatFailsOrProfilesNothingIsReported) {
    ASSERT_TRUE(std::filesystem::exists(kPython));
    for (const auto& [command, said] :
         {std::pair{std::vector<std::string>{kPython, kTrainLoop, "--iters", "3", "--exit", "3"},
                    "exited with status 3"},
          std::pair{std::vector<std::string>{"/bin/echo", "hi"}, "did not run Python"}}) {
        MainWindow w;
        auto* controller = w.findChild<ProfileController*>();
        QSignalSpy failed(controller, &ProfileController::failed);
        QSignalSpy finished(&w, &MainWindow::profileFinished);
        kernels::ProfileConfig config;
        config.command = command;
        w.startProfile(config);
        ASSERT_TRUE(waitWhile([&] { return finished.count() == 0; }, 120000));
        ASSERT_EQ(failed.count(), 1) << said;
        EXPECT_TRUE(failed.first().at(0).toString().contains(said))
            << failed.first().at(0).toString().toStdString();
    }
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
    QSignalSpy finished(&w, &MainWindow::profileFinished);
    kernels::ProfileConfig config;
    config.command = {"attnscope-no-such-program"};
    w.startProfile(config);
    ASSERT_TRUE(waitWhile([&] { return finished.count() == 0; }, 60000));
    const QString state = w.programPanel()->findChild<QLabel*>("programState")->text();
    EXPECT_EQ(state, "Could not start: 'attnscope-no-such-program': command not found");
    EXPECT_FALSE(w.document());
}

} // namespace
