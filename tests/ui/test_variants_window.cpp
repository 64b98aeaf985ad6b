// SPDX-License-Identifier: MIT
// Compare Variants as a user works it: traces added (one that cannot be read keeps its row, with why),
// the table with the rows `attnscope compare` prints, reordered, one removed, the baseline moved, the
// timelines lined up at the n-th attention call, a row opening its trace, and every export written.
#include "core/document/document.h"
#include "core/report/compare.h"
#include "core/report/format.h"
#include "support/test_support.h"
#include "ui/charts.h"
#include "ui/findings_panel.h"
#include "ui/main_window.h"
#include "ui/ranks_panel.h"
#include "ui/timeline_layout.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"
#include "ui/variants_window.h"
#include "ui/whatif_controller.h"

#include "core/io/chrome_writer.h"
#include "kernels/run_session.h"
#include "support/run_to_end.h"

#include <QApplication>
#include <QChartView>
#include <QDialog>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScatterSeries>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolTip>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

bool waitForCompare(VariantsWindow& w) {
    return waitWhile([&] { return w.loading(); }, 60000);
}

QString cell(QTableWidget* t, int row, int column) {
    const QTableWidgetItem* item = t->item(row, column);
    return item ? item->text() : QString();
}

} // namespace

TEST(VariantsWindow, FourTracesAndABrokenOneSideBySide) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(dlrm, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(mi250, "mi250_rocm_small.json.gz");
    TempDir dir;
    const std::string run0 = verdictTraces(dir).front();
    writeFile(dir.path("broken.json"), "not a trace at all");
    const QStringList paths = {QString::fromStdString(run0), QString::fromStdString(h100),
                               QString::fromStdString(dir.path("broken.json")), QString::fromStdString(dlrm),
                               QString::fromStdString(mi250)};
    auto* w = new VariantsWindow;
    w->resize(1500, 1000);
    w->show();
    QSignalSpy compared(w, &VariantsWindow::compared);
    w->addTraces(paths);
    ASSERT_TRUE(waitForCompare(*w));
    EXPECT_GE(compared.count(), 1);
    ASSERT_EQ(w->traceCount(), 5);

    // The same rows as `attnscope compare` prints, in the same order.
    const Comparison expected = compareFiles({run0, h100, dir.path("broken.json"), dlrm, mi250}, 0);
    const CompareTable rows = compareTable(expected);
    QTableWidget* t = w->table();
    ASSERT_EQ(t->rowCount(), int(rows.lines.size()));
    for (int r = 0; r < t->rowCount(); ++r)
        for (std::size_t c = 0; c < rows.lines[std::size_t(r)].cells.size(); ++c)
            EXPECT_EQ(cell(t, r, int(c)).toStdString(), rows.lines[std::size_t(r)].cells[c]) << r << "," << c;
    int broken = -1;
    for (int r = 0; r < t->rowCount(); ++r)
        if (cell(t, r, 0) == "broken.json") broken = r;
    ASSERT_GE(broken, 0);
    EXPECT_TRUE(cell(t, broken, 1).startsWith("could not be read: not a JSON trace"))
        << cell(t, broken, 1).toStdString();
    EXPECT_EQ(w->timelines().size(), 4u); // the four that opened

    // Reordered, the baseline moved, one removed: the ratios follow the baseline.
    w->moveTrace(2, 4); // the broken one last
    EXPECT_EQ(w->comparison().traces.back().path, dir.path("broken.json"));
    w->setBaseline(1); // the H100 trace
    const CompareRow* base = w->comparison().baselineRow();
    ASSERT_NE(base, nullptr);
    EXPECT_EQ(base->impl, "flash");
    EXPECT_DOUBLE_EQ(*w->comparison().kernelRatio(*base), 1.0);
    // The DLRM and MI250 traces have no attention call: the others line up, and the line names those two.
    QString said;
    EXPECT_FALSE(w->alignCalls(1, &said));
    EXPECT_TRUE(said.startsWith("Lined up at attention call 1; not ")) << qPrintable(said);
    EXPECT_TRUE(said.contains("(no attention call)")) << qPrintable(said);
    EXPECT_EQ(said.count("(no attention call)"), 2) << qPrintable(said);
    // The baseline follows its trace when another moves past it or is removed before it.
    w->moveTrace(0, 1); // the H100 trace (the baseline) is now first
    EXPECT_EQ(w->comparison().baseline, 0u);
    EXPECT_EQ(w->comparison().traces[0].path, h100);
    w->moveTrace(1, 0);
    EXPECT_EQ(w->comparison().baseline, 1u);
    w->setBaseline(2); // the DLRM rank; removing it makes the next trace the baseline
    w->removeTrace(2);
    EXPECT_EQ(w->comparison().baseline, 2u);
    EXPECT_EQ(w->comparison().traces[2].path, mi250);
    w->setBaseline(1);
    w->removeTrace(3); // the broken one
    w->removeTrace(2); // the MI250 trace: no attention call to line up
    ASSERT_EQ(w->traceCount(), 2);
    EXPECT_EQ(w->comparison().baseline, 1u);

    // Lined up at the 2nd call: each timeline starts just before its own 2nd call.
    ASSERT_TRUE(w->alignCalls(2));
    const auto views = w->timelines();
    ASSERT_EQ(views.size(), 2u);
    // At one scale and one place, however much shorter one trace is than the window (a short trace's view
    // was left at its Fit All, its call elsewhere).
    std::vector<double> callX;
    for (std::size_t i = 0; i < views.size(); ++i) {
        const auto doc = openDocument(DocumentSource::file(w->comparison().traces[i].path));
        ASSERT_GE(doc->analysis->calls.size(), 2u);
        const TimeNs start = doc->analysis->calls[1].start;
        EXPECT_LE(views[i]->viewport().start(), start) << i;
        EXPECT_GT(views[i]->viewport().end(), start) << i;
        EXPECT_DOUBLE_EQ(views[i]->viewport().span(), views[0]->viewport().span()) << i;
        callX.push_back(views[i]->viewport().timeToX(start));
    }
    EXPECT_NEAR(callX[0], callX[1], 1.0);
    EXPECT_FALSE(w->alignCalls(100000, &said)); // no trace has that many
    EXPECT_TRUE(said.startsWith("No trace has an attention call 100000: ")) << qPrintable(said);
    EXPECT_TRUE(said.contains(" calls)")) << qPrintable(said); // each named with the calls it has

    // A double-click opens the row's trace.
    QSignalSpy open(w, &VariantsWindow::openRequested);
    Q_EMIT t->cellDoubleClicked(0, 0);
    ASSERT_EQ(open.count(), 1);
    EXPECT_EQ(open.front().front().toString().toStdString(), run0);

    // The exports: the table as Markdown and CSV, the charts as pictures.
    const QString md = QString::fromStdString(dir.path("t.md"));
    ASSERT_EQ(w->exportTable(md), QString());
    QFile mdFile(md);
    ASSERT_TRUE(mdFile.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(mdFile.readAll());
    EXPECT_TRUE(text.startsWith("| trace | implementation |")) << text.toStdString();
    EXPECT_TRUE(text.contains("| h100_sdpa_flash_qwen.json.gz | flash | 34 | 1 | 1 | 0 |"))
        << text.toStdString();
    ASSERT_EQ(w->exportTable(QString::fromStdString(dir.path("t.csv"))), QString());
    EXPECT_FALSE(w->exportTable(QString::fromStdString(dir.path("t.txt"))).isEmpty());
    // The Timelines tab exports the timelines as lined up, not the breakdown.
    const QString lined = QString::fromStdString(dir.path("timelines.png"));
    EXPECT_FALSE(w->exportChart("timelines", lined).isEmpty()); // not on show: said, nothing written
    w->resize(1000, 330); // the tab too short for both timelines: one is scrolled out of sight
    w->show();
    w->findChild<QTabWidget*>()->setCurrentIndex(2); // as Align Calls does
    QApplication::processEvents();
    ASSERT_EQ(w->exportChart("timelines", lined), QString());
    const QImage timelines(lined);
    EXPECT_GT(timelines.width(), 600);
    const auto shown = w->timelines();
    ASSERT_EQ(shown.size(), 2u);
    EXPECT_LT(shown.back()->visibleRegion().boundingRect().height(), shown.back()->height())
        << "the second timeline is to be out of sight for this test";
    const QPoint bottom =
        shown.back()->mapTo(shown.front()->parentWidget()->parentWidget(), QPoint(0, shown.back()->height()));
    EXPECT_GE(timelines.height(), bottom.y()) << "every timeline is in the picture, the hidden one too";
    for (const char* kind : {"breakdown", "roofline"}) {
        const QString png = QString::fromStdString(dir.path(std::string(kind) + ".png"));
        ASSERT_EQ(w->exportChart(kind, png), QString()) << kind;
        const QImage image(png);
        EXPECT_EQ(image.size(), QSize(1200, 700)) << kind;
        ASSERT_EQ(w->exportChart(kind, QString::fromStdString(dir.path(std::string(kind) + ".svg"))),
                  QString());
    }
    if (const char* shots = std::getenv("ATTNSCOPE_TEST_SCREENSHOTS")) { // to look at it
        auto* tabs = w->findChild<QTabWidget*>();
        for (int tab = 0; tab < tabs->count(); ++tab) {
            tabs->setCurrentIndex(tab);
            QApplication::processEvents();
            w->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/variants_%1.png").arg(tab));
        }
    }
    delete w;
}

// Two ranks of an open job, compared from the Ranks dock: the button waits for two selected ranks, then
// opens their files side by side.
// At 1366 px every column is on screen: the prose columns (roles, verdicts, what the trace revealed) share
// the room left by the figures and wrap in taller rows ("by verdict" and the findings lay off to the right).
TEST(VariantsWindow, EveryColumnFitsA1366PixelScreen) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(mi250, "mi250_rocm_small.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(nsys, "nsys_2025_pytorch_h200.sqlite");
    auto* w = new VariantsWindow;
    w->resize(1366, 740);
    w->show();
    w->addTraces({QString::fromStdString(h100), QString::fromStdString(mi250), QString::fromStdString(nsys)});
    ASSERT_TRUE(waitForCompare(*w));
    QApplication::processEvents();
    QTableWidget* t = w->table();
    expectEveryCellWhole(t);
    // Widened, the prose takes the new room.
    const int last = t->columnCount() - 1, lastWidth = t->columnWidth(last);
    w->resize(1900, 740);
    QApplication::processEvents();
    EXPECT_LE(t->horizontalHeader()->length(), t->viewport()->width());
    EXPECT_GT(t->columnWidth(last), lastWidth + 300);
    // At 768 px high, the Timelines tab shows the three traces' timelines whole, none below the fold.
    w->resize(1366, 740);
    w->findChild<QTabWidget*>()->setCurrentIndex(2);
    QApplication::processEvents();
    const auto views = w->timelines();
    ASSERT_EQ(views.size(), 3u);
    const auto* scroll = w->findChild<QScrollArea*>();
    for (const TimelineView* v : views) {
        const QRect in(v->mapTo(scroll->viewport(), QPoint(0, 0)), v->size());
        EXPECT_TRUE(scroll->viewport()->rect().contains(in)) << in.y() << "+" << in.height();
        EXPECT_GE(v->height(), 100);
        // Their time axes line up: one width of name column; one legend, under the last.
        EXPECT_EQ(v->labelWidth(), views.front()->labelWidth());
    }
    // A trace with GPU streams shows them, its host processes folded (their threads' rows not drawn).
    int streams = 0, folded = 0;
    for (const auto& row : views.front()->rows().rows()) {
        streams += row.label.contains("stream");
        folded += row.kind == TimelineRow::Kind::Group && row.collapsed;
    }
    EXPECT_GT(streams, 0);
    EXPECT_GT(folded, 0);
    if (const char* shots = std::getenv("ATTNSCOPE_TEST_SCREENSHOTS")) // to look at it
        w->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/variants_1366_timelines.png"));
    // The roofline's points say what they are under the pointer, as the Charts dock's do.
    w->findChild<QTabWidget*>()->setCurrentIndex(1);
    QApplication::processEvents();
    QChartView* roofline = nullptr;
    for (QChartView* view : w->findChildren<QChartView*>())
        if (view->isVisible()) roofline = view;
    ASSERT_NE(roofline, nullptr);
    QScatterSeries* points = nullptr;
    for (QAbstractSeries* series : roofline->chart()->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(series);
            scatter && scatter->count() > 0 && scatter->property("attnscopeTips").isValid())
            points = scatter;
    ASSERT_NE(points, nullptr);
    const QPointF at = roofline->chart()->mapToPosition(points->at(0), points);
    const QString expected = chartTipAt(roofline->chart(), at);
    ASSERT_FALSE(expected.isEmpty());
    const QPoint pixel = roofline->mapFromScene(at);
    QHelpEvent help(QEvent::ToolTip, pixel, roofline->viewport()->mapToGlobal(pixel));
    QApplication::sendEvent(roofline->viewport(), &help);
    EXPECT_EQ(QToolTip::text(), expected);
    QToolTip::hideText();
    delete w;
}

TEST(VariantsWindow, TwoRanksOfAnOpenJobFromTheRanksDock) {
    ATTNSCOPE_REQUIRE_FIXTURE(rank0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(rank1, "dlrm_2ranks/rank1.json");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.openRanks({QString::fromStdString(rank0), QString::fromStdString(rank1)});
    ASSERT_TRUE(waitForLoad(w));
    auto* ranks = w.findChild<RanksPanel*>();
    ASSERT_NE(ranks, nullptr);
    ASSERT_EQ(ranks->table()->rowCount(), 2);
    EXPECT_FALSE(ranks->compareButton()->isEnabled());
    ranks->table()->selectRow(0);
    EXPECT_FALSE(ranks->compareButton()->isEnabled()); // one rank is nothing to compare
    ranks->table()->selectAll();
    ASSERT_TRUE(ranks->compareButton()->isEnabled());
    ranks->compareButton()->click();
    VariantsWindow* v = w.findChild<VariantsWindow*>();
    ASSERT_NE(v, nullptr);
    ASSERT_TRUE(waitForCompare(*v));
    ASSERT_EQ(v->traceCount(), 2);
    std::vector<std::string> paths;
    for (const ComparedTrace& t : v->comparison().traces) {
        EXPECT_TRUE(t.error.empty()) << t.error;
        paths.push_back(t.path);
    }
    std::sort(paths.begin(), paths.end());
    EXPECT_EQ(paths, (std::vector<std::string>{rank0, rank1}));
    // The ranks share a file name's folder but not its name: each row says which rank it is.
    EXPECT_EQ(v->table()->item(0, 0)->text().toStdString().find("rank"), 0u);
}

// A roofline holds each trace to its own device's roofs: a trace held to others (an H100's beside a CPU
// run's) is left off and named, never drawn under roofs that are not its own.
TEST(VariantsWindow, TheRooflineLeavesOffATraceOnOtherRoofs) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const std::string run0 = verdictTraces(dir).front();
    auto* w = new VariantsWindow;
    w->addTraces({QString::fromStdString(run0), QString::fromStdString(h100)});
    ASSERT_TRUE(waitForCompare(*w));
    const QString svg = QString::fromStdString(dir.path("roofline.svg"));
    ASSERT_EQ(w->exportChart("roofline", svg), QString());
    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    EXPECT_TRUE(
        text.contains("left off, held to other roofs than these: B: h100_sdpa_flash_qwen.json.gz (H100"))
        << "the title names the trace left off";
    delete w;
}

// A trace still opening says so, in grey, and is no error.
TEST(VariantsWindow, ATraceStillOpeningIsNotAnError) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    auto* w = new VariantsWindow;
    w->addTraces({QString::fromStdString(h100)});
    ASSERT_TRUE(w->loading()); // it opens on a worker thread
    EXPECT_EQ(w->table()->item(0, 1)->text(), "opening…");
    ASSERT_TRUE(waitForCompare(*w));
    EXPECT_EQ(w->table()->item(0, 1)->text(), "flash");
    delete w;
}

// "Try the Alternatives…" from the Attention dock: the call's recorded shape run again here with PyTorch,
// on a worker, then Compare Variants with the trace as recorded and the run measured here; a trace that
// does not record the call's inputs runs nothing and says why.
TEST(WhatIf, TheAttentionDocksCallRunsAgainAndOpensBesideTheTrace) {
    ASSERT_TRUE(std::filesystem::exists(ATTNSCOPE_TORCH_PYTHON)) << "make test creates the PyTorch venv";
    qputenv("ATTNSCOPE_PYTHON", ATTNSCOPE_TORCH_PYTHON);
    TempDir dir;
    // One SDPA call on the CPU, its inputs recorded (record_shapes), as PyTorch's profiler writes it.
    writeFile(dir.path("sdpa.json"), R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":1,"tid":1,"ts":10,"dur":100,
 "args":{"Input Dims":[[1,2,64,32],[1,2,64,32],[1,2,64,32],[],[],[],[],[]],
 "Input type":["float","float","float","","Scalar","Scalar","",""],"Concrete Inputs":["","","","","0.","True","","False"]}},
{"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":1,"tid":1,"ts":12,"dur":90,
 "args":{"Input Dims":[[1,2,64,32],[1,2,64,32],[1,2,64,32],[],[],[]],"Input type":["float","float","float","Scalar","Scalar",""]}}
]})");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, dir.path("sdpa.json")));
    EXPECT_EQ(w.tryAlternatives("naive").toStdString(), "no call of naive in this trace");
    QSignalSpy finished(w.whatIf(), &WhatIfController::finished);
    ASSERT_EQ(w.tryAlternatives("flash"), QString());
    EXPECT_TRUE(w.whatIf()->running());
    ASSERT_TRUE(waitUntil([&] { return finished.count() > 0; }, 120000));
    auto* variants = w.findChild<VariantsWindow*>();
    ASSERT_NE(variants, nullptr);
    ASSERT_TRUE(waitForCompare(*variants));
    ASSERT_EQ(variants->traceCount(), 2);
    QStringList impls;
    for (int r = 0; r < variants->table()->rowCount(); ++r)
        impls << cell(variants->table(), r, 0) + " · " + cell(variants->table(), r, 1);
    EXPECT_TRUE(impls.contains("sdpa as recorded.json · flash")) << impls.join(" | ").toStdString();
    EXPECT_TRUE(impls.contains("sdpa measured here.json · flash")) << impls.join(" | ").toStdString();
    EXPECT_TRUE(impls.contains("sdpa measured here.json · SDPA math")) << impls.join(" | ").toStdString();
    // The same work: Compare does not warn that the shapes differ.
    EXPECT_EQ(variants->comparison().shapeWarning(), "");

    // Attention by hand (AttnScope's own CPU run of a naive call): its finding, in the recorded trace's row,
    // learns what the run measured beside it here (flash's saving a call, the fused one in its precision),
    // no more than the calls took as recorded, and says so.
    {
        kernels::RunConfig config;
        config.shape = {1, 2, 256, 32, false, Precision::F32};
        config.impls = {"naive"};
        config.warmup = 1;
        config.iters = 3;
        kernels::RunSession session(config);
        writeChromeTrace(*kernels::buildRunTrace(runToEnd(session)), dir.path("naive.json"));
    }
    ASSERT_TRUE(openAndAnalyse(w, dir.path("naive.json")));
    QSignalSpy again(w.whatIf(), &WhatIfController::finished);
    ASSERT_EQ(w.tryAlternatives("naive"), QString());
    ASSERT_TRUE(waitUntil([&] { return again.count() > 0; }, 120000));
    const auto windows = w.findChildren<VariantsWindow*>();
    VariantsWindow* learned = nullptr;
    for (VariantsWindow* v : windows)
        if (v != variants) learned = v;
    ASSERT_NE(learned, nullptr);
    ASSERT_TRUE(waitForCompare(*learned));
    const WhatIfController::Learned& l = w.whatIf()->learned();
    EXPECT_EQ(l.impl, "naive");
    EXPECT_EQ(l.calls, 3u);
    const kernels::WhatIfSaving* flash = nullptr;
    for (const kernels::WhatIfSaving& saving : l.savings)
        if (saving.impl == "flash") flash = &saving;
    ASSERT_NE(flash, nullptr);
    EXPECT_TRUE(flash->fused);
    const ComparedTrace& recorded = learned->comparison().traces.front();
    ASSERT_EQ(recorded.rows.size(), 1u);
    const CompareRow& naive = recorded.rows.front();
    bool found = false;
    for (const CompareRow::Brief& f : naive.findings)
        if (f.id == "hand_written_attention") {
            found = true;
            EXPECT_NE(f.title.find("measured here: flash saves"), std::string::npos) << f.title;
            EXPECT_EQ(f.timeNs,
                      std::min(std::max<TimeNs>(0, flash->perCall), naive.calls.kernelNsPerCall()) * 3);
            EXPECT_LE(f.timeNs, naive.calls.kernelNsPerCall() * 3) << "no more than the calls took";
        }
    EXPECT_TRUE(found);
    // The window's own views learn it too (its Findings dock and the summary: one answer): the same time at
    // stake as the recorded row's, and the selection and view of the trace on show stay.
    const auto taught = w.document();
    ASSERT_TRUE(taught && taught->findings);
    const Finding* mine = nullptr;
    for (const Finding& f : *taught->findings)
        if (f.id == "hand_written_attention") mine = &f;
    ASSERT_NE(mine, nullptr);
    EXPECT_TRUE(mine->measured);
    for (const CompareRow::Brief& f : naive.findings)
        if (f.id == "hand_written_attention") {
            EXPECT_EQ(mine->timeNs, f.timeNs) << "one answer: the Findings dock's and Compare Variants' row";
        }
    EXPECT_NE(mine->explanation.find("Since measured on this machine's CPU"), std::string::npos)
        << mine->explanation;
    bool summarized = false;
    for (const Finding& f : taught->summary->findings)
        summarized = summarized || (f.id == mine->id && f.timeNs == mine->timeNs && f.title == mine->title);
    EXPECT_TRUE(summarized);
    bool listed = false;
    for (int r = 0; r < w.findings()->table()->rowCount(); ++r)
        for (int c = 0; c < w.findings()->table()->columnCount(); ++c)
            if (auto* item = w.findings()->table()->item(r, c))
                listed = listed || item->text().contains("measured here: flash saves");
    EXPECT_TRUE(listed) << "the Findings dock shows the measured saving";
    // Only the document it was asked of learns: the same file opened again (another document) does not.
    ASSERT_TRUE(openAndAnalyse(w, dir.path("naive.json")));
    EXPECT_NE(w.document(), taught);
    EXPECT_EQ(w.whatIf()->taught(w.document()), nullptr);
    // The run's own findings are left out, as whatif leaves them: one of them counted both naive
    // implementations' calls beside a row of one's.
    ASSERT_EQ(learned->comparison().traces.size(), 2u);
    for (const CompareRow& row : learned->comparison().traces[1].rows)
        EXPECT_TRUE(row.findings.empty()) << row.impl << ": " << row.findings.front().title;
    bool shown = false; // and the table says it
    for (int r = 0; r < learned->table()->rowCount(); ++r)
        for (int c = 0; c < learned->table()->columnCount(); ++c)
            if (learned->table()->item(r, c) &&
                learned->table()->item(r, c)->text().contains("measured here"))
                shown = true;
    EXPECT_TRUE(shown);
    // The baseline is the call as it was, measured here (whatif's), and each saving with its spread over the
    // rounds is said above the table as whatif prints it.
    const CompareRow* base = learned->comparison().baselineRow();
    ASSERT_NE(base, nullptr);
    EXPECT_EQ(base->impl, "naive");
    EXPECT_EQ(learned->comparison().baseline, 1u);
    EXPECT_EQ(base->calls.kernelNsPerCall(), l.asItWasNsPerCall);
    const QString savings = learned->savingsText()->text();
    EXPECT_TRUE(learned->savingsText()->isVisibleTo(learned)) << savings.toStdString();
    EXPECT_TRUE(savings.startsWith("Measured on this machine's CPU, against naive as it was here (" +
                                   QString::fromStdString(formatDuration(l.asItWasNsPerCall)) +
                                   " a call):"))
        << savings.toStdString();
    EXPECT_TRUE(
        savings.contains("\n  flash: " + QString::fromStdString(kernels::whatIfSavingText(*flash, 3))))
        << savings.toStdString();
    EXPECT_TRUE(savings.contains(" over 5 rounds ")) << savings.toStdString();
    // What could not run on this CPU says why, as whatif does, not left out without a word.
    EXPECT_TRUE(savings.contains("\n  could not run here: efficient: PyTorch has this backend on CUDA only"))
        << savings.toStdString();
    // A finding about the call offers its alternatives from the Findings dock; one about no call does not.
    EXPECT_EQ(w.callImplOfFinding("hand_written_attention"), "naive");
    EXPECT_EQ(w.callImplOfFinding("no_such_finding"), "");

    // Asked first from a menu: the alternatives checked and the calls measured of each. Only naive and
    // flash, two calls each: the run runs those and no other.
    QTimer::singleShot(200, [&] {
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        ASSERT_NE(dialog, nullptr);
        auto* list = dialog->findChild<QListWidget*>();
        ASSERT_NE(list, nullptr);
        EXPECT_EQ(list->count(), int(kernels::torchImpls().size()));
        for (int i = 0; i < list->count(); ++i) {
            const QString impl = list->item(i)->data(Qt::UserRole).toString();
            EXPECT_EQ(list->item(i)->checkState(), Qt::Checked) << impl.toStdString();
            if (impl != "naive" && impl != "flash") list->item(i)->setCheckState(Qt::Unchecked);
        }
        dialog->findChild<QSpinBox*>()->setValue(2);
        dialog->accept();
    });
    QSignalSpy chosen(w.whatIf(), &WhatIfController::finished);
    ASSERT_EQ(w.whatIf()->askAndStart(w.document(), "naive"), QString());
    ASSERT_TRUE(waitUntil([&] { return chosen.count() > 0; }, 120000));
    ASSERT_EQ(w.whatIf()->learned().savings.size(), 1u);
    EXPECT_EQ(w.whatIf()->learned().savings.front().impl, "flash");
    EXPECT_EQ(w.whatIf()->learned().savings.front().rounds, 2u);

    // A call whose inputs were not recorded: nothing runs.
    writeFile(dir.path("bare.json"), R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":1,"tid":1,"ts":10,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":1,"tid":1,"ts":12,"dur":90}
]})");
    ASSERT_TRUE(openAndAnalyse(w, dir.path("bare.json")));
    const QString why = w.tryAlternatives("flash");
    EXPECT_TRUE(why.contains("no recorded inputs")) << why.toStdString();
    EXPECT_FALSE(w.whatIf()->running());
}
