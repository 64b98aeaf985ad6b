// SPDX-License-Identifier: MIT
#include "gui_main.h"

#include "charts.h"
#include "file_dialogs.h"
#include "job_window.h"
#include "main_window.h"
#include "report_export.h"
#include "run_panel.h"
#include "timeline_export.h"
#include "timeline_view.h"
#include "variants_window.h"

#include "core/document/document.h"
#include "core/document/notes.h"
#include "core/model/parallel_for.h"
#include "core/report/compare.h"

#include <QApplication>
#include <QChart>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGuiApplication>
#include <QSaveFile>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
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
    if (!screenshot.isEmpty() && !request->compare && !request->job) window.screenshotWhenLoaded(screenshot);

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
    if (request->profile) {
        window.startProfile(*request->profile);
    } else if (files.empty()) { // the embedded default: naive vs flash attention, live
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
                config.impls = attnscope::kernels::torchRunImpls();
                config.shape = {1, 8, 1024, 64, false, attnscope::Precision::F32};
                window.runPanel()->setConfig(config);
                config = window.runPanel()->config(); // with the panel's Python
            }
        }
        window.startRun(config, backend);
    } else if (request->compare) {
        QStringList paths;
        for (const std::string& f : files)
            paths << QString::fromStdString(f);
        attnscope::ui::VariantsWindow* variants = window.compareVariants(paths);
        if (!screenshot.isEmpty())
            QObject::connect(variants, &attnscope::ui::VariantsWindow::compared, variants,
                             [variants, screenshot] {
                                 // The compare window's picture, once its charts and table have laid
                                 // themselves out.
                                 QTimer::singleShot(500, variants, [variants, screenshot] {
                                     const bool saved = variants->grab().save(screenshot);
                                     std::fprintf(saved ? stdout : stderr, "%s%s\n",
                                                  saved ? "" : "cannot write ", qPrintable(screenshot));
                                     QApplication::exit(saved ? 0 : 1);
                                 });
                             });
    } else if (request->job) {
        QStringList paths;
        for (const std::string& f : files)
            paths << QString::fromStdString(f);
        attnscope::ui::JobWindow* job = window.openJob(paths); // says why on stderr when it cannot
        if (!job && !screenshot.isEmpty()) return 1;
        if (job && !screenshot.isEmpty()) // (without a job, the window stays with the message over it)
            QTimer::singleShot(800, job, [job, screenshot] {
                const bool saved = job->grab().save(screenshot);
                std::fprintf(saved ? stdout : stderr, "%s%s\n", saved ? "" : "cannot write ",
                             qPrintable(screenshot));
                QApplication::exit(saved ? 0 : 1);
            });
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

namespace {

// export --compare: the traces opened side by side (as `compare` opens them, keeping the documents for
// the roofline), then the table or a chart written.
int exportComparison(const attnscope::ui::ExportRequest& r) {
    using namespace attnscope;
    int argc = 1;
    char name[] = "attnscope";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);
    std::vector<std::shared_ptr<const Document>> docs(r.compare.size());
    Comparison c;
    c.baseline = r.baseline;
    c.traces.resize(r.compare.size());
    DocumentOptions options;
    options.parts = AnalysisPart;
    if (r.compare.size() > 1) cpuRoofs(); // measured before the loads, not beside them (compareFiles)
    parallelFor(r.compare.size(), std::max(1u, std::thread::hardware_concurrency()), [&](std::size_t i) {
        try {
            docs[i] = openDocument(DocumentSource::file(r.compare[i]), options);
            c.traces[i] = compareEntry(*docs[i], r.compare[i]);
        } catch (const std::exception& e) {
            c.traces[i].path = r.compare[i];
            c.traces[i].error = e.what();
        }
    });
    learnFromComparison(c);
    int status = 0;
    for (const ComparedTrace& t : c.traces)
        if (!t.error.empty()) {
            std::fprintf(stderr, "attnscope export: %s: %s\n", t.path.c_str(), t.error.c_str());
            status = 1;
        }
    const QString out = QString::fromLocal8Bit(r.out.c_str());
    QString error;
    if (r.table) {
        const bool md = out.endsWith(".md", Qt::CaseInsensitive);
        if (!md && !out.endsWith(".csv", Qt::CaseInsensitive))
            error = QStringLiteral("--table OUT ends in .md or .csv");
        const std::string text = formatComparison(c, md ? CompareFormat::Markdown : CompareFormat::Csv);
        if (error.isEmpty()) error = ui::saveText(out, text);
    } else {
        std::unique_ptr<QChart> chart;
        const std::vector<std::string> labels = traceLabels(c);
        if (r.chart == "breakdown") {
            chart.reset(ui::makeComparisonChart(c));
        } else if (r.chart == "roofline") {
            std::vector<ui::ChartInput> inputs;
            for (std::size_t i = 0; i < docs.size(); ++i)
                if (docs[i])
                    inputs.push_back({docs[i]->trace.get(), docs[i]->analysis.get(),
                                      ui::inputLetter(inputs.size()) + QStringLiteral(": ") +
                                          QString::fromStdString(labels[i])});
            if (inputs.empty())
                error = QStringLiteral("no trace could be read");
            else
                chart.reset(ui::makeChart(ui::ChartKind::Roofline, inputs));
        } else {
            error = QStringLiteral("with --compare, --chart is breakdown or roofline");
        }
        if (chart) {
            const QSize size = r.width > 0 ? QSize(r.width, r.height) : QSize(1200, 800);
            error = ui::exportChart(chart.get(), size, r.scale, out);
        }
    }
    if (!error.isEmpty()) {
        std::fprintf(stderr, "attnscope export: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%s\n", qPrintable(out));
    return status;
}

} // namespace

int attnscope_gui_export(const attnscope::ui::ExportRequest* request) {
    using namespace attnscope;
    const ui::ExportRequest& r = *request;
    auto refuse = [](const QString& why) {
        std::fprintf(stderr, "attnscope export: %s\n", qPrintable(why));
        return 2;
    };
    if (!r.compare.empty()) return exportComparison(r);
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

int attnscope_gui_report(const attnscope::ui::ReportRequest* request) {
    using namespace attnscope;
    const ui::ReportRequest& r = *request;
    const QString out = QString::fromLocal8Bit(r.out.c_str());
    if (ui::reportFormatOf(out).isEmpty()) {
        std::fprintf(stderr, "attnscope report: -o must end in .html, .md or .pdf\n");
        return 2;
    }
    int argc = 1;
    char name[] = "attnscope";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv); // the charts draw through a graphics scene
    std::vector<ui::ReportDocument> docs;
    DocumentOptions options;
    options.parts = AllParts;
    auto label = [](const std::string& path) {
        return QFileInfo(QString::fromLocal8Bit(path.c_str())).fileName();
    };
    try {
        if (r.ranks) {
            auto doc = openDocument(DocumentSource::ranks(r.files), options);
            // A job of several files: notes are one trace's, and none is the job's.
            docs.push_back({doc, QString::fromStdString(doc->name), {}, {}});
        } else {
            for (const std::string& file : r.files) {
                try {
                    auto doc = openDocument(DocumentSource::file(file), options);
                    // Its notes: those written in it and its notes file's (a damaged one said, left out).
                    std::vector<std::string> problems;
                    std::vector<Note> notes = liveNotes(notesOfTrace(*doc->trace, file, problems));
                    for (const std::string& p : problems)
                        std::fprintf(stderr, "attnscope report: %s: %s\n", file.c_str(), p.c_str());
                    docs.push_back({doc, label(file), std::move(notes), problems});
                } catch (const std::exception& e) {
                    throw std::runtime_error(file + ": " + e.what());
                }
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attnscope report: %s\n", e.what());
        return 1;
    }
    const bool terminal = isatty(2);
    QString missing;
    const QString error = ui::exportReport(
        docs, out,
        [terminal](int done, int total) {
            if (terminal)
                std::fprintf(stderr, "\rattnscope report: picture %d of %d%s", done, total,
                             done == total ? "\n" : "");
            return true;
        },
        &missing);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "attnscope report: %s\n", qPrintable(error));
        return 1;
    }
    if (!missing.isEmpty())
        std::fprintf(stderr, "attnscope report: a picture is left out: %s\n", qPrintable(missing));
    std::printf("%s\n", r.out.c_str());
    return 0;
}
