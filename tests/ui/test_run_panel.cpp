// SPDX-License-Identifier: MIT
// A run from the Run panel, as a user starts it: kernels appear while it runs, Stop ends it, the
// finished run is a trace like a loaded one, and what cannot run says why.
#include "support/test_support.h"
#include "ui/attention_panel.h"
#include "ui/charts.h"
#include "ui/details_panel.h"
#include "ui/kernel_table_model.h"
#include "ui/run_panel.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include "core/analysis/analysis.h"
#include "core/document/document.h"
#include "core/io/trace_loader.h"
#include "core/report/summary.h"

#include <QAbstractSeries>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

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

// Lets the window's event loop turn until its run has ended and the run's analysis is in (or limitMs).
void waitForAnalysedRun(MainWindow& w, int limitMs) {
    QElapsedTimer timer;
    timer.start();
    while ((w.running() || !w.analysis()) && timer.elapsed() < limitMs)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    QApplication::processEvents(QEventLoop::AllEvents, 100);
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
    // Long enough (some hundreds of ms) for snapshots to arrive while it runs.
    kernels::RunConfig config = smallRun(40);
    config.shape.seq = 1024;
    w.runPanel()->setConfig(config);
    // The Attention dock on top while it runs: its rows follow each snapshot.
    if (auto* dock = w.findChild<QDockWidget*>("attentionDock")) dock->raise();
    button(w.runPanel(), "Run")->click();
    if (auto* box = w.findChild<QMessageBox*>()) ADD_FAILURE() << box->text().toStdString();
    ASSERT_TRUE(w.running());
    QElapsedTimer timer;
    timer.start();
    bool seenWhileRunning = false, analysedWhileRunning = false;
    while (w.running() && timer.elapsed() < 60000) {
        QApplication::processEvents(QEventLoop::AllEvents, 10);
        if (w.running() && w.trace() && w.trace()->eventCount() > 0) seenWhileRunning = true;
        // The run so far with its roles and calls: the Attention dock's rows grow with it.
        if (w.running() && w.analysis() && !w.analysis()->calls.empty() &&
            w.attention()->table()->rowCount() > 0)
            analysedWhileRunning = true;
    }
    QApplication::processEvents(QEventLoop::AllEvents, 100); // the last batch
    ASSERT_FALSE(w.running());
    EXPECT_TRUE(seenWhileRunning) << "the timeline showed kernels before the run ended";
    EXPECT_TRUE(analysedWhileRunning) << "the Attention dock showed the calls so far before the run ended";
    ASSERT_TRUE(w.trace());
    const TraceSummary s = summarize(*w.trace(), 0);
    // 40 calls of naive (3 kernels) and flash (1), each split over the workers.
    EXPECT_EQ(s.topKernels.size(), 4u);
    std::uint64_t flash = 0;
    for (const KernelStats& k : s.topKernels)
        if (k.name == "flash_attention_fwd") flash = k.count;
    EXPECT_GE(flash, 40u);
    EXPECT_EQ(w.kernelModel()->rowCount(), 4);
    EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("Run finished"))
        << w.statusBar()->currentMessage().toStdString();
    // It opens into its implementations side by side: the Attention dock, raised, with naive and flash
    // each as expected (once the analysis is in).
    auto* attentionDock = w.findChild<QDockWidget*>("attentionDock");
    ASSERT_NE(attentionDock, nullptr);
    EXPECT_FALSE(attentionDock->visibleRegion().isEmpty()) << "the Attention dock is on top of its tabs";
    QElapsedTimer analysed;
    analysed.start();
    while (!w.analysis() && analysed.elapsed() < 20000)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    QApplication::processEvents();
    QTableWidget* implementations = w.attention()->table();
    ASSERT_EQ(implementations->rowCount(), 2);
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(implementations->item(r, 2)->text(), implementations->item(r, 3)->text())
            << r; // as expected
        EXPECT_EQ(implementations->item(r, 4)->text(), "0") << r;
    }
    // Saved, it reads back the same.
    TempDir dir;
    ASSERT_EQ(w.saveTrace(QString::fromStdString(dir.path("run.json.gz"))), "");
    const auto again = loadTraceFile(dir.path("run.json.gz"));
    EXPECT_EQ(summarize(*again, 0).kernelCount, s.kernelCount);
    // File ▸ Save Trace As… writes on a worker and says when it is done; the file is the same run.
    QSignalSpy saved(&w, &MainWindow::traceSaved);
    const QString background = QString::fromStdString(dir.path("background.json"));
    w.saveTraceInBackground(background);
    ASSERT_TRUE(saved.wait(20000));
    EXPECT_EQ(saved.at(0).at(0).toString(), background);
    EXPECT_EQ(saved.at(0).at(1).toString(), "");
    EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("Saved "))
        << w.statusBar()->currentMessage().toStdString();
    EXPECT_EQ(summarize(*loadTraceFile(background.toStdString()), 0).kernelCount, s.kernelCount);
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
    w.runPanel()->findChild<QComboBox*>("runBackend")->setCurrentIndex(2); // CUDA
    button(w.runPanel(), "Run")->click();
    EXPECT_FALSE(w.running());
    bool said = false;
    for (QMessageBox* b : w.findChildren<QMessageBox*>())
        said = said || b->text().startsWith("no CUDA");
    EXPECT_TRUE(said);
}

// A first start offers the first look (naive vs flash, prefill and decode), the run the window starts
// with; a preset replaces the shape fields, which are greyed out while it is chosen, and is kept.
TEST(RunPanel, PresetsReplaceTheShapeFieldsAndAreKept) {
    auto* panel = new RunPanel;
    auto* preset = panel->findChild<QComboBox*>("runPreset");
    ASSERT_NE(preset, nullptr);
    EXPECT_EQ(preset->currentData().toString(), "first-look");
    const kernels::RunConfig first = panel->config();
    ASSERT_EQ(first.variants.size(), 2u);
    EXPECT_EQ(first.variants[1].name, "decode");
    EXPECT_EQ(first.variants[1].shape.keys(), 32768);
    QSpinBox* seq = panel->findChildren<QSpinBox*>()[2];
    EXPECT_FALSE(seq->isEnabled());
    preset->setCurrentIndex(preset->findData(QString()));
    EXPECT_TRUE(panel->config().variants.empty());
    EXPECT_TRUE(seq->isEnabled());
    preset->setCurrentIndex(preset->findData("prefill-decode"));
    QString shown;
    for (QLabel* label : panel->findChildren<QLabel*>())
        shown += label->text() + "\n";
    EXPECT_TRUE(shown.contains("decode: B=1 H=8 N=1 D=64 fp32 · 32768 keys (naive, flash)"))
        << shown.toStdString();
    // Run saves it; the next panel (a restart) has it again.
    button(panel, "Run")->click();
    delete panel;
    RunPanel again;
    EXPECT_EQ(again.findChild<QComboBox*>("runPreset")->currentData().toString(), "prefill-decode");
    EXPECT_EQ(again.config().variants.size(), 2u);
}

// The Run panel offers exactly the shapes the command line's `run` takes: one set of limits.
TEST(RunPanel, ItsRangesAreTheRunLimits) {
    RunPanel panel;
    const QList<QSpinBox*> spins = panel.findChildren<QSpinBox*>();
    ASSERT_EQ(spins.size(), 8);
    const kernels::RunLimit expected[] = {kernels::limits::kBatch,   kernels::limits::kHeads,
                                          kernels::limits::kSeq,     kernels::limits::kDim,
                                          kernels::limits::kKvHeads, kernels::limits::kKvLen,
                                          kernels::limits::kWarmup,  kernels::limits::kIters};
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(spins[i]->minimum(), expected[i].lo) << i;
        EXPECT_EQ(spins[i]->maximum(), expected[i].hi) << i;
    }
}

// A CPU attention run from the Run panel, as a user starts it: no kernel is above its roofs, and each
// kernel name has one verdict in the Details panel, on the roofline chart (its point under both roofs)
// and in `summary --format json` of the saved run.
TEST(RunPanel, ACpuRunsVerdictsAgreeInDetailsChartAndSummary) {
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.runPanel()->setConfig(smallRun(3));
    button(w.runPanel(), "Run")->click();
    ASSERT_TRUE(w.running());
    waitForAnalysedRun(w, 60000);
    ASSERT_FALSE(w.running());
    ASSERT_TRUE(w.analysis());
    const Trace& trace = *w.trace();
    const TraceAnalysis& a = *w.analysis();
    // Saved and summarized headless, as `attnscope summary --format json run.json` does.
    TempDir dir;
    const std::string saved = dir.path("run.json");
    ASSERT_EQ(w.saveTrace(QString::fromStdString(saved)), "");
    DocumentOptions options;
    options.parts = SummaryPart | AnalysisPart;
    const auto doc = openDocument(DocumentSource::file(saved), options);
    const nlohmann::json json =
        nlohmann::json::parse(formatSummaries({{saved, *doc->summary, ""}}, SummaryFormat::Json));
    std::map<std::string, std::string> summaryVerdict;
    for (const auto& k : json.at("files").at(0).at("roofline").at("kernels")) {
        summaryVerdict[k.at("name")] = k.at("verdict");
        if (!k.contains("compute_share")) continue; // every kernel of the name beat a measured roof
        EXPECT_LE(k.at("compute_share").get<double>(), 1.0) << k.dump();
        EXPECT_LE(k.at("memory_share").get<double>(), 1.0) << k.dump();
    }
    ASSERT_EQ(summaryVerdict.size(), 4u);
    const NameClasses& classes = a.tables.classes;
    std::map<std::string, int> detailsChecked;
    for (const KernelAnalysis& k : a.kernels) {
        const std::string name(trace.str(trace.track(k.event.track).events.name[k.event.index]));
        if (k.beyondRoof) {
            // Faster than this machine's measured roof (its data in cache): no verdict, and Details says
            // why instead of a share above 100%; the roof stays.
            EXPECT_EQ(k.verdict, Verdict::BeyondRoof) << name;
            w.timeline()->selectEvent(k.event, true);
            QApplication::processEvents();
            EXPECT_TRUE(
                w.details()
                    ->field("roofline")
                    .startsWith("beyond its roof, so no verdict: faster than this machine's measured roof"))
                << w.details()->field("roofline").toStdString();
            continue;
        }
        EXPECT_LE(k.computeShare, 1.0 + 1e-12) << name;
        EXPECT_LE(k.memoryShare, 1.0 + 1e-12) << name;
        ASSERT_NE(k.verdict, Verdict::Unknown) << name;
        // The summary gives a name the verdict of most of its placed kernels' time, as the window's colours
        // do.
        const Verdict named = classes.verdict[trace.track(k.event.track).events.name[k.event.index].value];
        EXPECT_EQ(summaryVerdict[name], shortVerdictName(named)) << name;
        // The Details panel of the kernel says its own verdict and a share of peak no more than 100%.
        if (detailsChecked[name]++ >= 3) continue;
        w.timeline()->selectEvent(k.event, true);
        QApplication::processEvents();
        const QString roofline = w.details()->field("roofline");
        EXPECT_TRUE(roofline.startsWith(QString::fromUtf8(verdictName(k.verdict).data())))
            << roofline.toStdString();
        const QRegularExpression peak(QStringLiteral("\\(([0-9.]+)% of the peak\\)"));
        const auto match = peak.match(roofline);
        ASSERT_TRUE(match.hasMatch()) << roofline.toStdString();
        EXPECT_LE(match.captured(1).toDouble(), 100.0) << roofline.toStdString();
    }
    // The chart: each name's point is under both of its roofs (its tooltip's shares no more than 100%),
    // a point per name with a kernel under its roofs.
    auto expectPointsUnderRoofs = [&trace](const TraceAnalysis& analysis) {
        std::unique_ptr<QChart> chart(makeChart(ChartKind::Roofline, {{&trace, &analysis, "run"}}));
        int points = 0;
        const QRegularExpression shares(
            QStringLiteral("([0-9.]+)% of the fp32 compute roof, ([0-9.]+)% of the memory roof"));
        for (QAbstractSeries* series : chart->series())
            for (const QString& tip : series->property("attnscopeTips").toStringList()) {
                const auto match = shares.match(tip);
                EXPECT_TRUE(match.hasMatch()) << tip.toStdString();
                EXPECT_LE(match.captured(1).toDouble(), 100.0) << tip.toStdString();
                EXPECT_LE(match.captured(2).toDouble(), 100.0) << tip.toStdString();
                ++points;
            }
        std::set<std::string> placed;
        for (const KernelAnalysis& k : analysis.kernels)
            if (!k.beyondRoof)
                placed.insert(std::string(trace.str(trace.track(k.event.track).events.name[k.event.index])));
        EXPECT_EQ(points, int(placed.size()));
        return points;
    };
    expectPointsUnderRoofs(a);
    // How many kernels beat this machine's measured roofs depends on the run: data still in cache beats
    // the DRAM roof, and roofs measured while another test loads the machine are low (in CI every kernel
    // once did, leaving no point). Under roofs far above any kernel, every name has its point.
    ASSERT_TRUE(a.cpuShare);
    DeviceSpec high = *a.cpuShare;
    high.fp32 = 1e18;
    high.bandwidth = 1e18;
    high.fp16 = 0;
    const TraceAnalysis roomy = analyzeTrace(trace, &high);
    EXPECT_EQ(roomy.beyondRoof(), 0u);
    EXPECT_EQ(expectPointsUnderRoofs(roomy), 4); // naive's three kernels and flash's
}

// Ticked implementations go to the run only when the chosen backend has them: PyTorch's SDPA backends
// are left out of a CUDA run, and the CUDA-only SIMT kernels out of a PyTorch run.
TEST(RunPanel, ARunGetsOnlyTheImplementationsOfItsBackend) {
    RunPanel panel;
    kernels::RunConfig config = smallRun(1);
    config.impls = {"naive", "flash", "naive_simt", "math", "efficient", "cudnn"};
    panel.setConfig(config);
    panel.setBackend(kernels::BackendChoice::Cuda);
    EXPECT_EQ(panel.config().impls, (std::vector<std::string>{"naive", "flash", "naive_simt"}));
    panel.setBackend(kernels::BackendChoice::Torch);
    EXPECT_EQ(panel.config().impls,
              (std::vector<std::string>{"naive", "flash", "math", "efficient", "cudnn"}));
}

// "record kernels with CUPTI" applies to a CUDA run only: on the CPU it shows unticked and disabled (it
// had read ticked for a CPU run), and the user's choice comes back with the CUDA backend.
TEST(RunPanel, TheCuptiBoxIsTickedOnlyWhereItApplies) {
    RunPanel panel;
    kernels::RunConfig config = smallRun(1);
    config.collect = true;
    panel.setConfig(config);
    QCheckBox* cupti = nullptr;
    for (QCheckBox* b : panel.findChildren<QCheckBox*>())
        if (b->text().contains("CUPTI")) cupti = b;
    ASSERT_TRUE(cupti);
    panel.setBackend(kernels::BackendChoice::Cpu);
    EXPECT_FALSE(cupti->isEnabled());
    EXPECT_FALSE(cupti->isChecked());
    EXPECT_TRUE(cupti->toolTip().contains("on the CPU")) << cupti->toolTip().toStdString();
    panel.setBackend(kernels::BackendChoice::Cuda);
    EXPECT_TRUE(cupti->isEnabled());
    EXPECT_TRUE(cupti->isChecked()) << "the user's choice is kept while it does not apply";
    cupti->setChecked(false);
    panel.setBackend(kernels::BackendChoice::Cpu);
    panel.setBackend(kernels::BackendChoice::Cuda);
    EXPECT_FALSE(cupti->isChecked());
    EXPECT_FALSE(panel.config().collect);
}

// A run that ends raises the Attention dock (its implementations side by side), unless the user picked
// another of its tabs while it ran: theirs stays on show.
TEST(RunPanel, TheEndOfARunLeavesTheDockTheUserPicked) {
    for (const bool userPicks : {false, true}) {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        auto* kernelsDock = w.findChild<QDockWidget*>("kernelsDock");
        auto* chartsDock = w.findChild<QDockWidget*>("chartsDock");
        auto* attentionDock = w.findChild<QDockWidget*>("attentionDock");
        ASSERT_TRUE(kernelsDock && chartsDock && attentionDock);
        kernelsDock->raise();
        QApplication::processEvents();
        w.runPanel()->setConfig(smallRun(20));
        button(w.runPanel(), "Run")->click();
        ASSERT_TRUE(w.running());
        if (userPicks) {
            chartsDock->raise();
            QApplication::processEvents();
        }
        waitForAnalysedRun(w, 60000);
        ASSERT_FALSE(w.running());
        QDockWidget* expected = userPicks ? chartsDock : attentionDock;
        EXPECT_FALSE(expected->visibleRegion().isEmpty()) << expected->objectName().toStdString();
        EXPECT_TRUE(kernelsDock->visibleRegion().isEmpty());
    }
}

// The Run panel's PyTorch backend with real PyTorch (the virtual environment `make test` makes): its
// implementations arrive as one run, each recognized, and the panel says what PyTorch could not run.
TEST(RunPanel, APyTorchRunShowsItsImplementationsSideBySide) {
    ASSERT_TRUE(std::filesystem::exists(ATTNSCOPE_TORCH_PYTHON))
        << "no Python with PyTorch at " ATTNSCOPE_TORCH_PYTHON " (make test creates it)";
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    kernels::RunConfig config = smallRun(2);
    config.impls = {"naive", "math", "flash", "cudnn"};
    config.shape = {1, 2, 128, 32, false, Precision::F32};
    w.runPanel()->setConfig(config);
    auto* backend = w.runPanel()->findChild<QComboBox*>("runBackend");
    backend->setCurrentIndex(backend->findData("torch"));
    auto* python = w.runPanel()->findChild<QLineEdit*>("runPython");
    ASSERT_TRUE(python->isEnabled());
    // PyTorch's own implementations can be ticked, AttnScope's CUDA-only ones and CUPTI cannot.
    for (QCheckBox* box : w.runPanel()->findChildren<QCheckBox*>()) {
        if (box->text() == "math" || box->text() == "cudnn") EXPECT_TRUE(box->isEnabled());
        if (box->text() == "naive_simt" || box->text().contains("CUPTI")) EXPECT_FALSE(box->isEnabled());
    }
    python->setText(ATTNSCOPE_TORCH_PYTHON);
    button(w.runPanel(), "Run")->click();
    if (auto* box = w.findChild<QMessageBox*>()) ADD_FAILURE() << box->text().toStdString();
    ASSERT_TRUE(w.running());
    waitForAnalysedRun(w, 120000);
    ASSERT_TRUE(w.analysis());
    std::map<std::string, int> calls;
    for (const AttentionCall& c : w.analysis()->calls)
        ++calls[c.impl];
    EXPECT_EQ(calls,
              (std::map<std::string, int>{{"naive", 2}, {std::string(kSdpaMathImpl), 2}, {"flash", 2}}));
    EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("Run finished"))
        << w.statusBar()->currentMessage().toStdString();
    QString state;
    for (QLabel* l : w.runPanel()->findChildren<QLabel*>())
        state += l->text() + "\n";
    EXPECT_TRUE(state.contains("cudnn: not available here: ")) << state.toStdString();
    EXPECT_TRUE(state.contains("PyTorch ")) << state.toStdString();
}
