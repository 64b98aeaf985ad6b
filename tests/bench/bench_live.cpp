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
// (target <= 1.2x), each child's resident memory before any trace given too. The pair is run --runs
// times (3), in alternating order (load then live, live then load, ...), so that a machine that drifts
// weighs on both: each run's numbers, then the medians with their spread.
// With --ranks R (a torchrun job of R processes), each rank its own trace of about N/R events, its steps
// coming in turn, one snapshot per round of steps; the load opens the R saved traces as ranks. The
// worker's time per snapshot is printed too, its last quarter's against its first: it grows with the new
// step, not with the run, when the ratio stays near 1.
//
// With --only live or --only load, that side alone runs once in this process (no child, no comparison),
// for a memory profiler to follow: heaptrack attnscope_bench_live --ranks 4 --only live.
//
//   attnscope_bench_live [--events N] [--steps K] [--ranks R] [--runs R] [--dir DIR] [--keep]
//                        [--only live|load]
#include "kineto_generator.h"

#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"
#include "kernels/program_profile.h"
#include "ui/main_window.h"
#include "ui/profile_controller.h"
#include "ui/timeline_view.h"

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
#include <thread>
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
    // The UI thread's part of a snapshot: the document handed over (the views take it), then painted,
    // and the timeline's frame, which a worker draws, painted once it is drawn (the wait for the worker
    // is not the UI thread's: only the turns of its loop are counted).
    double show(std::shared_ptr<const Document> doc, bool first) {
        auto* controller = window.findChild<ui::ProfileController*>();
        double t0 = now();
        Q_EMIT controller->snapshot(std::move(doc), first);
        settle();
        double busy = now() - t0;
        auto* timeline = window.findChild<ui::TimelineView*>();
        for (int waits = 0; timeline->drawingAhead() && waits < 10000; ++waits) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            t0 = now();
            QApplication::processEvents();
            busy += now() - t0;
        }
        t0 = now();
        settle();
        return busy + (now() - t0);
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
    std::size_t steps = 20, runs = 3, ranks = 1;
    std::string dir, only;
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--events" && value)
            events = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--steps" && value)
            steps = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (a == "--ranks" && value)
            ranks = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (a == "--runs" && value)
            runs = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (a == "--dir" && value)
            dir = argv[++i];
        else if (a == "--keep")
            keep = true;
        else if (a == "--only" && value &&
                 (std::string(argv[i + 1]) == "live" || std::string(argv[i + 1]) == "load"))
            only = argv[++i];
        else {
            std::fprintf(stderr,
                         "usage: %s [--events N] [--steps K] [--ranks R] [--runs R] [--dir DIR] [--keep] "
                         "[--only live|load]\n",
                         argv[0]);
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
    const std::uint64_t bytes = std::uint64_t(double(4u << 20) * double(events) / double(ranks) /
                                              double(std::max<std::uint64_t>(1, calibrationEvents)));
    // Per rank: its trace generated, cut by time into the steps (equal spans), each written as the hook
    // writes a step; then joined into what `profile -o` saves for it.
    std::vector<std::vector<std::string>> stepFiles(ranks); // [rank][step]
    std::vector<std::string> saved;
    std::uint64_t stepEvents = 0;
    double savedMb = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
        const std::string generated = home + "/generated.json";
        {
            std::ofstream out(generated, std::ios::binary);
            bench::generateKinetoTrace(bytes, std::uint32_t(7 + r), [&](std::string_view s) {
                out.write(s.data(), std::streamsize(s.size()));
            });
        }
        const std::string prefix = home + (ranks > 1 ? "/rank" + std::to_string(r) : std::string("/"));
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
            stepFiles[r].push_back(prefix + "step" + std::to_string(k) + ".json");
            writeChromeTrace(*parts.back(), stepFiles[r].back());
        }
        saved.push_back(prefix + (ranks > 1 ? ".json" : "saved.json"));
        writeChromeTrace(*mergeSteps(parts), saved.back());
        savedMb += double(std::filesystem::file_size(saved.back())) / 1048576.0;
        std::filesystem::remove(generated);
    }
    std::printf(
        "live profile benchmark: %zu rank(s), %zu steps each, %llu events in all (%.0f MB saved), the "
        "window offscreen\n",
        ranks, steps, static_cast<unsigned long long>(stepEvents), savedMb);

    const std::function<bool(std::string&)> load = [&](std::string& out) {
        Window w;
        const double baseMb = residentMb(), cpu0 = cpuSeconds(), t0 = now();
        auto doc = openDocument(ranks > 1 ? DocumentSource::ranks(saved) : DocumentSource::file(saved[0]));
        const double ui = w.show(doc, true);
        out = "cpu " + std::to_string(cpuSeconds() - cpu0) + " wall " + std::to_string(now() - t0) + " ui " +
              std::to_string(ui) + " base " + std::to_string(baseMb) + " events " +
              std::to_string(doc->trace->eventCount());
        return true;
    };
    const std::function<bool(std::string&)> live = [&](std::string& out) {
        Window w;
        const double baseMb = residentMb(), cpu0 = cpuSeconds(), t0 = now();
        kernels::ProfileSnapshots snapshots("bench");
        std::size_t shownEvents = 0;
        for (std::size_t k = 0; k < steps; ++k) {
            std::vector<kernels::ProfiledStep> taken; // a round: each rank's k-th step
            for (std::size_t r = 0; r < ranks; ++r) {
                kernels::ProfiledStep s;
                s.process = "pid " + std::to_string(r + 1);
                if (ranks > 1) s.rank = std::int64_t(r);
                s.index = int(k);
                s.optimizer = true;
                LoadOptions options;
                options.threads = 1; // as ProgramProfile reads a step
                s.trace = loadTraceFile(stepFiles[r][k], options);
                taken.push_back(std::move(s));
            }
            // The last round comes after the program ended: its snapshot is complete, as the panel's.
            const double s0 = now();
            auto doc = snapshots.add(std::move(taken), k + 1 == steps);
            out += "snap " + std::to_string(now() - s0) + " ";
            shownEvents = doc->trace->eventCount();
            out += "busy " + std::to_string(w.show(std::move(doc), k == 0)) + " ";
        }
        out += "cpu " + std::to_string(cpuSeconds() - cpu0) + " wall " + std::to_string(now() - t0) +
               " base " + std::to_string(baseMb) + " events " + std::to_string(shownEvents);
        return true;
    };
    if (!only.empty()) { // one side, here: for a memory profiler
        std::string said;
        const bool ok = (only == "live" ? live : load)(said);
        std::printf("%s: %s\npeak resident memory: %.0f MB\n", only.c_str(), said.c_str(), [] {
            rusage u{};
            getrusage(RUSAGE_SELF, &u);
            return double(u.ru_maxrss) / 1024.0;
        }());
        if (!keep && dir.empty()) std::filesystem::remove_all(home);
        return ok ? 0 : 1;
    }
    auto loadOnce = [&] { return inChild(load); };
    auto liveOnce = [&] { return inChild(live); };
    struct Run {
        Child load, live;
        std::vector<double> busy; // ms
        std::vector<double> snap; // ms, the worker's per snapshot
        // The mean of the snapshots' last quarter against their first's (the complete one left out: its
        // findings are of all steps).
        double growth() const {
            const std::size_t n = snap.size() > 1 ? snap.size() - 1 : snap.size(),
                              q = std::max<std::size_t>(1, n / 4);
            double first = 0, last = 0;
            for (std::size_t k = 0; k < q; ++k)
                first += snap[k], last += snap[n - 1 - k];
            return first > 0 ? last / first : 0;
        }
        double cpuRatio() const { return live.value("cpu") / load.value("cpu"); }
        double memoryRatio() const { return live.peakMb / load.peakMb; }
    };
    std::vector<Run> done;
    std::printf("\n%-5s %-24s %-8s %-10s %-22s %s\n", "run", "CPU live / load, s", "ratio", "memory",
                "UI p50 / p95 / max, ms", "UI per snapshot, first to last, ms");
    for (std::size_t r = 0; r < runs; ++r) {
        Run run;
        if (r % 2 == 0) {
            run.load = loadOnce();
            run.live = liveOnce();
        } else {
            run.live = liveOnce();
            run.load = loadOnce();
        }
        if (!run.load.ok || !run.live.ok) {
            std::fprintf(stderr, "a child failed (load %d, live %d)\n", run.load.ok, run.live.ok);
            return 1;
        }
        std::istringstream in(run.live.said);
        for (std::string k; in >> k;) {
            double v = 0;
            in >> v;
            if (k == "busy") run.busy.push_back(v * 1000);
            if (k == "snap") run.snap.push_back(v * 1000);
        }
        std::printf("%-5zu %5.2f / %5.2f %12.2fx %9.2fx %6.1f / %4.1f / %4.1f    ", r + 1,
                    run.live.value("cpu"), run.load.value("cpu"), run.cpuRatio(), run.memoryRatio(),
                    percentile(run.busy, 0.5), percentile(run.busy, 0.95), percentile(run.busy, 1.0));
        for (std::size_t k = 0; k < run.busy.size(); ++k)
            std::printf("%s%.1f", k ? " " : "", run.busy[k]);
        std::printf("\n%-80s worker:", "");
        for (const double ms : run.snap)
            std::printf(" %.0f", ms);
        std::printf("\n");
        std::fflush(stdout);
        done.push_back(std::move(run));
    }
    // The median of the runs, and their range.
    auto over = [&](const std::function<double(const Run&)>& f, const char* unit, int decimals) {
        std::vector<double> v;
        for (const Run& run : done)
            v.push_back(f(run));
        std::sort(v.begin(), v.end());
        char text[96];
        std::snprintf(text, sizeof text, "%.*f%s", decimals, percentile(v, 0.5), unit);
        std::string said = text;
        if (v.size() > 1) {
            std::snprintf(text, sizeof text, " (%.*f-%.*f)", decimals, v.front(), decimals, v.back());
            said += text;
        }
        return said;
    };
    std::printf("\nmedian of %zu runs (their range)%13s %-20s %-20s %s\n", done.size(), "", "live",
                "load once", "ratio");
    std::printf("%-44s %-20s %-20s\n", "events shown at the end",
                over([](const Run& r) { return r.live.value("events"); }, "", 0).c_str(),
                over([](const Run& r) { return r.load.value("events"); }, "", 0).c_str());
    std::printf("%-44s %-20s %-20s %s   (target <= 1.5x)\n", "CPU time, s (all threads)",
                over([](const Run& r) { return r.live.value("cpu"); }, "", 2).c_str(),
                over([](const Run& r) { return r.load.value("cpu"); }, "", 2).c_str(),
                over([](const Run& r) { return r.cpuRatio(); }, "x", 2).c_str());
    std::printf(
        "%-44s %-20s %-20s %s\n", "wall time, s",
        over([](const Run& r) { return r.live.value("wall"); }, "", 2).c_str(),
        over([](const Run& r) { return r.load.value("wall"); }, "", 2).c_str(),
        over([](const Run& r) { return r.live.value("wall") / r.load.value("wall"); }, "x", 2).c_str());
    std::printf("%-44s %-20s %-20s %s   (target <= 1.2x)\n", "peak resident memory, MB",
                over([](const Run& r) { return r.live.peakMb; }, "", 0).c_str(),
                over([](const Run& r) { return r.load.peakMb; }, "", 0).c_str(),
                over([](const Run& r) { return r.memoryRatio(); }, "x", 2).c_str());
    std::printf("%-44s %-20s %-20s\n", "  of which the window before any trace, MB",
                over([](const Run& r) { return r.live.value("base"); }, "", 0).c_str(),
                over([](const Run& r) { return r.load.value("base"); }, "", 0).c_str());
    std::printf("%-44s %-20s %-20s\n", "UI thread per snapshot p50, ms",
                over([](const Run& r) { return percentile(r.busy, 0.5); }, "", 1).c_str(),
                over([](const Run& r) { return r.load.value("ui") * 1000; }, "", 1).c_str());
    std::printf("%-44s %-20s %-20s (target <= 16 ms)\n", "UI thread per snapshot p95, ms",
                over([](const Run& r) { return percentile(r.busy, 0.95); }, "", 1).c_str(), "");
    std::printf("%-44s %-20s\n", "worker per snapshot p50, ms",
                over([](const Run& r) { return percentile(r.snap, 0.5); }, "", 1).c_str());
    std::printf("%-44s %-20s (near 1: grows with the step, not the run)\n",
                "worker per snapshot, last quarter / first",
                over([](const Run& r) { return r.growth(); }, "x", 2).c_str());
    std::printf("%-44s %-20s\n", "UI thread per snapshot max, ms",
                over([](const Run& r) { return percentile(r.busy, 1.0); }, "", 1).c_str());
    std::size_t cpuMet = 0, uiMet = 0, memoryMet = 0;
    for (const Run& run : done) {
        cpuMet += run.cpuRatio() <= 1.5;
        uiMet += percentile(run.busy, 0.95) <= 16;
        memoryMet += run.memoryRatio() <= 1.2;
    }
    std::printf("targets met in runs: CPU %zu of %zu, UI p95 %zu of %zu, memory %zu of %zu\n", cpuMet,
                done.size(), uiMet, done.size(), memoryMet, done.size());
    if (!keep && dir.empty()) std::filesystem::remove_all(home);
    return 0;
}
