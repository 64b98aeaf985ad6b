// SPDX-License-Identifier: MIT
#include "cli_common.h"

#include "core/analysis/machine_roofs.h"

#include <cstdio>

namespace attnscope::cli {

void cpuRoofsOption(CLI::App& app, DocumentOptions& options, bool explained) {
    app.add_option_function<std::string>(
           "--cpu-roofs",
           [&options](const std::string& text) { options.cpuRoofs = *parseCpuRoofsChoice(text); },
           explained ? "whose roofs CPU kernels are held to: auto (this machine's for traces\n"
                       "recorded here; none for a CPU trace from another host), this-machine, none"
                     : "as summary's")
        ->type_name("auto|this-machine|none")
        ->check(accepted([](const std::string& s) { return parseCpuRoofsChoice(s).has_value(); },
                         "auto, this-machine or none"));
}

void summaryFormatOption(CLI::App& app, SummaryFormat& format, const std::string& help) {
    formatOption(app, format,
                 {{"text", SummaryFormat::Text}, {"json", SummaryFormat::Json}, {"csv", SummaryFormat::Csv}},
                 help);
}

std::shared_ptr<const Document> opened(std::shared_ptr<const Document> doc) {
    if (doc->cpuRoofsMeasured && doc->cpuRoofsNote.empty())
        std::fprintf(stderr,
                     "attnscope: measured this machine's CPU roofs for %s (cached for the next time)\n",
                     doc->name.c_str());
    else if (doc->cpuRoofsMeasured)
        std::fprintf(stderr, "attnscope: measured this machine's CPU roofs for %s: %s\n", doc->name.c_str(),
                     doc->cpuRoofsNote.c_str());
    return doc;
}

} // namespace attnscope::cli
