// SPDX-License-Identifier: MIT
// The run verb: its options read into a RunConfig, the run, its table, and the trace it saves.
#include "cli_run.h"
#include "cli.h"

#include "kernels/cuda_backend.h"
#include "kernels/run_session.h"

#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "core/report/compare.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::cli {

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

using namespace attnscope::kernels;

// What `attnscope run …` asks for.
struct RunRequest {
    RunConfig config;
    BackendChoice backend = BackendChoice::Auto;
    std::string out; // -o: where the run is saved as a trace
};

// The verb's options (each refusal names its option, on stderr); none when the usage is wrong.
std::optional<RunRequest> parseRunArgs(int argc, char** argv) {
    RunRequest request;
    RunConfig& config = request.config;
    BackendChoice& backend = request.backend;
    std::string& out = request.out;
    bool decode = false, seqGiven = false, implsGiven = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool value = i + 1 < argc;
        auto intArg = [&](int& target, RunLimit limit) {
            if (!parseInt(argv[++i], target, limit.lo, limit.hi)) {
                std::fprintf(stderr, "run: %s wants a whole number from %d to %d, got '%s'\n", arg.c_str(),
                             limit.lo, limit.hi, argv[i]);
                return false;
            }
            return true;
        };
        if (arg == "--backend" && value) {
            const std::optional<BackendChoice> choice = backendChoiceNamed(argv[++i]);
            if (!choice) {
                std::fprintf(stderr, "run: the backend is %s, not '%s'\n", backendChoicesText().c_str(),
                             argv[i]);
                return std::nullopt;
            }
            backend = *choice;
        } else if (arg == "--impl" && value) {
            config.impls = splitCommas(argv[++i]);
            implsGiven = true;
        } else if (arg == "--python" && value) {
            config.python = argv[++i];
        } else if (arg == "--batch" && value) {
            if (!intArg(config.shape.batch, limits::kBatch)) return std::nullopt;
        } else if (arg == "--heads" && value) {
            if (!intArg(config.shape.heads, limits::kHeads)) return std::nullopt;
        } else if (arg == "--seq" && value) {
            if (!intArg(config.shape.seq, limits::kSeq)) return std::nullopt;
            seqGiven = true;
        } else if (arg == "--dim" && value) {
            if (!intArg(config.shape.dim, limits::kDim)) return std::nullopt;
        } else if (arg == "--kv-heads" && value) {
            if (!intArg(config.shape.kvHeads, limits::kKvHeads)) return std::nullopt;
        } else if (arg == "--kv-len" && value) {
            if (!intArg(config.shape.kvLen, limits::kKvLen)) return std::nullopt;
        } else if (arg == "--decode") {
            decode = true;
        } else if (arg == "--preset" && value) {
            const RunPreset* preset = findRunPreset(argv[++i]);
            if (!preset) {
                std::string keys;
                for (const RunPreset& p : runPresets())
                    keys += (keys.empty() ? "" : ", ") + p.key;
                std::fprintf(stderr, "run: --preset is one of %s, got '%s'\n", keys.c_str(), argv[i]);
                return std::nullopt;
            }
            config.variants = preset->variants;
        } else if (arg == "--warmup" && value) {
            if (!intArg(config.warmup, limits::kWarmup)) return std::nullopt;
        } else if (arg == "--iters" && value) {
            if (!intArg(config.iters, limits::kIters)) return std::nullopt;
        } else if (arg == "--threads" && value) {
            int threads = 0;
            if (!intArg(threads, limits::kThreads)) return std::nullopt;
            config.threads = unsigned(threads);
        } else if (arg == "--dtype" && value) {
            const Precision d = precisionNamed(argv[++i]);
            if (d != Precision::F32 && d != Precision::F16 && d != Precision::BF16) {
                std::fprintf(stderr, "run: --dtype is fp32, fp16 or bf16, got '%s'\n", argv[i]);
                return std::nullopt;
            }
            config.shape.dtype = d;
        } else if (arg == "--no-cupti") {
            config.collect = false;
        } else if (arg == "--causal") {
            config.shape.causal = true;
        } else if ((arg == "-o" || arg == "--output") && value) {
            out = argv[++i];
        } else {
            std::fprintf(stderr, "run: unknown option or missing value '%s'\n", arg.c_str());
            return std::nullopt;
        }
    }
    if (decode) {
        // A decode step: one query (or --seq a few) against the KV cache.
        if (!config.shape.kvLen) {
            std::fprintf(stderr, "run: --decode needs --kv-len, the KV cache's length\n");
            return std::nullopt;
        }
        if (!seqGiven) config.shape.seq = 1;
    }
    if (backend == BackendChoice::Torch && !implsGiven) config.impls = torchImpls();
    return request;
}

// The run, its table, and the trace it saves.
int runAndReport(RunRequest request) {
    RunConfig& config = request.config;
    const BackendChoice backend = request.backend;
    const std::string& out = request.out;
    std::string notice;
    const std::string problem = chooseBackend(config, backend, notice);
    if (!notice.empty()) std::fprintf(stderr, "run: %s\n", notice.c_str());
    if (!problem.empty()) {
        std::fprintf(stderr, "run: %s\n", problem.c_str());
        // No device for --backend cuda is this machine's state, not a usage error.
        return backend == BackendChoice::Cuda && config.backend != kernels::Backend::Cuda ? kFileError
                                                                                          : kUsage;
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
    std::vector<ImplStats> stats = runStats(config, events);
    for (ImplStats& st : stats)
        st.unavailable = session.unavailable().count(st.impl) > 0;

    std::printf("%s", formatRunStats(stats).c_str());
    std::shared_ptr<const Trace> trace;
    try {
        trace = buildRunTrace(events, config.backend, session.deviceName());
        // The run read as `attnscope compare` reads a trace: its implementations side by side, each call
        // against the expected one, and what the run revealed.
        DocumentOptions options;
        options.parts = AnalysisPart;
        Comparison c;
        c.traces.push_back(compareEntry(*openDocument(DocumentSource::built(trace, "run"), options),
                                        out.empty() ? std::string("this run") : out));
        std::printf("\n%s", formatComparison(c, CompareFormat::Text).c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "run: %s\n", e.what());
        return kFileError;
    }
    if (!out.empty()) {
        try {
            writeChromeTrace(*trace, out);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", out.c_str(), e.what());
            return kFileError;
        }
        std::printf("saved %s (%zu events)\n", out.c_str(), events.size());
    }
    return kOk;
}

} // namespace

int runVerb(int argc, char** argv) {
    prepareRuns();
    std::optional<RunRequest> request = parseRunArgs(argc, argv);
    return request ? runAndReport(std::move(*request)) : kUsage;
}

} // namespace attnscope::cli
