// SPDX-License-Identifier: MIT
// Compare benchmark: generates N realistic Kineto traces (different seeds, ~M MB each), then in child
// processes (so each peak memory is its own) times `compare` of all of them (compareFiles: the traces
// opened side by side, each let go once its rows are taken) against summarizing them one after another
// in one process (what `attnscope summary` of each does), and one trace's summary alone.
//
//   attnscope_bench_compare [--traces N] [--size-mb M] [--parallel P] [--runs R] [--dir DIR] [--keep]
#include "kineto_generator.h"

#include "core/document/document.h"
#include "core/report/compare.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
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

struct Measured {
    double seconds = 0;
    double peakMb = 0;
    bool ok = false;
};

// Runs f in a forked child; its wall time (from the child, through a pipe) and its peak RSS (wait4).
Measured inChild(const std::function<bool()>& f) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const double t0 = now();
        const bool ok = f();
        const double seconds = ok ? now() - t0 : -1;
        (void)!write(fds[1], &seconds, sizeof seconds);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    Measured m;
    double seconds = -1;
    if (read(fds[0], &seconds, sizeof seconds) != sizeof seconds) seconds = -1;
    close(fds[0]);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    m.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && seconds >= 0;
    m.seconds = seconds;
    m.peakMb = double(usage.ru_maxrss) / 1024.0; // kilobytes on Linux
    return m;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t traces = 8, runs = 1;
    double sizeMb = 50;
    unsigned parallel = 0;
    std::string dir;
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--traces" && value)
            traces = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (a == "--size-mb" && value)
            sizeMb = std::max(1.0, std::atof(argv[++i]));
        else if (a == "--parallel" && value)
            parallel = unsigned(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--runs" && value)
            runs = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (a == "--dir" && value)
            dir = argv[++i];
        else if (a == "--keep")
            keep = true;
        else {
            std::fprintf(
                stderr,
                "usage: %s [--traces N] [--size-mb M] [--parallel P] [--runs R] [--dir DIR] [--keep]\n",
                argv[0]);
            return 2;
        }
    }
    namespace fs = std::filesystem;
    const bool ownDir = dir.empty();
    if (ownDir)
        dir = (fs::temp_directory_path() / ("attnscope-bench-compare-" + std::to_string(getpid()))).string();
    fs::create_directories(dir);
    // Never the user's settings or caches.
    setenv("XDG_CACHE_HOME", (dir + "/cache").c_str(), 1);
    setenv("XDG_CONFIG_HOME", (dir + "/config").c_str(), 1);
    std::vector<std::string> paths;
    double totalMb = 0;
    for (std::size_t t = 0; t < traces; ++t) {
        const std::string path = dir + "/trace" + std::to_string(t) + ".json";
        if (!fs::exists(path)) {
            std::ofstream out(path, std::ios::binary);
            bench::generateKinetoTrace(
                std::uint64_t(sizeMb * 1e6), std::uint32_t(1000 + t),
                [&](std::string_view s) { out.write(s.data(), std::streamsize(s.size())); });
        }
        totalMb += double(fs::file_size(path)) / 1e6;
        paths.push_back(path);
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf(
        "compare benchmark: %zu traces, %.1f MB in all, %u hardware threads, traces opened %u at once\n",
        traces, totalMb, threads, parallel ? parallel : threads);

    auto summarize = [&](const std::vector<std::string>& files) {
        std::size_t kernels = 0;
        for (const std::string& f : files) {
            DocumentOptions options;
            options.parts = SummaryPart | AnalysisPart;
            options.summaryTop = 20;
            const auto doc = openDocument(DocumentSource::file(f), options);
            kernels += doc->summary->kernelCount;
        }
        return kernels > 0;
    };
    auto compare = [&] {
        const Comparison c = compareFiles(paths, 0, {}, parallel);
        const std::string table = formatComparison(c, CompareFormat::Text);
        for (const ComparedTrace& t : c.traces)
            if (!t.error.empty()) return false;
        return !table.empty();
    };
    Measured bestSeq, bestCmp, bestOne;
    for (std::size_t r = 0; r < runs; ++r) {
        const Measured seq = inChild([&] { return summarize(paths); });
        const Measured cmp = inChild(compare);
        const Measured one = inChild([&] { return summarize({paths.front()}); });
        if (!seq.ok || !cmp.ok || !one.ok) {
            std::fprintf(stderr, "a child failed\n");
            return 1;
        }
        auto best = [](Measured& b, const Measured& m) {
            if (!b.ok || m.seconds < b.seconds) b = m;
        };
        best(bestSeq, seq);
        best(bestCmp, cmp);
        best(bestOne, one);
        std::printf(
            "run %zu: summaries one after another %.2f s (peak %.0f MB) · compare %.2f s (peak %.0f MB) · "
            "one trace's summary %.2f s (peak %.0f MB)\n",
            r + 1, seq.seconds, seq.peakMb, cmp.seconds, cmp.peakMb, one.seconds, one.peakMb);
    }
    std::printf("summaries_one_after_another_s=%.3f peak_mb=%.0f\n", bestSeq.seconds, bestSeq.peakMb);
    std::printf("compare_s=%.3f peak_mb=%.0f\n", bestCmp.seconds, bestCmp.peakMb);
    std::printf("one_summary_s=%.3f peak_mb=%.0f\n", bestOne.seconds, bestOne.peakMb);
    std::printf("compare / summaries: %.2fx time (target <= 1), %.2fx peak memory\n",
                bestCmp.seconds / bestSeq.seconds, bestCmp.peakMb / bestSeq.peakMb);
    if (ownDir && !keep) fs::remove_all(dir);
    return 0;
}
