// SPDX-License-Identifier: MIT
// The diff verb: what changed between two traces, per role and kernel name.
#include "cli.h"
#include "cli_common.h"

#include "core/report/diff.h"

#include <string>
#include <vector>

namespace attnscope::cli {

namespace {

struct DiffArgs {
    std::vector<std::string> files;
    DiffFormat format = DiffFormat::Text;
    std::size_t top = 30;
    DocumentOptions options;
};

int diff(DiffArgs& a) {
    a.options.parts = AnalysisPart;
    std::shared_ptr<const Document> docs[2];
    for (int i = 0; i < 2; ++i) {
        try {
            docs[i] = opened(openDocument(DocumentSource::file(a.files[std::size_t(i)]), a.options));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", a.files[std::size_t(i)].c_str(), e.what());
            return kFileError;
        }
    }
    const TraceDiff d = diffTraces(*docs[0]->trace, *docs[0]->analysis, *docs[1]->trace, *docs[1]->analysis);
    const std::string out = formatDiff(d, a.files[0], a.files[1], a.format, a.top);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kOk;
}

} // namespace

Verb verbDiff() {
    return {
        "diff", "what changed between two traces, per role and kernel name (regressions marked)", "",
        [](CLI::App& app, const char*) -> VerbRun {
            auto a = std::make_shared<DiffArgs>();
            app.add_option("traces", a->files, "the two traces")->type_name("A B")->expected(2)->required();
            summaryFormatOption(app, a->format, "text (default), json or csv");
            app.add_option("--top", a->top, "kernel rows (default 30; 0: all)")->type_name("N");
            cpuRoofsOption(app, a->options);
            return [a] { return diff(*a); };
        }};
}

} // namespace attnscope::cli
