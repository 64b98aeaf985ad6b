// SPDX-License-Identifier: MIT
#include "gui_main.h"

#include "main_window.h"

#include "core/summary.h"
#include "core/trace_loader.h"

#include <QApplication>
#include <QFile>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
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

// With no display there is no window to open; say so, and print what the window would show.
int summaryWithoutDisplay(const std::vector<std::string>& files) {
    using namespace attnscope;
    std::fprintf(stderr,
                 "attnscope: no display (DISPLAY and WAYLAND_DISPLAY are unset); printing the summary the "
                 "window would show. Use xvfb-run or a desktop session for the window.\n");
    std::vector<SummaryResult> results;
    int rc = 0;
    auto add = [&](const std::string& path, const std::function<std::shared_ptr<const Trace>()>& load) {
        SummaryResult r;
        r.path = path;
        try {
            r.summary = summarize(*load(), 20);
        } catch (const std::exception& e) {
            r.error = e.what();
            rc = 1;
        }
        results.push_back(std::move(r));
    };
    if (files.empty()) {
        QFile sample(":/samples/attention_sample.json");
        sample.open(QIODevice::ReadOnly);
        const QByteArray bytes = sample.readAll();
        add("attention_sample.json (embedded)", [&] {
            auto source = openMemorySource(std::string_view(bytes.constData(), std::size_t(bytes.size())));
            return readJsonTrace(*source, "attention_sample.json (embedded)");
        });
    }
    for (const std::string& f : files)
        add(f, [&] { return loadTraceFile(f); });
    const std::string out = formatSummaries(results, SummaryFormat::Text);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return rc;
}

} // namespace

int attnscope_gui_main(int argc, char** argv) {
    std::vector<std::string> files;
    QString screenshot;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--screenshot") && i + 1 < argc)
            screenshot = QString::fromLocal8Bit(argv[++i]);
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
    window.show();
    if (files.empty())
        window.openEmbeddedSample();
    else
        window.openFile(QString::fromStdString(files.front()));
    return app.exec();
}
