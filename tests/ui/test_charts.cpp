// SPDX-License-Identifier: MIT
// The "why" views as a user meets them: the Charts dock on a real trace, a kernel's role, cost and
// roofline in the details, and the charts exported as PNG, SVG and PDF.
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

// Verdict mode has a palette of its own: no verdict is drawn in a hue any role has (a memory-bound
// kernel once looked like a QKᵀ GEMM, a compute-bound one like fused attention).
TEST(EventColors, VerdictsAndRolesShareNoHue) {
    for (Verdict v : {Verdict::MemoryBound, Verdict::ComputeBound, Verdict::LatencyBound}) {
        const QColor verdict = EventColors::verdictColor(v);
        for (int r = 0; r < int(KernelRole::Count); ++r) {
            const QColor role = EventColors::roleColor(KernelRole(r));
            if (role.hsvSaturation() < 40) continue; // greys have no hue
            const int distance = std::abs(verdict.hsvHue() - role.hsvHue());
            EXPECT_GE(std::min(distance, 360 - distance), 25)
                << verdictName(v) << " vs " << roleLabel(KernelRole(r));
            EXPECT_NE(verdict.rgb(), role.rgb());
        }
    }
}

TEST(Charts, AnH100TraceGetsRolesCostsAndARoofline) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    const TraceAnalysis& a = *w.analysis();
    // The details of a flash kernel say what it is, what it costs and where it sits.
    const KernelAnalysis* flash = nullptr;
    for (const KernelAnalysis& k : a.kernels)
        if (k.role == KernelRole::FusedAttention && k.cost == CostSource::Inferred) {
            flash = &k;
            break;
        }
    ASSERT_NE(flash, nullptr);
    w.timeline()->selectEvent(flash->event, true);
    QApplication::processEvents();
    EXPECT_TRUE(w.details()->field("role").startsWith("fused attention · attention call"))
        << w.details()->field("role").toStdString();
    EXPECT_TRUE(w.details()->field("cost").contains("inferred from shapes: aten::_flash_attention_forward"))
        << w.details()->field("cost").toStdString();
    EXPECT_TRUE(w.details()->field("roofline").startsWith("memory-bound"))
        << w.details()->field("roofline").toStdString();
    // Its 12.5% occupancy, what limits it, and that it is low by design (no finding says otherwise).
    EXPECT_TRUE(w.details()->field("occupancy").startsWith("theoretical 12.5%"))
        << w.details()->field("occupancy").toStdString();
    EXPECT_TRUE(w.details()->field("occupancy").contains("limited by registers"));
    EXPECT_TRUE(w.details()->field("occupancy").contains("low by design: a fused attention kernel"))
        << w.details()->field("occupancy").toStdString();
    // Colour by verdict: the flash kernel (memory-bound) in the memory-bound hue; by role, fused attention's.
    const Track& flashTrack = w.trace()->track(flash->event.track);
    auto hueOf = [&] {
        return QColor::fromRgb(
                   w.timeline()->renderer()->colors().color(flashTrack.events, flash->event.index))
            .hsvHue();
    };
    w.timeline()->setColorMode(ColorMode::Verdict);
    EXPECT_NEAR(hueOf(), EventColors::verdictColor(Verdict::MemoryBound).hsvHue(), 8);
    w.timeline()->setColorMode(ColorMode::Role);
    EXPECT_NEAR(hueOf(), EventColors::roleColor(KernelRole::FusedAttention).hsvHue(), 8);
    // Folding: each flash call becomes one block on its stream, labelled with its implementation and time.
    w.timeline()->setFoldCalls(true);
    ASSERT_EQ(w.timeline()->folds().size(), 34u);
    const FoldedCall& fold = w.timeline()->folds().front();
    EXPECT_TRUE(fold.label.startsWith("flash · ")) << fold.label.toStdString();
    EXPECT_EQ(w.timeline()->trace()->trackLabel(fold.track), "GPU 0 · stream 7");
    EXPECT_EQ(fold.color, EventColors::roleColor(KernelRole::FusedAttention).darker(115).rgb());
    // By verdict, a folded call takes its kernels' dominant verdict (a flash call: memory-bound).
    w.timeline()->setColorMode(ColorMode::Verdict);
    ASSERT_GE(flash->call, 0);
    EXPECT_EQ(w.timeline()->folds()[std::size_t(flash->call)].color,
              EventColors::verdictColor(Verdict::MemoryBound).darker(115).rgb());
    // A call whose kernels have no cost has no verdict: grey, not a guess.
    EXPECT_EQ(w.timeline()->folds().front().color,
              EventColors::verdictColor(Verdict::Unknown).darker(115).rgb());
    w.timeline()->setColorMode(ColorMode::Role);
    const QImage folded = w.timeline()->grab().toImage();
    w.timeline()->setFoldCalls(false);
    EXPECT_TRUE(w.timeline()->folds().empty());
    EXPECT_NE(folded, w.timeline()->grab().toImage()); // the blocks were drawn
    // The charts: the roofline has its roofs and a point per costed kernel name.
    std::unique_ptr<QChart> built(makeChart(ChartKind::Roofline, {{w.trace().get(), &a, "h100"}}));
    QChart* roofline = built.get();
    int roofs = 0, points = 0;
    for (QAbstractSeries* s : roofline->series()) {
        if (s->type() == QAbstractSeries::SeriesTypeLine) ++roofs;
        if (auto* scatter = qobject_cast<QScatterSeries*>(s)) points += int(scatter->count());
    }
    EXPECT_EQ(roofs, 2); // fp32 and bf16
    EXPECT_GE(points, 2);
    EXPECT_TRUE(roofline->title().contains("H100 80GB HBM3"));

    // Exports from the window: the chart on show, in each format.
    TempDir dir;
    for (const char* name : {"chart.png", "chart.svg", "chart.pdf"}) {
        const QString out = QString::fromStdString(dir.path(name));
        EXPECT_EQ(w.exportChart(out), "") << name;
        EXPECT_GT(QFileInfo(out).size(), 1000) << name;
    }
    const QImage image(QString::fromStdString(dir.path("chart.png")));
    ASSERT_EQ(image.size(), QSize(1200, 800));
    // The breakdown (the dock's first tab) shows the fused attention bar in its role's colour.
    const QColor fused = EventColors::roleColor(KernelRole::FusedAttention);
    int fusedPixels = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            fusedPixels += image.pixel(x, y) == fused.rgb();
    EXPECT_GT(fusedPixels, 500);
    EXPECT_NE(w.exportChart(QString::fromStdString(dir.path("chart.bmp"))), "");
}

// The roofline's point names, over every fixture, at an exported picture's size and at a dock's: each whole
// inside the plot, none over another (a name with no clear place is left to its point's tooltip).
TEST(Charts, RooflineNamesNeverOverlapOrLeaveThePlot) {
    ATTNSCOPE_REQUIRE_FIXTURE(any, "h100_sdpa_flash_qwen.json.gz");
    int named = 0;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::filesystem::path(any).parent_path())) {
        const std::string path = entry.path().string();
        if (!entry.is_regular_file() || path.ends_with(".md")) continue;
        DocumentOptions options;
        options.cpuRoofs = CpuRoofsChoice::None;
        const auto doc = openDocument(DocumentSource::file(path), options);
        const std::vector<ChartInput> input{{doc->trace.get(), doc->analysis.get(), "trace"}};
        for (const QSizeF size : {QSizeF(1200, 800), QSizeF(480, 360), QSizeF(1800, 420), QSizeF(640, 420)}) {
            QGraphicsScene scene;
            std::unique_ptr<QChart> chart(makeChart(ChartKind::Roofline, input));
            scene.addItem(chart.get());
            chart->resize(size);
            QApplication::processEvents();
            std::vector<std::pair<QString, QRectF>> names;
            bool biggestNamed = false, biggestThere = false;
            for (QGraphicsItem* item : chart->childItems())
                if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item)) {
                    const bool biggest = text->data(0).toString() == "biggest";
                    biggestThere = biggestThere || biggest;
                    if (!text->isVisible()) continue;
                    biggestNamed = biggestNamed || biggest;
                    names.emplace_back(text->text(), text->mapRectToParent(text->boundingRect()));
                }
            // Each roof is named where a chart is as big as a small export: the bf16 roof at the plot's top
            // had lost its name to a headroom less than a line.
            if (path.ends_with("h100_sdpa_flash_qwen.json.gz") && size.width() >= 640)
                for (const char* roof : {"fp32 ", "bf16 "})
                    EXPECT_TRUE(std::any_of(names.begin(), names.end(),
                                            [&](const auto& n) { return n.first.startsWith(roof); }))
                        << roof << size.width() << "x" << size.height();
            // The point that holds the most time is named, beside it or joined to it by a short line (a
            // name far off by a long one was read as the points' it sat beside).
            EXPECT_EQ(biggestNamed, biggestThere) << path << " " << size.width();
            for (QGraphicsItem* item : chart->childItems())
                if (auto* line = dynamic_cast<QGraphicsLineItem*>(item); line && line->isVisible())
                    EXPECT_LE(line->line().length(), 6 * QFontMetricsF(QFont()).height())
                        << path << " " << size.width();
            // The roofs as drawn, in pixels: no name is struck through by one.
            std::vector<QLineF> roofs;
            for (QAbstractSeries* series : chart->series())
                if (auto* line = qobject_cast<QLineSeries*>(series))
                    for (int k = 1; k < line->count(); ++k)
                        roofs.emplace_back(chart->mapToPosition(line->at(k - 1), line),
                                           chart->mapToPosition(line->at(k), line));
            for (const auto& [text, rect] : names)
                for (const QLineF& roof : roofs) {
                    const QLineF edges[] = {{rect.topLeft(), rect.topRight()},
                                            {rect.bottomLeft(), rect.bottomRight()},
                                            {rect.topLeft(), rect.bottomLeft()},
                                            {rect.topRight(), rect.bottomRight()}};
                    bool crossed = rect.contains(roof.p1()) || rect.contains(roof.p2());
                    for (const QLineF& e : edges)
                        crossed = crossed || roof.intersects(e, nullptr) == QLineF::BoundedIntersection;
                    EXPECT_FALSE(crossed)
                        << path << " " << size.width() << ": a roof through " << text.toStdString();
                }
            for (std::size_t i = 0; i < names.size(); ++i) {
                // Points together share a name; a name said twice in one is said once, with its count.
                const QStringList parts = names[i].first.split(QStringLiteral(", "));
                EXPECT_EQ(QSet<QString>(parts.begin(), parts.end()).size(), parts.size())
                    << path << ": " << names[i].first.toStdString();
                EXPECT_TRUE(chart->plotArea().contains(names[i].second))
                    << path << " " << size.width() << ": " << names[i].first.toStdString();
                for (std::size_t j = i + 1; j < names.size(); ++j)
                    EXPECT_FALSE(names[i].second.intersects(names[j].second))
                        << path << " " << size.width() << ": " << names[i].first.toStdString() << " over "
                        << names[j].first.toStdString();
            }
            named += int(names.size());
            scene.removeItem(chart.get());
        }
    }
    EXPECT_GE(named, 10); // the fixtures' rooflines do name their points
}

// The share pie's legend says every slice's share as a reader sees it: the legend reads its labels as
// rich text, and the H100 trace's sliver of "other" ("<1%") showed as "other" alone.
TEST(Charts, TheSharePiesLegendShowsEverySlicesShare) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    std::unique_ptr<QChart> chart(
        makeChart(ChartKind::Share, {{doc->trace.get(), doc->analysis.get(), "h100"}}));
    int slices = 0, slivers = 0;
    for (QAbstractSeries* s : chart->series())
        if (auto* pie = qobject_cast<QPieSeries*>(s))
            for (QPieSlice* slice : pie->slices()) {
                const QString shown = QTextDocumentFragment::fromHtml(slice->label()).toPlainText();
                EXPECT_TRUE(shown.contains(QRegularExpression("\\d%$"))) << shown.toStdString();
                ++slices;
                slivers += shown.endsWith("<1%");
            }
    EXPECT_GE(slices, 5);
    EXPECT_GE(slivers, 1);
}

TEST(Charts, HeadlessExportOfEachChart) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    TempDir dir;
    for (ChartKind kind : {ChartKind::Breakdown, ChartKind::Roofline, ChartKind::Share}) {
        const QString out = QString::fromStdString(dir.path(chartKindName(kind).toStdString() + ".svg"));
        EXPECT_EQ(exportTraceChart(*doc, kind, QSize(900, 600), 1, out), "");
        QFile f(out);
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        const QByteArray svg = f.readAll();
        EXPECT_TRUE(svg.contains("<svg")) << chartKindName(kind).toStdString();
        // Well-formed XML, though a chart's title is rich text (the roofline's lines joined by <br>).
        QXmlStreamReader xml(svg);
        while (!xml.atEnd())
            xml.readNext();
        EXPECT_FALSE(xml.hasError()) << chartKindName(kind).toStdString() << ": "
                                     << xml.errorString().toStdString();
    }
    EXPECT_EQ(chartKindNamed("roofline"), ChartKind::Roofline);
    EXPECT_FALSE(chartKindNamed("pie"));
}

// Roles are each kernel's own: one GEMM name that is a naive call's QKᵀ GEMM, its PV GEMM and a plain
// GEMM outside the call is a kernel table row per role, and each kernel takes its own role's colour.
TEST(Charts, ANameThatPlaysSeveralRolesIsARowAndAColourPerRole) {
    std::string events;
    int t = 0;
    auto kernel = [&](const char* name, int dur) {
        events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"kernel","name":")" + name +
                  R"(","pid":0,"tid":7,"ts":)" + std::to_string(t) + R"(,"dur":)" + std::to_string(dur) +
                  R"(,"args":{"device":0,"stream":7}})";
        t += dur + 1;
    };
    for (int call = 0; call < 2; ++call) {
        kernel("ampere_sgemm_128x64_tn", 50);                         // QKᵀ
        kernel("void at::native::cunn_SoftMaxForward<4, float>", 20); // softmax
        kernel("ampere_sgemm_128x64_tn", 40);                         // PV, the same name
        kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor>", 5);
        kernel("ampere_sgemm_128x64_tn", 30); // a plain GEMM
    }
    TempDir dir;
    const std::string path = dir.path("same_name.json");
    writeFile(path, R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[)" +
                        events + "]}");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    QAbstractItemModel* table = w.kernelTable()->model();
    std::map<QString, QString> totalByRole; // the GEMM's rows: role → total
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->index(r, KernelTableModel::Name).data().toString() == "ampere_sgemm_128x64_tn")
            totalByRole[table->index(r, KernelTableModel::Role).data().toString()] =
                table->index(r, KernelTableModel::Total).data().toString();
    EXPECT_EQ(totalByRole,
              (std::map<QString, QString>{{QStringLiteral("QKᵀ GEMM"), QStringLiteral("100.000 µs")},
                                          {QStringLiteral("PV GEMM"), QStringLiteral("80.000 µs")},
                                          {QStringLiteral("GEMM"), QStringLiteral("60.000 µs")}}));
    // Each kernel in its own role's hue (a shade per name: within a few degrees).
    for (const KernelAnalysis& k : w.analysis()->kernels) {
        if (w.trace()->str(w.trace()->track(k.event.track).events.name[k.event.index]) !=
            "ampere_sgemm_128x64_tn")
            continue;
        const QColor c = QColor::fromRgb(
            w.timeline()->renderer()->colors().color(w.trace()->track(k.event.track).events, k.event.index));
        EXPECT_NEAR(c.hsvHue(), EventColors::roleColor(k.role).hsvHue(), 8) << roleName(k.role);
    }
}

namespace {

// The roofline chart's kernel points, as (intensity, FLOP/s) read back from its scatter series (the
// labels beside points are nameless series of their own).
std::vector<std::pair<double, double>> chartRoofPoints(QChart* chart) {
    double unit = 0;
    for (QAbstractAxis* axis : chart->axes(Qt::Vertical))
        unit = axis->titleText() == "TFLOP/s" ? 1e12 : axis->titleText() == "GFLOP/s" ? 1e9 : unit;
    EXPECT_GT(unit, 0);
    std::vector<std::pair<double, double>> out;
    for (QAbstractSeries* s : chart->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(s); scatter && !scatter->name().isEmpty())
            for (const QPointF& p : scatter->points())
                out.push_back({p.x(), p.y() * unit});
    std::sort(out.begin(), out.end());
    return out;
}

// The summary JSON's costed roofline kernels, the same way.
std::vector<std::pair<double, double>> summaryRoofPoints(const TraceSummary& summary) {
    const nlohmann::json json =
        nlohmann::json::parse(formatSummaries({{"t", summary, ""}}, SummaryFormat::Json));
    std::vector<std::pair<double, double>> out;
    // A point of a name with FLOPs: one that only moves bytes is in the table, not on a FLOP/s axis.
    for (const auto& k : json.at("files").at(0).at("roofline").at("kernels"))
        if (k.contains("flops_per_s") && k.at("flops").get<double>() > 0)
            out.push_back({k.at("flops").get<double>() / k.at("bytes").get<double>(),
                           k.at("flops_per_s").get<double>()});
    std::sort(out.begin(), out.end());
    return out;
}

void expectSamePoints(const std::vector<std::pair<double, double>>& chart,
                      const std::vector<std::pair<double, double>>& summary) {
    ASSERT_EQ(chart.size(), summary.size());
    for (std::size_t i = 0; i < chart.size(); ++i) {
        EXPECT_NEAR(chart[i].first, summary[i].first, 1e-9 * summary[i].first) << i;
        EXPECT_NEAR(chart[i].second, summary[i].second, 1e-9 * summary[i].second) << i;
    }
}

} // namespace

// AttnScope's own CPU run of naive and flash (B 1, H 4, D 32, fp32) at seq, its warm-up calls, then two.
std::shared_ptr<const Trace> cpuRunTrace(int seq, int warmup) {
    kernels::RunConfig config;
    config.shape = {1, 4, seq, 32, false, Precision::F32};
    config.warmup = warmup;
    config.iters = 2;
    kernels::RunSession session(config);
    return kernels::buildRunTrace(runToEnd(session));
}

// One roofline: the chart draws the points `summary --format json` lists, no more and no fewer (a kernel
// beyond its roof, or without a verdict, is in neither), for a PyTorch trace of an H100 and for one of
// AttnScope's own CPU runs.
TEST(Charts, TheRooflineChartDrawsTheSummarysPoints) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    ASSERT_TRUE(doc->analysis && doc->summary);
    std::unique_ptr<QChart> h100(
        makeChart(ChartKind::Roofline, {{doc->trace.get(), doc->analysis.get(), "h100"}}));
    const auto h100Points = summaryRoofPoints(*doc->summary);
    // The kernels with a cost: the GEMMs, flash, and the elementwise, reduction and copy kernels.
    EXPECT_EQ(h100Points.size(), 17u);
    expectSamePoints(chartRoofPoints(h100.get()), h100Points);

    const auto run = cpuRunTrace(256, 0);
    DeviceSpec cpu; // roofs high enough that every kernel gets a verdict
    cpu.name = "test CPU";
    cpu.fp32 = 1e15;
    cpu.bandwidth = 1e13;
    const TraceAnalysis a = analyzeTrace(*run, &cpu);
    TraceSummary summary = summarize(*run, 0);
    addAnalysis(summary, *run, a);
    std::unique_ptr<QChart> cpuChart(makeChart(ChartKind::Roofline, {{run.get(), &a, "run"}}));
    const auto cpuPoints = summaryRoofPoints(summary);
    EXPECT_EQ(cpuPoints.size(), 4u); // QKᵀ, softmax, PV of naive and the flash kernel
    expectSamePoints(chartRoofPoints(cpuChart.get()), cpuPoints);
}

// The panel draws a chart when it is seen: hidden, new inputs draw nothing (a live profile's snapshots
// would redraw three charts each); shown, the tab on show is drawn for them, and another tab when it is
// brought up — never a chart of the inputs before.
TEST(Charts, ThePanelDrawsTheChartOnShowForTheLatestInputs) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    ChartsPanel panel;
    panel.resize(900, 400);
    auto* tabs = panel.findChild<QTabWidget*>();
    ASSERT_NE(tabs, nullptr);
    auto* breakdownView = qobject_cast<QChartView*>(tabs->widget(0));
    auto* rooflineView = qobject_cast<QChartView*>(tabs->widget(1));
    ASSERT_TRUE(breakdownView && rooflineView);
    const QChart* emptyBreakdown = breakdownView->chart();
    const QChart* emptyRoofline = rooflineView->chart();
    panel.setInputs({{doc->trace.get(), doc->analysis.get(), "h100"}});
    EXPECT_EQ(breakdownView->chart(), emptyBreakdown) << "drawn while hidden";
    panel.show();
    QApplication::processEvents();
    EXPECT_NE(breakdownView->chart(), emptyBreakdown);
    EXPECT_FALSE(breakdownView->chart()->series().isEmpty());
    EXPECT_EQ(rooflineView->chart(), emptyRoofline) << "a tab not on show was drawn";
    tabs->setCurrentIndex(1);
    QApplication::processEvents();
    ASSERT_NE(rooflineView->chart(), emptyRoofline);
    EXPECT_EQ(chartRoofPoints(rooflineView->chart()).size(), summaryRoofPoints(*doc->summary).size());
    // New inputs on show: the tab on show at once; the current chart asked for is always of them.
    const QChart* h100Roofline = rooflineView->chart();
    panel.setInputs({});
    EXPECT_NE(rooflineView->chart(), h100Roofline);
    EXPECT_TRUE(rooflineView->chart()->series().isEmpty());
    panel.hide();
    panel.setInputs({{doc->trace.get(), doc->analysis.get(), "h100"}});
    EXPECT_EQ(chartRoofPoints(panel.currentChart()).size(), summaryRoofPoints(*doc->summary).size());
}

// A bar's label never shows cut: in a dock too narrow for "34 calls, 113.396 µs each end to end" the label
// steps down to "34 calls", then to its name and total (a live run's bars read "3 calls: 82.613 …" with their
// totals gone); widened again, it says all of it.
TEST(Charts, BarLabelsStepDownUntilNoneIsCut) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    ChartsPanel panel;
    panel.resize(420, 240);
    panel.show();
    panel.setInputs({{doc->trace.get(), doc->analysis.get(), "h100"}});
    auto settle = [] {
        for (int i = 0; i < 20; ++i)
            QApplication::processEvents();
    };
    settle();
    auto* x = qobject_cast<QBarCategoryAxis*>(panel.currentChart()->axes(Qt::Horizontal).front());
    ASSERT_NE(x, nullptr);
    EXPECT_FALSE(x->labelsTruncated()) << x->categories().join(" | ").toStdString();
    QString flash;
    for (const QString& c : x->categories())
        if (c.startsWith("flash")) flash = c;
    EXPECT_TRUE(flash.startsWith("flash<br>3.855 ms")) << flash.toStdString(); // the total always kept
    EXPECT_FALSE(flash.contains("each")) << flash.toStdString();
    // Where the calls at length do not fit, each call's time as the Attention dock shows it still does.
    bool eachShort = false;
    for (int width = 440; width < 1400 && !eachShort; width += 20) {
        panel.resize(width, 300);
        settle();
        EXPECT_FALSE(x->labelsTruncated()) << width;
        eachShort =
            x->categories().contains("flash<br>3.855 ms<br>34 calls<br>113.396 µs each<br>end to end");
        // Each call's time is never said without "end to end": the bar's total, summed over workers and
        // streams, is not a multiple of it.
        for (const QString& category : x->categories())
            EXPECT_EQ(category.contains(" each"), category.contains("end to end")) << category.toStdString();
    }
    EXPECT_TRUE(eachShort);
    panel.resize(1400, 700);
    settle();
    EXPECT_FALSE(x->labelsTruncated());
    EXPECT_TRUE(x->categories().contains("flash<br>3.855 ms<br>34 calls, 113.396 µs each end to end"))
        << x->categories().join(" | ").toStdString();
}

// A run's warm-up calls are no call (the calls are the timed ones), yet their kernels are attention's: the
// breakdown names them "warm-up calls" rather than counting them "outside attention", and the parts still
// add to the whole.
TEST(Charts, ARunsWarmUpCallsAreNamedNotOutsideAttention) {
    const auto run = cpuRunTrace(128, 1);
    const TraceAnalysis a = analyzeTrace(*run, nullptr);
    std::size_t warm = 0, outside = 0;
    for (const KernelAnalysis& k : a.kernels) {
        warm += k.warmup;
        outside += k.call < 0 && !k.warmup;
        EXPECT_FALSE(k.warmup && k.call >= 0);
    }
    EXPECT_GT(warm, 0u);
    EXPECT_EQ(outside, 0u);
    for (const ImplCalls& impl : a.tables.implCalls)
        EXPECT_EQ(impl.calls, 2u) << impl.impl; // the timed calls only
    TimeNs groups = 0, kernels = 0;
    for (const ImplRoleTimes& g : a.tables.roleTimes) {
        EXPECT_FALSE(g.impl.empty() && !g.warmup) << "a group outside attention";
        groups += g.times.total();
    }
    for (const KernelAnalysis& k : a.kernels)
        kernels += run->track(k.event.track).events.duration[k.event.index];
    EXPECT_EQ(groups, kernels);
    std::unique_ptr<QChart> chart(makeChart(ChartKind::Breakdown, {{run.get(), &a, "run"}}));
    auto* x = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Horizontal).front());
    ASSERT_NE(x, nullptr);
    const QString labels = x->categories().join(" | ");
    EXPECT_TRUE(labels.contains("warm-up calls")) << labels.toStdString();
    EXPECT_FALSE(labels.contains("outside attention")) << labels.toStdString();
}
