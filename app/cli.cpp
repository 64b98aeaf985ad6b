// SPDX-License-Identifier: MIT
#include "cli.h"

#include "core/chrome_writer.h"
#include "core/summary.h"
#include "core/trace_loader.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace attnscope::cli {

const char* version() {
    return ATTNSCOPE_VERSION;
}

void printUsage(const char* program) {
    std::fprintf(stderr,
                 "usage:\n"
                 "  %s [FILE...]                      open the window (traces given are loaded)\n"
                 "  %s summary FILE... [--format text|json|csv] [--top N]\n"
                 "  %s convert IN -o OUT.json[.gz]\n"
                 "  %s export FILE --timeline OUT.png|svg|pdf [--range START_NS:END_NS] [--size WxH]\n"
                 "         [--scale 1|2] [--tracks REGEX]     a picture of the timeline, no display needed\n"
                 "  %s --version | --help\n",
                 program, program, program, program, program);
}

namespace {

bool parseCount(const char* s, std::size_t& out) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (!*s || *end || s[0] == '-') return false;
    out = static_cast<std::size_t>(v);
    return true;
}

} // namespace

int summary(int argc, char** argv) {
    std::vector<std::string> files;
    SummaryFormat format = SummaryFormat::Text;
    std::size_t top = 20;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc) {
            const std::string f = argv[++i];
            if (f == "text")
                format = SummaryFormat::Text;
            else if (f == "json")
                format = SummaryFormat::Json;
            else if (f == "csv")
                format = SummaryFormat::Csv;
            else {
                std::fprintf(stderr, "summary: unknown format '%s' (text, json or csv)\n", f.c_str());
                return kUsage;
            }
        } else if (arg == "--top" && i + 1 < argc) {
            if (!parseCount(argv[++i], top)) {
                std::fprintf(stderr, "summary: --top needs a number, got '%s'\n", argv[i]);
                return kUsage;
            }
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "summary: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "summary: no trace files given\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::vector<SummaryResult> results;
    int exitCode = kOk;
    for (const std::string& path : files) {
        SummaryResult r;
        r.path = path;
        try {
            const auto trace = loadTraceFile(path);
            r.summary = summarize(*trace, top);
        } catch (const std::exception& e) {
            r.error = e.what();
            std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
            exitCode = kFileError;
        }
        results.push_back(std::move(r));
    }
    const std::string out = formatSummaries(results, format);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return exitCode;
}

int convert(int argc, char** argv) {
    std::string in, out;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "-o" || arg == "--output") && i + 1 < argc)
            out = argv[++i];
        else if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
            std::fprintf(stderr, "convert: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else if (in.empty())
            in = arg;
        else {
            std::fprintf(stderr, "convert: one input file only\n");
            return kUsage;
        }
    }
    if (in.empty() || out.empty()) {
        std::fprintf(stderr, "convert: needs IN and -o OUT.json[.gz]\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::shared_ptr<const Trace> trace;
    try {
        trace = loadTraceFile(in);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", in.c_str(), e.what());
        return kFileError;
    }
    for (const auto& w : trace->info().warnings)
        std::fprintf(stderr, "%s: warning: %s\n", in.c_str(), w.c_str());
    try {
        writeChromeTrace(*trace, out);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", out.c_str(), e.what());
        return kFileError;
    }
    return kOk;
}

} // namespace attnscope::cli
