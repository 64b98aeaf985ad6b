// SPDX-License-Identifier: MIT
// The UI's one way to run background work: results on the UI thread, stale ones dropped.
#include "ui/job_runner.h"
#include "ui/ui_test_support.h"

#include <QApplication>
#include <QThread>

#include <gtest/gtest.h>

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
