// SPDX-License-Identifier: MIT
#pragma once

// The one way a trace is opened, for every view and every verb: the window, File → Compare With,
// several files as ranks, a live run's snapshot, `summary`, `diff`, `export`, `convert`. What it
// returns is immutable — the trace and what was computed from it — so the same file gets the same
// roles, costs and roofline verdicts wherever it is shown, and a document can be handed between
// threads freely.
#include "core/analysis/analysis.h"
#include "core/analysis/machine_roofs.h"
#include "core/io/trace_loader.h"
#include "core/model/timeline_index.h"
#include "core/model/trace.h"
#include "core/report/compare.h"
#include "core/report/findings.h"
#include "core/report/job_report.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// Where a document comes from: one file, several files as the ranks of one job, JSON bytes in
// memory (the embedded sample), or traces already built (a live run's snapshot, a profiled program's
// processes).
struct DocumentSource {
    std::vector<std::string> paths;
    std::string_view bytes; // memory: must outlive openDocument
    std::string name;       // memory and built: the name in messages
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const TraceAnalysis> analysis; // built: the trace's analysis, when it was made already
    std::shared_ptr<const std::vector<Finding>> findings; // and its findings (with findingsNote)
    std::string findingsNote;
    // built: the trace's summary counted part by part as it grew (a growing document's), which the
    // summary is made from instead of every event read again; must outlive openDocument.
    const SummaryParts* summaryParts = nullptr;
    // built: the job whose ranks' merged trace it is (a growing document of several processes): its
    // ranks and records, with `findings` the job's placed in the trace.
    std::shared_ptr<const JobReport> job;
    std::vector<RankInput> builtRanks; // traces already built, as the ranks of one job
    bool asRanks = false;              // the paths are the ranks of one job (even just one)

    static DocumentSource file(std::string path);
    static DocumentSource ranks(std::vector<std::string> paths);
    static DocumentSource memory(std::string_view bytes, std::string name);
    static DocumentSource built(std::shared_ptr<const Trace> trace, std::string name);
    // Traces already built (a profiled program's processes) as the ranks of one job.
    static DocumentSource rankTraces(std::vector<RankInput> ranks, std::string name);
};

// What is computed beyond the trace: a headless verb asks only for what it prints; the window asks
// for the index and summary first (the timeline can paint), then completes the analysis.
enum DocumentPart : unsigned {
    TimelinePart = 1u << 0, // the timeline's lanes
    SummaryPart = 1u << 1,  // counts, devices, kernels by name (all of them: topN in summaryTop)
    AnalysisPart = 1u << 2, // roles, calls, costs, roofline verdicts, findings (and their summary sections)
    AllParts = TimelinePart | SummaryPart | AnalysisPart,
};

struct DocumentOptions {
    LoadOptions load; // progress, cancel, threads
    unsigned parts = AllParts;
    std::size_t summaryTop = 0;                     // kernels by name kept in the summary; 0 keeps all
    CpuRoofsChoice cpuRoofs = CpuRoofsChoice::Auto; // whose roofs CPU kernels are held to
};

struct Document {
    std::string name;                              // the file, "N ranks: …", or the source's name
    std::shared_ptr<const Trace> trace;            // always
    std::shared_ptr<const TimelineIndex> index;    // with TimelinePart
    std::shared_ptr<const TraceSummary> summary;   // with SummaryPart; analysis sections with AnalysisPart
    std::shared_ptr<const TraceAnalysis> analysis; // with AnalysisPart
    std::shared_ptr<const std::vector<Finding>> findings; // with AnalysisPart: most time at stake first
    std::shared_ptr<const RankReport> ranks;              // opened as ranks: each rank's GPU busy time
    // Opened as ranks, with AnalysisPart: the job as `attnscope job` reads it (each rank's record, its
    // findings by rule and the straggler's); `findings` are its findings, placed in the merged trace.
    std::shared_ptr<const JobReport> job;
    // Opened as ranks: each rank's own trace, kept until the job's findings are made from them.
    std::vector<RankInput> rankTraces;
    // A growing document's findings (growing_document.h): on how many steps they were made ("Findings of
    // the first 3 of 4 steps: …" when fewer than it has, carried; "Findings of all 4 steps: …" at the end).
    std::string findingsNote;
    CpuRoofsChoice cpuRoofs = CpuRoofsChoice::Auto; // as opened with (kept for completeDocument)
    bool cpuRoofsMeasured = false;                  // this machine's CPU was measured for it (none cached)
    std::string cpuRoofsNote;                       // why the roofs are not that measurement's, or not cached
    double loadSeconds = 0;                         // reading the files
    double totalSeconds = 0;                        // and computing the parts
    unsigned parts() const;
};

// Opens the source and computes the parts asked for. Throws LoadError (bad input, with where),
// LoadCancelled, or std::invalid_argument (two files claiming one rank).
std::shared_ptr<const Document> openDocument(const DocumentSource& source,
                                             const DocumentOptions& options = {});

// The same document with the missing parts of `parts` computed; shares everything it had.
std::shared_ptr<const Document> completeDocument(const std::shared_ptr<const Document>& document,
                                                 unsigned parts, std::size_t summaryTop = 0);

// The document whose findings learned a saving measured elsewhere (learnMeasuredSaving: a what-if of one
// of its calls), the rest shared; null when they learn nothing (no analysis yet, the ranks of a job, a
// finding whose calls are not all of that shape).
std::shared_ptr<const Document> learnedDocument(const Document& document, const MeasuredSaving& saving);

// A document's rows for a comparison (compare.h): it needs the analysis.
ComparedTrace compareEntry(const Document& document, std::string path);

// The files side by side (attnscope compare): each opened with its analysis, its rows kept and the
// document let go, up to `parallel` files at a time (0: the machine's threads), so the peak memory is
// that of the documents open at once. A file that cannot be read keeps its row with the error.
// baseline: the trace the ratios are to.
Comparison compareFiles(const std::vector<std::string>& paths, std::size_t baseline,
                        DocumentOptions options = {}, unsigned parallel = 0);

} // namespace attnscope
