// SPDX-License-Identifier: MIT
#pragma once

// A document that grows as a profiled program writes its steps (attnscope profile, the Program panel):
// each process's steps are appended to a trace of its own (trace_append.h) and each step is analysed
// alone, its analysis joined to what came before (joinAnalyses), so a step costs what the step holds,
// not what every step so far holds. A snapshot is a document like any other, shared with the window
// while later steps go in; what is made from the whole of it each time (the timeline's lanes, the
// summary, the findings) is made on the caller's thread, a worker's.
#include "core/document/document.h"
#include "core/io/trace_append.h"
#include "core/report/rank_record.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnscope {

class GrowingDocument {
public:
    explicit GrowingDocument(std::string name, CpuRoofsChoice cpuRoofs = CpuRoofsChoice::Auto);
    ~GrowingDocument();

    // The next step of `process` (each process's steps in order); rank: torchrun's RANK, which orders
    // several processes as the ranks of one job.
    void append(const std::string& process, std::optional<std::int64_t> rank,
                std::shared_ptr<const Trace> step);
    // Leaves out what `process` appended so far: its next step starts it again.
    void restart(const std::string& process);
    std::size_t steps() const { return m_steps; }
    // The steps so far with all of a document's parts. One process: its trace, its joined analysis.
    // Several: the ranks of one job, as opening each process's trace as a rank would make it, but grown:
    // the ranks' merged trace and each rank's trace analysed step by step, each rank's record measured
    // step by step.
    // The findings read the whole trace, so while it grows they are made again only once it has doubled
    // since they were made (and in a complete snapshot: the program's last); the snapshots
    // between carry them — true of the steps they were made on, still in the trace where they were,
    // and said so (Document::findingsNote, which says of how many steps the findings are, and in the
    // complete snapshot that they are of all). All the snapshots' findings together cost
    // about twice the last's (each pass reads at most half the events of the next). A job's findings
    // are its ranks' (each carried the same way) put together.
    std::shared_ptr<const Document> snapshot(bool complete = false);

private:
    // A trace grown step by step: its analysis joined, its summary counted part by part, and the findings
    // of an earlier snapshot carried till it doubles.
    struct Grown {
        TraceAppender appender;
        std::shared_ptr<const Trace> trace;
        std::shared_ptr<TraceAnalysis> analysis; // joined in place once no snapshot holds it, else to a
                                                 // copy sharing its lists with the snapshot's
        SummaryParts summary;                    // its parts', each with its analysis
        std::size_t steps = 0;
        std::shared_ptr<const std::vector<Finding>> findings; // dropped when its trace is rebuilt
        std::size_t findingsSteps = 0, findingsEvents = 0;
    };
    struct Process {
        std::string name;
        std::int64_t asRank = 0; // its rank in the job: its trace's, else torchrun's, else its place
        Grown own;
        RankRecord measured; // what its trace says of it as a rank, step by step (measuredRankRecord)
    };
    // Appends a step (or a part) to g, its correlation ids moved by correlationBase, and joins its
    // analysis and counts. True when what was in g changed with it (rebuilt, or its CPU ops no longer
    // standing for kernels).
    bool grow(Grown& g, std::shared_ptr<const Trace> step, std::uint64_t correlationBase);
    // The document of g so far; its findings carried (and *carried true) or found again (the note says
    // which, of `steps`).
    std::shared_ptr<const Document> document(Grown& g, std::size_t steps, bool complete, unsigned parts,
                                             bool* carried = nullptr);
    // Several processes: the job of their ranks, from each one's grown trace and the ranks' merged one.
    std::shared_ptr<const Document> jobSnapshot(bool complete);
    TraceAnalysis analyze(const Trace& trace) const;
    std::vector<std::unique_ptr<Process>>::iterator find(const std::string& process);

    std::string m_name;
    CpuRoofsChoice m_cpuRoofs;
    std::vector<std::unique_ptr<Process>> m_processes; // as they first wrote a step
    std::size_t m_steps = 0;
    // Several processes: their ranks' merged trace (mergeRanks' way), grown by each step after it is
    // made; made again from the processes' traces after one restarts.
    std::unique_ptr<Grown> m_job;
    std::vector<RankPart> m_jobSteps; // the steps not yet in it
    std::size_t m_jobRanges = 0;      // the ranges of correlation ids (1 << 32 each) its steps took
    // The processes' events when what was freed so far was last given back to the system (snapshot).
    std::size_t m_givenBackAt = 0;
};

} // namespace attnscope
