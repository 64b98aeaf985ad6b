// SPDX-License-Identifier: MIT
// Traces side by side: several files as the ranks of one job, Compare Variants' table and chart, and the
// verdicts every view and the command line agree on.
#include "core/document/document.h"
#include "core/io/trace_loader.h"
#include "core/report/format.h"
#include "core/report/summary.h"
#include "kernels/run_session.h"
#include "support/run_to_end.h"
#include "support/test_support.h"
#include "ui/charts.h"
#include "ui/compare_window.h"
#include "ui/details_panel.h"
#include "ui/kernel_table_model.h"
#include "ui/main_window.h"
#include "ui/timeline_renderer.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include <nlohmann/json.hpp>

#include <QAbstractSeries>
#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QLabel>
#include <QLineSeries>
#include <QPieSeries>
#include <QPieSlice>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QScrollBar>
#include <QSet>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextDocumentFragment>
#include <QValueAxis>
#include <QXmlStreamReader>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

// The charts read as figures: round ticks, bars with their totals, each roof labelled with its rate at
// its ridge, the biggest points named, a tooltip for each point (with its share of each roof) found by
// where the pointer is, a reason when there is nothing to draw, and in Compare both traces' points.
TEST(Charts, RooflineAndBreakdownReadAtAGlance) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    const std::vector<ChartInput> input{{doc->trace.get(), doc->analysis.get(), "h100"}};
    QGraphicsScene scene;
    std::unique_ptr<QChart> roofline(makeChart(ChartKind::Roofline, input));
    scene.addItem(roofline.get());
    roofline->resize(1200, 800);
    QApplication::processEvents();
    const QScatterSeries* flash = nullptr;
    for (QAbstractSeries* s : roofline->series()) {
        auto* scatter = qobject_cast<QScatterSeries*>(s);
        if (!scatter) continue;
        EXPECT_FALSE(scatter->pointLabelsVisible()) << "Qt's point labels are placed by no one";
        if (scatter->name() == "fused attention") flash = scatter;
    }
    QStringList names; // the roofs' and the points' names, inside the plot, placed clear of each other
    for (QGraphicsItem* item : roofline->childItems())
        if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item); text && text->isVisible()) {
            names << text->text();
            EXPECT_TRUE(roofline->plotArea().intersects(text->mapRectToParent(text->boundingRect())));
        }
    EXPECT_TRUE(names.contains("bf16 989.4 TFLOP/s · ridge 295 FLOP/B")) << names.join(" | ").toStdString();
    EXPECT_TRUE(names.contains("fp32 67 TFLOP/s · ridge 20 FLOP/B")) << names.join(" | ").toStdString();
    EXPECT_TRUE(names.contains("memory 3.35 TB/s")) << names.join(" | ").toStdString();
    EXPECT_TRUE(names.contains("flash_fwd_kernel")) << names.join(" | ").toStdString();
    ASSERT_NE(flash, nullptr);
    ASSERT_EQ(flash->count(), 1);
    const QPointF at = roofline->mapToPosition(flash->at(0), const_cast<QScatterSeries*>(flash));
    const QString tip = chartTipAt(roofline.get(), at + QPointF(2, -2));
    EXPECT_TRUE(tip.startsWith("flash_fwd_kernel\nfused attention · bf16")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("% of the bf16 compute roof, ")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("% of the memory roof")) << tip.toStdString();
    EXPECT_EQ(chartTipAt(roofline.get(), at + QPointF(40, 40)), "");
    scene.removeItem(roofline.get());

    // The breakdown: ticks on round numbers, each bar's total under it.
    std::unique_ptr<QChart> breakdown(makeChart(ChartKind::Breakdown, input));
    auto* y = qobject_cast<QValueAxis*>(breakdown->axes(Qt::Vertical).front());
    ASSERT_NE(y, nullptr);
    const double step = (y->max() - y->min()) / (y->tickCount() - 1);
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                std::abs(mantissa - 5) < 1e-9 || std::abs(mantissa - 2.5) < 1e-9)
        << step;
    EXPECT_EQ(y->titleText(), "ms"); // the unit alone: the title says what, and a low chart shows it whole
    auto* x = qobject_cast<QBarCategoryAxis*>(breakdown->axes(Qt::Horizontal).front());
    ASSERT_NE(x, nullptr);
    // The name and its time on lines of their own (one line was cut under a narrow bar), each whole.
    // An implementation's bar says its total, then its calls and each one's time, as the Attention dock does.
    EXPECT_TRUE(x->categories().contains("flash<br>3.855 ms<br>34 calls, 113.396 µs each end to end"))
        << x->categories().join(" | ").toStdString();
    // At an exported picture's size, every line of every label fits its bar's room, as the font measures it.
    breakdown->resize(QSizeF(1200, 700));
    QApplication::processEvents();
    const double room = breakdown->plotArea().width() / double(x->count());
    const QFontMetrics labelFont(x->labelsFont());
    for (const QString& category : x->categories())
        for (const QString& line : category.split("<br>"))
            EXPECT_LE(labelFont.horizontalAdvance(line), room) << line.toStdString();

    // Nothing costed: the roofline says why it is empty.
    const auto bare = loadText(
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":7,"ts":1,"dur":100,"args":{"device":0}}]})");
    const TraceAnalysis bareAnalysis = analyzeTrace(*bare);
    std::unique_ptr<QChart> empty(makeChart(ChartKind::Roofline, {{bare.get(), &bareAnalysis, "bare"}}));
    EXPECT_TRUE(empty->title().contains("none of its 1 kernel could be costed"))
        << empty->title().toStdString();
    // Copies and memsets are not kernels: the count is the summary's.
    const auto withCopies = loadText(
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":7,"ts":1,"dur":100,"args":{"device":0}},)"
        R"({"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":7,"ts":150,"dur":20,"args":{"device":0}},)"
        R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":200,"dur":10,"args":{"device":0}},)"
        R"({"ph":"X","cat":"gpu_memset","name":"Memset","pid":0,"tid":7,"ts":300,"dur":10,"args":{"device":0}}]})");
    const TraceAnalysis copiesAnalysis = analyzeTrace(*withCopies);
    std::unique_ptr<QChart> copies(
        makeChart(ChartKind::Roofline, {{withCopies.get(), &copiesAnalysis, "copies"}}));
    EXPECT_EQ(summarize(*withCopies, 0).kernelCount, 2u);
    EXPECT_TRUE(copies->title().contains("none of its 2 kernels could be costed"))
        << copies->title().toStdString();
    // Share, of two traces: each role's slice is both traces' time together.
    std::unique_ptr<QChart> one(makeChart(ChartKind::Share, {{withCopies.get(), &copiesAnalysis, "A"}}));
    std::unique_ptr<QChart> two(makeChart(ChartKind::Share, {{withCopies.get(), &copiesAnalysis, "A"},
                                                             {withCopies.get(), &copiesAnalysis, "B"}}));
    auto pieTotal = [](QChart* chart) {
        double total = 0;
        for (QAbstractSeries* s : chart->series())
            if (auto* pie = qobject_cast<QPieSeries*>(s)) total += pie->sum();
        return total;
    };
    EXPECT_DOUBLE_EQ(pieTotal(one.get()), 120.0 * 1000); // the two GEMMs' 100 + 20 µs, in ns
    EXPECT_DOUBLE_EQ(pieTotal(two.get()), 2 * pieTotal(one.get()));
    // Every slice is named with its share in the legend, none by a label outside the pie (a short chart
    // cut those off its top); the legend is on show.
    EXPECT_TRUE(one->legend()->isVisible());
    for (QAbstractSeries* s : one->series())
        if (auto* pie = qobject_cast<QPieSeries*>(s))
            for (QPieSlice* slice : pie->slices()) {
                EXPECT_FALSE(slice->isLabelVisible()) << slice->label().toStdString();
                EXPECT_TRUE(slice->label().endsWith('%')) << slice->label().toStdString();
            }

    // Compare: A's points as circles, B's as squares, as the title says; both traces' points drawn.
    std::unique_ptr<QChart> both(
        makeChart(ChartKind::Roofline, {{doc->trace.get(), doc->analysis.get(), "A: h100"},
                                        {doc->trace.get(), doc->analysis.get(), "B: h100"}}));
    int circles = 0, squares = 0;
    for (QAbstractSeries* s : both->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(s); scatter && !scatter->name().isEmpty()) {
            squares += scatter->markerShape() == QScatterSeries::MarkerShapeRectangle ? scatter->count() : 0;
            circles += scatter->markerShape() == QScatterSeries::MarkerShapeCircle ? scatter->count() : 0;
        }
    EXPECT_GT(squares, 0);
    EXPECT_EQ(squares, circles); // the same trace twice: every point of A has its square
    // Which sign is which trace, on the title's line where it fits (a line less of the plot in a low dock).
    EXPECT_TRUE(both->title().startsWith("Roofline · H100 80GB HBM3 · ● A: h100 · ■ B: h100<br>"))
        << both->title().toStdString();
}

TEST(Ranks, SeveralFilesOpenAsTheRanksOfOneJob) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.openRanks({QString::fromStdString(r0), QString::fromStdString(r1)});
    ASSERT_TRUE(w.loading());
    ASSERT_TRUE(waitForTrace(w));
    std::set<std::int64_t> ranks;
    for (const ProcessInfo& p : w.trace()->processes())
        ranks.insert(p.rank);
    EXPECT_EQ(ranks, (std::set<std::int64_t>{0, 1}));
    auto* table = w.findChild<QTableWidget*>("ranksTable");
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), 2);
    EXPECT_EQ(table->item(1, 0)->text(), "1");
    // Rank 0 is the slowest: rank 1 waits for it at the collectives (its larger GPU busy time is that wait).
    EXPECT_TRUE(table->item(0, 0)->font().bold());
    EXPECT_FALSE(table->item(1, 0)->font().bold());
    EXPECT_EQ(table->item(1, 6)->text(), QStringLiteral("5.585 ms"));
    auto* dock = w.findChild<QDockWidget*>("ranksDock");
    ASSERT_NE(dock, nullptr);
    auto* note = w.findChild<QLabel*>("ranksNote");
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->text().contains(
        "rank 0 arrives last at 4 of the 8 collectives matched on every rank, and the others "
        "wait 5.585 ms each for it there"))
        << note->text().toStdString();
    // Double-clicking a rank shows its tracks: rank 1's first group header at the top.
    const TimelineRow* rank1 = nullptr;
    for (const TimelineRow& r : w.timeline()->rows().rows())
        if (!rank1 && r.kind == TimelineRow::Kind::Group && w.trace()->process(r.process).rank == 1)
            rank1 = &r;
    ASSERT_NE(rank1, nullptr);
    ASSERT_GT(rank1->y, 0);
    Q_EMIT table->cellDoubleClicked(1, 0);
    // At the top, or as far down as the timeline scrolls.
    EXPECT_EQ(w.timeline()->scrollBar()->value(), std::min(rank1->y, w.timeline()->scrollBar()->maximum()));
    EXPECT_GT(w.timeline()->scrollBar()->value(), 0);
    Q_EMIT table->cellDoubleClicked(0, 0);
    EXPECT_EQ(w.timeline()->scrollBar()->value(), 0); // rank 0's tracks come first
    // One file again: the Ranks dock goes.
    w.openFile(QString::fromStdString(r0));
    ASSERT_TRUE(waitForTrace(w));
    EXPECT_TRUE(dock->isHidden());
}

TEST(Compare, TwoTracesSideBySideWithTheirDifferences) {
    // A: two GEMMs and a softmax; B: slower GEMMs, a faster softmax, a new fused kernel, later in time.
    auto traceText = [](const std::vector<std::pair<std::string, int>>& kernels, int start) {
        std::string events;
        int t = start;
        for (const auto& [name, dur] : kernels) {
            events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"kernel","name":")" + name +
                      R"(","pid":0,"tid":7,"ts":)" + std::to_string(t) + R"(,"dur":)" + std::to_string(dur) +
                      R"(,"args":{"device":0,"stream":7}})";
            t += dur + 10;
        }
        return R"({"traceEvents":[)" + events + "]}";
    };
    TempDir dir;
    writeFile(dir.path("a.json"), traceText({{"volta_sgemm_128x64_nn", 100},
                                             {"volta_sgemm_128x64_nn", 100},
                                             {"cunn_SoftMaxForward", 40}},
                                            0));
    writeFile(dir.path("b.json"), traceText({{"volta_sgemm_128x64_nn", 115},
                                             {"volta_sgemm_128x64_nn", 115},
                                             {"cunn_SoftMaxForward", 30},
                                             {"flash_fwd_kernel", 20}},
                                            5000));
    MainWindow w;
    w.show();
    w.openFile(QString::fromStdString(dir.path("a.json")));
    ASSERT_TRUE(waitForTrace(w));
    CompareWindow* c = w.compareWith(QString::fromStdString(dir.path("b.json")));
    ASSERT_NE(c, nullptr);
    QElapsedTimer timer;
    timer.start();
    while (c->loading() && timer.elapsed() < 10000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    QApplication::processEvents();
    ASSERT_FALSE(c->loading());
    // The table: roles then kernel names, by |delta|; the GEMMs' +30 µs first and marked.
    QTableWidget* t = c->table();
    ASSERT_EQ(t->rowCount(), int(c->diff().roles.size() + c->diff().kernels.size()));
    ASSERT_GE(t->rowCount(), 6);
    EXPECT_EQ(t->item(0, 1)->text(), "GEMM"); // as the legend names the role
    EXPECT_EQ(t->item(0, 6)->text(), "+30.000 µs");
    EXPECT_EQ(t->item(0, 7)->text(), "1.15×");
    EXPECT_EQ(t->item(0, 0)->foreground().color(), QColor(200, 30, 30)); // a regression
    // The shared axis: B is 5 ms later; moving A moves B by the same window, shifted.
    EXPECT_EQ(c->offset(), 5'000'000);
    c->timelineA()->setViewport(50'000, 150'000);
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    EXPECT_EQ(c->timelineB()->viewport().start(), c->timelineA()->viewport().start() + c->offset());
    // Fit All on the shorter A shows the longer B whole too: one time axis over both traces.
    c->timelineA()->fitAll();
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    const Trace& traceB = *c->timelineB()->trace();
    EXPECT_LE(c->timelineB()->viewport().start(), traceB.startNs());
    EXPECT_GE(c->timelineB()->viewport().end(), traceB.endNs());
    EXPECT_LE(c->timelineA()->viewport().start(), c->timelineA()->trace()->startNs());
    EXPECT_GE(c->timelineA()->viewport().end(), c->timelineA()->trace()->endNs());
    // Aligning selections: the softmax of each.
    auto softmaxOf = [](const Trace& trace) {
        for (std::uint32_t tr = 0; tr < trace.tracks().size(); ++tr)
            for (std::uint32_t i = 0; i < trace.tracks()[tr].size(); ++i)
                if (trace.str(trace.tracks()[tr].events.name[i]) == "cunn_SoftMaxForward")
                    return EventRef{TrackId{tr}, i};
        return EventRef{};
    };
    c->timelineA()->selectEvent(softmaxOf(*c->timelineA()->trace()));
    c->timelineB()->selectEvent(softmaxOf(*c->timelineB()->trace()));
    ASSERT_TRUE(c->alignSelections());
    EXPECT_EQ(c->offset(), (5000 + 115 + 10 + 115 + 10 - (100 + 10 + 100 + 10)) * 1000);
    c->close();
}

// A job's header lists every rank's GPUs on one line: the compare window wraps it and can still be made
// as narrow as a laptop's screen.
TEST(Compare, AJobsLongHeaderNeverHoldsTheWindowWide) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    MainWindow w;
    w.show();
    w.openRanks({QString::fromStdString(r0), QString::fromStdString(r1)});
    ASSERT_TRUE(waitForTrace(w));
    CompareWindow* c = w.compareWith(QString::fromStdString(r1));
    ASSERT_NE(c, nullptr);
    QElapsedTimer timer;
    timer.start();
    while (c->loading() && timer.elapsed() < 10000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    c->show();
    c->resize(900, 700);
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    EXPECT_LE(c->minimumSizeHint().width(), 900);
    EXPECT_LE(c->width(), 900);
    c->close();
}

// One trace, one set of verdicts: the window, the compare window and the document `summary` and
// `export --chart` open (openDocument) agree kernel by kernel, and the exported roofline is drawn
// against the roofs the window used — on AttnScope's own CPU run, whose kernels the compare window
// once left without a verdict, and on the H100 trace.
TEST(Verdicts, TheWindowCompareAndTheCommandLineAgree) {
    TempDir dir;
    const std::vector<std::string> files = verdictTraces(dir);
    for (const std::string& path : files) {
        SCOPED_TRACE(path);
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, path));
        DocumentOptions headless;
        headless.parts = AnalysisPart; // what `summary` and `export --chart` ask for
        const auto doc = openDocument(DocumentSource::file(path), headless);
        const TraceAnalysis& shared = *doc->analysis;
        CompareWindow* c = w.compareWith(QString::fromStdString(path));
        ASSERT_NE(c, nullptr);
        QElapsedTimer timer;
        timer.start();
        while (c->loading() && timer.elapsed() < 10000)
            QApplication::processEvents(QEventLoop::AllEvents, 20);
        ASSERT_NE(c->analysisA(), nullptr);
        ASSERT_NE(c->analysisB(), nullptr);
        for (const TraceAnalysis* other : {w.analysis().get(), c->analysisA(), c->analysisB()}) {
            ASSERT_EQ(other->kernels.size(), shared.kernels.size());
            for (std::size_t k = 0; k < shared.kernels.size(); ++k) {
                EXPECT_EQ(other->kernels[k].verdict, shared.kernels[k].verdict) << k;
                EXPECT_EQ(other->kernels[k].role, shared.kernels[k].role) << k;
            }
        }
        int withVerdict = 0;
        for (const KernelAnalysis& k : shared.kernels)
            withVerdict += k.verdict != Verdict::Unknown;
        EXPECT_GT(withVerdict, 0);
        c->close();
        // The chart `export --chart roofline` writes names the roofs the window's analysis used.
        const QString svg = QString::fromStdString(dir.path("roofline.svg"));
        ASSERT_EQ(exportTraceChart(*doc, ChartKind::Roofline, QSize(1200, 800), 1, svg), QString());
        QFile file(svg);
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        const DeviceSpec& roofs = w.analysis()->device ? *w.analysis()->device : *w.analysis()->cpuShare;
        EXPECT_TRUE(text.contains(QString::fromStdString(formatRate(roofs.bandwidth, "B/s"))))
            << roofs.bandwidth;
    }
}

// Two ranks of a recommender job (no attention anywhere) compared: the chart shows each trace's kernel time
// by role and says there is no attention call, with real ticks; while the traces open it says so, with no
// ticks of nothing.
TEST(Charts, ACompareWithoutAttentionShowsTheTracesWholeAndOpeningSaysSo) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    Comparison c;
    for (const std::string& path : {r0, r1})
        c.traces.push_back(compareEntry(*openDocument(DocumentSource::file(path)), path));
    std::unique_ptr<QChart> chart(makeComparisonChart(c));
    EXPECT_TRUE(chart->title().contains("no attention call in these traces")) << chart->title().toStdString();
    auto* bars = qobject_cast<QStackedBarSeries*>(chart->series().value(0));
    ASSERT_NE(bars, nullptr);
    ASSERT_FALSE(bars->barSets().isEmpty());
    EXPECT_EQ(bars->barSets().front()->count(), 2); // a bar per rank
    auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).value(0));
    ASSERT_NE(y, nullptr);
    EXPECT_TRUE(y->labelsVisible());
    EXPECT_GT(y->max(), 1.0) << "ticks in the unit the kernel time reads in";

    Comparison opening;
    opening.traces.resize(2);
    for (ComparedTrace& t : opening.traces)
        t.opening = true;
    std::unique_ptr<QChart> waiting(makeComparisonChart(opening));
    EXPECT_TRUE(waiting->title().contains("opening the traces")) << waiting->title().toStdString();
    auto* none = qobject_cast<QValueAxis*>(waiting->axes(Qt::Vertical).value(0));
    ASSERT_NE(none, nullptr);
    EXPECT_FALSE(none->labelsVisible());
}

// A trace with no attention call beside one with calls has no bar per call: the chart's title says it is
// left out, not a silence.
TEST(Charts, ACompareSaysWhichTracesItsPerCallBarsLeaveOut) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(triton, "triton_single_kernel.json.gz");
    Comparison c;
    for (const std::string& path : {h100, triton})
        c.traces.push_back(compareEntry(*openDocument(DocumentSource::file(path)), path));
    std::unique_ptr<QChart> chart(makeComparisonChart(c));
    EXPECT_EQ(
        chart->title(),
        "Kernel time per attention call by role · triton_single_kernel.json.gz left out: no attention call");
    c.traces.pop_back(); // every trace with calls: nothing said
    std::unique_ptr<QChart> whole(makeComparisonChart(c));
    EXPECT_EQ(whole->title(), "Kernel time per attention call by role");
}
