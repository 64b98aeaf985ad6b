// SPDX-License-Identifier: MIT
// Live benchmark: a profile streaming about --events events in --steps steps into the window, against
// opening the saved trace once. A realistic Kineto trace is generated, cut by time into step files
// (what the start-up hook writes), and joined into the saved trace (what `profile -o` writes). Then, each
// in a forked child (so each peak memory and CPU time is its own), with the window on the offscreen
// platform:
//   live  each step file read as ProgramProfile reads it, the snapshot of the steps so far built as the
//         Program panel's worker builds it (ProfileSnapshots), then shown in the window: the UI thread's
//         busy time per snapshot is the showing and the paint that follows;
//   load  the saved trace opened once (all of its parts) and shown.
// Prints the UI thread's busy time per snapshot (p50, p95, max; target p95 <= 16 ms), the total CPU
// time of the live profile against the load (target <= 1.5x) and the peak memory against the load's
// (target <= 1.2x), each child's resident memory before any trace given too.
//
//   attnscope_bench_live [--events N] [--steps K] [--dir DIR] [--keep]
#include "kineto_generator.h"

#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"
#include "kernels/program_profile.h"
#include "ui/main_window.h"
#include "ui/profile_controller.h"

#include <QApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace attnscope;

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double residentMb() {
    std::ifstream in("/proc/self/statm");
    long pages = 0, resident = 0;
    in >> pages >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / 1048576.0;
}

struct Child {
    bool ok = false;
    double peakMb = 0;
    std::string said; // what the child printed: "key value" lines
    double value(const std::string& key) const {
        std::istringstream in(said);
        for (std::string k; in >> k;) {
            double v = 0;
            in >> v;
            if (k == key) return v;
        }
        return -1;
    }
};

// Runs f in a forked child: what it writes to its pipe, and its peak RSS (wait4).
Child inChild(const std::function<bool(std::string&)>& f) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        std::string out;
        const bool ok = f(out);
        (void)!write(fds[1], out.data(), out.size());
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    Child c;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        c.said.append(buf, std::size_t(n));
    close(fds[0]);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    c.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    c.peakMb = double(usage.ru_maxrss) / 1024.0; // kilobytes on Linux
    return c;
}

// The window on the offscreen platform, as a user's: shown, sized, its events processed.
struct Window {
    int argc = 1;
    char name[10] = "attnscope";
    char* argv[2] = {name, nullptr};
    QApplication app{argc, argv};
    ui::MainWindow window;
    Window() {
        window.resize(1400, 860);
        window.show();
        settle();
    }
    void settle() {
        for (int i = 0; i < 3; ++i)
            QApplication::processEvents();
    }
    // The UI thread's part of a snapshot: the document handed over (the views take it), then painted.
    double show(std::shared_ptr<const Document> doc, bool first) {
        auto* controller = window.findChild<ui::ProfileController*>();
        const double t0 = now();
        Q_EMIT controller->snapshot(std::move(doc), first);
        settle();
        return now() - t0;
    }
};

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

} // namespace

int main(int argc, char** argv) {
    std::uint64_t events = 1000000;
    std::size_t steps = 20;
    std::string dir;
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--events" && value)
            events = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--steps" && value)
            steps = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (a == "--dir" && value)
            dir = argv[++i];
        else if (a == "--keep")
            keep = true;
        else {
            std::fprintf(stderr, "usage: %s [--events N] [--steps K] [--dir DIR] [--keep]\n", argv[0]);
            return 2;
        }
    }
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    // The user's settings and caches are not touched.
    const std::string home = dir.empty() ? std::filesystem::temp_directory_path() /
                                               ("attnscope-bench-live-" + std::to_string(getpid()))
                                         : std::filesystem::path(dir);
    std::filesystem::create_directories(home + "/xdg");
    setenv("XDG_CONFIG_HOME", (home + "/xdg").c_str(), 1);
    setenv("XDG_CACHE_HOME", (home + "/xdg").c_str(), 1);

    // A trace of about the events asked for (events on tracks, as the model counts them): its size from
    // a small one's events per byte.
    std::uint64_t calibrationEvents = 0;
    {
        std::string small;
        bench::generateKinetoTrace(4u << 20, 1, [&](std::string_view s) { small.append(s); });
        calibrationEvents = loadTraceBytes(small, "calibration")->eventCount();
    }
    const std::uint64_t bytes = std::uint64_t(double(4u << 20) * double(events) /
                                              double(std::max<std::uint64_t>(1, calibrationEvents)));
    const std::string generated = home + "/generated.json";
    {
        std::ofstream out(generated, std::ios::binary);
        bench::generateKinetoTrace(
            bytes, 7, [&](std::string_view s) { out.write(s.data(), std::streamsize(s.size())); });
    }
    // Cut by time into the steps (equal spans), each written as the hook writes a step; then joined.
    std::vector<std::string> stepFiles;
    std::uint64_t stepEvents = 0;
    {
        const auto whole = loadTraceFile(generated);
        const TimeNs from = whole->startNs(), span = std::max<TimeNs>(1, whole->endNs() - whole->startNs());
        std::vector<std::shared_ptr<const Trace>> parts;
        for (std::size_t k = 0; k < steps; ++k) {
            TraceMerger merger;
            TraceMerger::Part part;
            part.window = {{from + TimeNs(double(span) * double(k) / double(steps)),
                            k + 1 == steps ? whole->endNs() + 1
                                           : from + TimeNs(double(span) * double(k + 1) / double(steps))}};
            merger.add(*whole, part);
            merger.builder().info().format = "kineto-json";
            parts.push_back(merger.finish());
            stepEvents += parts.back()->eventCount();
            stepFiles.push_back(home + "/step" + std::to_string(k) + ".json");
            writeChromeTrace(*parts.back(), stepFiles.back());
        }
        writeChromeTrace(*mergeSteps(parts), home + "/saved.json");
    }
    std::filesystem::remove(generated);
    std::printf(
        "live profile benchmark: %zu steps, %llu events in all (%.0f MB saved), the window offscreen\n",
        steps, static_cast<unsigned long long>(stepEvents),
        double(std::filesystem::file_size(home + "/saved.json")) / 1048576.0);

    const Child load = inChild([&](std::string& out) {
        Window w;
        const double baseMb = residentMb(), cpu0 = cpuSeconds(), t0 = now();
        auto doc = openDocument(DocumentSource::file(home + "/saved.json"));
        const double ui = w.show(doc, true);
        out = "cpu " + std::to_string(cpuSeconds() - cpu0) + " wall " + std::to_string(now() - t0) + " ui " +
              std::to_string(ui) + " base " + std::to_string(baseMb) + " events " +
              std::to_string(doc->trace->eventCount());
        return true;
    });
    std::vector<double> busy;
    const Child live = inChild([&](std::string& out) {
        Window w;
        const double baseMb = residentMb(), cpu0 = cpuSeconds(), t0 = now();
        ui::ProfileSnapshots snapshots("bench");
        std::size_t shownEvents = 0;
        for (std::size_t k = 0; k < stepFiles.size(); ++k) {
            kernels::ProfiledStep s;
            s.process = "pid 1";
            s.index = int(k);
            s.optimizer = true;
            LoadOptions options;
            options.threads = 1; // as ProgramProfile reads a step
            s.trace = loadTraceFile(stepFiles[k], options);
            std::vector<kernels::ProfiledStep> taken;
            taken.push_back(std::move(s));
            // The last step comes after the program ended: its snapshot is complete, as the panel's.
            auto doc = snapshots.add(std::move(taken), k + 1 == stepFiles.size());
            shownEvents = doc->trace->eventCount();
            out += "busy " + std::to_string(w.show(std::move(doc), k == 0)) + " ";
        }
        out += "cpu " + std::to_string(cpuSeconds() - cpu0) + " wall " + std::to_string(now() - t0) +
               " base " + std::to_string(baseMb) + " events " + std::to_string(shownEvents);
        return true;
    });
    if (!load.ok || !live.ok) {
        std::fprintf(stderr, "a child failed (load %d, live %d)\n", load.ok, live.ok);
        return 1;
    }
    {
        std::istringstream in(live.said);
        for (std::string k; in >> k;) {
            double v = 0;
            in >> v;
            if (k == "busy") busy.push_back(v * 1000);
        }
    }
    const double liveCpu = live.value("cpu"), loadCpu = load.value("cpu");
    std::printf("\n%-44s %12s %12s %12s\n", "", "live", "load once", "ratio");
    std::printf("%-44s %12.0f %12.0f\n", "events shown at the end", live.value("events"),
                load.value("events"));
    std::printf("%-44s %12.2f %12.2f %11.2fx   (target <= 1.5x)\n", "CPU time, s (all threads)", liveCpu,
                loadCpu, liveCpu / loadCpu);
    std::printf("%-44s %12.2f %12.2f %11.2fx\n", "wall time, s", live.value("wall"), load.value("wall"),
                live.value("wall") / load.value("wall"));
    std::printf("%-44s %12.0f %12.0f %11.2fx   (target <= 1.2x)\n", "peak resident memory, MB", live.peakMb,
                load.peakMb, live.peakMb / load.peakMb);
    std::printf("%-44s %12.0f %12.0f\n", "  of which the window before any trace, MB", live.value("base"),
                load.value("base"));
    std::printf("%-44s %12.1f %12.1f\n", "UI thread per snapshot p50, ms", percentile(busy, 0.5),
                load.value("ui") * 1000);
    std::printf("%-44s %12.1f %12s   (target <= 16 ms)\n", "UI thread per snapshot p95, ms",
                percentile(busy, 0.95), "");
    std::printf("%-44s %12.1f %12s\n", "UI thread per snapshot max, ms", percentile(busy, 1.0), "");
    std::printf("%-44s %12s\n", "UI thread per snapshot, first to last, ms", "");
    for (std::size_t k = 0; k < busy.size(); ++k)
        std::printf("%s%.1f", k ? " " : "  ", busy[k]);
    std::printf("\n");
    if (!keep && dir.empty()) std::filesystem::remove_all(home);
    return 0;
}
