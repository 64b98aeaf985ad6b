// SPDX-License-Identifier: MIT
// A job of many ranks through the engine: --ranks generated Kineto traces of about --mb MB each (a rank
// each, distributedInfo set), then, alternately for --rounds rounds, each a child process of its own:
//   engine      attnscope job --map TRACES… --workers W (Dask's local cluster): the records made by the
//               workers, the report put together from them;
//   one by one  attnscope summary --format rank TRACES… in one process (the same records, one after another).
// Prints both wall times and their ratio (target: the engine >= 1.8x faster with 2 workers), beside the
// machine's own ceiling (the same summaries in W processes side by side, no engine), each worker's
// peak memory as the engine reports it against one summary of the largest trace alone (target <= 2x), and
// the records' size.
//
//   attnscope_bench_job [--ranks N] [--mb M] [--workers W] [--rounds R] [--python PY] [--dir DIR] [--keep]
#include "kineto_generator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Ran {
    int status = -1;
    double seconds = 0;
    double peakMb = 0; // the child's own peak (its children's are not in it)
};

// Starts argv with stdout and stderr to files.
pid_t startChild(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
        std::vector<char*> argv;
        for (const std::string& a : args)
            argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        _exit(127);
    }
    return pid;
}

// Runs argv with stdout and stderr to files; its wall time and peak resident memory.
Ran runChild(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
    const double t0 = now();
    const pid_t pid = startChild(args, out, err);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    Ran r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.seconds = now() - t0;
    r.peakMb = double(usage.ru_maxrss) / 1024.0;
    return r;
}

std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The engine's per-worker peaks from its line on stderr ("peak_rss_kb": {"host:pid": kB, …}), in MB.
std::vector<double> workerPeaks(const std::string& err) {
    std::vector<double> peaks;
    const std::size_t at = err.find("\"peak_rss_kb\"");
    if (at == std::string::npos) return peaks;
    const std::size_t end = err.find('}', at);
    for (std::size_t colon = err.find("\": ", at + 14); colon < end; colon = err.find("\": ", colon + 1))
        peaks.push_back(std::strtod(err.c_str() + colon + 3, nullptr) / 1024.0);
    return peaks;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t ranks = 1000, workers = 2, rounds = 2;
    double mb = 5;
    std::string dir, python;
    bool keep = false;
    if (const char* p = std::getenv("ATTNSCOPE_PYTHON"); p && *p) python = p;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--ranks" && i + 1 < argc)
            ranks = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--mb" && i + 1 < argc)
            mb = std::strtod(argv[++i], nullptr);
        else if (a == "--workers" && i + 1 < argc)
            workers = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--rounds" && i + 1 < argc)
            rounds = std::max<std::size_t>(1, std::strtoull(argv[++i], nullptr, 10));
        else if (a == "--python" && i + 1 < argc)
            python = argv[++i];
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--keep")
            keep = true;
        else {
            std::fprintf(
                stderr,
                "usage: %s [--ranks N] [--mb M] [--workers W] [--rounds R] [--python PY] [--dir DIR] "
                "[--keep]\n",
                argv[0]);
            return 2;
        }
    }
    if (python.empty()) python = ATTNSCOPE_SOURCE_DIR "/build/torch-venv/bin/python";
    const bool ownDir = dir.empty();
    if (ownDir) {
        char pattern[] = "/tmp/attnscope-bench-job-XXXXXX";
        if (!mkdtemp(pattern)) return 1;
        dir = pattern;
    }
    std::filesystem::create_directories(dir + "/traces");
    std::vector<std::string> traces;
    std::uint64_t bytes = 0, largestBytes = 0;
    std::string largest;
    const double g0 = now();
    for (std::size_t r = 0; r < ranks; ++r) {
        char name[64];
        std::snprintf(name, sizeof name, "/traces/rank%05zu.json", r);
        const std::string path = dir + name;
        if (!std::filesystem::exists(path)) {
            std::ofstream out(path, std::ios::binary);
            bool named = false;
            // Each rank a little different in size, as ranks are; its distributedInfo says its rank.
            const auto target = std::uint64_t(mb * (1 << 20) * (0.9 + 0.2 * double((r * 37) % 100) / 100));
            const std::string generated = "\"rank\": 0, \"world_size\": 8",
                              own = "\"rank\": " + std::to_string(r) +
                                    ", \"world_size\": " + std::to_string(ranks);
            attnscope::bench::generateKinetoTrace(target, std::uint32_t(1000 + r), [&](std::string_view s) {
                if (!named) {
                    if (const std::size_t at = s.find(generated); at != std::string_view::npos) {
                        out << s.substr(0, at) << own;
                        s.remove_prefix(at + generated.size());
                        named = true;
                    }
                }
                out << s;
            });
        }
        const std::uint64_t size = std::filesystem::file_size(path);
        bytes += size;
        if (size > largestBytes) {
            largestBytes = size;
            largest = path;
        }
        traces.push_back(path);
    }
    std::printf(
        "job benchmark: %zu rank traces, %.0f MB in all (largest %.1f MB), made in %.1f s; %zu workers\n",
        ranks, double(bytes) / (1 << 20), double(largestBytes) / (1 << 20), now() - g0, workers);
    const std::string bin = ATTNSCOPE_BINARY;
    std::vector<std::string> engine = {
        bin,    "job",      "--map", "--workers", std::to_string(workers), "--python",
        python, "--format", "json",  "--records", dir + "/records"};
    engine.insert(engine.end(), traces.begin(), traces.end());
    std::vector<std::string> oneByOne = {bin, "summary", "--format", "rank"};
    oneByOne.insert(oneByOne.end(), traces.begin(), traces.end());
    std::vector<double> engineSeconds, oneSeconds, sideSeconds, peaks;
    double onePeak = 0;
    for (std::size_t round = 0; round < rounds; ++round) {
        std::filesystem::remove_all(dir + "/records");
        const Ran e = runChild(engine, dir + "/engine.out", dir + "/engine.err");
        if (e.status != 0) {
            std::fprintf(stderr, "the engine's run failed (%d):\n%s\n", e.status,
                         readText(dir + "/engine.err").c_str());
            return 1;
        }
        engineSeconds.push_back(e.seconds);
        const std::vector<double> p = workerPeaks(readText(dir + "/engine.err"));
        peaks.insert(peaks.end(), p.begin(), p.end());
        const Ran o = runChild(oneByOne, dir + "/one.out", dir + "/one.err");
        if (o.status != 0) {
            std::fprintf(stderr, "the summaries one by one failed (%d)\n", o.status);
            return 1;
        }
        oneSeconds.push_back(o.seconds);
        onePeak = std::max(onePeak, o.peakMb);
        // This machine's own ceiling: the same summaries as W processes side by side, no engine.
        const double p0 = now();
        std::vector<pid_t> pids;
        for (std::size_t w = 0; w < workers; ++w) {
            std::vector<std::string> part = {bin, "summary", "--format", "rank"};
            for (std::size_t k = w; k < traces.size(); k += workers)
                part.push_back(traces[k]);
            pids.push_back(startChild(part, dir + "/part.out", dir + "/part.err"));
        }
        for (pid_t pid : pids)
            waitpid(pid, nullptr, 0);
        sideSeconds.push_back(now() - p0);
        std::printf(
            "  round %zu: engine %.1f s, one by one %.1f s (%.2fx); %zu processes side by side, no engine, "
            "%.1f s (%.2fx)\n",
            round + 1, e.seconds, o.seconds, o.seconds / e.seconds, workers, sideSeconds.back(),
            o.seconds / sideSeconds.back());
    }
    const Ran alone =
        runChild({bin, "summary", "--format", "rank", largest}, dir + "/alone.out", dir + "/alone.err");
    std::uint64_t recordBytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/records"))
        recordBytes += std::filesystem::file_size(entry.path());
    const double bestEngine = *std::min_element(engineSeconds.begin(), engineSeconds.end());
    const double bestOne = *std::min_element(oneSeconds.begin(), oneSeconds.end());
    const double worstRatio = *std::min_element(oneSeconds.begin(), oneSeconds.end()) /
                              *std::max_element(engineSeconds.begin(), engineSeconds.end());
    const double bestSide = *std::min_element(sideSeconds.begin(), sideSeconds.end());
    const double peak = peaks.empty() ? 0 : *std::max_element(peaks.begin(), peaks.end());
    std::printf("\n%-46s %10s %12s %8s\n", "", "engine", "one by one", "ratio");
    std::printf("%-46s %10.1f %12.1f %7.2fx   (target >= 1.8x; worst pairing %.2fx)\n",
                "wall time, s (best of rounds)", bestEngine, bestOne, bestOne / bestEngine, worstRatio);
    std::printf("%-46s %10.1f %12.1f %7.2fx   (this machine's ceiling for %zu workers)\n",
                "  the same in processes side by side, no engine", bestSide, bestOne, bestOne / bestSide,
                workers);
    std::printf("%-46s %10.0f %12.0f %7.2fx   (target <= 2x of the largest rank's summary alone, %.0f MB)\n",
                "peak memory, MB (engine: per worker's summaries)", peak, onePeak, peak / alone.peakMb,
                alone.peakMb);
    std::printf("%-46s %10.1f kB a rank (%.1f MB in all)\n", "records",
                double(recordBytes) / 1024.0 / double(ranks), double(recordBytes) / (1 << 20));
    std::printf("%-46s %10.1f ms a rank (one by one, best)\n", "summary of a rank",
                1000 * bestOne / double(ranks));
    if (ownDir && !keep) std::filesystem::remove_all(dir);
    return 0;
}
