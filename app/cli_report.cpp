// SPDX-License-Identifier: MIT
// The report verb: traces (or a job's ranks) in one page — HTML, Markdown or PDF — with the figures of
// compare, job and summary and the pictures export draws, by the Qt part of AttnScope with no display.
#include "cli.h"
#include "cli_options.h"

#include "gui_module.h"
#include "ui/gui_requests.h"

#include <memory>
#include <string>

namespace attnscope::cli {

Verb verbReport() {
    return {
        "report", "a report of traces in one page: HTML, Markdown (pictures in a folder beside it) or PDF",
        "The traces and their devices, compare's table of their attention implementations, each\n"
        "finding with its time at stake, explanation, fix and a picture of its first place, the\n"
        "breakdown and roofline charts; with --ranks, the job's ranks and its straggler.\n",
        [](CLI::App& app, const char* program) -> VerbRun {
            auto r = std::make_shared<ui::ReportRequest>();
            app.add_option("FILE", r->files, "the traces")->type_name("FILE...")->required();
            app.add_option("-o,--output", r->out, "the report: .html, .md or .pdf")
                ->type_name("OUT")
                ->required()
                ->check(accepted(
                    [](const std::string& out) {
                        const std::size_t dot = out.find_last_of('.');
                        const std::string suffix = dot == std::string::npos ? "" : out.substr(dot);
                        return suffix == ".html" || suffix == ".htm" || suffix == ".md" || suffix == ".pdf";
                    },
                    "a file ending in .html, .md or .pdf"));
            app.add_flag("--ranks", r->ranks, "the files are the ranks of one job");
            return [r, program] { return app::runHeadless(program, "attnscope_gui_report", "report", *r); };
        }};
}

} // namespace attnscope::cli
