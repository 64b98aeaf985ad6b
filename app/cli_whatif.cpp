// SPDX-License-Identifier: MIT
// The whatif verb: one attention call of a trace read for what it computes (call_inputs.h), then run
// again on this machine through the PyTorch runner, as it was and as each alternative, and the measured
// runs set beside the call as recorded — "guess, then measure".
#include "cli.h"
#include "cli_common.h"

#include "kernels/run_session.h"
#include "kernels/whatif.h"

#include "core/analysis/call_inputs.h"
#include "core/document/document.h"
#include "core/io/chrome_writer.h"
#include "core/report/compare.h"
#include "core/report/format.h"
#include "core/report/rank_record.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace attnscope::cli {

namespace {

using namespace attnscope::kernels;

struct WhatIfArgs {
    std::string file;
    std::size_t call = 0; // from 1; 0: the first call of the implementation with most kernel time
    std::string impl;
    std::string finding; // the call of this finding's first place in one
    std::vector<std::string> tries;
    int repeat = 5;
    std::string python;
    std::string dir; // -o: the call as recorded and the run saved here, to compare or open
    CompareFormat format = CompareFormat::Text;
};

// The call asked for (an index into the analysis' calls), or why there is none.
std::optional<std::size_t> chooseCall(const Document& doc, const WhatIfArgs& args, std::string& why) {
    const TraceAnalysis& a = *doc.analysis;
    const auto& calls = a.calls;
    if (calls.empty()) {
        why = "the trace has no attention call to try alternatives for";
        return std::nullopt;
    }
    if (!args.finding.empty()) {
        if (auto call = callOfFinding(*doc.findings, a, args.finding)) return call;
        std::string have;
        std::set<std::string> named;
        for (const Finding& f : *doc.findings)
            if (!named.contains(f.id) && callOfFinding(*doc.findings, a, f.id)) {
                named.insert(f.id);
                have += (have.empty() ? "" : ", ") + f.id;
            }
        why = "--finding " + args.finding + ": " +
              (std::any_of(doc.findings->begin(), doc.findings->end(),
                           [&](const Finding& f) { return f.id == args.finding; })
                   ? std::string("none of its places is in an attention call")
                   : std::string("no such finding in the trace")) +
              " (the findings about a call: " + (have.empty() ? std::string("none") : have) + ")";
        return std::nullopt;
    }
    if (args.call) {
        if (args.call > calls.size()) {
            why = "--call " + std::to_string(args.call) + ": the trace has " +
                  formatCount(calls.size(), "attention call", "attention calls");
            return std::nullopt;
        }
        return args.call - 1;
    }
    std::string impl = args.impl;
    if (impl.empty()) { // the implementation that holds most kernel time
        TimeNs most = -1;
        for (const ImplCalls& c : a.tables.implCalls)
            if (c.kernelNs > most) most = c.kernelNs, impl = c.impl;
    }
    for (std::size_t i = 0; i < calls.size(); ++i)
        if (calls[i].impl == impl) return i;
    std::string have;
    for (const ImplCalls& c : a.tables.implCalls)
        have += (have.empty() ? "" : ", ") + c.impl + " ×" + std::to_string(c.calls);
    why = "--impl " + impl + ": no call of it in the trace (its calls: " + have + ")";
    return std::nullopt;
}

// A comparison of one row each: the call as recorded, then each implementation the run measured.
Comparison sideBySide(const Document& recorded, const TraceAnalysis& recordedCalls, const AttentionCall& call,
                      const Document& run, std::size_t& baseline) {
    Comparison c;
    ComparedTrace as = compareEntry("as recorded", *recorded.trace, recordedCalls, *recorded.findings);
    std::erase_if(as.rows, [&](const CompareRow& r) { return r.impl != call.impl; });
    c.traces.push_back(std::move(as));
    ComparedTrace measured = compareEntry("measured", *run.trace, *run.analysis, *run.findings);
    baseline = 0;
    for (CompareRow& row : measured.rows) {
        if (row.impl.empty()) continue;
        ComparedTrace one;
        one.path = "measured: " + row.impl;
        one.spanNs = measured.spanNs;
        if (row.impl == call.impl) baseline = c.traces.size(); // the call as it was, measured here
        row.findings.clear(); // a run pinned to a backend on purpose: its "fell back" findings are noise here
        one.rows.push_back(std::move(row));
        c.traces.push_back(std::move(one));
    }
    c.baseline = baseline;
    return c;
}

int whatIf(const WhatIfArgs& args) {
    std::shared_ptr<const Document> doc;
    try {
        DocumentOptions options;
        options.parts = AnalysisPart;
        doc = opened(openDocument(DocumentSource::file(args.file), options));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", args.file.c_str(), e.what());
        return kFileError;
    }
    std::string why;
    const auto index = chooseCall(*doc, args, why);
    if (!index) {
        std::fprintf(stderr, "whatif: %s: %s; nothing was run\n", args.file.c_str(), why.c_str());
        return args.call || !args.impl.empty() || !args.finding.empty() ? kUsage : kFileError;
    }
    const AttentionCall& call = doc->analysis->calls[*index];
    const auto inputs = callInputs(*doc->trace, *doc->analysis, call);
    if (!inputs) {
        std::fprintf(stderr,
                     "whatif: %s: call %zu (%s) has no recorded inputs (a trace saved without record_shapes, "
                     "or a kernel launched from no op AttnScope reads), so what it computes is unknown; "
                     "nothing was run\n",
                     args.file.c_str(), *index + 1, call.impl.c_str());
        return kFileError;
    }
    WhatIfPlan plan = whatIfPlan(*inputs, args.tries, args.repeat, args.python);
    RunConfig& config = plan.config;
    const std::vector<std::string>& notes = plan.notes;
    std::string notice;
    if (const std::string problem = chooseBackend(config, BackendChoice::Torch, notice); !problem.empty()) {
        std::fprintf(stderr, "whatif: %s; nothing was run\n", problem.c_str());
        return kUsage;
    }
    if (!notice.empty()) std::fprintf(stderr, "whatif: %s\n", notice.c_str());
    const bool text = args.format != CompareFormat::Json;
    const TraceAnalysis recordedCalls = sameShapeCalls(*doc->trace, *doc->analysis, call, *inputs);
    const std::uint64_t callsInTrace = recordedCalls.calls.size();
    const std::size_t steps = profilerSteps(*doc->trace).size(); // a saving per step over them
    if (text) {
        std::printf("call %zu of %s (%s, %s of this shape in the trace): %s\n", *index + 1, args.file.c_str(),
                    call.impl.c_str(), formatCount(callsInTrace, "such call", "such calls").c_str(),
                    inputs->text().c_str());
        for (const std::string& n : notes)
            std::printf("  note: %s\n", n.c_str());
        // A trace read in part is said first, not under the table: its calls may be fewer than it held.
        for (const std::string& w : doc->trace->info().warnings)
            std::printf("  warning: the trace was read in part: %s\n", w.c_str());
        std::fflush(stdout);
    }
    RunSession session(config);
    session.start();
    session.wait();
    // What PyTorch ran on, and each run's output held to the fp32 reference (its JSON's "notices").
    const std::vector<std::string> notices = session.takeNotices();
    for (const std::string& line : notices)
        std::fprintf(stderr, "whatif: %s\n", line.c_str());
    if (const std::string error = session.error(); !error.empty()) {
        std::fprintf(stderr, "whatif: %s\n", error.c_str());
        return kFileError;
    }
    const std::vector<RunEvent> events = session.takeEvents();
    std::vector<ImplStats> stats = runStats(config, events);
    for (ImplStats& st : stats)
        st.unavailable = session.unavailable().count(st.impl) > 0;
    std::shared_ptr<const Document> run;
    try {
        DocumentOptions options;
        options.parts = AnalysisPart;
        options.cpuRoofs = CpuRoofsChoice::ThisMachine;
        run = openDocument(
            DocumentSource::built(buildRunTrace(events, config.backend, session.deviceName()), "what if"),
            options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "whatif: %s\n", e.what());
        return kFileError;
    }
    // -o: the trace as recorded and the run, side by side as files (attnscope compare, Compare Variants).
    std::vector<std::string> saved;
    if (!args.dir.empty()) {
        try {
            std::filesystem::create_directories(args.dir);
            std::string name = std::filesystem::path(args.file).filename().string();
            for (const char* suffix : {".gz", ".json"})
                if (name.size() > std::strlen(suffix) && name.ends_with(suffix))
                    name.resize(name.size() - std::strlen(suffix));
            saved = {(std::filesystem::path(args.dir) / (name + " as recorded.json")).string(),
                     (std::filesystem::path(args.dir) / (name + " measured here.json")).string()};
            writeChromeTrace(*doc->trace, saved[0]);
            writeChromeTrace(*run->trace, saved[1]);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "whatif: -o %s: %s\n", args.dir.c_str(), e.what());
            return kFileError;
        }
        for (const std::string& path : saved)
            std::fprintf(stderr, "saved %s\n", path.c_str());
    }
    std::size_t baseline = 0;
    Comparison c = sideBySide(*doc, recordedCalls, call, *run, baseline);
    const std::string device = session.deviceName().empty() ? "this machine's CPU" : session.deviceName();
    // The saving per call against the call as it was, measured on the same machine: the difference of the
    // table's kernel times per call, and over the trace's calls of that implementation.
    const CompareRow* base = baseline ? c.baselineRow() : nullptr;
    std::vector<const CompareRow*> alternatives;
    for (std::size_t t = 1; base && t < c.traces.size(); ++t)
        if (t != baseline && !c.traces[t].rows.empty()) alternatives.push_back(&c.traces[t].rows.front());
    const std::vector<WhatIfSaving> savings =
        base ? whatIfSavings(*run, *base, alternatives, *inputs) : std::vector<WhatIfSaving>{};
    // The finding learns the answer (not the roofs' estimate), said so.
    if (!c.traces.front().rows.empty()) learnWhatIf(c.traces.front().rows.front(), savings, callsInTrace);
    if (args.format == CompareFormat::Json) {
        nlohmann::json j{{"trace", args.file},
                         {"call", *index + 1},
                         {"implementation", call.impl},
                         {"calls_in_trace", callsInTrace},
                         {"steps", steps},
                         {"inputs", inputs->text()},
                         {"notes", notes},
                         {"notices", notices},
                         {"measured_on", device},
                         {"repeat", config.iters},
                         {"saved", saved},
                         {"comparison", nlohmann::json::parse(formatComparison(c, CompareFormat::Json))}};
        auto spread = [](const std::array<TimeNs, 5>& q) {
            return nlohmann::json{{"least", q[0]},
                                  {"lower_quartile", q[1]},
                                  {"median", q[2]},
                                  {"upper_quartile", q[3]},
                                  {"most", q[4]}};
        };
        nlohmann::json measured = nlohmann::json::array();
        for (const WhatIfSaving& s : savings)
            measured.push_back(
                {{"implementation", s.impl},
                 {"ns_per_call", s.perCall},
                 {"rounds", s.rounds},
                 {"within_noise", s.withinNoise()},
                 {"rounds_ns_per_call", spread(s.pairs)},
                 {"ns_over_trace", s.perCall * TimeNs(callsInTrace)},
                 {"ns_per_step",
                  steps ? nlohmann::json(savingPerStep(s.perCall, callsInTrace, steps)) : nlohmann::json()},
                 {"host_ns_per_call", s.hostPerCall ? nlohmann::json(*s.hostPerCall) : nlohmann::json()},
                 {"host_rounds", s.hostRounds},
                 {"host_rounds_ns_per_call", s.hostRounds ? spread(s.hostPairs) : nlohmann::json()}});
        j["savings"] = measured;
        std::printf("%s\n", j.dump(2).c_str());
        return kOk;
    }
    std::printf("measured on %s (PyTorch, %s each after a warm-up); the call as recorded ran where the "
                "trace was made\n\n%s",
                device.c_str(), formatCount(std::uint64_t(config.iters), "call", "calls").c_str(),
                formatComparison(c, args.format).c_str());
    if (!base) {
        std::printf("\n%s did not run here, so no saving is measured against it (the ratios are to the "
                    "recorded call)\n",
                    call.impl.c_str());
        return kOk;
    }
    std::printf("\nmeasured on %s, against %s as it was (%s a call):\n", device.c_str(), call.impl.c_str(),
                formatDuration(base->calls.kernelNsPerCall()).c_str());
    for (const WhatIfSaving& s : savings)
        std::printf("  %-14s %s\n", s.impl.c_str(), whatIfSavingText(s, callsInTrace, steps).c_str());
    for (const ImplStats& s : stats)
        if (s.unavailable) std::printf("  %-14s could not run here (see above)\n", s.impl.c_str());
    // The call as it was, here against where it was recorded: a machine slower, faster or busier than that
    // one moves every figure; the savings are this machine's.
    if (const CompareRow* recorded = c.traces.front().rows.empty() ? nullptr : &c.traces.front().rows.front();
        recorded && recorded->calls.kernelNsPerCall() > 0) {
        const double ratio =
            double(base->calls.kernelNsPerCall()) / double(recorded->calls.kernelNsPerCall());
        if (ratio > 1.5 || ratio < 1 / 1.5)
            std::printf("  note: here it took %.2f× its recorded time (%s recorded): this machine is %s than "
                        "where the trace was made, or busier; the savings are this machine's\n",
                        ratio, formatDuration(recorded->calls.kernelNsPerCall()).c_str(),
                        ratio > 1 ? "slower" : "faster");
    }
    return kOk;
}

} // namespace

Verb verbWhatIf() {
    return {
        "whatif",
        "one attention call of a trace run again on this machine with PyTorch, as it was and as each "
        "alternative (SDPA's backends, attention written by hand), measured side by side with the call as "
        "recorded",
        "What the call computes is read from the trace (its SDPA op's or QK matmul's recorded inputs); "
        "a trace saved without record_shapes cannot say, and nothing is run.\n",
        [](CLI::App& app, const char*) -> VerbRun {
            auto a = std::make_shared<WhatIfArgs>();
            app.add_option("TRACE", a->file, "the trace")->type_name("TRACE")->required();
            auto* call = app.add_option("--call", a->call, "the call, counted from 1 in the trace's order")
                             ->type_name("N")
                             ->check(CLI::Range(std::size_t(1), std::size_t(1) << 40).description(""));
            auto* impl =
                app.add_option(
                       "--impl", a->impl,
                       "the first call of this implementation (default: the one with most kernel time)")
                    ->type_name("NAME")
                    ->excludes(call);
            app.add_option("--finding", a->finding,
                           "the call a finding is about (its first place in a call), by its id: "
                           "hand_written_attention, sdpa_math_fallback, …")
                ->type_name("ID")
                ->excludes(call)
                ->excludes(impl);
            app.add_option("--try", a->tries,
                           "what to run: naive, naive_inplace (its mask filled in place), math, flash, "
                           "efficient, cudnn, flash_bf16 (flash in half precision, for an fp32 call) "
                           "(default: all; those that "
                           "cannot run here are skipped)")
                ->type_name("LIST")
                ->delimiter(',');
            app.add_option("--repeat", a->repeat, "calls measured of each, after a warm-up (default 5)")
                ->type_name("R")
                ->check(CLI::Range(1, 1000).description(""));
            app.add_option("-o", a->dir,
                           "save the trace as recorded and the run in DIR (\"NAME as recorded.json\", \"NAME "
                           "measured here.json\"), to compare or open")
                ->type_name("DIR");
            app.add_option("--python", a->python,
                           "the Python with PyTorch (default: ATTNSCOPE_PYTHON, else the torch-venv `make "
                           "test` made, else python3)")
                ->type_name("PY");
            formatOption(app, a->format,
                         {{"text", CompareFormat::Text},
                          {"json", CompareFormat::Json},
                          {"markdown", CompareFormat::Markdown}},
                         "text (default), json or markdown");
            return [a]() -> int {
                prepareRuns();
                return whatIf(*a);
            };
        }};
}

} // namespace attnscope::cli
