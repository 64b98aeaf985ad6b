// SPDX-License-Identifier: MIT
#include "cli.h"

#include "kernels/cuda_backend.h"

#include "core/analysis.h"
#include "core/diff.h"
#include "core/ranks.h"
#include "kernels/cpu/cpu_peak.h"
#include "kernels/run_session.h"

#include "core/chrome_writer.h"
#include "core/summary.h"
#include "core/trace_loader.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace attnscope::cli {

const char* version() {
    return ATTNSCOPE_VERSION;
}

void printUsage(const char* program) {
    std::fprintf(
        stderr,
        "usage:\n"
        "  %s [FILE...]                      open the window (traces given are loaded)\n"
        "  %s summary FILE... [--format text|json|csv] [--top N] [--ranks]   --ranks: the files are ranks of "
        "one job\n"
        "  %s convert IN -o OUT.json[.gz]\n"
        "  %s run [--backend cpu|cuda|auto] [--impl naive,flash] [--batch B] [--heads H] [--seq N]\n"
        "         [--dim D] [--dtype fp32|fp16|bf16] [--causal] [--warmup W] [--iters I] [--no-cupti]\n"
        "         [-o RUN.json[.gz]]      CUDA implementations: naive, naive_simt, flash, flash_simt\n"
        "  %s diff A B [--format text|json|csv] [--top N]   compare two traces per role and kernel\n"
        "  %s export FILE --timeline OUT.png|svg|pdf [--range START_NS:END_NS] [--size WxH]\n"
        "         [--scale 1|2] [--tracks REGEX]     a picture of the timeline, no display needed\n"
        "  %s --version | --help\n",
        program, program, program, program, program, program, program);
}

namespace {

bool parseCount(const char* s, std::size_t& out) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (!*s || *end || s[0] == '-') return false;
    out = static_cast<std::size_t>(v);
    return true;
}

// "--format text|json|csv" for the verbs that print tables; false (with a line on stderr) otherwise.
bool parseFormat(const char* verb, const std::string& text, SummaryFormat& format) {
    if (text == "text")
        format = SummaryFormat::Text;
    else if (text == "json")
        format = SummaryFormat::Json;
    else if (text == "csv")
        format = SummaryFormat::Csv;
    else {
        std::fprintf(stderr, "%s: unknown format '%s' (text, json or csv)\n", verb, text.c_str());
        return false;
    }
    return true;
}

} // namespace

int summary(int argc, char** argv) {
    std::vector<std::string> files;
    SummaryFormat format = SummaryFormat::Text;
    std::size_t top = 20;
    bool ranks = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc) {
            if (!parseFormat("summary", argv[++i], format)) return kUsage;
        } else if (arg == "--top" && i + 1 < argc) {
            if (!parseCount(argv[++i], top)) {
                std::fprintf(stderr, "summary: --top needs a number, got '%s'\n", argv[i]);
                return kUsage;
            }
        } else if (arg == "--ranks") {
            ranks = true;
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "summary: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "summary: no trace files given\n");
        printUsage(argv[0]);
        return kUsage;
    }
    if (ranks) {
        // The files are the ranks of one job: per rank the GPU busy time and its spread.
        std::vector<RankInput> inputs;
        for (const std::string& path : files) {
            try {
                inputs.push_back({path, loadTraceFile(path)});
            } catch (const std::exception& e) {
                std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
                return kFileError;
            }
        }
        const std::string out = formatRankReport(rankReport(inputs), format);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return kOk;
    }
    std::vector<SummaryResult> results;
    int exitCode = kOk;
    for (const std::string& path : files) {
        SummaryResult r;
        r.path = path;
        try {
            const auto trace = loadTraceFile(path);
            r.summary = summarize(*trace, top);
            addAnalysis(*r.summary, *trace, kernels::analyzeWithMachineRoofs(*trace));
        } catch (const std::exception& e) {
            r.error = e.what();
            std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
            exitCode = kFileError;
        }
        results.push_back(std::move(r));
    }
    const std::string out = formatSummaries(results, format);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return exitCode;
}

int diff(int argc, char** argv) {
    std::vector<std::string> files;
    DiffFormat format = DiffFormat::Text;
    std::size_t top = 30;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc) {
            if (!parseFormat("diff", argv[++i], format)) return kUsage;
        } else if (arg == "--top" && i + 1 < argc) {
            if (!parseCount(argv[++i], top)) {
                std::fprintf(stderr, "diff: --top needs a number, got '%s'\n", argv[i]);
                return kUsage;
            }
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "diff: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.size() != 2) {
        std::fprintf(stderr, "diff: needs two trace files, A and B\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::shared_ptr<const Trace> traces[2];
    for (int i = 0; i < 2; ++i) {
        try {
            traces[i] = loadTraceFile(files[std::size_t(i)]);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", files[std::size_t(i)].c_str(), e.what());
            return kFileError;
        }
    }
    const TraceDiff d =
        diffTraces(*traces[0], kernels::analyzeWithMachineRoofs(*traces[0]), *traces[1],
                   kernels::analyzeWithMachineRoofs(*traces[1]));
    const std::string out = formatDiff(d, files[0], files[1], format, top);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kOk;
}

int convert(int argc, char** argv) {
    std::string in, out;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "-o" || arg == "--output") && i + 1 < argc)
            out = argv[++i];
        else if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
            std::fprintf(stderr, "convert: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else if (in.empty())
            in = arg;
        else {
            std::fprintf(stderr, "convert: one input file only\n");
            return kUsage;
        }
    }
    if (in.empty() || out.empty()) {
        std::fprintf(stderr, "convert: needs IN and -o OUT.json[.gz]\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::shared_ptr<const Trace> trace;
    try {
        trace = loadTraceFile(in);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", in.c_str(), e.what());
        return kFileError;
    }
    for (const auto& w : trace->info().warnings)
        std::fprintf(stderr, "%s: warning: %s\n", in.c_str(), w.c_str());
    try {
        writeChromeTrace(*trace, out);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", out.c_str(), e.what());
        return kFileError;
    }
    return kOk;
}

namespace {

bool parseInt(const char* s, int& out, int lo, int hi) {
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return false;
    out = int(v);
    return true;
}

std::vector<std::string> splitCommas(const std::string& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= s.size()) {
        const std::size_t comma = std::min(s.find(',', at), s.size());
        if (comma > at) out.push_back(s.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

} // namespace

int run(int argc, char** argv) {
    using namespace attnscope::kernels;
    RunConfig config;
    std::string backend = "auto", out;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool value = i + 1 < argc;
        auto intArg = [&](int& target, int lo, int hi) {
            if (!parseInt(argv[++i], target, lo, hi)) {
                std::fprintf(stderr, "run: %s wants a whole number from %d to %d, got '%s'\n", arg.c_str(),
                             lo, hi, argv[i]);
                return false;
            }
            return true;
        };
        if (arg == "--backend" && value) {
            backend = argv[++i];
        } else if (arg == "--impl" && value) {
            config.impls = splitCommas(argv[++i]);
        } else if (arg == "--batch" && value) {
            if (!intArg(config.shape.batch, 1, 4096)) return kUsage;
        } else if (arg == "--heads" && value) {
            if (!intArg(config.shape.heads, 1, 4096)) return kUsage;
        } else if (arg == "--seq" && value) {
            if (!intArg(config.shape.seq, 1, 1 << 20)) return kUsage;
        } else if (arg == "--dim" && value) {
            if (!intArg(config.shape.dim, 1, 1024)) return kUsage;
        } else if (arg == "--warmup" && value) {
            if (!intArg(config.warmup, 0, 10000)) return kUsage;
        } else if (arg == "--iters" && value) {
            if (!intArg(config.iters, 1, 10000)) return kUsage;
        } else if (arg == "--threads" && value) {
            int threads = 0;
            if (!intArg(threads, 1, 1024)) return kUsage;
            config.threads = unsigned(threads);
        } else if (arg == "--dtype" && value) {
            const std::string d = argv[++i];
            if (d == "fp32")
                config.shape.dtype = DType::F32;
            else if (d == "fp16")
                config.shape.dtype = DType::F16;
            else if (d == "bf16")
                config.shape.dtype = DType::BF16;
            else {
                std::fprintf(stderr, "run: --dtype is fp32, fp16 or bf16, got '%s'\n", d.c_str());
                return kUsage;
            }
        } else if (arg == "--no-cupti") {
            config.collect = false;
        } else if (arg == "--causal") {
            config.shape.causal = true;
        } else if ((arg == "-o" || arg == "--output") && value) {
            out = argv[++i];
        } else {
            std::fprintf(stderr, "run: unknown option or missing value '%s'\n", arg.c_str());
            return kUsage;
        }
    }
    std::string notice;
    const std::string problem = chooseBackend(config, backend, notice);
    if (!notice.empty()) std::fprintf(stderr, "run: %s\n", notice.c_str());
    if (!problem.empty()) {
        std::fprintf(stderr, "run: %s\n", problem.c_str());
        // No device for --backend cuda is this machine's state, not a usage error.
        return backend == "cuda" && config.backend != "cuda" ? kFileError : kUsage;
    }

    RunSession session(config);
    std::printf("%s", runHeadline(config, session.workers()).c_str());
    std::fflush(stdout);
    session.start();
    session.wait();
    for (const std::string& line : session.takeNotices())
        std::fprintf(stderr, "run: %s\n", line.c_str());
    if (const std::string error = session.error(); !error.empty()) {
        std::fprintf(stderr, "run: %s\n", error.c_str());
        return kFileError;
    }
    if (session.dropped())
        std::fprintf(stderr, "run: CUPTI dropped %llu records\n", (unsigned long long)session.dropped());
    const std::vector<RunEvent> events = session.takeEvents();
    const std::vector<ImplStats> stats = runStats(config, events);

    std::printf("%s", formatRunStats(stats).c_str());
    if (!out.empty()) {
        try {
            const auto trace = buildRunTrace(events, config.backend, session.deviceName());
            writeChromeTrace(*trace, out);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", out.c_str(), e.what());
            return kFileError;
        }
        std::printf("saved %s (%zu events)\n", out.c_str(), events.size());
    }
    return kOk;
}

} // namespace attnscope::cli
