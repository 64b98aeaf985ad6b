// SPDX-License-Identifier: MIT
// A run from the Run panel, as a user starts it: kernels appear while it runs, Stop ends it, the
// finished run is a trace like a loaded one, and what cannot run says why.
#include "support/test_support.h"
#include "ui/kernel_table_model.h"
#include "ui/run_panel.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include "core/report/summary.h"
#include "core/io/trace_loader.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

QPushButton* button(RunPanel* panel, const QString& text) {
    for (QPushButton* b : panel->findChildren<QPushButton*>())
        if (b->text() == text) return b;
    return nullptr;
}

kernels::RunConfig smallRun(int iters) {
    kernels::RunConfig c;
    c.shape = {1, 4, 384, 32, false, Precision::F32};
    c.warmup = 0;
    c.iters = iters;
    return c;
}

} // namespace

TEST(RunPanel, KernelsArriveWhileItRunsAndTheRunIsATrace) {
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.runPanel()->setConfig(smallRun(6));
    button(w.runPanel(), "Run")->click();
    if (auto* box = w.findChild<QMessageBox*>()) ADD_FAILURE() << box->text().toStdString();
    ASSERT_TRUE(w.running());
    QElapsedTimer timer;
    timer.start();
    bool seenWhileRunning = false;
    while (w.running() && timer.elapsed() < 60000) {
        QApplication::processEvents(QEventLoop::AllEvents, 10);
        if (w.running() && w.trace() && w.trace()->eventCount() > 0) seenWhileRunning = true;
    }
    QApplication::processEvents(QEventLoop::AllEvents, 100); // the last batch
    ASSERT_FALSE(w.running());
    EXPECT_TRUE(seenWhileRunning) << "the timeline showed kernels before the run ended";
    ASSERT_TRUE(w.trace());
    const TraceSummary s = summarize(*w.trace(), 0);
    // 6 calls of naive (3 kernels) and flash (1), each split over the workers.
    EXPECT_EQ(s.topKernels.size(), 4u);
    std::uint64_t flash = 0;
    for (const KernelStats& k : s.topKernels)
        if (k.name == "flash_attention_fwd") flash = k.count;
    EXPECT_GE(flash, 6u);
    EXPECT_EQ(w.kernelModel()->rowCount(), 4);
    EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("Run finished"))
        << w.statusBar()->currentMessage().toStdString();
    // Saved, it reads back the same.
    TempDir dir;
    ASSERT_EQ(w.saveTrace(QString::fromStdString(dir.path("run.json.gz"))), "");
    const auto again = loadTraceFile(dir.path("run.json.gz"));
    EXPECT_EQ(summarize(*again, 0).kernelCount, s.kernelCount);
}

TEST(RunPanel, StopEndsTheRunWithinASecond) {
    MainWindow w;
    w.show();
    w.runPanel()->setConfig(smallRun(10000));
    button(w.runPanel(), "Run")->click();
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 300)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    ASSERT_TRUE(w.running());
    timer.restart();
    button(w.runPanel(), "Stop")->click();
    while (w.running() && timer.elapsed() < 5000)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    EXPECT_FALSE(w.running());
    EXPECT_LT(timer.elapsed(), 1000);
    QApplication::processEvents(QEventLoop::AllEvents, 100);
    EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("Run stopped"))
        << w.statusBar()->currentMessage().toStdString();
    EXPECT_TRUE(button(w.runPanel(), "Run")->isEnabled());
}

TEST(RunPanel, WhatCannotRunSaysWhy) {
    MainWindow w;
    w.show();
    kernels::RunConfig none = smallRun(1);
    none.impls.clear();
    w.runPanel()->setConfig(none);
    button(w.runPanel(), "Run")->click();
    EXPECT_FALSE(w.running());
    auto* box = w.findChild<QMessageBox*>();
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->text().contains("no implementation")) << box->text().toStdString();
    box->close();
    QApplication::processEvents();

    w.runPanel()->setConfig(smallRun(1));
    w.runPanel()->findChild<QComboBox*>()->setCurrentIndex(2); // CUDA
    button(w.runPanel(), "Run")->click();
    EXPECT_FALSE(w.running());
    bool said = false;
    for (QMessageBox* b : w.findChildren<QMessageBox*>())
        said = said || b->text().startsWith("no CUDA");
    EXPECT_TRUE(said);
}

// The Run panel offers exactly the shapes the command line's `run` takes: one set of limits.
TEST(RunPanel, ItsRangesAreTheRunLimits) {
    RunPanel panel;
    const QList<QSpinBox*> spins = panel.findChildren<QSpinBox*>();
    ASSERT_EQ(spins.size(), 6);
    const kernels::RunLimit expected[] = {kernels::limits::kBatch,  kernels::limits::kHeads,
                                          kernels::limits::kSeq,    kernels::limits::kDim,
                                          kernels::limits::kWarmup, kernels::limits::kIters};
    for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(spins[i]->minimum(), expected[i].lo) << i;
        EXPECT_EQ(spins[i]->maximum(), expected[i].hi) << i;
    }
}
