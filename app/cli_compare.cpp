// SPDX-License-Identifier: MIT
// The compare verb: variants side by side, a row per attention implementation of each trace.
#include "cli.h"
#include "cli_common.h"

#include "core/report/compare.h"

#include <string>
#include <vector>

namespace attnscope::cli {

namespace {

struct CompareArgs {
    std::vector<std::string> files;
    CompareFormat format = CompareFormat::Text;
    std::size_t baseline = 1, findings = 3, parallel = 0;
    DocumentOptions options;
};

int compare(const CompareArgs& a) {
    if (a.baseline < 1 || a.baseline > a.files.size()) {
        std::fprintf(stderr, "compare: --baseline is a trace's place among the %zu given, from 1\n",
                     a.files.size());
        return kUsage;
    }
    const Comparison c = compareFiles(a.files, a.baseline - 1, a.options, unsigned(a.parallel));
    int exitCode = kOk;
    for (const ComparedTrace& t : c.traces)
        if (!t.error.empty()) {
            std::fprintf(stderr, "%s: %s\n", t.path.c_str(), t.error.c_str());
            exitCode = kFileError;
        }
    const std::string out = formatComparison(c, a.format, a.findings);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return exitCode;
}

} // namespace

Verb verbCompare() {
    return {
        "compare",
        "variants side by side: a row per attention implementation of each trace (calls, kernels per call "
        "against the expected call, kernel and host time per call, bytes, roles, verdicts, findings)",
        "A file that cannot be read keeps its row with the reason (exit status 1); the others are "
        "compared.\n",
        [](CLI::App& app, const char*) -> VerbRun {
            auto a = std::make_shared<CompareArgs>();
            app.add_option("FILE", a->files, "the traces")->type_name("FILE...")->required();
            app.add_option("--baseline", a->baseline,
                           "the trace the ratios are to, counted from 1 (default 1)")
                ->type_name("N");
            formatOption(app, a->format,
                         {{"text", CompareFormat::Text},
                          {"json", CompareFormat::Json},
                          {"csv", CompareFormat::Csv},
                          {"markdown", CompareFormat::Markdown}},
                         "text (default), json, csv or markdown (pastes into a report or a PR)");
            app.add_option("--findings", a->findings,
                           "findings listed per row in text and markdown (default 3; json and csv: all)")
                ->type_name("N");
            app.add_option("--parallel", a->parallel,
                           "traces opened at once (default: this machine's threads)")
                ->type_name("N");
            cpuRoofsOption(app, a->options);
            return [a] { return compare(*a); };
        }};
}

} // namespace attnscope::cli
