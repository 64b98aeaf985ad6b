// SPDX-License-Identifier: MIT
#include "gui_main.h"

#include "charts.h"
#include "main_window.h"
#include "run_panel.h"
#include "timeline_export.h"
#include "timeline_view.h"

#include "kernels/run_session.h"

#include "core/summary.h"
#include "core/trace_loader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool haveDisplay() {
    const char* platform = std::getenv("QT_QPA_PLATFORM");
    if (platform && *platform) return true; // the user chose (offscreen, xcb, wayland…)
    const char* x = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x && *x) || (wayland && *wayland);
}

// With no display there is no window to open; say so, and print what the window would show: the
// traces' summaries, or with no file the default run's table.
int summaryWithoutDisplay(const std::vector<std::string>& files) {
    using namespace attnscope;
    std::fprintf(stderr, "attnscope: no display (DISPLAY and WAYLAND_DISPLAY are unset); printing what the "
                         "window would show. Use xvfb-run or a desktop session for the window.\n");
    if (files.empty()) {
        kernels::RunConfig config;
        std::string notice;
        if (const std::string problem = kernels::chooseBackend(config, "auto", notice); !problem.empty()) {
            std::fprintf(stderr, "attnscope: %s\n", problem.c_str());
            return 1;
        }
        if (!notice.empty()) std::fprintf(stderr, "attnscope: %s\n", notice.c_str());
        kernels::RunSession session(config);
        std::printf("%s", kernels::runHeadline(config, session.workers()).c_str());
        std::fflush(stdout);
        session.start();
        session.wait();
        if (!session.error().empty()) {
            std::fprintf(stderr, "attnscope: %s\n", session.error().c_str());
            return 1;
        }
        std::printf("%s", kernels::formatRunStats(kernels::runStats(config, session.takeEvents())).c_str());
        return 0;
    }
    std::vector<SummaryResult> results;
    int rc = 0;
    for (const std::string& path : files) {
        SummaryResult r;
        r.path = path;
        try {
            r.summary = summarize(*loadTraceFile(path), 20);
        } catch (const std::exception& e) {
            r.error = e.what();
            rc = 1;
        }
        results.push_back(std::move(r));
    }
    const std::string out = formatSummaries(results, SummaryFormat::Text);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return rc;
}

} // namespace

int attnscope_gui_main(int argc, char** argv) {
    QElapsedTimer sinceStart;
    sinceStart.start();
    std::vector<std::string> files;
    QString screenshot;
    bool timing = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--screenshot") && i + 1 < argc)
            screenshot = QString::fromLocal8Bit(argv[++i]);
        else if (!std::strcmp(argv[i], "--timing"))
            timing = true;
        else
            files.emplace_back(argv[i]);
    }
    if (!haveDisplay()) return summaryWithoutDisplay(files);

    QApplication app(argc, argv);
    QApplication::setOrganizationName("AttnScope");
    QApplication::setApplicationName("AttnScope");
    QApplication::setApplicationVersion(ATTNSCOPE_VERSION);
    attnscope::ui::MainWindow window;
    if (!screenshot.isEmpty()) window.screenshotWhenLoaded(screenshot);

    // --timing: how long until the loaded trace is painted, and the longest the event loop went
    // without turning while it loaded (a 5 ms timer that notes its own lateness); then quits.
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
            const auto loaded = window.loaded();
            std::printf("load_s=%.3f index_s=%.3f first_paint_s=%.3f max_event_loop_gap_ms=%lld\n",
                        loaded ? loaded->loadSeconds : 0.0,
                        loaded ? loaded->totalSeconds - loaded->loadSeconds : 0.0,
                        sinceStart.elapsed() / 1000.0, static_cast<long long>(longestGapMs));
            std::fflush(stdout);
            QTimer::singleShot(0, &app, [] { QApplication::exit(0); });
        });
        QObject::connect(&window, &attnscope::ui::MainWindow::loadFinished, [&] {
            if (!window.loaded()) QApplication::exit(1);
        });
    }
    window.show();
    if (files.empty()) // the embedded default: naive vs flash attention on the CPU, live
        window.startRun(window.runPanel()->config(), window.runPanel()->backend());
    else if (files.size() == 1)
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

int exportUsage(const char* message) {
    std::fprintf(stderr,
                 "attnscope export: %s\nusage: attnscope export FILE --timeline OUT.png|svg|pdf "
                 "[--range START_NS:END_NS] [--size WxH] [--scale 1|2] [--tracks REGEX]\n"
                 "       attnscope export FILE --chart breakdown|roofline|share OUT.png|svg|pdf [--size WxH] "
                 "[--scale 1|2]\n"
                 "  --range is in nanoseconds from the trace's first event\n",
                 message);
    return 2;
}

} // namespace

int attnscope_gui_export(int argc, char** argv) {
    using namespace attnscope;
    // argv: attnscope export FILE --timeline OUT [options]
    std::string file;
    ui::TimelinePicture picture;
    std::optional<std::pair<TimeNs, TimeNs>> relativeRange;
    std::optional<ui::ChartKind> chart;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--timeline" && hasValue) {
            picture.path = QString::fromLocal8Bit(argv[++i]);
        } else if (a == "--chart" && i + 2 < argc) {
            chart = ui::chartKindNamed(QString::fromLocal8Bit(argv[++i]));
            if (!chart) return exportUsage("--chart is breakdown, roofline or share");
            picture.path = QString::fromLocal8Bit(argv[++i]);
        } else if (a == "--range" && hasValue) {
            long long from = 0, to = 0;
            char tail = 0;
            if (std::sscanf(argv[++i], "%lld:%lld%c", &from, &to, &tail) != 2 || to <= from)
                return exportUsage("--range wants START_NS:END_NS with START_NS < END_NS");
            relativeRange = std::make_pair(TimeNs(from), TimeNs(to));
        } else if (a == "--size" && hasValue) {
            int w = 0, h = 0;
            char tail = 0;
            if (std::sscanf(argv[++i], "%dx%d%c", &w, &h, &tail) != 2 || w < 100 || h < 50 || w > 20000 ||
                h > 20000)
                return exportUsage("--size wants WxH, from 100x50 to 20000x20000");
            picture.size = QSize(w, h);
        } else if (a == "--scale" && hasValue) {
            picture.scale = std::atof(argv[++i]);
            if (picture.scale != 1 && picture.scale != 2) return exportUsage("--scale is 1 or 2");
        } else if (a == "--tracks" && hasValue) {
            picture.trackFilter = QString::fromLocal8Bit(argv[++i]);
        } else if (a.rfind("--", 0) == 0) {
            return exportUsage(("unknown option or missing value: " + a).c_str());
        } else if (file.empty()) {
            file = a;
        } else {
            return exportUsage(("one trace at a time; extra argument: " + a).c_str());
        }
    }
    if (file.empty()) return exportUsage("which trace?");
    if (picture.path.isEmpty()) return exportUsage("--timeline OUT or --chart KIND OUT is required");
    if (ui::timelineFormatOf(picture.path).isEmpty())
        return exportUsage("OUT must end in .png, .svg or .pdf");

    // Pictures need Qt's painting and fonts, not a screen (charts: its graphics scene too).
    if (!haveDisplay()) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    std::unique_ptr<QGuiApplication> app;
    if (chart)
        app = std::make_unique<QApplication>(argc, argv);
    else
        app = std::make_unique<QGuiApplication>(argc, argv);
    std::shared_ptr<const Trace> trace;
    try {
        trace = loadTraceFile(file);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "attnscope export: %s: %s\n", file.c_str(), e.what());
        return 1;
    }
    if (relativeRange)
        picture.range =
            ui::TimeRange{trace->startNs() + relativeRange->first, trace->startNs() + relativeRange->second};
    QString error;
    if (chart) {
        error = ui::exportTraceChart(*trace, *chart, picture.size.isEmpty() ? QSize(1200, 800) : picture.size,
                                     picture.scale, picture.path);
    } else {
        const TimelineIndex index(*trace);
        error = ui::exportTracePicture(*trace, index, picture);
    }
    if (!error.isEmpty()) {
        std::fprintf(stderr, "attnscope export: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("%s\n", qPrintable(picture.path));
    return 0;
}
