// SPDX-License-Identifier: MIT
// The export verb: a picture of a trace's timeline or chart, or a comparison's chart or table, drawn by the
// Qt part of AttnScope with no display.
#include "cli.h"
#include "cli_options.h"

#include "gui_module.h"
#include "ui/gui_requests.h"

#include <cstdio>
#include <string>
#include <vector>

namespace attnscope::cli {

namespace {

struct ExportArgs {
    std::vector<std::string> files, chart;
    std::string timeline, range, size, table;
    double scale = 1;
    std::string tracks;
    bool compare = false;
    std::size_t baseline = 1;
};

int exportPicture(const ExportArgs& a, const char* program) {
    auto usage = [&](const std::string& why) { return usageError("export", program, why); };
    ui::ExportRequest r;
    r.scale = a.scale;
    r.tracks = a.tracks;
    if (!a.timeline.empty()) r.out = a.timeline;
    if (!a.chart.empty()) {
        r.chart = a.chart[0];
        r.out = a.chart[1];
    }
    if (!a.table.empty()) {
        r.table = true;
        r.out = a.table;
    }
    if (!a.range.empty()) {
        long long from = 0, to = 0;
        char tail = 0;
        if (std::sscanf(a.range.c_str(), "%lld:%lld%c", &from, &to, &tail) != 2 || to <= from)
            return usage("--range wants START_NS:END_NS with START_NS < END_NS");
        r.range = std::make_pair(std::int64_t(from), std::int64_t(to));
    }
    if (!a.size.empty()) {
        char tail = 0;
        if (std::sscanf(a.size.c_str(), "%dx%d%c", &r.width, &r.height, &tail) != 2 || r.width < 100 ||
            r.height < 50 || r.width > 20000 || r.height > 20000)
            return usage("--size wants WxH, from 100x50 to 20000x20000");
    }
    if (a.baseline < 1) return usage("--baseline is a trace's place, from 1");
    r.baseline = a.baseline - 1;
    if (a.compare) {
        r.compare = a.files;
        if (r.compare.empty()) return usage("--compare needs the traces");
        if (r.baseline >= r.compare.size()) return usage("--baseline is past the traces given");
        if (r.out.empty() || (!r.table && r.chart.empty()))
            return usage("--compare needs --chart breakdown|roofline OUT or --table OUT");
    } else {
        if (r.table) return usage("--table goes with --compare");
        if (a.files.empty()) return usage("which trace?");
        if (a.files.size() > 1)
            return usage("one trace at a time (several: --compare); extra argument: " + a.files[1]);
        r.file = a.files.front();
        if (r.out.empty()) return usage("--timeline OUT or --chart KIND OUT is required");
    }
    return app::runHeadless(program, "attnscope_gui_export", "export", r);
}

} // namespace

Verb verbExport() {
    return {
        "export",
        "a picture of the timeline or of a chart, or a comparison's chart or table, no display needed",
        "Forms: FILE --timeline OUT [--range A:B] [--size WxH] [--scale 1|2] [--tracks REGEX];\n"
        "FILE --chart breakdown|roofline|share OUT [--size WxH] [--scale 1|2];\n"
        "--compare FILE... (--chart breakdown|roofline OUT | --table OUT.md|csv) [--baseline N].\n",
        [](CLI::App& app, const char* program) -> VerbRun {
            auto a = std::make_shared<ExportArgs>();
            app.add_option("FILE", a->files, "the trace (with --compare: the traces)")->type_name("FILE...");
            app.add_option("--timeline", a->timeline, "the timeline as the window draws it")
                ->type_name("OUT.png|svg|pdf");
            app.add_option("--chart", a->chart, "breakdown, roofline or share, into OUT")
                ->type_name("KIND OUT")
                ->expected(2);
            app.add_option("--range", a->range,
                           "nanoseconds from the trace's first event (default: all of it)")
                ->type_name("START_NS:END_NS");
            app.add_option("--size", a->size, "from 100x50 to 20000x20000")->type_name("WxH");
            app.add_option("--scale", a->scale, "2 doubles a PNG's pixels")
                ->type_name("1|2")
                ->check(oneOf({"1", "2"}));
            app.add_option("--tracks", a->tracks, "keep the tracks whose label matches")->type_name("REGEX");
            app.add_flag("--compare", a->compare,
                         "the traces side by side (as `compare`): --chart breakdown (time per call\n"
                         "by role, a bar per variant) or roofline (a marker per trace), or --table");
            app.add_option("--table", a->table, "with --compare: the table as Markdown or CSV")
                ->type_name("OUT.md|csv");
            app.add_option("--baseline", a->baseline, "with --compare: as compare's")->type_name("N");
            return [a, program] { return exportPicture(*a, program); };
        }};
}

} // namespace attnscope::cli
