// SPDX-License-Identifier: MIT
// The summary verb: per file its kernels, devices, roles, verdicts, attention calls and findings; the ranks
// of one job; or a rank record per file for `attnscope job`.
#include "cli.h"
#include "cli_common.h"

#include "core/report/rank_record.h"
#include "core/report/ranks.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::cli {

namespace {

struct SummaryArgs {
    std::vector<std::string> files;
    std::string format = "text";
    SummaryFormat tables = SummaryFormat::Text;
    std::optional<std::size_t> top;
    bool ranks = false, findingsOnly = false;
    std::size_t firstRank = 0; // rank records: the rank of the first file that does not say its own
    std::optional<std::size_t> threads;
    std::string failOn;
    DocumentOptions options;
};

// The exit status for --fail-on: kFindings when a file has a finding at least that severe.
int failOn(const std::vector<SummaryResult>& results, std::optional<Severity> threshold, int exitCode) {
    if (!threshold || exitCode != kOk) return exitCode;
    for (const SummaryResult& r : results)
        if (r.summary)
            for (const Finding& f : r.summary->findings)
                if (f.severity >= *threshold) return kFindings;
    return kOk;
}

// summary --format rank: each file's rank record, a JSON line each; a file that cannot be read is a
// record with its error (the job goes on without it, and lists it).
int rankRecords(const std::vector<std::string>& files, DocumentOptions options, std::size_t top,
                std::size_t firstRank) {
    int exitCode = kOk;
    options.parts = SummaryPart | AnalysisPart;
    options.summaryTop = top;
    for (std::size_t position = 0; position < files.size(); ++position) {
        const std::string& path = files[position];
        std::string line;
        try {
            const auto doc = opened(openDocument(DocumentSource::file(path), options));
            line = rankRecordJson(rankRecord(doc->trace, *doc->summary, path, firstRank + position, top));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
            line = rankRecordJson(failedRankRecord(path, e.what(), std::int64_t(firstRank + position)));
            exitCode = kFileError;
        }
        std::fwrite(line.data(), 1, line.size(), stdout);
    }
    return exitCode;
}

// The files as the ranks of one job: per rank the GPU busy time and its spread, or the job's findings.
int jobOfRanks(SummaryArgs& a, std::optional<Severity> threshold) {
    std::shared_ptr<const Document> doc;
    try {
        a.options.parts = SummaryPart | AnalysisPart;
        doc = opened(openDocument(DocumentSource::ranks(a.files), a.options));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "summary: %s\n", e.what());
        return kFileError;
    }
    // One shape for the job's findings: the rank report's "findings", alone with --findings-only.
    const std::string out = a.findingsOnly
                                ? formatJobFindings(*doc->summary, doc->name, a.tables)
                                : formatRankReport(*doc->ranks, a.tables,
                                                   a.tables == SummaryFormat::Csv ? nullptr : &*doc->summary);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return failOn({{doc->name, *doc->summary, {}}}, threshold, kOk);
}

int summary(SummaryArgs& a) {
    if (a.threads) a.options.load.threads = unsigned(std::max<std::size_t>(1, *a.threads));
    const std::optional<Severity> threshold = a.failOn.empty() ? std::nullopt : severityNamed(a.failOn);
    if (a.format == "rank") {
        if (a.ranks || a.findingsOnly) {
            std::fprintf(stderr, "summary: --format rank is a record per file (attnscope job joins them)\n");
            return kUsage;
        }
        return rankRecords(a.files, a.options, a.top.value_or(10), a.firstRank);
    }
    a.tables = a.format == "json"  ? SummaryFormat::Json
               : a.format == "csv" ? SummaryFormat::Csv
                                   : SummaryFormat::Text;
    if (a.ranks) return jobOfRanks(a, threshold);
    std::vector<SummaryResult> results;
    int exitCode = kOk;
    for (const std::string& path : a.files) {
        SummaryResult r;
        r.path = path;
        try {
            a.options.parts = SummaryPart | AnalysisPart;
            a.options.summaryTop = a.top.value_or(20);
            r.summary = *opened(openDocument(DocumentSource::file(path), a.options))->summary;
        } catch (const std::exception& e) {
            r.error = e.what();
            std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
            exitCode = kFileError;
        }
        results.push_back(std::move(r));
    }
    const std::string out =
        a.findingsOnly ? formatFindings(results, a.tables) : formatSummaries(results, a.tables);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return failOn(results, threshold, exitCode);
}

} // namespace

Verb verbSummary() {
    return {"summary",
            "per file: kernels, devices, top kernels, categories, roles, roofline verdicts, attention calls, "
            "findings",
            "", [](CLI::App& app, const char*) -> VerbRun {
                auto a = std::make_shared<SummaryArgs>();
                app.add_option("FILE", a->files, "the traces")->type_name("FILE...")->required();
                app.add_option("--format", a->format,
                               "text (default), json or csv; rank: a rank record per file, one JSON line\n"
                               "each, for `attnscope job` (docs/RANK_RECORD.md)")
                    ->type_name("text|json|csv|rank")
                    ->check(oneOf({"text", "json", "csv", "rank"}));
                app.add_option("--top", a->top,
                               "kernels listed by total time (default 20; 0: all; rank records: 10)")
                    ->type_name("N");
                app.add_flag("--ranks", a->ranks,
                             "the files are the ranks of one job: GPU busy time per rank, spread, slowest\n"
                             "(with --findings-only: the job's findings, rank imbalance included)");
                app.add_flag("--findings-only", a->findingsOnly,
                             "only what is wrong: each finding's time at stake, explanation and places");
                app.add_option("--fail-on", a->failOn,
                               "exit with status 3 when a finding is at least S (info, warning, critical)")
                    ->type_name("SEVERITY")
                    ->check(accepted([](const std::string& s) { return severityNamed(s).has_value(); },
                                     "info, warning or critical"));
                cpuRoofsOption(app, a->options, true);
                app.add_option(
                       "--first-rank", a->firstRank,
                       "rank records: the files whose trace names no rank are ranks N, N+1, … (default 0)")
                    ->type_name("N");
                app.add_option("--threads", a->threads, "threads that read a file (default: one per core)")
                    ->type_name("N");
                return [a] { return summary(*a); };
            }};
}

} // namespace attnscope::cli
