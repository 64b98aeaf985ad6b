// SPDX-License-Identifier: MIT
#include "core/document/document.h"

#include "core/analysis/machine_roofs.h"
#include "core/model/parallel_for.h"
#include "core/report/job_findings.h"

#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

namespace attnscope {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string ranksName(const std::vector<std::string>& paths) {
    const std::string& first = paths.front();
    const std::size_t slash = first.find_last_of('/');
    return std::to_string(paths.size()) +
           " ranks: " + (slash == std::string::npos ? first : first.substr(slash + 1)) + ", …";
}

std::string fileName(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The job of a document opened as ranks: each rank's trace opened alone, as `summary --format rank` does
// (its analysis, findings and record), the records put together as `attnscope job` does, and the job's
// findings placed in the merged trace.
void computeJob(Document& doc) {
    DocumentOptions options;
    options.parts = SummaryPart | AnalysisPart;
    options.cpuRoofs = doc.cpuRoofs;
    std::vector<RankRecord> records;
    std::vector<std::shared_ptr<const Document>> ranks; // what the findings below point into
    std::vector<RankFindings> own;
    for (std::size_t i = 0; i < doc.rankTraces.size(); ++i) {
        const RankInput& in = doc.rankTraces[i];
        ranks.push_back(openDocument(DocumentSource::built(in.trace, in.path), options));
        records.push_back(rankRecord(in.trace, *ranks.back()->summary, in.path, i));
        own.push_back({records.back().stats.rank, in.trace.get(), ranks.back()->analysis.get(),
                       *ranks.back()->findings});
    }
    auto job = std::make_shared<const JobReport>(jobReport(std::move(records)));
    doc.findings =
        std::make_shared<const std::vector<Finding>>(jobFindingsInTrace(job->findings, own, *doc.trace));
    doc.ranks = std::shared_ptr<const RankReport>(job, &job->ranks);
    doc.job = std::move(job);
    doc.rankTraces.clear();
}

// Computes into `doc` the parts of `parts` it lacks; its summary from `counted` when given.
void compute(Document& doc, unsigned parts, std::size_t summaryTop, const SummaryParts* counted = nullptr) {
    const Trace& trace = *doc.trace;
    const bool wantSummary = parts & SummaryPart;
    // The summary's counts need no analysis: made beside it, on a thread of their own.
    std::future<TraceSummary> counts;
    if (wantSummary && !doc.summary && !counted)
        counts =
            std::async(std::launch::async, [&trace, summaryTop] { return summarize(trace, summaryTop); });
    if ((parts & TimelinePart) && !doc.index) doc.index = std::make_shared<const TimelineIndex>(trace);
    if ((parts & AnalysisPart) && !doc.analysis) {
        std::string why;
        const std::optional<CpuRoofs> cpu = cpuRoofsFor(trace, doc.cpuRoofs, why);
        doc.cpuRoofsMeasured = cpu && cpu->measuredNow;
        if (doc.cpuRoofsMeasured) doc.cpuRoofsNote = cpu->note;
        doc.analysis = std::make_shared<const TraceAnalysis>(analyzeWithCpuRoofs(trace, cpu, why));
    }
    if (doc.analysis && !doc.findings) {
        if (!doc.rankTraces.empty())
            computeJob(doc);
        else
            doc.findings = std::make_shared<const std::vector<Finding>>(findFindings({trace, *doc.analysis}));
    }
    if (wantSummary && (!doc.summary || (doc.analysis && !doc.summary->analyzed))) {
        auto summary = doc.summary ? std::make_shared<TraceSummary>(*doc.summary)
                       : counted   ? std::make_shared<TraceSummary>(counted->summary(trace, summaryTop))
                                   : std::make_shared<TraceSummary>(counts.get());
        if (doc.analysis && !summary->analyzed) {
            addAnalysis(*summary, trace, *doc.analysis,
                        counted ? counted->kernelsByRole(trace) : std::nullopt);
            summary->findings = *doc.findings;
        }
        doc.summary = std::move(summary);
    }
}

} // namespace

DocumentSource DocumentSource::file(std::string path) {
    DocumentSource s;
    s.paths.push_back(std::move(path));
    return s;
}

DocumentSource DocumentSource::ranks(std::vector<std::string> paths) {
    DocumentSource s;
    s.paths = std::move(paths);
    s.asRanks = true;
    return s;
}

DocumentSource DocumentSource::memory(std::string_view bytes, std::string name) {
    DocumentSource s;
    s.bytes = bytes;
    s.name = std::move(name);
    return s;
}

DocumentSource DocumentSource::built(std::shared_ptr<const Trace> trace, std::string name) {
    DocumentSource s;
    s.trace = std::move(trace);
    s.name = std::move(name);
    return s;
}

DocumentSource DocumentSource::rankTraces(std::vector<RankInput> ranks, std::string name) {
    DocumentSource s;
    s.builtRanks = std::move(ranks);
    s.name = std::move(name);
    s.asRanks = true;
    return s;
}

unsigned Document::parts() const {
    return (index ? unsigned(TimelinePart) : 0u) | (summary ? unsigned(SummaryPart) : 0u) |
           (analysis ? unsigned(AnalysisPart) : 0u);
}

std::shared_ptr<const Document> openDocument(const DocumentSource& source, const DocumentOptions& opened) {
    const auto t0 = Clock::now();
    // Reading the bytes is most of an open but not all of it: the bar reaches 85% as they are read,
    // then 92% once the trace is built and 100% with the parts computed, so it never sits at 100%
    // while the model is still being built.
    constexpr std::uint64_t kScale = 1'000'000;
    const auto& report = opened.load.progress;
    DocumentOptions options = opened;
    if (report)
        options.load.progress = [&report](std::uint64_t done, std::uint64_t total) {
            if (total)
                report(std::uint64_t(0.85 * double(kScale) * double(std::min(done, total)) / double(total)),
                       kScale);
        };
    auto doc = std::make_shared<Document>();
    if (source.trace) {
        doc->trace = source.trace;
        doc->analysis = source.analysis;
        if (source.analysis) doc->findings = source.findings;
        doc->findingsNote = source.findingsNote;
        doc->name = source.name;
        if (source.job) {
            doc->job = source.job;
            doc->ranks = std::shared_ptr<const RankReport>(source.job, &source.job->ranks);
        }
    } else if (!source.builtRanks.empty()) {
        doc->trace = mergeRanks(source.builtRanks);
        doc->ranks = std::make_shared<const RankReport>(rankReport(source.builtRanks));
        doc->rankTraces = source.builtRanks;
        doc->name = source.name;
    } else if (source.paths.empty()) {
        doc->trace = loadTraceBytes(source.bytes, source.name, options.load);
        doc->name = source.name;
    } else if (!source.asRanks) {
        if (source.paths.size() != 1) throw std::invalid_argument("one file, or several as ranks");
        doc->trace = loadTraceFile(source.paths.front(), options.load);
        doc->name = fileName(source.paths.front());
    } else {
        // Progress over all the files: each file's share by its position.
        const std::size_t n = source.paths.size();
        std::vector<RankInput> ranks;
        for (std::size_t i = 0; i < n; ++i) {
            LoadOptions load = options.load;
            if (options.load.progress)
                load.progress = [&options, i, n](std::uint64_t done, std::uint64_t total) {
                    if (total) options.load.progress(i * total + done, n * total);
                };
            try {
                ranks.push_back({source.paths[i], loadTraceFile(source.paths[i], load)});
            } catch (const LoadError& e) {
                throw LoadError(source.paths[i] + ": " + e.what()); // which of the files
            }
        }
        doc->trace = mergeRanks(ranks);
        doc->ranks = std::make_shared<const RankReport>(rankReport(ranks));
        doc->rankTraces = std::move(ranks);
        doc->name = ranksName(source.paths);
    }
    doc->loadSeconds = secondsSince(t0);
    if (report) report(kScale * 92 / 100, kScale);
    doc->cpuRoofs = options.cpuRoofs;
    compute(*doc, options.parts, options.summaryTop, source.trace ? source.summaryParts : nullptr);
    if (report) report(kScale, kScale);
    doc->totalSeconds = secondsSince(t0);
    return doc;
}

std::shared_ptr<const Document> completeDocument(const std::shared_ptr<const Document>& document,
                                                 unsigned parts, std::size_t summaryTop) {
    if ((document->parts() & parts) == parts &&
        (!(parts & SummaryPart) || !(parts & AnalysisPart) || document->summary->analyzed))
        return document;
    const auto t0 = Clock::now();
    auto doc = std::make_shared<Document>(*document);
    compute(*doc, parts, summaryTop);
    doc->totalSeconds += secondsSince(t0);
    return doc;
}

std::shared_ptr<const Document> learnedDocument(const Document& document, const MeasuredSaving& saving) {
    if (!document.analysis || !document.findings || document.job) return nullptr;
    std::vector<Finding> findings = *document.findings;
    if (!learnMeasuredSaving(findings, {*document.trace, *document.analysis}, saving)) return nullptr;
    auto doc = std::make_shared<Document>(document);
    doc->findings = std::make_shared<const std::vector<Finding>>(std::move(findings));
    if (doc->summary) { // its findings section the same as the findings'
        auto summary = std::make_shared<TraceSummary>(*doc->summary);
        summary->findings = *doc->findings;
        doc->summary = std::move(summary);
    }
    return doc;
}

ComparedTrace compareEntry(const Document& document, std::string path) {
    if (!document.analysis || !document.findings)
        throw std::invalid_argument("compareEntry: the document was opened without its analysis");
    return compareEntry(std::move(path), *document.trace, *document.analysis, *document.findings);
}

Comparison compareFiles(const std::vector<std::string>& paths, std::size_t baseline, DocumentOptions options,
                        unsigned parallel) {
    Comparison out;
    out.baseline = baseline;
    out.traces.resize(paths.size());
    options.parts = AnalysisPart;
    if (!parallel) parallel = std::max(1u, std::thread::hardware_concurrency());
    // This machine's CPU roofs, when a trace may need them, are measured (once, then cached) before the
    // loads start: measured beside them they would come out low.
    if (parallel > 1 && paths.size() > 1 && options.cpuRoofs != CpuRoofsChoice::None) cpuRoofs();
    parallelFor(paths.size(), parallel, [&](std::size_t i) {
        try {
            out.traces[i] = compareEntry(*openDocument(DocumentSource::file(paths[i]), options), paths[i]);
        } catch (const std::exception& e) {
            out.traces[i].path = paths[i];
            out.traces[i].error = e.what();
        }
    });
    learnFromComparison(out);
    return out;
}

} // namespace attnscope
