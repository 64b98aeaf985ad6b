// SPDX-License-Identifier: MIT
// The UI's one way to run background work: results on the UI thread, stale ones dropped.
#include "ui/job_runner.h"
#include "ui/ui_test_support.h"

#include <QApplication>
#include <QThread>

#include <gtest/gtest.h>

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <stdexcept>

using namespace attnscope::ui;
using namespace attnscope::test;

TEST(JobRunner, ANewerJobMakesTheOlderOneStale) {
    JobRunner runner;
    std::atomic<bool> release{false};
    std::vector<int> delivered;
    Qt::HANDLE deliveredOn = nullptr;
    // The first job is still working when the second starts: its result must not arrive after.
    runner.start<int>(
        "load",
        [&] {
            while (!release)
                QThread::msleep(1);
            return 1;
        },
        [&](int v) { delivered.push_back(v); });
    runner.start<int>(
        "load", [] { return 2; },
        [&](int v) {
            delivered.push_back(v);
            deliveredOn = QThread::currentThreadId();
        });
    EXPECT_TRUE(runner.running("load"));
    ASSERT_TRUE(waitUntil([&] { return !delivered.empty(); }, 10000));
    release = true;
    QThread::msleep(50);
    for (int i = 0; i < 20; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    EXPECT_EQ(delivered, std::vector<int>{2});
    EXPECT_EQ(deliveredOn, QThread::currentThreadId()) << "results arrive on the UI thread";
    EXPECT_FALSE(runner.running("load"));
}

TEST(JobRunner, KindsAreIndependentAndFailuresSayWhy) {
    JobRunner runner;
    int analysis = 0;
    QString failure;
    bool loadDone = false;
    runner.start<int>(
        "analysis", [] { return 7; }, [&](int v) { analysis = v; });
    runner.start<int>(
        "load", []() -> int { throw std::runtime_error("the file is not a trace"); },
        [&](int) { loadDone = true; }, [&](const QString& why) { failure = why; });
    ASSERT_TRUE(waitUntil([&] { return analysis == 7 && !failure.isEmpty(); }, 10000));
    EXPECT_EQ(failure, "the file is not a trace");
    EXPECT_FALSE(loadDone);
    // invalidate() drops what is under way.
    bool late = false;
    runner.start<int>(
        "analysis",
        [] {
            QThread::msleep(30);
            return 1;
        },
        [&](int) { late = true; });
    runner.invalidate("analysis");
    EXPECT_FALSE(runner.running("analysis"));
    QThread::msleep(60);
    for (int i = 0; i < 20; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    EXPECT_FALSE(late);
}

// A long job reports progress on the UI thread and stops when cancelled, saying so (the Cancel
// button of a load); a job the runner drops on destruction is cancelled too, so the window closes at once.
TEST(JobRunner, ProgressArrivesAndCancelStopsTheJob) {
    JobRunner runner;
    std::vector<double> progress;
    bool cancelled = false, done = false;
    JobRunner::Callbacks<int> callbacks;
    callbacks.done = [&](int) { done = true; };
    callbacks.cancelled = [&] { cancelled = true; };
    callbacks.progress = [&](double f) { progress.push_back(f); };
    runner.start<int>(
        "load",
        [](JobControl& control) -> int {
            for (int i = 0; !control.cancelled(); ++i) {
                control.progress(std::min(1.0, i / 1000.0));
                QThread::msleep(2);
            }
            throw std::runtime_error("cancelled");
        },
        std::move(callbacks));
    ASSERT_TRUE(waitUntil([&] { return progress.size() >= 2; }, 10000));
    runner.cancel("load");
    ASSERT_TRUE(waitUntil([&] { return cancelled; }, 10000));
    EXPECT_FALSE(done);
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    QElapsedTimer clock;
    clock.start();
    {
        JobRunner leaving;
        leaving.start<int>(
            "load",
            [](JobControl& control) {
                while (!control.cancelled())
                    QThread::msleep(1);
                return 0;
            },
            JobRunner::Callbacks<int>{[](int) {}});
    }
    EXPECT_LT(clock.elapsed(), 2000) << "destroying the runner cancels what runs";
}
