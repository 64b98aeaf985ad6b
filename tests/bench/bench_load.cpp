// SPDX-License-Identifier: MIT
// Load benchmark: generates a realistic Kineto trace, loads it into the model in a child process
// (so its peak memory is its own), times what the document pipeline adds for `summary` (the summary
// and the analysis), runs `attnscope summary --format json` on it as a user would, and times python3's
// json.load on the same file in the same run.
//
//   attnscope_bench_load [--size-mb N] [--gzip] [--file PATH] [--keep] [--no-python] [--dir DIR] [--runs N]
//                        [--attnscope PATH]   (default: the attnscope beside the bench folder)
//                        [--generate-only]    (write the trace, keep it, measure nothing)
#include "kineto_generator.h"

#include "core/analysis/machine_roofs.h"
#include "core/io/atomic_file.h"
#include "core/io/trace_loader.h"
#include "core/report/summary.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace attnscope;

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::uint64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

struct ChildResult {
    double seconds = 0;
    std::uint64_t events = 0;
    std::uint64_t jsonBytes = 0;
    std::uint64_t residentAfter = 0;
    std::uint64_t modelBytes = 0;
    std::uint64_t peakRss = 0;
    double summarySeconds = 0;  // the summary part, after the last load
    double analysisSeconds = 0; // the analysis part
    double findingsSeconds = 0; // every finding rule, over the analysis
    std::size_t findings = 0;
    bool ok = false;
};

// Loads in a forked child (best of `runs` loads); the child reports through a pipe, the parent
// reads its peak RSS.
ChildResult loadInChild(const std::string& path, unsigned threads, int runs) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        ChildResult r;
        try {
            LoadOptions options;
            options.threads = threads;
            r.seconds = 1e30;
            for (int run = 0; run < runs; ++run) {
                const double t0 = now();
                auto trace = loadTraceFile(path, options);
                r.seconds = std::min(r.seconds, now() - t0);
                r.events = trace->info().eventsRead;
                r.jsonBytes = trace->info().bytesRead;
                r.residentAfter = residentBytes();
                r.modelBytes = trace->memoryBytes();
                if (run + 1 == runs) {
                    double t1 = now();
                    const TraceSummary summary = summarize(*trace, 20);
                    r.summarySeconds = now() - t1;
                    t1 = now();
                    const TraceAnalysis analysis = analyzeWithCpuRoofs(*trace, std::nullopt); // a GPU trace
                    r.analysisSeconds = now() - t1;
                    t1 = now();
                    r.findings = findFindings({*trace, analysis}).size();
                    r.findingsSeconds = now() - t1;
                }
            }
            r.ok = true;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "load failed: %s\n", e.what());
        }
        if (write(fds[1], &r, sizeof r) != sizeof r) _exit(3);
        _exit(r.ok ? 0 : 1);
    }
    close(fds[1]);
    ChildResult r;
    if (read(fds[0], &r, sizeof r) != sizeof r) r.ok = false;
    close(fds[0]);
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    r.peakRss = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
    return r;
}

struct PeerResult {
    double seconds = 0;
    std::uint64_t peakRss = 0;
    bool ok = false;
};

// Runs argv to the end with its output thrown away; its wall time and peak RSS.
PeerResult runProcess(const std::vector<std::string>& args) {
    PeerResult r;
    std::fflush(stdout); // the child must not print what is still buffered here
    const double t0 = now();
    const pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(126);
        std::vector<char*> argv;
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    r.seconds = now() - t0;
    r.peakRss = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

PeerResult pythonJsonLoad(const std::string& path, bool gzip) {
    const std::string code = gzip ? "import gzip, json, sys; json.load(gzip.open(sys.argv[1], 'rt'))"
                                  : "import json, sys; json.load(open(sys.argv[1]))";
    return runProcess({"python3", "-c", code, path});
}

} // namespace

int main(int argc, char** argv) {
    std::uint64_t sizeMb = 1024;
    bool gzip = false, keep = false, python = true, generateOnly = false;
    int runs = 3;
    std::string file, dir = "/tmp";
    std::string attnscope =
        std::string(argv[0]).substr(0, std::string(argv[0]).find_last_of('/') + 1) + "../attnscope";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--size-mb" && i + 1 < argc)
            sizeMb = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--gzip")
            gzip = true;
        else if (a == "--keep")
            keep = true;
        else if (a == "--generate-only")
            generateOnly = keep = true;
        else if (a == "--no-python")
            python = false;
        else if (a == "--file" && i + 1 < argc)
            file = argv[++i];
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--attnscope" && i + 1 < argc)
            attnscope = argv[++i];
        else if (a == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr,
                         "usage: %s [--size-mb N] [--gzip] [--file PATH] [--keep] [--no-python] [--dir DIR] "
                         "[--runs N] [--attnscope PATH] [--generate-only]\n",
                         argv[0]);
            return 2;
        }
    }
    bool generated = false;
    if (file.empty()) {
        file = dir + "/attnscope-bench-" + std::to_string(sizeMb) + "mb.pt.trace.json" + (gzip ? ".gz" : "");
        const double t0 = now();
        AtomicFile out(file, gzip);
        const auto stats =
            bench::generateKinetoTrace(sizeMb << 20, 42, [&](std::string_view b) { out.write(b); });
        out.commit();
        generated = true;
        std::printf("generated %s: %.1f MB of JSON, %llu events, %llu kernels in %.1f s\n", file.c_str(),
                    double(stats.bytes) / 1e6, static_cast<unsigned long long>(stats.events),
                    static_cast<unsigned long long>(stats.kernels), now() - t0);
    }
    if (generateOnly) return 0;
    struct stat st {};
    stat(file.c_str(), &st);
    // Warm the page cache so both loaders read from memory, as a second open would.
    {
        std::ifstream in(file, std::ios::binary);
        std::vector<char> buf(1 << 20);
        while (in.read(buf.data(), buf.size()) || in.gcount() > 0) {
        }
    }
    // Single-threaded (the parse on the calling thread), then the default (a parser per core).
    const ChildResult single = loadInChild(file, 1, runs);
    const ChildResult r = loadInChild(file, 0, runs);
    if (!r.ok || !single.ok) return 1;
    const double mb = double(r.jsonBytes) / 1e6;
    auto report = [&](const char* what, const ChildResult& c) {
        std::printf("attnscope %s: %.1f MB JSON (%.1f MB on disk) in %.3f s (best of %d): %.0f MB/s, %.2f M "
                    "events/s, "
                    "peak RSS %.0f MB, RSS after load %.0f MB (%.2fx JSON), model %.0f MB, %.0f resident "
                    "bytes/event\n",
                    what, mb, double(st.st_size) / 1e6, c.seconds, runs, mb / c.seconds,
                    double(c.events) / c.seconds / 1e6, double(c.peakRss) / 1e6,
                    double(c.residentAfter) / 1e6, double(c.residentAfter) / double(c.jsonBytes),
                    double(c.modelBytes) / 1e6, double(c.residentAfter) / double(c.events));
    };
    report("single-threaded", single);
    report("default threads", r);
    std::printf(
        "document parts after the load: summary %.3f s, analysis %.3f s, findings %.3f s (%zu findings)\n",
        r.summarySeconds, r.analysisSeconds, r.findingsSeconds, r.findings);
    // The verb as a user runs it (best of runs), with a cache of its own for the CPU's roofs.
    char cacheDir[] = "/tmp/attnscope-bench-cache-XXXXXX";
    const bool ownCache = mkdtemp(cacheDir) != nullptr;
    if (ownCache) setenv("XDG_CACHE_HOME", cacheDir, 1);
    PeerResult verb;
    verb.seconds = 1e30;
    for (int run = 0; run < runs; ++run) {
        const PeerResult v = runProcess({attnscope, "summary", "--format", "json", file});
        verb.ok = v.ok;
        if (!v.ok) break;
        verb.seconds = std::min(verb.seconds, v.seconds);
        verb.peakRss = std::max(verb.peakRss, v.peakRss);
    }
    if (ownCache) std::filesystem::remove_all(cacheDir); // it was left behind in /tmp before
    if (verb.ok)
        std::printf(
            "attnscope summary --format json: %.3f s (best of %d), peak RSS %.0f MB (%.2fx the JSON)\n",
            verb.seconds, runs, double(verb.peakRss) / 1e6, double(verb.peakRss) / double(r.jsonBytes));
    else
        std::printf("attnscope summary --format json failed (%s)\n", attnscope.c_str());
    char line[512];
    std::snprintf(
        line, sizeof line,
        "load%s single_thread_MB/s=%.0f MB/s=%.0f events/s=%.0f peak_rss_MB=%.0f rss_after_x_json=%.2f "
        "rss_per_event_B=%.0f",
        gzip ? "(gzip)" : "", mb / single.seconds, mb / r.seconds, double(r.events) / r.seconds,
        double(std::max(r.peakRss, single.peakRss)) / 1e6, double(r.residentAfter) / double(r.jsonBytes),
        double(r.residentAfter) / double(r.events));
    std::string summary = line;
    if (verb.ok) {
        // What the finding rules add to `summary` (which computes them with the analysis).
        std::printf("findings: %.3f s of the summary's %.3f s: +%.0f%% over a summary without them\n",
                    r.findingsSeconds, verb.seconds,
                    100 * r.findingsSeconds / std::max(1e-9, verb.seconds - r.findingsSeconds));
        std::snprintf(line, sizeof line, " findings_s=%.3f findings_added=%.0f%%", r.findingsSeconds,
                      100 * r.findingsSeconds / std::max(1e-9, verb.seconds - r.findingsSeconds));
        summary += line;
    }
    if (python) {
        const PeerResult p = pythonJsonLoad(file, gzip);
        if (p.ok) {
            std::printf("python3 json.load: %.3f s: %.0f MB/s, peak RSS %.0f MB\n", p.seconds, mb / p.seconds,
                        double(p.peakRss) / 1e6);
            std::snprintf(line, sizeof line, " python_MB/s=%.0f ratio=%.1fx ratio_single_thread=%.1fx",
                          mb / p.seconds, p.seconds / r.seconds, p.seconds / single.seconds);
            summary += line;
            if (verb.ok) {
                std::snprintf(line, sizeof line,
                              " summary_s=%.3f summary_ratio=%.1fx summary_rss_x_json=%.2f", verb.seconds,
                              p.seconds / verb.seconds, double(verb.peakRss) / double(r.jsonBytes));
                summary += line;
            }
        } else {
            std::printf("python3 json.load failed (is python3 installed?)\n");
        }
    }
    std::printf("%s\n", summary.c_str());
    if (generated && !keep) unlink(file.c_str());
    return 0;
}
