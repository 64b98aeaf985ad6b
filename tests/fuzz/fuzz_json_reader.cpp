// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes (plain or gzip) through the JSON trace reader, then through the
// model's consumers (summary, writer) and back through the reader.
#include "core/analysis/analysis.h"
#include "core/io/chrome_writer.h"
#include "core/report/diff.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"
#include "core/io/trace_loader.h"

#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attnscope;
    std::shared_ptr<const Trace> trace;
    try {
        auto source = openMemorySource(std::string_view(reinterpret_cast<const char*>(data), size));
        trace = readJsonTrace(*source, "fuzz");
    } catch (const LoadError&) {
        return 0;
    }
    summarize(*trace, 10);
    // The analysis and the rank merge read every event's args and links.
    const TraceAnalysis analysis = analyzeTrace(*trace);
    diffTraces(*trace, analysis, *trace, analysis);
    try {
        mergeRanks({{"a", trace}, {"b", trace}});
    } catch (const std::invalid_argument&) { // one file's distributedInfo rank twice: refused, rightly
    }
    for (std::uint32_t t = 0; t < trace->tracks().size(); ++t)
        for (std::uint32_t i = 0; i < trace->tracks()[t].size(); ++i) {
            trace->argsJson(EventRef{TrackId(t), i});
            trace->launchOf(EventRef{TrackId(t), i});
        }
    // What the writer produces must read back.
    const std::string written = chromeTraceJson(*trace);
    auto again = openMemorySource(written);
    try {
        readJsonTrace(*again, "fuzz-rewritten");
    } catch (const LoadError& e) {
        __builtin_trap(); // the writer produced something the reader refuses
    }
    return 0;
}
