// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/kernel_tables.h"
#include "core/model/role.h"
#include "core/model/sorting.h"
#include "core/model/trace.h"
#include "core/report/findings.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnscope {

class TimelineIndex;
struct TraceAnalysis;

struct KernelStats {
    std::string name;
    StringId nameId;
    // The kernels' role, in rows made with an analysis: a name whose kernels play several roles
    // (aten::bmm as a naive call's QKᵀ and PV GEMM) is a row per role.
    std::optional<KernelRole> role;
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
    TimeNs minNs = 0;
    TimeNs maxNs = 0;
    // Whole kernels' time. It differs from totalNs only for a range, where totalNs is the time inside
    // the range while the mean, min and max stay those of the whole kernels that overlap it.
    TimeNs wholeNs = 0;
    TimeNs meanNs() const { return count ? wholeNs / static_cast<TimeNs>(count) : 0; }
};

struct DeviceSummary {
    std::string id;   // the device's pid as the file wrote it
    std::string name; // from deviceProperties, else the process name
    bool cpu = false; // the kernels ran on a CPU (PyTorch's CPU ops, AttnScope's CPU runs): not a GPU
    // As the window's header names it: "GPU 0 · NVIDIA H100 …", "CPU · python (1234)", "name (key)".
    std::string label;
    std::uint64_t kernels = 0;
    TimeNs kernelNs = 0;
    TimeNs busyNs = 0; // union of the device's kernel intervals: overlaps count once
};

struct CategoryStats {
    std::string name;
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
};

struct RoleStats {
    std::string role; // "qk_gemm", … (kernel_role.h)
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
};

struct VerdictStats {
    std::string verdict; // "memory-bound", "compute-bound", "latency-bound", "unknown"
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
};

// Attention calls per implementation: the analysis' table (kernel_tables.h).
using AttentionImplStats = ImplCalls;
// "memory 48.4%, compute 21.5%, unknown 5.9%": an implementation's kernel time by verdict.
std::string verdictMix(const ImplCalls& impl);
// What a reader must know to read an implementation's figures, "" when nothing: a compiled call's kernel time
// is its two GEMMs' alone (Inductor's fused softmax between them is not recorded on a CPU), so its span per
// call is said beside it.
std::string callsNote(const ImplCalls& impl);

// The roofline of a trace's kernels, per kernel name: what `summary` prints in its roofline section,
// with the same numbers the window and `export --chart roofline` use.
struct RooflineKernel : RooflinePoint {
    std::string name;
    // "fp32", "bf16", … ("unknown" without a cost); "memory", "compute", "latency", "unknown".
    std::string_view precisionText() const { return costed ? precisionName(precision) : "unknown"; }
    std::string_view verdictText() const { return shortVerdictName(verdict); }
    // The verdict with how many of the row's kernels it is of, where not all had a cost: "memory (24 of 34)".
    std::string verdictOfCosted() const {
        std::string out(verdictText());
        if (costed && costedCount < count)
            out += " (" + std::to_string(costedCount) + " of " + std::to_string(count) + ")";
        return out;
    }
};
struct RooflineRoof {
    std::string precision;
    double flopsPerSec = 0;
};
struct RooflineSummary {
    std::string device; // the roofs' name
    std::string source; // "datasheet", "measured on …"
    std::vector<RooflineRoof> roofs;
    double bandwidth = 0;                // bytes/s
    std::uint64_t beyondRoof = 0;        // kernels faster than a roof allows: no verdict
    std::string beyondRoofReason;        // why (beyondRoofReason)
    std::vector<RooflineKernel> kernels; // by total time, then name
};

// What `attnscope summary` prints for one file.
struct TraceSummary {
    std::string path;
    std::string format;
    std::uint64_t events = 0; // trace event objects in the file, all phases
    TimeNs startNs = 0;       // the trace's first event: what times in the text report count from
    TimeNs spanNs = 0;
    std::uint64_t kernelCount = 0;
    TimeNs kernelNs = 0;
    // A trace with no GPU kernel (PyTorch on the CPU): says its kernels are the aten:: ops that did the work.
    std::string kernelsNote;
    std::vector<DeviceSummary> devices;
    std::vector<KernelStats> topKernels;    // by total time, then name
    std::vector<KernelStats> kernelsByRole; // analysed: every kernel by name and role (kernelStatsByRole)
    std::vector<CategoryStats> categories;  // complete events per category, by total time, then name
    std::vector<std::string> warnings;
    // Analysed with no roofs: why (the device the specs do not know, a CPU not measured); the reason
    // every verdict is "unknown".
    std::string noRoofsNote;
    // From the analysis (addAnalysis): kernels per role (in role order, roles with none left out),
    // per roofline verdict (the same verdicts the window shows), attention calls per implementation
    // (by calls, then name).
    bool analyzed = false;
    std::vector<RoleStats> roles;
    std::vector<VerdictStats> verdicts;
    std::uint64_t attentionCalls = 0;
    std::vector<AttentionImplStats> attention;
    std::optional<RooflineSummary> roofline; // when the trace's kernels had roofs
    std::vector<Finding> findings;           // what is wrong, most time at stake first (findings.h)
};

// A file's summary, or why it could not be read.
struct SummaryResult {
    std::string path;
    std::optional<TraceSummary> summary;
    std::string error;
};

// A kernel is a complete event of category "kernel" (legacy "Kernel"). topN 0 keeps all kernels.
TraceSummary summarize(const Trace& trace, std::size_t topN);

// A summary made part by part: a growing profile's steps (growing_document.h) each read once, its counts
// added to the ones before, instead of every event so far read again at each snapshot. The parts' summary
// is summarize()'s of the trace they make up (summarize() is one part's), and their kernels by role
// kernelStatsByRole()'s of its analysis when each part came with its own.
class SummaryParts {
public:
    // A part's events; with its analysis (of the part alone), its kernels by name and role too.
    void add(const Trace& part, const TraceAnalysis* analysis = nullptr);
    // The summary of `whole`, the trace the parts make up: the counts from the parts, what the trace says
    // of itself (events, span, warnings, its devices' names) from it.
    TraceSummary summary(const Trace& whole, std::size_t topN) const;
    // Every kernel by name and role, when every part came with its analysis.
    std::optional<std::vector<KernelStats>> kernelsByRole(const Trace& whole) const;

private:
    struct Device {
        std::uint64_t kernels = 0;
        TimeNs kernelNs = 0;
        TimeNs busyNs = 0;
        std::vector<std::pair<TimeNs, TimeNs>> busy; // its kernels' union: disjoint, in order
    };
    std::map<std::string, KernelStats> m_kernels; // by name
    std::map<std::pair<std::string, int>, KernelStats> m_byRole;
    bool m_analysed = true; // every part came with its analysis
    std::map<std::string, CategoryStats> m_categories;
    std::map<std::string, Device> m_devices; // by the process's key
};
// Adds the roles and attention sections from an analysis of the same trace; kernelsByRole when made
// already (SummaryParts'), else read from the analysis.
void addAnalysis(TraceSummary& summary, const Trace& trace, const TraceAnalysis& analysis,
                 std::optional<std::vector<KernelStats>> kernelsByRole = std::nullopt);

// Kernels by name over the kernels that overlap [from, to): their count, their time inside the range
// (totalNs), and the mean, min and max of their whole durations. By time in the range, then name. With
// an analysis, by name and role (each kernel's own role).
std::vector<KernelStats> kernelStatsInRange(const Trace& trace, const TimelineIndex& index, TimeNs from,
                                            TimeNs to, const TraceAnalysis* analysis = nullptr);
// Every kernel by name and role: a row per role of a name whose kernels play several. By total, then name.
std::vector<KernelStats> kernelStatsByRole(const Trace& trace, const TraceAnalysis& analysis);

// unionLength (core/model/sorting.h): the length of intervals' union.

enum class SummaryFormat { Text, Json, Csv };
std::string formatSummaries(const std::vector<SummaryResult>& results, SummaryFormat format);
// Only the findings of each file (attnscope summary --findings-only), in the same formats.
std::string formatFindings(const std::vector<SummaryResult>& results, SummaryFormat format);

// A kernel table as CSV: kernel,count,total_ns,mean_ns,min_ns,max_ns,share_percent.
std::string formatKernelCsv(const std::vector<KernelStats>& rows, TimeNs totalKernelNs);

// A CSV field: quoted (with quotes doubled) when it holds a comma, a quote or a line break.
std::string csvField(std::string_view s);

} // namespace attnscope
