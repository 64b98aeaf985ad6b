// SPDX-License-Identifier: MIT
// The Attention dock as a user reads it: the trace's attention calls per implementation with the same
// per-call numbers `attnscope summary` prints, and a row opening its first call on the timeline.
#include "core/document/document.h"
#include "core/report/format.h"
#include "core/report/summary.h"
#include "support/test_support.h"
#include "ui/attention_panel.h"
#include "ui/details_panel.h"
#include "ui/main_window.h"
#include "ui/table_fit.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include <QApplication>
#include <QDockWidget>
#include <QTableWidget>

#include <algorithm>
#include <cstdlib>
#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

TEST(AttentionPanel, SamePerCallFiguresAsTheSummaryAndARowOpensItsFirstCall) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    QTableWidget* table = w.attention()->table();
    // Behind the Kernels tab it waits (a live profile's snapshots fill none of it); brought up, it fills.
    EXPECT_EQ(table->rowCount(), 0);
    w.findChild<QDockWidget*>("attentionDock")->raise();
    QApplication::processEvents();
    DocumentOptions options;
    options.parts = SummaryPart | AnalysisPart;
    const auto doc = openDocument(DocumentSource::file(path), options);
    const auto& impls = doc->summary->attention;
    ASSERT_EQ(impls.size(), 1u); // 34 flash calls, each one pytorch_flash kernel
    ASSERT_EQ(table->rowCount(), 1);
    const ImplCalls& flash = impls[0];
    EXPECT_EQ(table->item(0, 0)->text(), "flash");
    EXPECT_EQ(table->item(0, 1)->text(), "34");
    EXPECT_EQ(table->item(0, 2)->text(), "1.0");
    EXPECT_EQ(table->item(0, 3)->text(), "1.0"); // one fused kernel expected (@fused)
    EXPECT_EQ(table->item(0, 3)->toolTip(), "@fused = elementwise(where)? fused_attention");
    EXPECT_EQ(table->item(0, 4)->text(), "0");
    EXPECT_EQ(table->item(0, 5)->text().toStdString(), formatDuration(flash.kernelNsPerCall()));
    ASSERT_TRUE(flash.hostNsPerCall());
    EXPECT_EQ(table->item(0, 6)->text().toStdString(), formatDuration(*flash.hostNsPerCall()));
    ASSERT_TRUE(flash.bytesPerCall());
    // An inference trace: no backward pass, no column for it.
    EXPECT_EQ(table->item(0, 7)->text(), "-");
    EXPECT_TRUE(table->isColumnHidden(7));
    EXPECT_EQ(table->item(0, 8)->text().toStdString(), formatRate(*flash.bytesPerCall(), "B"));
    EXPECT_EQ(table->item(0, 9)->text().toStdString(), verdictMix(flash));

    // A row opens its first call: its host range (the SDPA op around the flash kernel's launch), or its
    // kernel when it has none.
    Q_EMIT table->cellActivated(0, 0);
    const auto selected = w.timeline()->selected();
    ASSERT_TRUE(selected);
    const auto& first = doc->analysis->calls.front();
    EXPECT_EQ(*selected, first.scope ? *first.scope : doc->analysis->kernels[first.kernels.front()].event);
    // 24 calls have their SDPA op around them: the other 10 kernels' launches are not in the file
    // (counted with Python's json: their correlation ids match no runtime call).
    EXPECT_EQ(flash.hostCalls, 24u);
    // Details of a call's host range say which call it holds: the first call with one is call 11 (the
    // first ten kernels' launches are not in the file).
    const auto& calls = doc->analysis->calls;
    const auto withRange =
        std::find_if(calls.begin(), calls.end(), [](const AttentionCall& c) { return c.scope; });
    ASSERT_NE(withRange, calls.end());
    w.details()->showEvent(*withRange->scope);
    const QString role = w.details()->field("role");
    EXPECT_TRUE(role.startsWith(QString("the host range of attention call %1 (flash, 1 kernel, ")
                                    .arg(int(withRange - calls.begin()) + 1)))
        << role.toStdString();
    if (const char* dir = std::getenv("ATTNSCOPE_TEST_SCREENSHOTS")) { // to look at it
        for (QDockWidget* dock : w.findChildren<QDockWidget*>())
            if (dock->objectName() == "attentionDock") dock->raise();
        QApplication::processEvents(); // laid out as the window draws it
        w.grab().save(QString::fromLocal8Bit(dir) + "/attention_panel.png");
    }
}

// At 1366 px every figure and verdict of a run reads whole in the dock.
TEST(AttentionPanel, EveryCellReadsWholeAt1366Pixels) {
    TempDir dir;
    const std::string run = verdictTraces(dir).front();
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, run, {1366, 740}));
    w.findChild<QDockWidget*>("attentionDock")->raise();
    QApplication::processEvents();
    QTableWidget* table = w.attention()->table();
    ASSERT_GT(table->rowCount(), 1);
    expectEveryCellWhole(table);
}

// Prose at a table's end ("memory 7.5%, compute 87.3%, beyond its roof 5.2%", the default run's verdicts
// at 1366 px) wraps in the room the figures leave instead of running off to the right, and takes the new
// room when the table widens.
TEST(TableFit, ProseColumnsWrapInTheRoomTheFiguresLeave) {
    QTableWidget t(2, 4);
    t.setHorizontalHeaderLabels({"Implementation", "Calls", "Kernel time / call", "Kernel time by verdict"});
    const QStringList prose = {"memory 7.5%, compute 87.3%, beyond its roof 5.2%",
                               "memory 67.8%, compute 31.5%, beyond its roof 0.8%, unknown 0.0%"};
    for (int r = 0; r < 2; ++r) {
        t.setItem(r, 0, new QTableWidgetItem(r ? "naive prefill" : "flash decode"));
        t.setItem(r, 1, new QTableWidgetItem("3"));
        t.setItem(r, 2, new QTableWidgetItem("58.884 ms"));
        t.setItem(r, 3, new QTableWidgetItem(prose[r]));
    }
    t.resize(520, 300);
    ui::keepProseColumnsFitted(&t, 1);
    t.show();
    QApplication::processEvents();
    expectEveryCellWhole(&t);
    EXPECT_GT(t.rowHeight(1), 2 * t.fontMetrics().height()); // wrapped
    t.resize(1400, 300);
    QApplication::processEvents();
    expectEveryCellWhole(&t);
    EXPECT_LT(t.rowHeight(1), 2 * t.fontMetrics().height()); // one line again
}
