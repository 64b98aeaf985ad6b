// SPDX-License-Identifier: MIT
#pragma once

// The per-name and per-role tables of an analysis, computed once with it (on the analysis' thread):
// what `summary`, the charts, the kernel table and the timeline's colours display. No view computes
// them again by rules of its own.
#include "core/analysis/device_specs.h"
#include "core/model/precision.h"
#include "core/model/role.h"
#include "core/model/types.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnscope {

enum class CostSource : std::uint8_t { Unknown, Exact, Inferred };
std::string_view costSourceLabel(CostSource s); // "unknown", "exact", "inferred from shapes"

// BeyondRoof: a kernel of known cost that achieved more than a roof allows (its cost is wrong, or on a
// CPU the measurement low): named so, never "unknown", and never placed on the roofline.
enum class Verdict : std::uint8_t { Unknown, MemoryBound, ComputeBound, LatencyBound, BeyondRoof };
inline constexpr std::size_t kVerdictCount = std::size_t(Verdict::BeyondRoof) + 1;
// The verdicts in the order every table, legend and list shows them.
inline constexpr Verdict kVerdictsShown[] = {Verdict::MemoryBound, Verdict::ComputeBound,
                                             Verdict::LatencyBound, Verdict::BeyondRoof, Verdict::Unknown};
// "unknown", "memory-bound", "compute-bound", "latency-bound", "beyond-roof"
std::string_view verdictName(Verdict v);
// "unknown", "memory", "compute", "latency", "beyond roof": the verdict's name without "-bound" (summary,
// charts).
std::string_view shortVerdictName(Verdict v);

// Per kernel name (by string id, sized to the trace's string pool): the role and the verdict that
// hold most of that name's kernel time — what a table row or a colour per name shows. Names with no
// analysed kernel have no entry.
struct NameClasses {
    std::vector<std::optional<KernelRole>> role;
    std::vector<Verdict> verdict;
    std::vector<bool> severalRoles; // its kernels play more than one role (aten::bmm: QKᵀ and PV GEMM)
};

// One point of the roofline: the kernels of one name in one role (a naive call's aten::bmm is a QKᵀ
// and a PV GEMM point), their count and time, and over the costed ones (a verdict of their own) their
// FLOPs, bytes and rates against the roofs they were held to. A rate over several kernels never
// exceeds the fastest's, so no share exceeds the kernels' own.
struct RooflinePoint {
    StringId name;
    KernelRole role = KernelRole::Other;
    std::uint64_t count = 0;
    TimeNs totalNs = 0;
    bool costed = false;
    double flops = 0, bytes = 0; // of the costed kernels
    TimeNs costedNs = 0;
    std::uint64_t costedCount = 0;            // the kernels the rates are over
    Precision precision = Precision::Unknown; // the last costed kernel's (unknown: held to fp32's roof)
    bool onCpu = false;                       // held to the CPU's roofs (else the GPU's)
    double flopsPerSec = 0, bytesPerSec = 0;
    double computeShare = 0, memoryShare = 0; // of the roofs its kernels were held to
    Verdict verdict = Verdict::Unknown;       // the one that holds most of its time (ties: the first)
    double intensity() const { return bytes > 0 ? flops / bytes : 0; }
};

// Kernel time and count per role.
struct RoleTimes {
    std::array<TimeNs, std::size_t(KernelRole::Count)> ns{};
    std::array<std::uint64_t, std::size_t(KernelRole::Count)> count{};
    TimeNs total() const;
    void add(const RoleTimes& other);
};
// The kernels of one implementation's attention calls ("naive", "flash", …), or outside any ("").
struct ImplRoleTimes {
    std::string impl; // empty: in no call
    RoleTimes times;
    bool warmup = false; // in no call: the kernels of a run's warm-up calls
};

// The attention calls of one implementation ("naive", "SDPA math", "flash", …): the post's closing
// table read from a trace. Kernels are the call's kernels (a CPU trace's: the aten:: ops that did the
// work); host time is the call's own range on the host (attention op or record_function range) when
// the trace has one; bytes are over the calls whose every kernel has a cost.
struct ImplCalls {
    std::string impl;
    std::uint64_t calls = 0;
    TimeNs totalNs = 0; // first kernel's start to last kernel's end, summed over calls
    std::uint64_t kernels = 0;
    TimeNs kernelNs =
        0; // the time each call's kernels ran (overlaps once: a CPU run's workers, streams), summed
    std::uint64_t hostCalls = 0; // calls with a host range
    TimeNs hostNs = 0;           // their ranges' time, summed
    std::uint64_t costedCalls = 0;
    double costedBytes = 0; // the costed calls' bytes, summed
    std::array<TimeNs, kVerdictCount> verdictNs{};
    // Against the calls' expected shapes (call_shapes.h): the calls held to one, the kernels they
    // expected, and the calls that ran otherwise, with the kernels they had no room for.
    std::uint64_t shapedCalls = 0;
    std::uint64_t expectedKernels = 0;
    std::uint64_t mismatchedCalls = 0;
    std::uint64_t unexpectedKernels = 0;
    TimeNs unexpectedNs = 0;
    // Training: the calls whose backward pass the trace holds (AttentionCall::backward), and the time
    // its kernels ran (overlaps once, as kernelNs), summed.
    std::uint64_t backwardCalls = 0;
    TimeNs backwardNs = 0;
    TimeNs meanNs() const { return calls ? totalNs / TimeNs(calls) : 0; }
    double kernelsPerCall() const { return calls ? double(kernels) / double(calls) : 0; }
    TimeNs kernelNsPerCall() const { return calls ? kernelNs / TimeNs(calls) : 0; }
    std::optional<TimeNs> hostNsPerCall() const {
        return hostCalls ? std::optional(hostNs / TimeNs(hostCalls)) : std::nullopt;
    }
    std::optional<double> expectedPerCall() const {
        return shapedCalls ? std::optional(double(expectedKernels) / double(shapedCalls)) : std::nullopt;
    }
    std::optional<TimeNs> backwardNsPerCall() const {
        return backwardCalls ? std::optional(backwardNs / TimeNs(backwardCalls)) : std::nullopt;
    }
    std::optional<double> bytesPerCall() const {
        return costedCalls ? std::optional(costedBytes / double(costedCalls)) : std::nullopt;
    }
};

struct KernelTableSums;

struct KernelTables {
    // What the tables are made from, kernel by kernel: sums, so that a grown trace's tables are the
    // sums before it plus the new part's (joinAnalyses) instead of every kernel read again.
    std::shared_ptr<const KernelTableSums> sums;
    NameClasses classes;                  // every analysed kernel
    std::vector<RooflinePoint> roofline;  // the trace's kernels (isKernelEvent); by time, then name, role
    std::vector<ImplRoleTimes> roleTimes; // the trace's kernels, in the order their groups first appear
    std::vector<ImplCalls> implCalls;     // by calls, then name
    std::array<TimeNs, kVerdictCount> verdictNs{};
    std::array<std::uint64_t, kVerdictCount> verdictCount{};
    RoleTimes allRoleTimes() const;
};

class Trace;
struct TraceAnalysis;
// The tables of an analysis whose kernels, calls and verdicts are final (analyzeTrace calls it).
KernelTables kernelTables(const Trace& trace, const TraceAnalysis& analysis);

// The time the kernels (indices into analysis.kernels) ran, kernels at once (a CPU run's workers, streams)
// counted once: a call's kernel time, what ImplCalls::kernelNs sums over its calls. scratch: reused memory.
TimeNs kernelsTime(const Trace& trace, const TraceAnalysis& analysis,
                   const std::vector<std::uint32_t>& kernels,
                   std::vector<std::pair<TimeNs, TimeNs>>& scratch);
struct AttentionCall;
// A call's time on the host: its scope's range, else the range a PyTorch run timed it by (ImplCalls::hostNs
// sums them over the calls that have one).
std::optional<TimeNs> callHostNs(const Trace& trace, const AttentionCall& call);

struct KernelTableSums {
    struct Point {
        RooflinePoint p; // its sums: count, times, FLOPs, bytes (the rates come with the tables)
        std::array<TimeNs, kVerdictCount> verdictNs{};
    };
    // Keyed by name id << 8 | role (or verdict); +1 per kernel so that zero-length ones still count.
    std::unordered_map<std::uint64_t, TimeNs> roleTime, verdictTime;
    std::unordered_map<std::uint64_t, Point> roofline; // the trace's kernels by name id << 8 | role
    std::vector<ImplRoleTimes> roleTimes;
    std::map<std::string, ImplCalls> implCalls;
    std::array<TimeNs, kVerdictCount> verdictNs{};
    std::array<std::uint64_t, kVerdictCount> verdictCount{};
};
// The sums of `part` added to `into`, its name ids moved by `name` into those of the trace it joins.
void addTableSums(KernelTableSums& into, const KernelTableSums& part,
                  const std::function<StringId(StringId)>& name);
// The tables from their sums (the analysis gives the roofs, the trace the names).
KernelTables tablesFromSums(std::shared_ptr<const KernelTableSums> sums, const Trace& trace,
                            const TraceAnalysis& analysis);

} // namespace attnscope
