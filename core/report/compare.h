// SPDX-License-Identifier: MIT
#pragma once

// Variants side by side: the post's closing table ("Everything we covered, at a glance") for any set
// of traces. A row per attention implementation found in each trace (a trace of a run of naive and
// flash has two; one with no attention call has one for all its kernels; one that could not be read
// keeps its row with the error): calls, kernels per call against the shape expected of a call
// (call_shapes.h), kernel and host time per call, bytes per call, kernel time by role and by verdict,
// what the trace revealed (its findings, most at stake first), and ratios to a baseline row.
#include "core/analysis/call_inputs.h"
#include "core/analysis/kernel_tables.h"
#include "core/report/findings.h"
#include "core/report/summary.h"

#include <optional>
#include <string>
#include <vector>

namespace attnscope {

struct CompareRow {
    std::string impl; // "" for a trace with no attention call: its kernels, all of them
    ImplCalls calls;  // the implementation's calls (the whole trace's kernels for "")
    RoleTimes roles;  // the calls' kernel time per role, summed over the workers and streams that ran it
    // A call's kernel time by role, as parts of calls.kernelNsPerCall() (workers or streams running at once
    // counted once, as the table's "kernel/call"): each role its share of the summed time. A bar of them is
    // as tall as the table's figure.
    std::array<double, std::size_t(KernelRole::Count)> roleNsPerCall() const;
    // Its findings, most at stake first: those whose places are its calls' kernels or host ranges (a
    // trace's other findings go to its first row).
    struct Brief {
        std::string id;
        Severity severity = Severity::Info;
        std::string title;
        TimeNs timeNs = 0;
        // Its time at stake a measured saving (in the trace itself, or learnSaving's), not an estimate.
        bool measured = false;
    };
    std::vector<Brief> findings;
    // What its first call computes, when the trace records it (call_inputs.h), and how many shapes its
    // calls had (a generation's prefill and decode calls: two and more).
    std::optional<CallInputs> inputs;
    std::size_t shapes = 0;
};

struct ComparedTrace {
    std::string path;
    std::string error;                 // why it could not be read: then it has no rows
    bool opening = false;              // still being read (a window's entry): no rows yet
    std::vector<std::string> warnings; // what the reader said of a file it read in part (a truncated one)
    TimeNs spanNs = 0;
    std::string device;           // what its kernels ran on, as the file says (recordedOn); "" unknown
    std::vector<CompareRow> rows; // by calls (the analysis' order)
};

// What a trace's kernels ran on, as far as the file says: its GPUs' models ("NVIDIA H100 80GB HBM3"), else
// the CPU of the machine it names ("the CPU of vm"); "" when it does not say.
std::string recordedOn(const Trace& trace);

// The finding learns the answer: attention by hand's time at stake in a row becomes the saving of a fused
// alternative measured on the same shapes (per call × calls; no more than the calls took as recorded), and
// its title says where it was measured ("here", "in flash.json"). False when the row has no such finding,
// or its calls are of several shapes (one was measured: its estimate stays, as the trace's own finding's).
bool learnSaving(CompareRow& row, const std::string& alternative, TimeNs perCall, std::uint64_t calls,
                 const std::string& where);

// One trace's rows, from its analysis and findings (the trace is only read).
ComparedTrace compareEntry(std::string path, const Trace& trace, const TraceAnalysis& analysis,
                           const std::vector<Finding>& findings);

struct Comparison {
    std::vector<ComparedTrace> traces;
    std::size_t baseline = 0; // the trace the ratios are to (its first row); past the end: none
    // The baseline trace's row of this implementation, when set (a what-if's call as it was, measured here).
    std::string baselineImpl;
    // The row the ratios are to: the baseline trace's first row (or its baselineImpl's), null when none.
    const CompareRow* baselineRow() const;
    // A row's kernel (host) time per call over the baseline row's; none without both figures.
    std::optional<double> kernelRatio(const CompareRow& row) const;
    std::optional<double> hostRatio(const CompareRow& row) const;
    // When the calls compared are not the same work (their shapes differ), what each computes and why
    // their times per call do not compare; "" when they are, or when the traces do not record it.
    std::string shapeWarning() const;
};

// Each row of attention written by hand learns from the comparison it is in: the fused implementation of
// another trace recorded on the same device, its calls of the same shape and precision (one shape each),
// that takes least per call (learnSaving, "measured in …"). A saving measured already (in the trace itself,
// or by a what-if) is kept.
void learnFromComparison(Comparison& comparison);

// The traces' short names as a table shows them: file names, with the folder where two share one.
std::vector<std::string> traceLabels(const Comparison& comparison);
// "QKᵀ GEMM 41%, softmax 33%, PV GEMM 26%": the roles holding the row's kernel time, largest first; past
// `top`, the rest as one part ("2 more 6%"); whole percents that add up to 100.
std::string roleMix(const CompareRow& row, std::size_t top = 4);

// The table as people read it (text, Markdown, the Compare window): a header, and per row its trace,
// the row (null for a trace that could not be read: then its cells are its label and the reason) and
// its cells, one per header column.
struct CompareTable {
    // "backward/call" is a column only where a trace holds a call's backward pass (training).
    std::vector<std::string> header;
    std::size_t lastNumber = 10; // the columns from "calls" to "bytes/call" hold numbers: right-aligned
    bool numeric(std::size_t column) const { return column >= 2 && column <= lastNumber; }
    struct Line {
        std::size_t trace = 0;
        const CompareRow* row = nullptr; // into the comparison
        std::vector<std::string> cells;
    };
    std::vector<Line> lines;
};
CompareTable compareTable(const Comparison& comparison);

enum class CompareFormat { Text, Json, Csv, Markdown };
// topFindings: the findings listed per row in text and Markdown (JSON and CSV keep them all).
std::string formatComparison(const Comparison& comparison, CompareFormat format, std::size_t topFindings = 3);

} // namespace attnscope
