// SPDX-License-Identifier: MIT
// The timeline as a user meets it: colours, clicks, selections, find, the kernel table, hover, links, legend,
// counters.
#include "timeline_test_support.h"

#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"

#include <QThread>

#include <gtest/gtest.h>

#include <algorithm>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

TEST(TimelineView, PaintsEachKernelInItsColourWhereItIs) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    const Trace& t = win.trace();
    const QImage image = win.frame();
    const auto all = gpuKernels(t);
    ASSERT_EQ(all.size(), 24u);
    for (const EventRef& e : all) {
        const auto r = win.view().eventRect(e);
        ASSERT_TRUE(r) << nameOf(t, e);
        // Left edge of the box, clear of its label: exactly the kernel's colour.
        const QRgb expected = win.view().renderer()->colors().color(t.track(e.track).events, e.index);
        EXPECT_EQ(image.pixel(r->left() + 1, r->center().y()), expected) << nameOf(t, e);
    }
    // The roles read as families: GEMMs blue, softmax orange, flash green.
    auto hueOf = [&](std::string_view part) {
        for (const EventRef& e : all)
            if (nameOf(t, e).find(part) != std::string::npos) {
                const auto r = win.view().eventRect(e);
                return QColor(image.pixel(r->left() + 1, r->center().y())).hsvHue();
            }
        return -1;
    };
    EXPECT_NEAR(hueOf("xmma_gemm"), 212, 12);
    EXPECT_NEAR(hueOf("SoftMax"), 26, 12);
    EXPECT_NEAR(hueOf("flash_fwd"), 132, 12);
    // Between two kernels on the stream: background.
    const auto a = win.view().eventRect(all[0]), b = win.view().eventRect(all[1]);
    if (b->left() - a->right() > 3)
        EXPECT_EQ(image.pixel((a->right() + b->left()) / 2, a->center().y()),
                  win.view().style().background.rgb());
}

TEST(TimelineView, ClickingAKernelShowsItsArgsAndTheCallThatLaunchedIt) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    const Trace& t = win.trace();
    const EventRef gemm = gpuKernels(t).front();
    ASSERT_NE(nameOf(t, gemm).find("xmma_gemm"), std::string::npos);
    click(&win.view(), win.view().eventRect(gemm)->center());
    ASSERT_EQ(win.view().selected(), gemm);
    DetailsPanel* d = win.w.details();
    EXPECT_EQ(d->field("name").toStdString(), nameOf(t, gemm));
    EXPECT_EQ(d->field("category"), "kernel");
    EXPECT_EQ(d->field("duration"), "308.731 µs");
    EXPECT_EQ(d->field("track"), QString::fromUtf8("GPU 0 · stream 7"));
    EXPECT_EQ(d->arg("grid"), "[16,16,4]");
    EXPECT_EQ(d->arg("block"), "[384,1,1]");
    EXPECT_EQ(d->arg("registers per thread"), "168");
    EXPECT_EQ(d->arg("shared memory"), "98304");
    const QString links = d->field("links");
    EXPECT_TRUE(links.contains("Launched by: cudaLaunchKernel")) << links.toStdString();
    EXPECT_TRUE(links.contains("Inside CPU op: aten::matmul")) << links.toStdString();
    // The launch is one click away, and from there the kernel is too.
    auto buttons = d->findChildren<QPushButton*>();
    ASSERT_EQ(buttons.size(), 2);
    buttons.front()->click();
    const auto launch = win.view().selected();
    ASSERT_TRUE(launch);
    EXPECT_EQ(nameOf(t, *launch), "cudaLaunchKernel");
    EXPECT_EQ(t.launchOf(gemm), launch);
    EXPECT_TRUE(d->field("links").contains("Launches: sm90_xmma_gemm"));
    EXPECT_TRUE(win.view().eventRect(*launch)); // revealed on screen
}

TEST(TimelineView, ClickingAHeaderCollapsesItsTracks) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    const EventRef gemm = gpuKernels(win.trace()).front();
    ASSERT_TRUE(win.view().eventRect(gemm));
    const int headerY = win.view().style().rulerHeight + 4; // the first row: the GPU's header
    click(&win.view(), QPoint(20, headerY));
    EXPECT_FALSE(win.view().eventRect(gemm));
    EXPECT_EQ(win.view().collapsed().size(), 1u);
    click(&win.view(), QPoint(20, headerY));
    EXPECT_TRUE(win.view().eventRect(gemm));
}

TEST(TimelineView, ShiftDragSelectsARangeAndTheTableFollowsIt) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    TimelineView& v = win.view();
    const Trace& t = win.trace();
    const auto all = gpuKernels(t);
    // From just before the first kernel to the middle of the third.
    const QRect first = *v.eventRect(all[0]), third = *v.eventRect(all[2]);
    drag(&v, QPoint(first.left() - 2, 200), QPoint(third.center().x(), 200), Qt::ShiftModifier);
    const auto range = v.range();
    ASSERT_TRUE(range);
    EXPECT_NEAR(double(range->from), double(v.viewport().xToTime(first.left() - 2 - v.style().labelWidth)),
                1);
    const auto expected = kernelStatsInRange(t, *win.w.document()->index, range->from, range->to);
    KernelTableModel* model = win.w.kernelModel();
    ASSERT_EQ(model->rowCount(), int(expected.size()));
    ASSERT_EQ(expected.size(), 3u); // QK GEMM, softmax and part of the PV GEMM
    TimeNs inRange = 0;
    for (const KernelStats& k : expected)
        inRange += k.totalNs;
    double shares = 0;
    for (const KernelStats& k : expected) {
        // The table's rows are found by name (the same kernels' numbers change in place, where their rows
        // were; each of these names has one role here).
        const auto row = std::find_if(model->rows().begin(), model->rows().end(),
                                      [&](const KernelStats& x) { return x.name == k.name; });
        ASSERT_NE(row, model->rows().end()) << k.name;
        const int r = int(row - model->rows().begin());
        EXPECT_EQ(row->totalNs, k.totalNs);
        // Each share is of the kernel time in the range, not of the whole trace's.
        const QString share = model->index(r, KernelTableModel::Share).data().toString();
        EXPECT_EQ(share,
                  QString::number(100.0 * double(k.totalNs) / double(inRange), 'f', 1) + QStringLiteral("%"));
        shares += share.chopped(1).toDouble();
    }
    EXPECT_NEAR(shares, 100.0, 0.2);
    // F fits the range; Escape clears it and the table shows every kernel again.
    v.setFocus();
    QTest::keyClick(&v, Qt::Key_F);
    EXPECT_NEAR(v.viewport().span(), double(range->length()) * 1.1, 2);
    QTest::keyClick(&v, Qt::Key_Escape);
    EXPECT_FALSE(v.range());
    EXPECT_EQ(model->rowCount(), 4);
}

TEST(TimelineView, FindHighlightsCountsAndStepsThroughMatches) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    FindBar* bar = win.w.findBar();
    bar->activate();
    QTest::keyClicks(bar->edit(), "SOFTMAX");
    EXPECT_EQ(bar->countText(), "") << "the search waits for typing to pause";
    ASSERT_TRUE(waitUntil([&] { return bar->countText().endsWith("matches"); }));
    // 6 softmax kernels and 6 aten::_softmax ops.
    EXPECT_EQ(bar->countText(), "12 matches");
    QTest::keyClick(bar->edit(), Qt::Key_Return);
    EXPECT_EQ(bar->countText(), "1 of 12");
    const auto first = win.view().selected();
    ASSERT_TRUE(first);
    EXPECT_NE(QString::fromStdString(nameOf(win.trace(), *first)).toLower().indexOf("softmax"), -1);
    QTest::keyClick(bar->edit(), Qt::Key_Return);
    EXPECT_EQ(bar->countText(), "2 of 12");
    QTest::keyClick(bar->edit(), Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClick(bar->edit(), Qt::Key_Return, Qt::ShiftModifier);
    EXPECT_EQ(bar->countText(), "12 of 12");
    // Non-matching kernels fade; matching ones keep their colour.
    win.view().selectEvent(std::nullopt);
    win.view().fitAll();
    const QImage image = win.frame();
    for (const EventRef& e : gpuKernels(win.trace())) {
        const QRect r = *win.view().eventRect(e);
        const QRgb normal = win.view().renderer()->colors().color(win.trace().track(e.track).events, e.index);
        const bool match = nameOf(win.trace(), e).find("SoftMax") != std::string::npos;
        EXPECT_EQ(image.pixel(r.left() + 1, r.center().y()) == normal, match) << nameOf(win.trace(), e);
    }
    QTest::keyClick(bar->edit(), Qt::Key_Escape);
    EXPECT_FALSE(bar->isVisible());
}

TEST(TimelineView, SelectingATableRowHighlightsThatKernel) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    QAbstractItemModelTester tester(win.w.kernelTable()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QTableView* table = win.w.kernelTable();
    table->selectRow(0); // the longest: softmax
    const QString name = table->model()->index(0, KernelTableModel::Name).data().toString();
    const QImage image = win.frame();
    int kept = 0, faded = 0;
    for (const EventRef& e : gpuKernels(win.trace())) {
        const QRect r = *win.view().eventRect(e);
        const QRgb normal = win.view().renderer()->colors().color(win.trace().track(e.track).events, e.index);
        const bool same = image.pixel(r.left() + 1, r.center().y()) == normal;
        EXPECT_EQ(same, QString::fromStdString(nameOf(win.trace(), e)) == name);
        (same ? kept : faded)++;
    }
    EXPECT_EQ(kept, 6);
    EXPECT_EQ(faded, 18);
}

TEST(TimelineView, ActivatingATableRowShowsThatKernelsLongestInstance) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    QTableView* table = win.w.kernelTable();
    table->setFocus();
    table->setCurrentIndex(table->model()->index(0, KernelTableModel::Name)); // softmax, 6 instances
    QTest::keyClick(table, Qt::Key_Return);
    const auto e = win.view().selected();
    ASSERT_TRUE(e);
    const Trace& t = win.trace();
    EXPECT_NE(nameOf(t, *e).find("SoftMax"), std::string::npos);
    TimeNs longest = 0;
    for (const EventRef& k : gpuKernels(t))
        if (t.track(k.track).events.name[k.index] == t.track(e->track).events.name[e->index])
            longest = std::max(longest, t.track(k.track).events.duration[k.index]);
    EXPECT_EQ(t.track(e->track).events.duration[e->index], longest);
    EXPECT_EQ(t.track(e->track).events.duration[e->index], 543'825); // the table's max
    EXPECT_TRUE(win.view().eventRect(*e));
    EXPECT_TRUE(win.w.details()->field("links").contains("Launched by: cudaLaunchKernel"));
}

// With a range selected, activating a row shows that kernel's longest instance in the range, not the
// longest of the whole trace.
TEST(TimelineView, ActivatingATableRowWithARangeStaysInTheRange) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    const Trace& t = win.trace();
    const StringId softmax = [&] {
        for (const EventRef& k : gpuKernels(t))
            if (nameOf(t, k).find("SoftMax") != std::string::npos)
                return t.track(k.track).events.name[k.index];
        return StringId();
    }();
    // The range: around a softmax instance that is not the longest.
    std::vector<EventRef> instances;
    for (const EventRef& k : gpuKernels(t))
        if (t.track(k.track).events.name[k.index] == softmax) instances.push_back(k);
    ASSERT_GE(instances.size(), 2u);
    auto duration = [&](EventRef e) { return t.track(e.track).events.duration[e.index]; };
    const auto longest = *std::max_element(instances.begin(), instances.end(),
                                           [&](EventRef a, EventRef b) { return duration(a) < duration(b); });
    const EventRef other = instances[0] == longest ? instances[1] : instances[0];
    const TimeNs start = t.track(other.track).events.start[other.index];
    win.view().setRange(TimeRange{start - 1, start + duration(other) + 1});
    QApplication::processEvents();
    QTableView* table = win.w.kernelTable();
    int row = -1;
    for (int r = 0; r < table->model()->rowCount(); ++r)
        if (table->model()->index(r, KernelTableModel::Name).data().toString().contains("SoftMax")) row = r;
    ASSERT_GE(row, 0);
    table->setFocus();
    table->setCurrentIndex(table->model()->index(row, KernelTableModel::Name));
    QTest::keyClick(table, Qt::Key_Return);
    const auto e = win.view().selected();
    ASSERT_TRUE(e);
    EXPECT_EQ(*e, other);
    EXPECT_NE(*e, longest);
}

TEST(TimelineView, HoverShowsNameAndDurationAsPlainText) {
    const auto path = TempDir();
    writeFile(path.path("t.json"), R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "<b>not bold</b>", "pid": 0, "tid": 7, "ts": 0, "dur": 3},
      {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 10, "dur": 1}]})");
    Window win(path.path("t.json"));
    ASSERT_TRUE(waitForTrace(win.w));
    const EventRef e = gpuKernels(win.trace()).front();
    const QPoint at = win.view().eventRect(e)->center();
    QHelpEvent help(QEvent::ToolTip, at, win.view().mapToGlobal(at));
    QApplication::sendEvent(&win.view(), &help);
    // Escaped: Qt shows the tags as text. (Qt keeps plain text's spaces as no-break spaces.)
    const QString tip = QString(QToolTip::text()).replace(QChar(0xa0), ' ');
    EXPECT_TRUE(tip.contains("&lt;b&gt;not bold&lt;/b&gt;")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("3.000 µs")) << tip.toStdString();
    click(&win.view(), at);
    EXPECT_EQ(win.w.details()->field("name"), "<b>not bold</b>");
}

TEST(TimelineView, ARealTraceLinksItsKernelsToTheirLaunches) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    Window win(path);
    ASSERT_TRUE(waitForTrace(win.w));
    const Trace& t = win.trace();
    // A flash attention kernel whose launch the trace holds (the first ones were launched before
    // the profiler started): step to it with the find bar, then check what the panel says.
    FindBar* bar = win.w.findBar();
    bar->activate();
    QTest::keyClicks(bar->edit(), "flash_fwd");
    std::optional<EventRef> e;
    for (int step = 0; step < 50 && !(e && t.launchOf(*e)); ++step) {
        QTest::keyClick(bar->edit(), Qt::Key_Return);
        e = win.view().selected();
    }
    ASSERT_TRUE(e && t.launchOf(*e));
    EXPECT_EQ(t.str(t.track(e->track).events.category[e->index]), "kernel");
    // Revealed wide enough to click, and painted in the fused-attention family.
    win.view().selectEvent(std::nullopt);
    const QImage image = win.frame();
    const auto r = win.view().eventRect(*e);
    ASSERT_TRUE(r);
    EXPECT_NEAR(QColor(image.pixel(r->left() + 1, r->center().y())).hsvHue(), 132, 12);
    click(&win.view(), QPoint(r->left() + 1, r->center().y()));
    EXPECT_EQ(win.view().selected(), e);
    EXPECT_TRUE(win.w.details()->field("links").contains("Launched by: cudaLaunchKernel"))
        << win.w.details()->field("links").toStdString();
    EXPECT_FALSE(win.w.details()->arg("grid").isEmpty());
}

// Find ticks on the ruler, zoomed in to a few ns per pixel at a match: the window froze at 100% CPU
// (the tick loop stopped advancing) and ignored close.
TEST(TimelineView, FindTicksPaintZoomedInToNanoseconds) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    Window win(path);
    ASSERT_TRUE(waitForTrace(win.w));
    FindBar* bar = win.w.findBar();
    bar->activate();
    QTest::keyClicks(bar->edit(), "flash");
    QTest::keyClick(bar->edit(), Qt::Key_Return);
    const auto e = win.view().selected();
    ASSERT_TRUE(e);
    const TimeNs start = win.trace().track(e->track).events.start[e->index];
    for (const TimeNs span : {3558, 1200, 400, 40, 10}) {
        win.view().setViewport(start - span / 3, start - span / 3 + span);
        QElapsedTimer clock;
        clock.start();
        const QImage image = win.frame();
        EXPECT_LT(clock.elapsed(), 5000) << span << " ns shown";
        EXPECT_FALSE(image.isNull());
    }
}

// The track-name column: its right edge drags wider, and a cut name shows whole in a tooltip.
TEST(TimelineView, TheTrackNameColumnResizesAndNamesShowWholeInTooltips) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    Window win(path);
    ASSERT_TRUE(waitForTrace(win.w));
    TimelineView& v = win.view();
    // Until dragged, the column is as wide as its longest name needs: each drawn whole, not elided (the
    // GPU's model was cut to "NVIDIA H100 8…" and the thread to "python3 · th…86").
    QFont bold = v.style().font;
    bold.setBold(true);
    for (const TimelineRow& r : v.rows().rows()) {
        const int text = r.kind == TimelineRow::Kind::Group
                             ? QFontMetrics(bold).horizontalAdvance(groupHeaderText(r)) + 10
                             : QFontMetrics(v.style().font).horizontalAdvance(r.label) + 22;
        EXPECT_LE(text, v.labelWidth()) << qPrintable(r.label);
    }
    EXPECT_LE(v.labelWidth(), v.width() * 3 / 10);
    const int before = v.labelWidth();
    const int y = v.style().rulerHeight + 40;
    drag(&v, QPoint(before, y), QPoint(before + 150, y));
    EXPECT_EQ(v.labelWidth(), before + 150);
    EXPECT_NEAR(v.viewport().width(), v.width() - v.labelWidth() - v.scrollBar()->sizeHint().width(), 1);
    drag(&v, QPoint(v.labelWidth(), y), QPoint(5, y));
    EXPECT_EQ(v.labelWidth(), 60) << "never narrower than a few characters";
    // The tooltip over a track's name is its whole label.
    const int rowY = v.style().rulerHeight + v.rows().rows()[1].y + 3;
    QHelpEvent help(QEvent::ToolTip, QPoint(10, rowY), v.mapToGlobal(QPoint(10, rowY)));
    QApplication::sendEvent(&v, &help);
    EXPECT_EQ(QToolTip::text(), Qt::convertFromPlainText(v.rows().rows()[1].label));
    QToolTip::hideText();
}

// The legend has a strip of its own under the tracks: scrolled to the bottom, the last lane ends above
// it, a click on it selects nothing, and without the legend the tracks take the whole height.
TEST(TimelineView, TheLegendNeverHidesEvents) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    Window win(path);
    ASSERT_TRUE(waitForTrace(win.w));
    TimelineView& view = win.view();
    view.resize(900, 300); // fewer rows than the trace has
    QApplication::processEvents();
    view.setLegendVisible(true);
    const int strip = view.height() - view.tracksBottom();
    EXPECT_GT(strip, view.style().metrics.laneHeight / 2);
    EXPECT_LT(strip, 3 * view.style().metrics.laneHeight); // one or two rows, not a box of ten
    view.scrollBar()->setValue(view.scrollBar()->maximum());
    QApplication::processEvents();
    const QImage image = win.frame();
    // Every role's swatch is in the strip, and no event's colour is drawn over it.
    int swatches = 0;
    for (int r = 0; r < int(KernelRole::Count); ++r) {
        const QRgb color = EventColors::roleColor(KernelRole(r)).rgb();
        bool found = false;
        for (int y = view.tracksBottom(); y < image.height() && !found; ++y)
            for (int x = 0; x < image.width() && !found; ++x)
                found = image.pixel(x, y) == color;
        swatches += found;
    }
    EXPECT_EQ(swatches, int(KernelRole::Count));
    const auto& rows = view.layout().rows();
    ASSERT_FALSE(rows.empty());
    const TimelineRow& last = rows.back();
    const int lastBottom = view.style().rulerHeight + last.y + last.height - view.scrollBar()->value();
    EXPECT_LE(lastBottom, view.tracksBottom());
    EXPECT_FALSE(view.eventAt(QPoint(view.style().labelWidth + 50, view.height() - 3)));
    view.setLegendVisible(false);
    EXPECT_EQ(view.tracksBottom(), view.height());
    view.setLegendVisible(true);
}

// Counters are drawn as tracks under their process: the H100 trace's CUDA memory under GPU 0, right
// after its streams, its range under its name, its value and time on hover, the step line in teal.
TEST(TimelineView, MemoryCountersAreTracksWithTheirValuesOnHover) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    Window win(path);
    ASSERT_TRUE(waitForTrace(win.w));
    TimelineView& view = win.view();
    const auto& rows = view.layout().rows();
    std::optional<std::size_t> at;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].kind == TimelineRow::Kind::Counter && rows[i].label == "GPU memory allocated") at = i;
    ASSERT_TRUE(at);
    const TimelineRow& row = rows[*at];
    ASSERT_GT(*at, 0u);
    EXPECT_EQ(rows[*at - 1].kind, TimelineRow::Kind::Track);
    EXPECT_EQ(rows[*at - 1].process, row.process); // under GPU 0, after its tracks
    const CounterSeries& series = win.trace().counters()[row.counter];
    EXPECT_EQ(counterRangeText(series), "984.7 MB – 2.089 GB");
    // Hover over the 101st sample's time: its value, and when it was set.
    const std::size_t k = 100;
    const int x = view.style().labelWidth + int(std::ceil(view.viewport().timeToX(series.time[k]))) + 1;
    const int y = view.style().rulerHeight + row.y - view.scrollBar()->value() + row.height / 2;
    ASSERT_LT(y, view.tracksBottom());
    const TimeNs t = view.viewport().xToTime(x - view.style().labelWidth);
    const std::size_t inForce = *counterSampleAt(series, t);
    EXPECT_GE(inForce, k);
    EXPECT_EQ(view.counterTipAt(QPoint(x, y)),
              QStringLiteral("GPU memory allocated: %1\nsince +%2")
                  .arg(qs(formatRate(series.value[inForce], "B")),
                       qs(formatDuration(series.time[inForce] - win.trace().startNs()))));
    EXPECT_EQ(view.counterTipAt(QPoint(x, view.style().rulerHeight + rows[*at - 1].y + 2)), "");
    // The step line is drawn in the counter colour inside the row.
    const QImage image = win.frame();
    int teal = 0;
    for (int py = y - row.height / 2; py < y + row.height / 2; ++py)
        for (int px = view.style().labelWidth; px < image.width() - 20; ++px)
            teal += image.pixel(px, py) == view.style().counter.rgb();
    EXPECT_GT(teal, 50);
}

TEST(TimelineView, FollowsADarkPalette) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    QPalette dark = win.view().palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Window, QColor(45, 45, 45));
    dark.setColor(QPalette::Text, Qt::white);
    dark.setColor(QPalette::AlternateBase, QColor(55, 55, 55));
    win.view().setPalette(dark);
    const auto all = gpuKernels(win.trace());
    const Track& gpu = win.trace().track(all[0].track);
    win.view().setViewport(gpu.events.start[all[0].index],
                           gpu.end(all[1].index)); // the gap between them shows
    const QImage image = win.frame();
    const QRect a = *win.view().eventRect(all[0]);
    // Below the last track the events area is the dark background (but for grid lines), and the
    // label column is the dark window colour; the legend's strip under them is dark too.
    EXPECT_EQ(image.pixel(image.width() - 30, image.height() - 3), QColor(30, 30, 30).rgb());
    const int y = win.view().tracksBottom() - 4;
    int dark30 = 0, width = 0;
    for (int x = win.view().style().labelWidth + 1; x < image.width() / 2; ++x, ++width)
        dark30 += image.pixel(x, y) == QColor(30, 30, 30).rgb();
    EXPECT_GT(dark30, width * 9 / 10);
    EXPECT_EQ(image.pixel(4, y), QColor(45, 45, 45).rgb());
    // Kernels keep their colours.
    EXPECT_EQ(image.pixel(a.left() + 1, a.center().y()),
              win.view().renderer()->colors().color(win.trace().track(all[0].track).events, all[0].index));
}

TEST(TimelineView, FlowArrowsOfTheSelectedSliceAreLinks) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "flow_v2.json");
    Window win(path);
    ASSERT_TRUE(waitForTrace(win.w));
    const Trace& t = win.trace();
    const auto sender = findEvent(t, "SenderB");
    const auto receiver = findEvent(t, "Blergh");
    ASSERT_TRUE(sender && receiver);
    win.view().selectEvent(*sender, true);
    const TimelineScene scene = win.view().scene();
    ASSERT_TRUE(scene.links);
    EXPECT_EQ(*scene.links, (std::vector<std::pair<EventRef, EventRef>>{{*sender, *receiver}}));
    EXPECT_TRUE(win.w.details()->field("links").contains("Flow to: Blergh"))
        << win.w.details()->field("links").toStdString();
    // From the other end, the same arrow.
    win.view().selectEvent(*receiver, true);
    EXPECT_TRUE(win.w.details()->field("links").contains("Flow from: SenderB"));
    ASSERT_TRUE(win.view().scene().links);
    EXPECT_EQ(win.view().scene().links->front(), std::make_pair(*sender, *receiver));
}
