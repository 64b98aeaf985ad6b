// SPDX-License-Identifier: MIT
#include "gui_main.h"

#include "charts.h"
#include "main_window.h"
#include "run_panel.h"
#include "timeline_export.h"
#include "timeline_view.h"

#include "core/document/document.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int attnscope_gui_main(const char* argv0, const attnscope::ui::WindowRequest* request) {
    QElapsedTimer sinceStart;
    sinceStart.start();
    const std::vector<std::string>& files = request->files;
    const QString screenshot = QString::fromLocal8Bit(request->screenshot.c_str());
    const bool timing = request->timing;
    int argc = 1;
    std::string program = argv0;
    char* argv[] = {program.data(), nullptr};
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AttnScope");
    QApplication::setApplicationName("AttnScope");
    QApplication::setApplicationVersion(ATTNSCOPE_VERSION);
    attnscope::ui::MainWindow window;
    if (!screenshot.isEmpty()) window.screenshotWhenLoaded(screenshot);

    // --timing: how long until the loaded trace is painted, and the longest the event loop went
    // without turning while it loaded (a 5 ms timer that notes its own lateness); then ends the
    // process at once. (Quitting normally would first wait for the analysis still running on a
    // worker — 0.6 s on a 1 GB trace — which is not part of the time to the first paint.)
    QTimer heartbeat;
    QElapsedTimer sinceBeat;
    qint64 longestGapMs = 0;
    if (timing) {
        heartbeat.setInterval(5);
        QObject::connect(&heartbeat, &QTimer::timeout,
                         [&] { longestGapMs = std::max(longestGapMs, sinceBeat.restart()); });
        sinceBeat.start();
        heartbeat.start();
        QObject::connect(window.timeline(), &attnscope::ui::TimelineView::tracePainted, [&] {
            const auto doc = window.document();
            std::printf("load_s=%.3f index_s=%.3f first_paint_s=%.3f max_event_loop_gap_ms=%lld\n",
                        doc ? doc->loadSeconds : 0.0, doc ? doc->totalSeconds - doc->loadSeconds : 0.0,
                        sinceStart.elapsed() / 1000.0, static_cast<long long>(longestGapMs));
            std::fflush(stdout);
            std::_Exit(0);
        });
        QObject::connect(&window, &attnscope::ui::MainWindow::loadFinished, [&] {
            if (!window.document()) QApplication::exit(1);
        });
    }
    window.show();
    if (files.empty()) { // the embedded default: naive vs flash attention, live
        if (request->runBackend) window.runPanel()->setBackend(*request->runBackend);
        attnscope::kernels::RunConfig config = window.runPanel()->config();
        const attnscope::kernels::BackendChoice backend = window.runPanel()->backend();
        if (request->runBackend) {
            // The presets run on the CPU: on a GPU, naive vs flash at a shape its tensor cores take.
            if (backend == attnscope::kernels::BackendChoice::Cuda && !config.variants.empty()) {
                config = attnscope::kernels::RunConfig{};
                config.impls = attnscope::kernels::cpuImpls(); // naive and flash, CUDA's too
                config.shape = {1, 16, 2048, 128, false, attnscope::Precision::BF16};
                window.runPanel()->setConfig(config);
            } else if (backend == attnscope::kernels::BackendChoice::Torch && !config.variants.empty()) {
                // PyTorch runs one shape: its hand-written attention and SDPA's backends side by side.
                config = attnscope::kernels::RunConfig{};
                config.impls = attnscope::kernels::torchImpls();
                config.shape = {1, 8, 1024, 64, false, attnscope::Precision::F32};
                window.runPanel()->setConfig(config);
                config = window.runPanel()->config(); // with the panel's Python
            }
        }
        window.startRun(config, backend);
    } else if (files.size() == 1)
        window.openFile(QString::fromStdString(files.front()));
    else { // several files: the ranks of one job
        QStringList paths;
        for (const std::string& f : files)
            paths << QString::fromStdString(f);
        window.openRanks(paths);
    }
    return app.exec();
}

int attnscope_gui_export(const attnscope::ui::ExportRequest* request) {
    using namespace attnscope;
    const ui::ExportRequest& r = *request;
    auto refuse = [](const QString& why) {
        std::fprintf(stderr, "attnscope export: %s\n", qPrintable(why));
        return 2;
    };
    std::optional<ui::ChartKind> chart;
    if (!r.chart.empty()) {
        chart = ui::chartKindNamed(QString::fromStdString(r.chart));
        if (!chart) return refuse(QStringLiteral("--chart is breakdown, roofline or share"));
    }
    ui::TimelinePicture picture;
    picture.path = QString::fromLocal8Bit(r.out.c_str());
    if (ui::timelineFormatOf(picture.path).isEmpty())
        return refuse(QStringLiteral("OUT must end in .png, .svg or .pdf"));
    if (r.width > 0) picture.size = QSize(r.width, r.height);
    picture.scale = r.scale;
    picture.trackFilter = QString::fromStdString(r.tracks);
    const std::string& file = r.file;
    int argc = 1;
    char name[] = "attnscope";
    char* argv[] = {name, nullptr};

    // Pictures need Qt's painting and fonts, not a screen (charts: its graphics scene too); the
    // command line chose the offscreen platform when there is no display.
    std::unique_ptr<QGuiApplication> app;
    if (chart)
        app = std::make_unique<QApplication>(argc, argv);
    else
        app = std::make_unique<QGuiApplication>(argc, argv);
    std::shared_ptr<const Document> doc;
    try {
        DocumentOptions options;
        // A timeline's kernels take their colours from the analysis' roles, as in the window.
        options.parts = chart ? AnalysisPart : TimelinePart | AnalysisPart;
        doc = openDocument(DocumentSource::file(file), options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attnscope export: %s: %s\n", file.c_str(), e.what());
        return 1;
    }
    const Trace& trace = *doc->trace;
    if (r.range)
        picture.range = ui::TimeRange{trace.startNs() + r.range->first, trace.startNs() + r.range->second};
    QString error;
    if (chart) {
        error = ui::exportTraceChart(*doc, *chart, picture.size.isEmpty() ? QSize(1200, 800) : picture.size,
                                     picture.scale, picture.path);
    } else {
        error = ui::exportTracePicture(trace, *doc->index, doc->analysis.get(), picture);
    }
    if (!error.isEmpty()) {
        std::fprintf(stderr, "attnscope export: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%s\n", qPrintable(picture.path));
    return 0;
}
