// SPDX-License-Identifier: MIT
// The convert verb: any trace AttnScope reads, written as Chrome trace JSON Perfetto opens.
#include "cli.h"
#include "cli_common.h"

#include "core/document/notes.h"
#include "core/io/chrome_writer.h"

#include <string>
#include <vector>

namespace attnscope::cli {

namespace {

struct ConvertArgs {
    std::string in, out;
};

int convert(const ConvertArgs& a) {
    std::shared_ptr<const Document> doc;
    try {
        DocumentOptions options;
        options.parts = 0; // the trace as read, nothing computed
        doc = openDocument(DocumentSource::file(a.in), options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", a.in.c_str(), e.what());
        return kFileError;
    }
    const Trace& trace = *doc->trace;
    for (const auto& w : trace.info().warnings)
        std::fprintf(stderr, "%s: warning: %s\n", a.in.c_str(), w.c_str());
    // Its notes go with it: those it carries and its notes file's, written into the output (a damaged
    // notes file is said, and left out).
    std::vector<std::string> problems;
    const std::vector<Note> notes = notesOfTrace(trace, a.in, problems);
    for (const std::string& p : problems)
        std::fprintf(stderr, "%s: warning: %s\n", a.in.c_str(), p.c_str());
    WriteOptions write;
    if (!notes.empty()) addNotes(write, notes, *doc);
    try {
        writeChromeTrace(trace, a.out, write);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", a.out.c_str(), e.what());
        return kFileError;
    }
    return kOk;
}

} // namespace

Verb verbConvert() {
    return {"convert", "write a trace (Kineto, Chrome or nsys) as Chrome trace JSON Perfetto opens", "",
            [](CLI::App& app, const char*) -> VerbRun {
                auto a = std::make_shared<ConvertArgs>();
                app.add_option("IN", a->in, "the trace")->type_name("IN")->required();
                app.add_option("-o,--output", a->out,
                               "the output; gzipped when it ends in .gz; written whole or not at all")
                    ->type_name("OUT.json[.gz]")
                    ->required();
                return [a] { return convert(*a); };
            }};
}

} // namespace attnscope::cli
