// SPDX-License-Identifier: MIT
// The Details panel as a user reads it: CPU ops and kernels one after the other (the why rows come
// and go), graph launches with thousands of kernels, long text that wraps and scrolls.
#include "support/test_support.h"
#include "ui/details_panel.h"
#include "ui/find_bar.h"
#include "ui/main_window.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>

#include <gtest/gtest.h>

#include <string>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

// A ROCm-style trace: one hipGraphLaunch whose correlation id all `kernels` kernels of the graph
// share (as HIP and CUDA graphs record them), and one ordinary launch of one kernel.
std::string graphTrace(int kernels) {
    std::string json = R"({"traceEvents":[
{"ph":"X","cat":"cuda_runtime","name":"hipGraphLaunch","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":7}},
{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":20,"dur":2,"args":{"correlation":8}},
{"ph":"X","cat":"kernel","name":"lonely_kernel","pid":2,"tid":3,"ts":30,"dur":1,"args":{"correlation":8}})";
    for (int i = 0; i < kernels; ++i)
        json += R"(,{"ph":"X","cat":"kernel","name":"graph_kernel_)" + std::to_string(i % 7) +
                R"(","pid":2,"tid":3,"ts":)" + std::to_string(100 + 3 * i) +
                R"(,"dur":2,"args":{"correlation":7}})";
    return json + "]}";
}

std::optional<EventRef> eventNamed(const Trace& t, std::string_view name) {
    for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti)
        for (std::uint32_t i = 0; i < t.tracks()[ti].size(); ++i)
            if (t.str(t.tracks()[ti].events.name[i]) == name) return EventRef{TrackId(ti), i};
    return std::nullopt;
}

// Types text into the find bar as a user does, waits for the search, and steps to its first match.
bool findFirst(MainWindow& w, const QString& text) {
    FindBar* bar = w.findBar();
    bar->activate();
    bar->edit()->clear();
    QTest::keyClicks(bar->edit(), text);
    if (!waitUntil([&] { return bar->countText().endsWith("matches"); })) return false;
    QTest::keyClick(bar->edit(), Qt::Key_Return);
    QApplication::processEvents();
    return w.timeline()->selected().has_value();
}

int linkButtons(DetailsPanel& panel) {
    int n = 0;
    for (QPushButton* b : panel.findChildren<QPushButton*>())
        if (!b->isHidden() && !b->property("linkText").toString().isEmpty()) ++n;
    return n;
}

} // namespace

TEST(DetailsPanel, AGraphLaunchIsOneLinkAndLongListsEndWithACount) {
    auto trace = loadText(graphTrace(1566));
    DetailsPanel panel;
    panel.resize(380, 480);
    panel.show();
    panel.setTrace(trace);
    // A kernel of the graph: one link back to the graph launch, with how many kernels it has.
    panel.showEvent(eventNamed(*trace, "graph_kernel_3"));
    QApplication::processEvents();
    EXPECT_EQ(linkButtons(panel), 1);
    EXPECT_TRUE(panel.field("links").contains("Launched by: hipGraphLaunch"))
        << panel.field("links").toStdString();
    EXPECT_TRUE(panel.field("links").contains("one of 1,566 kernels of this graph"))
        << panel.field("links").toStdString();
    // An ordinary launch says nothing about siblings.
    panel.showEvent(eventNamed(*trace, "lonely_kernel"));
    QApplication::processEvents();
    EXPECT_EQ(linkButtons(panel), 1);
    EXPECT_FALSE(panel.field("links").contains("one of")) << panel.field("links").toStdString();
    // The graph launch itself: the first links, then how many more.
    panel.showEvent(eventNamed(*trace, "hipGraphLaunch"));
    QApplication::processEvents();
    EXPECT_EQ(linkButtons(panel), DetailsPanel::kMaxLinksPerKind);
    auto* more = panel.findChild<QLabel*>("moreLinks");
    ASSERT_NE(more, nullptr);
    EXPECT_EQ(more->text(),
              QString("and %1 more").arg(QLocale().toString(1566 - DetailsPanel::kMaxLinksPerKind)));
    // Whatever it shows, the panel asks for no more room than a small dock.
    EXPECT_LT(panel.minimumSizeHint().height(), 300);
    EXPECT_LT(panel.minimumSizeHint().width(), 300);
}

TEST(DetailsPanel, TheWindowDoesNotGrowWithTheDetails) {
    TempDir dir;
    const std::string path = dir.path("graph.json");
    writeFile(path, graphTrace(1566));
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.openFile(QString::fromStdString(path));
    ASSERT_TRUE(waitForTrace(w));
    const QSize before = w.size();
    w.timeline()->selectEvent(eventNamed(*w.trace(), "hipGraphLaunch"));
    QApplication::processEvents();
    w.timeline()->selectEvent(eventNamed(*w.trace(), "graph_kernel_1"));
    QApplication::processEvents();
    EXPECT_EQ(w.size(), before);
}

// A CPU op after a kernel and a kernel after a CPU op: the role, cost and roofline rows hide and
// show again (hiding them row by row corrupted Qt's form layout: see tests/ui/valgrind.sh).
TEST(DetailsPanel, CpuOpsAndKernelsInTurnShowTheirOwnRows) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    for (int round = 0; round < 3; ++round) {
        ASSERT_TRUE(findFirst(w, "_flash_attention"));
        const auto op = w.timeline()->selected();
        ASSERT_TRUE(op);
        EXPECT_EQ(w.trace()->str(w.trace()->track(op->track).events.category[op->index]), "cpu_op");
        QApplication::processEvents();
        EXPECT_EQ(w.details()->field("role"), "");
        EXPECT_EQ(w.details()->field("roofline"), "");
        EXPECT_TRUE(w.details()->field("name").contains("_flash_attention"));

        ASSERT_TRUE(findFirst(w, "flash_fwd_kernel"));
        EXPECT_TRUE(w.details()->field("role").startsWith("fused attention"))
            << w.details()->field("role").toStdString();
        EXPECT_TRUE(w.details()->field("role").contains("1 kernel,"))
            << w.details()->field("role").toStdString();
        EXPECT_FALSE(w.details()->field("roofline").isEmpty());
    }
}

// A kernel's theoretical occupancy and what limits it, from its launch and the trace's device: the
// H100 flash kernel's 255 registers a thread leave 2 blocks of 4 warps (12.5%); the cuBLAS GEMM
// launched with cudaLaunchKernelExC carries Kineto's 0, said so beside the computed 18.75%.
TEST(DetailsPanel, KernelsShowTheirTheoreticalOccupancy) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    ASSERT_TRUE(findFirst(w, "flash_fwd_kernel"));
    const QString flash = w.details()->field("occupancy");
    EXPECT_TRUE(
        flash.startsWith("theoretical 12.5% (2 blocks of 4 warps per SM; 255 registers a thread, 49152 B"))
        << flash.toStdString();
    EXPECT_FALSE(flash.contains("Kineto"));
    ASSERT_TRUE(findFirst(w, "sm90_xmma_gemm"));
    const QString gemm = w.details()->field("occupancy");
    EXPECT_TRUE(gemm.startsWith("theoretical 18.8% (1 block of 12 warps")) << gemm.toStdString();
    EXPECT_TRUE(gemm.contains("Kineto writes 0"));
}

// At the default window size every line can be read: the text wraps inside the dock and the panel
// scrolls when it is taller than the dock.
TEST(DetailsPanel, LongFieldsWrapAndThePanelScrolls) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    for (const QSize size : {QSize(1280, 800), QSize(1366, 768), QSize(1920, 1080)}) {
        SCOPED_TRACE(size.width());
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, path, size));
        ASSERT_TRUE(findFirst(w, "flash_fwd_kernel"));
        auto* scroll = w.details()->findChild<QScrollArea*>();
        ASSERT_NE(scroll, nullptr);
        const int room = scroll->viewport()->width();
        for (QLabel* label : w.details()->findChildren<QLabel*>()) {
            if (label->isHidden() || label->text().isEmpty()) continue;
            const QRect inViewport(label->mapTo(scroll->viewport(), QPoint(0, 0)), label->size());
            EXPECT_LE(inViewport.right(), room) << label->text().toStdString();
            // As tall as its wrapped lines: no line hidden under the next row (Cost's second line was).
            EXPECT_GE(label->height(), label->heightForWidth(label->width())) << label->text().toStdString();
        }
        // Each row below the one before it: wrapped values push their neighbours down.
        for (const char* field : {"role", "cost", "roofline", "occupancy"}) {
            const QLabel* label = w.details()->findChild<QLabel*>(QStringLiteral("details_%1").arg(field));
            ASSERT_NE(label, nullptr) << field;
            for (QLabel* other : w.details()->findChildren<QLabel*>()) {
                if (other == label || other->isHidden() || other->parentWidget() != label->parentWidget())
                    continue;
                EXPECT_FALSE(other->geometry().intersects(label->geometry()))
                    << field << " overlaps " << other->text().toStdString();
            }
        }
        // No label over another anywhere in the panel (the Occupancy row's last line was under "Linked
        // events", a row of the panel's own beside the kernel's rows).
        std::vector<std::pair<QString, QRect>> shown;
        for (QLabel* label : w.details()->findChildren<QLabel*>())
            if (label->isVisible() && !label->text().isEmpty())
                shown.emplace_back(label->text(),
                                   QRect(label->mapTo(scroll->widget(), QPoint(0, 0)), label->size()));
        for (std::size_t i = 0; i < shown.size(); ++i)
            for (std::size_t j = i + 1; j < shown.size(); ++j)
                EXPECT_FALSE(shown[i].second.intersects(shown[j].second))
                    << shown[i].first.toStdString() << " over " << shown[j].first.toStdString();
        // Squeezed to a small dock, the content scrolls instead of being cut.
        w.details()->resize(300, 200);
        QApplication::processEvents();
        EXPECT_GT(scroll->verticalScrollBar()->maximum(), 0);
    }
}
