// SPDX-License-Identifier: MIT
#include "core/document/growing_document.h"

#include "core/report/format.h"
#include "core/report/job_findings.h"

#include <algorithm>
#include <cstdint>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdexcept>

namespace attnscope {

GrowingDocument::GrowingDocument(std::string name, CpuRoofsChoice cpuRoofs)
    : m_name(std::move(name)), m_cpuRoofs(cpuRoofs) {}

GrowingDocument::~GrowingDocument() = default;

TraceAnalysis GrowingDocument::analyze(const Trace& trace) const {
    std::string why;
    return analyzeWithCpuRoofs(trace, cpuRoofsFor(trace, m_cpuRoofs, why), why);
}

std::vector<std::unique_ptr<GrowingDocument::Process>>::iterator
GrowingDocument::find(const std::string& process) {
    return std::find_if(m_processes.begin(), m_processes.end(),
                        [&](const std::unique_ptr<Process>& p) { return p->name == process; });
}

bool GrowingDocument::grow(Grown& g, std::shared_ptr<const Trace> step, std::uint64_t correlationBase) {
    const TraceAppender::Placement placed = g.appender.append(*step, correlationBase);
    g.trace = g.appender.snapshot();
    if (placed.rebuilt) g.findings.reset(); // its places moved
    // The whole counted again when it was analysed again: a rebuilt trace, a CPU run's new shares.
    auto countedAnew = [&g] {
        g.summary = SummaryParts();
        g.summary.add(*g.trace, g.analysis.get());
    };
    if (placed.rebuilt || !g.analysis) {
        g.analysis = std::make_shared<TraceAnalysis>(analyze(*g.trace));
        countedAnew();
    } else {
        // The step as it went in: its CPU ops no longer stand for kernels once the trace has GPU ones.
        if (placed.opKernelsCleared) step = TraceAppender::withoutOpKernels(std::move(step));
        const TraceAnalysis alone = analyze(*step);
        // Joined in place when no snapshot reads the analysis before (a rank's: only the job's is shown),
        // else to a copy that shares its lists' memory with the snapshot's but for what the join writes.
        const unsigned workersBefore = g.analysis->cpuWorkers;
        TraceAnalysis before = g.analysis.use_count() == 1 ? std::move(*g.analysis) : *g.analysis;
        g.analysis.reset();
        TraceAnalysis joined = joinAnalyses(*g.trace, std::move(before), *step, alone,
                                            [&placed](EventRef e) { return placed(e); });
        // A CPU run's workers share the CPU's roofs (PyTorch's CPU ops have them whole): more workers
        // than either side had, other shares.
        const bool shared = !g.trace->info().opKernels && joined.cpuShare;
        auto fewer = [&](unsigned workers) { return workers && workers != joined.cpuWorkers; };
        const bool anew = shared && (fewer(workersBefore) || fewer(alone.cpuWorkers));
        if (anew) joined = analyze(*g.trace);
        g.analysis = std::make_shared<TraceAnalysis>(std::move(joined));
        if (anew)
            countedAnew();
        else
            g.summary.add(*step, &alone);
    }
    ++g.steps;
    return placed.rebuilt || placed.opKernelsCleared;
}

void GrowingDocument::append(const std::string& process, std::optional<std::int64_t> rank,
                             std::shared_ptr<const Trace> step) {
    auto it = find(process);
    if (it == m_processes.end()) {
        m_processes.push_back(std::make_unique<Process>());
        it = std::prev(m_processes.end());
        (*it)->name = process;
        // The rank a file of its steps would be (rankOf): the trace's own, else torchrun's, else its place.
        (*it)->asRank =
            step->distributed().rank.value_or(rank.value_or(std::int64_t(m_processes.size() - 1)));
    }
    Process& p = **it;
    // Kineto numbers correlation ids per profiling session: each step's get a range of their own, as
    // mergeSteps gives them; in the job's merged trace each part its own in the order they come (each
    // after the last: appended, not sorted in).
    const std::uint64_t base = std::uint64_t(p.own.appender.parts() + 1) << 32;
    const bool moved = grow(p.own, step, base);
    // Its record as a rank measured on the step alone and joined, unless the step changed what was there
    // or its kernels overlap the earlier ones: then on the whole.
    if (p.own.steps == 1 || moved ||
        !joinMeasured(p.measured, measuredRankRecord(step, p.name, std::size_t(p.asRank)), *p.own.trace))
        p.measured = measuredRankRecord(p.own.trace, p.name, std::size_t(p.asRank));
    // Into the job's merged trace at the next snapshot, with the other ranks' steps that came meanwhile.
    if (m_job) m_jobSteps.push_back({{p.name, step}, p.asRank, std::uint64_t(++m_jobRanges) << 32});
    ++m_steps;
}

void GrowingDocument::restart(const std::string& process) {
    const auto it = find(process);
    if (it == m_processes.end()) return;
    m_steps -= (*it)->own.steps;
    m_processes.erase(it);
    m_job.reset(); // its rank's events cannot be taken out: made again from the others'
    m_jobSteps.clear();
}

std::shared_ptr<const Document> GrowingDocument::document(Grown& g, std::size_t steps, bool complete,
                                                          unsigned parts, bool* carried) {
    DocumentOptions options;
    options.cpuRoofs = m_cpuRoofs;
    options.parts = parts;
    DocumentSource source = DocumentSource::built(g.trace, m_name);
    source.analysis = g.analysis;
    source.summaryParts = &g.summary;
    const std::size_t events = g.trace->eventCount();
    // The note says of how many steps the findings are, and at the end that they are of all (the
    // panel's note keeps its lines from one snapshot to the next: the findings' list below it is not
    // moved and repainted).
    const std::string when = " they are found again each time the trace doubles, and when it ends.";
    if (g.findings && !complete && events < 2 * g.findingsEvents) {
        source.findings = g.findings;
        source.findingsNote = "Findings of the first " + std::to_string(g.findingsSteps) + " of " +
                              std::to_string(steps) + " steps:" + when;
    } else {
        source.findingsNote =
            complete ? "Findings of all " + formatCount(steps, "step", "steps") +
                           ": the program's profile is complete."
                     : "Findings of the " + formatCount(steps, "step", "steps") + " so far:" + when;
    }
    if (carried) *carried = bool(source.findings);
    auto doc = openDocument(source, options);
    if (!source.findings) {
        g.findings = doc->findings;
        g.findingsSteps = steps;
        g.findingsEvents = events;
    }
    return doc;
}

std::shared_ptr<const Document> GrowingDocument::jobSnapshot(bool complete) {
    std::vector<Process*> ordered;
    for (const auto& p : m_processes)
        ordered.push_back(p.get());
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Process* a, const Process* b) { return a->asRank < b->asRank; });
    for (std::size_t i = 1; i < ordered.size(); ++i) // as opening their traces as ranks refuses them
        if (ordered[i]->asRank == ordered[i - 1]->asRank)
            throw std::invalid_argument(ordered[i]->name + " is rank " + std::to_string(ordered[i]->asRank) +
                                        " too: each process must be a rank of its own");
    if (!m_job) { // each rank's steps so far, as one part (its trace holds its steps' ranges of ids)
        m_job = std::make_unique<Grown>();
        m_jobRanges = 0;
        for (const Process* p : ordered) {
            m_jobSteps.push_back({{p->name, p->own.trace}, p->asRank, std::uint64_t(m_jobRanges + 1) << 32});
            m_jobRanges += p->own.appender.parts() + 1;
        }
    }
    // The steps that came since the last snapshot, as few parts as the ranks allow (a rank once in each):
    // each part's analysis is joined to the whole's, a copy of the whole's lists.
    while (!m_jobSteps.empty()) {
        std::vector<RankPart> part, later;
        for (RankPart& step : m_jobSteps) {
            const bool in =
                std::any_of(part.begin(), part.end(), [&](const RankPart& s) { return s.rank == step.rank; });
            (in ? later : part).push_back(std::move(step));
        }
        grow(*m_job, rankParts(part), 0);
        m_jobSteps = std::move(later);
    }
    // Each rank as `summary --format rank` reads its trace (its findings carried as a process's are),
    // the records put together as `attnscope job` does, the job's findings placed in the merged trace.
    std::vector<RankRecord> records;
    std::vector<std::shared_ptr<const Document>> ranks; // what the findings below point into
    std::vector<RankFindings> own;
    std::size_t carried = 0; // the steps the ranks' carried findings were made on
    bool anyCarried = false;
    for (Process* p : ordered) {
        bool kept = false;
        ranks.push_back(document(p->own, p->own.steps, complete, SummaryPart | AnalysisPart, &kept));
        anyCarried = anyCarried || kept;
        carried += kept ? p->own.findingsSteps : p->own.steps;
        records.push_back(p->measured);
        addSummary(records.back(), *ranks.back()->summary);
        own.push_back({records.back().stats.rank, p->own.trace.get(), ranks.back()->analysis.get(),
                       *ranks.back()->findings});
    }
    auto job = std::make_shared<const JobReport>(jobReport(std::move(records)));
    DocumentSource source = DocumentSource::built(m_job->trace, m_name);
    source.analysis = m_job->analysis;
    source.summaryParts = &m_job->summary;
    source.job = job;
    source.findings =
        std::make_shared<const std::vector<Finding>>(jobFindingsInTrace(job->findings, own, *m_job->trace));
    const std::string of = " of " + std::to_string(ordered.size()) + " ranks";
    source.findingsNote =
        complete ? "Findings of all " + formatCount(m_steps, "step", "steps") + of +
                       ": the program's profile is complete."
        : anyCarried
            ? "Findings of the first " + std::to_string(carried) + " of " + std::to_string(m_steps) +
                  " steps" + of +
                  ": each rank's are found again each time its trace doubles, and when "
                  "it ends."
            : "Findings of the " + formatCount(m_steps, "step", "steps") + of +
                  " so far: each rank's are found again each time its trace doubles, and when it ends.";
    DocumentOptions options;
    options.cpuRoofs = m_cpuRoofs;
    return openDocument(source, options);
}

std::shared_ptr<const Document> GrowingDocument::snapshot(bool complete) {
    // What earlier snapshots freed is given back to the system before the trace doubles (when its columns
    // and the analysis' lists move to memory twice their size, beside the old, held by the snapshot on
    // show) and before the complete snapshot (its findings of all steps): the C library keeps freed pages
    // of its heaps resident, tens of MB in holes between what stays. Only then, as memory given back is
    // faulted in again when it is used next.
    std::size_t events = 0;
    for (const auto& p : m_processes)
        events += p->own.trace ? p->own.trace->eventCount() : 0;
    if (complete || events >= 2 * m_givenBackAt) {
#ifdef __GLIBC__
        malloc_trim(0);
#endif
        m_givenBackAt = std::max<std::size_t>(events, 1);
    }
    if (m_processes.size() > 1) return jobSnapshot(complete);
    if (m_processes.empty()) {
        DocumentOptions options;
        options.cpuRoofs = m_cpuRoofs;
        return openDocument(DocumentSource::built(std::make_shared<const Trace>(), m_name), options);
    }
    return document(m_processes.front()->own, m_steps, complete, AllParts);
}

} // namespace attnscope
