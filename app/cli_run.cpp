// SPDX-License-Identifier: MIT
// The run verb: its options read into a RunConfig, the run, its table, and the trace it saves.
#include "cli.h"
#include "cli_options.h"

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
    std::string impls, dtype;
    bool decode = false, seqGiven = false;
    int threads = 0;
};

// An int option held to the run's limit ("--seq: Value 0 not in range 1 to 1048576").
CLI::Option* intOption(CLI::App& app, const char* name, int& target, RunLimit limit, const char* value,
                       const char* help) {
    return app.add_option(name, target, help)
        ->type_name(value)
        ->check(CLI::Range(limit.lo, limit.hi).description(""));
}

// What the options say together (each refusal on stderr); false when they do not go together.
bool finish(RunRequest& request) {
    RunConfig& config = request.config;
    if (!request.impls.empty()) config.impls = splitCommas(request.impls);
    if (!request.dtype.empty()) config.shape.dtype = precisionNamed(request.dtype);
    if (request.threads) config.threads = unsigned(request.threads);
    if (request.decode) {
        // A decode step: one query (or --seq a few) against the KV cache.
        if (!config.shape.kvLen) {
            std::fprintf(stderr, "run: --decode needs --kv-len, the KV cache's length\n");
            return false;
        }
        if (!request.seqGiven) config.shape.seq = 1;
    }
    if (request.backend == BackendChoice::Torch && request.impls.empty()) config.impls = torchRunImpls();
    return true;
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

Verb verbRun() {
    return {
        "run",
        "run attention on the CPU, a GPU or with PyTorch and print time per call; -o saves the run as a "
        "trace",
        "", [](CLI::App& app, const char*) -> VerbRun {
            auto r = std::make_shared<RunRequest>();
            RunConfig& c = r->config;
            app.add_option_function<std::string>(
                   "--backend", [r](const std::string& b) { r->backend = *backendChoiceNamed(b); },
                   "cpu, cuda, torch (PyTorch's own, on its GPU when it has one) or auto\n"
                   "(default: cuda when a GPU is found)")
                ->type_name("cpu|cuda|torch|auto")
                ->check(accepted([](const std::string& b) { return backendChoiceNamed(b).has_value(); },
                                 backendChoicesText()));
            app.add_option("--impl", r->impls,
                           "naive, flash (CUDA also naive_simt, flash_simt; torch: naive, math, flash,\n"
                           "efficient, cudnn, all by default: those that cannot run there are skipped)")
                ->type_name("naive,flash");
            intOption(app, "--batch", c.shape.batch, limits::kBatch, "B", "the shape: batch size,");
            intOption(app, "--heads", c.shape.heads, limits::kHeads, "H", "query heads,");
            intOption(app, "--seq", c.shape.seq, limits::kSeq, "N",
                      "queries per head (the sequence length) and")
                ->each([r](const std::string&) { r->seqGiven = true; });
            intOption(app, "--dim", c.shape.dim, limits::kDim, "D", "head dimension; --dtype its type");
            intOption(app, "--kv-heads", c.shape.kvHeads, limits::kKvHeads, "K",
                      "K/V heads (GQA: heads/K query heads share one; 1: MQA); default: heads");
            app.add_flag("--decode", r->decode, "one query (or --seq N) against the KV cache of --kv-len");
            intOption(app, "--kv-len", c.shape.kvLen, limits::kKvLen, "L", "keys per head (the KV cache)");
            app.add_option("--dtype", r->dtype, "fp32 (default), fp16 or bf16")
                ->type_name("fp32|fp16|bf16")
                ->check(oneOf({"fp32", "fp16", "bf16"}));
            app.add_flag("--causal", c.shape.causal, "each query sees the keys up to its own");
            intOption(app, "--warmup", c.warmup, limits::kWarmup, "W", "calls before measuring");
            intOption(app, "--iters", c.iters, limits::kIters, "I", "calls measured");
            intOption(app, "--threads", r->threads, limits::kThreads, "T", "CPU workers");
            app.add_flag_function(
                "--no-cupti", [r](std::int64_t) { r->config.collect = false; }, "CUDA without CUPTI");
            app.add_option("--python", c.python,
                           "torch: the Python with PyTorch (default: ATTNSCOPE_PYTHON, else the\n"
                           "torch-venv `make test` made beside attnscope, else python3; the run says which)")
                ->type_name("PY");
            std::vector<std::string> presets;
            for (const RunPreset& p : runPresets())
                presets.push_back(p.key);
            app.add_option_function<std::string>(
                   "--preset",
                   [r](const std::string& key) { r->config.variants = findRunPreset(key)->variants; },
                   "first-look, naive-flash, prefill-decode or mha-gqa-mqa: several shapes in one run")
                ->type_name("NAME")
                ->check(oneOf(presets));
            app.add_option("-o,--output", r->out, "save the run as Chrome trace JSON")
                ->type_name("RUN.json[.gz]");
            return [r]() -> int {
                prepareRuns();
                if (!finish(*r)) return kUsage;
                return runAndReport(std::move(*r));
            };
        }};
}

} // namespace attnscope::cli
