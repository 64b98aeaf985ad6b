// SPDX-License-Identifier: MIT
#include "core/document/growing_document.h"

#include "core/report/format.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace attnscope {

struct GrowingDocument::Spare {
    std::mutex mutex;
    std::unique_ptr<TraceAnalysis> analysis;
    bool wanted = true; // till the complete snapshot (no step follows it) or the document's end
};

GrowingDocument::GrowingDocument(std::string name, CpuRoofsChoice cpuRoofs)
    : m_name(std::move(name)), m_cpuRoofs(cpuRoofs), m_spare(std::make_shared<Spare>()) {}

GrowingDocument::~GrowingDocument() {
    dropSpare(); // snapshots may outlive it: what they let go is freed, not kept for a step to come
}

void GrowingDocument::dropSpare() {
    std::unique_ptr<TraceAnalysis> spent; // freed after the lock is released
    const std::lock_guard<std::mutex> lock(m_spare->mutex);
    spent = std::move(m_spare->analysis);
    m_spare->wanted = false;
}

TraceAnalysis GrowingDocument::analyze(const Trace& trace) const {
    std::string why;
    return analyzeWithCpuRoofs(trace, cpuRoofsFor(trace, m_cpuRoofs, why), why);
}

std::shared_ptr<const TraceAnalysis> GrowingDocument::share(TraceAnalysis analysis) {
    // Freed on whichever thread lets it go last (the window's worker, or this one): one spare is kept, a
    // second (a snapshot let go before the spare was used) freed there, outside the lock.
    auto back = [spare = m_spare](const TraceAnalysis* spent) {
        std::unique_ptr<TraceAnalysis> owned(const_cast<TraceAnalysis*>(spent));
        const std::lock_guard<std::mutex> lock(spare->mutex);
        if (spare->wanted && !spare->analysis) spare->analysis = std::move(owned);
    };
    return std::shared_ptr<const TraceAnalysis>(new TraceAnalysis(std::move(analysis)), back);
}

std::vector<std::unique_ptr<GrowingDocument::Process>>::iterator
GrowingDocument::find(const std::string& process) {
    return std::find_if(m_processes.begin(), m_processes.end(),
                        [&](const std::unique_ptr<Process>& p) { return p->name == process; });
}

void GrowingDocument::append(const std::string& process, std::optional<std::int64_t> rank,
                             std::shared_ptr<const Trace> step) {
    auto it = find(process);
    if (it == m_processes.end()) {
        m_processes.push_back(std::make_unique<Process>());
        it = std::prev(m_processes.end());
        (*it)->name = process;
        (*it)->rank = rank;
    }
    Process& p = **it;
    // Kineto numbers correlation ids per profiling session: each step's get a range of their own, as
    // mergeSteps gives them.
    const TraceAppender::Placement placed =
        p.appender.append(*step, std::uint64_t(p.appender.parts() + 1) << 32);
    p.trace = p.appender.snapshot();
    if (placed.rebuilt) m_findings.reset(); // its places moved
    // The whole counted again when it was analysed again: a rebuilt trace, a CPU run's new shares.
    auto countedAnew = [&p] {
        p.summary = SummaryParts();
        p.summary.add(*p.trace, p.analysis.get());
    };
    if (placed.rebuilt || !p.analysis) {
        p.analysis = share(analyze(*p.trace));
        countedAnew();
    } else {
        // The step as it went in: its CPU ops no longer stand for kernels once the trace has GPU ones.
        if (placed.opKernelsCleared) step = TraceAppender::withoutOpKernels(std::move(step));
        const TraceAnalysis alone = analyze(*step);
        std::unique_ptr<TraceAnalysis> room;
        {
            const std::lock_guard<std::mutex> lock(m_spare->mutex);
            room = std::move(m_spare->analysis);
        }
        TraceAnalysis joined = joinAnalyses(
            *p.trace, *p.analysis, *step, alone, [&placed](EventRef e) { return placed(e); }, room.get());
        // A CPU run's workers share the CPU's roofs (PyTorch's CPU ops have them whole): more workers
        // than either side had, other shares.
        const bool shared = !p.trace->info().opKernels && joined.cpuShare;
        auto fewer = [&](const TraceAnalysis& a) {
            return a.cpuWorkers && a.cpuWorkers != joined.cpuWorkers;
        };
        const bool anew = shared && (fewer(*p.analysis) || fewer(alone));
        if (anew) joined = analyze(*p.trace);
        p.analysis = share(std::move(joined));
        if (anew)
            countedAnew();
        else
            p.summary.add(*step, &alone);
    }
    ++p.steps;
    ++m_steps;
}

void GrowingDocument::restart(const std::string& process) {
    const auto it = find(process);
    if (it == m_processes.end()) return;
    m_steps -= (*it)->steps;
    m_processes.erase(it);
    m_findings.reset();
}

std::shared_ptr<const Document> GrowingDocument::snapshot(bool complete) {
    if (complete) dropSpare(); // no step follows
    DocumentOptions options;
    options.cpuRoofs = m_cpuRoofs;
    if (m_processes.size() <= 1) {
        DocumentSource source = DocumentSource::built(
            m_processes.empty() ? std::make_shared<const Trace>() : m_processes.front()->trace, m_name);
        if (m_processes.empty()) return openDocument(source, options);
        const Process& p = *m_processes.front();
        source.analysis = p.analysis;
        source.summaryParts = &p.summary;
        const std::size_t events = p.trace->eventCount();
        // The note says of how many steps the findings are, and at the end that they are of all (the
        // panel's note keeps its lines from one snapshot to the next: the findings' list below it is not
        // moved and repainted). Several processes' findings are found again at each snapshot (below).
        const std::string when = " they are found again each time the trace doubles, and when it ends.";
        if (m_findings && !complete && events < 2 * m_findingsEvents) {
            source.findings = m_findings;
            source.findingsNote = "Findings of the first " + std::to_string(m_findingsSteps) + " of " +
                                  std::to_string(p.steps) + " steps:" + when;
        } else {
            source.findingsNote =
                complete ? "Findings of all " + formatCount(p.steps, "step", "steps") +
                               ": the program's profile is complete."
                         : "Findings of the " + formatCount(p.steps, "step", "steps") + " so far:" + when;
        }
        auto doc = openDocument(source, options);
        if (!source.findings) {
            m_findings = doc->findings;
            m_findingsSteps = p.steps;
            m_findingsEvents = events;
        }
        return doc;
    }
    std::vector<const Process*> ordered;
    for (const auto& p : m_processes)
        ordered.push_back(p.get());
    std::stable_sort(ordered.begin(), ordered.end(), [](const Process* a, const Process* b) {
        return a->rank.value_or(INT64_MAX) < b->rank.value_or(INT64_MAX);
    });
    std::vector<RankInput> ranks;
    for (const Process* p : ordered)
        ranks.push_back({p->name, p->trace ? p->trace : std::make_shared<const Trace>()});
    return openDocument(DocumentSource::rankTraces(std::move(ranks), m_name), options);
}

} // namespace attnscope
