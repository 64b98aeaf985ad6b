// SPDX-License-Identifier: MIT
// The window's controllers without the window: the document controller's loads and analysis, the run
// controller's runs and snapshots, the find controller's matches — driven through their own API and
// signals, as the window drives them.
#include "core/document/document.h"
#include "support/test_support.h"
#include "ui/document_controller.h"
#include "ui/find_bar.h"
#include "ui/find_controller.h"
#include "ui/run_controller.h"
#include "ui/run_panel.h"
#include "ui/timeline_view.h"

#include "kernels/run_session.h"

#include <QElapsedTimer>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

// A file: started (with progress to report), shown, ended; analysed when asked (the window asks once it
// is shown, but not during a run); the document is the file's.
TEST(DocumentController, OpensAFileShowsItThenAnalysesIt) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    DocumentController c;
    QSignalSpy started(&c, &DocumentController::loadStarted),
        changed(&c, &DocumentController::documentChanged), ended(&c, &DocumentController::loadEnded),
        analysed(&c, &DocumentController::analysed), failed(&c, &DocumentController::loadFailed);
    c.openFile(QString::fromStdString(path));
    ASSERT_EQ(started.count(), 1);
    EXPECT_TRUE(started.at(0).at(1).toBool()); // a file's load reports progress
    EXPECT_TRUE(c.loading());
    ASSERT_TRUE(ended.wait(30000));
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(failed.count(), 0);
    ASSERT_TRUE(c.document());
    EXPECT_EQ(c.name(), "h100_sdpa_flash_qwen.json.gz");
    EXPECT_EQ(c.document()->trace->info().path, path);
    EXPECT_FALSE(c.document()->analysis);
    c.analyse();
    EXPECT_TRUE(c.analysing());
    ASSERT_TRUE(analysed.wait(30000));
    ASSERT_TRUE(c.document()->analysis);
    EXPECT_EQ(c.document()->trace->info().path, path); // the same trace, now with its analysis
    EXPECT_FALSE(c.analysing());
    EXPECT_FALSE(c.loading());
}

// A file that cannot be read says why, and the document on show stays.
TEST(DocumentController, AFailedLoadKeepsWhatIsShown) {
    DocumentController c;
    QSignalSpy ended(&c, &DocumentController::loadEnded), failed(&c, &DocumentController::loadFailed);
    c.openBytes(
        QByteArray(
            R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]})"),
        "good.json");
    ASSERT_TRUE(ended.wait(10000));
    ASSERT_TRUE(c.document());
    const auto shown = c.document();
    c.openBytes(QByteArray("\x7f"
                           "ELF\x02\x01\x01"),
                "program.json");
    ASSERT_TRUE(ended.wait(10000));
    ASSERT_EQ(failed.count(), 1);
    EXPECT_EQ(failed.at(0).at(0).toString(), "program.json");
    EXPECT_TRUE(failed.at(0).at(1).toString().contains("at byte"))
        << failed.at(0).at(1).toString().toStdString();
    EXPECT_EQ(c.document(), shown);
    EXPECT_EQ(c.name(), "good.json");
}

// A second load cancels the first: only the newest is shown.
TEST(DocumentController, ANewLoadReplacesOneUnderWay) {
    ATTNSCOPE_REQUIRE_FIXTURE(big, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(small, "flow_v1.json");
    DocumentController c;
    QSignalSpy changed(&c, &DocumentController::documentChanged);
    c.openFile(QString::fromStdString(big));
    c.openFile(QString::fromStdString(small));
    QElapsedTimer t;
    t.start();
    while ((c.loading() || !c.document()) && t.elapsed() < 30000)
        QTest::qWait(10);
    ASSERT_TRUE(c.document());
    EXPECT_EQ(c.name(), "flow_v1.json");
    QTest::qWait(200); // nothing of the first arrives late
    EXPECT_EQ(c.name(), "flow_v1.json");
    EXPECT_EQ(changed.count(), 1);
}

// A run: snapshots while it runs, the last one final, then finished; a second start while one runs is
// refused with why.
TEST(RunController, RunsOnTheCpuAndHandsOverSnapshots) {
    RunPanel panel;
    RunController c(&panel);
    QSignalSpy snapshots(&c, &RunController::snapshot), finished(&c, &RunController::finished),
        failed(&c, &RunController::failed);
    kernels::RunConfig config;
    config.shape = {1, 4, 256, 32, false, Precision::F32};
    config.warmup = 0;
    config.iters = 3;
    ASSERT_EQ(c.start(config, kernels::BackendChoice::Cpu), "");
    EXPECT_TRUE(c.running());
    EXPECT_EQ(c.name(), "CPU run");
    EXPECT_EQ(c.start(config, kernels::BackendChoice::Cpu), "A run is under way");
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_EQ(failed.count(), 0);
    ASSERT_GE(snapshots.count(), 1);
    EXPECT_TRUE(snapshots.first().at(1).toBool()); // the first is marked first
    EXPECT_TRUE(snapshots.last().at(2).toBool());  // the last is final
    const auto doc = snapshots.last().at(0).value<std::shared_ptr<const Document>>();
    ASSERT_TRUE(doc && doc->trace && doc->index && doc->summary);
    EXPECT_GT(doc->trace->eventCount(), 10u);
    EXPECT_TRUE(c.ended());
}

// Find: the bar's text finds events by name, counts them, and steps through them on the timeline.
TEST(FindController, FindsCountsAndStepsThroughMatches) {
    const auto trace = loadText(R"({"traceEvents":[
        {"ph":"X","cat":"kernel","name":"flash_fwd","pid":0,"tid":7,"ts":1,"dur":2},
        {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":5,"dur":2},
        {"ph":"X","cat":"kernel","name":"flash_fwd","pid":0,"tid":7,"ts":9,"dur":2}]})");
    FindBar bar;
    TimelineView timeline;
    timeline.resize(800, 400);
    timeline.setTrace(trace, std::make_shared<TimelineIndex>(*trace));
    FindController c(&bar, &timeline);
    c.setTrace(trace);
    bar.edit()->setText("flash");
    Q_EMIT bar.searchChanged("flash");
    EXPECT_EQ(bar.countText(), "2 matches");
    std::size_t highlighted = 0;
    for (std::uint8_t h : c.highlight())
        highlighted += h;
    EXPECT_EQ(highlighted, 1u); // one name: flash_fwd
    Q_EMIT bar.next();
    ASSERT_TRUE(timeline.selected());
    EXPECT_EQ(trace->track(timeline.selected()->track).events.start[timeline.selected()->index], 1000);
    EXPECT_EQ(bar.countText(), "1 of 2");
    Q_EMIT bar.next();
    EXPECT_EQ(trace->track(timeline.selected()->track).events.start[timeline.selected()->index], 9000);
    Q_EMIT bar.next(); // wraps around
    EXPECT_EQ(trace->track(timeline.selected()->track).events.start[timeline.selected()->index], 1000);
    bar.edit()->clear();
    Q_EMIT bar.searchChanged("");
    EXPECT_TRUE(c.highlight().empty());
    EXPECT_EQ(bar.countText(), "");
}
