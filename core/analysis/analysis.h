// SPDX-License-Identifier: MIT
#pragma once

// Why a trace's kernels take the time they do: each kernel's role, the attention call it belongs
// to, its FLOPs and bytes (exact for AttnScope's own runs, inferred from the launching op's input
// shapes for PyTorch traces, else unknown — never a guess), and where it sits on the device's
// roofline.
#include "core/analysis/call_shapes.h"
#include "core/analysis/device_specs.h"
#include "core/analysis/kernel_role.h"
#include "core/analysis/kernel_tables.h"
#include "core/analysis/op_cost.h"
#include "core/model/shared_list.h"
#include "core/model/trace.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

// A kernel well under both roofs (below this share of the roof that limits it) is latency-bound when its
// work is too small to fill the device: at its roofs it would take under kLatencyWorkSeconds, a launch's
// own latency. More work far under its roof is still memory- or compute-bound, at the share it reached:
// it is slow for another reason (too few blocks or threads, strided access, an op that is not vectorized).
// And it ran under kLatencyMaxSeconds: a launch's or an op's own overhead is microseconds (a CPU's threads
// waking, hundreds of them). Little work that took longer waited on something else (a first call setting
// up its thread pool or memory, the OS, a lock): it is held at the share it reached, far below its roof,
// not said to wait on latency (a 43 ms aten::le of a few kB had been "latency-bound").
constexpr double kLatencyBoundShare = 0.10;
constexpr double kLatencyWorkSeconds = 5e-6;
constexpr double kLatencyMaxSeconds = 1e-3;
struct KernelAnalysis;
bool tooSmallToFill(const KernelAnalysis& k, const DeviceSpec& spec);

struct KernelAnalysis {
    // (Its members largest first, by what they hold: a trace's kernels each have one, and every grown
    // document's snapshot a copy of them.)
    EventRef event;
    std::optional<EventRef> costOp; // the op whose input shapes gave an inferred cost
    int call = -1;                  // index into TraceAnalysis::calls
    KernelRole role = KernelRole::Other;
    CostSource cost = CostSource::Unknown;
    Precision precision = Precision::Unknown;
    Verdict verdict = Verdict::Unknown;
    // It achieved more than a roof allows: its cost is wrong (or, on a CPU, the measurement low), so it
    // gets no verdict; the rates below say by how much. A roof is never moved to fit a kernel.
    bool beyondRoof = false;
    // Its call's shape (call_shapes.h) has no room for it (or for the kernel it is a CPU run worker's share
    // of): work the implementation was not expected to do.
    bool unexpected = false;
    // A kernel of a warm-up call (a run marks them): in no call, yet not outside attention either.
    bool warmup = false;
    double flops = 0;
    double bytes = 0;
    // Roofline (when the cost and the device's roofs are known).
    double intensity = 0;   // FLOPs per byte
    double flopsPerSec = 0; // achieved
    double bytesPerSec = 0;
    double computeShare = 0; // of the precision's peak
    double memoryShare = 0;  // of the memory bandwidth
};

// One attention call: the QK → scale/mask → softmax → PV chain of naive attention, or one fused
// kernel, or (AttnScope's own runs) what the run says belongs to a call.
// The implementation of a naive chain that ran inside SDPA's math backend.
inline constexpr std::string_view kSdpaMathImpl = "SDPA math";
// Attention written out inside a torch.compile region whose fused softmax a CPU profile does not record:
// its two GEMMs (analysis_models.cpp).
inline constexpr std::string_view kCompiledImpl = "compiled";
// torch.compile's regions on the host: Dynamo's frame ("Torch-Compiled Region: 0/0") and the compiled graph
// it calls ("## Call CompiledFxGraph … ##", a backward's "CompiledFunction").
bool compiledRegion(std::string_view name);

struct AttentionCall {
    std::string impl;                   // "naive", "flash", "mem-efficient", "cuDNN", "Triton", "CK", …
    std::vector<std::uint32_t> kernels; // indices into TraceAnalysis::kernels
    TimeNs start = 0;
    TimeNs end = 0;
    // The call's own range on the host: the outermost attention op or record_function range around
    // its kernels' launches that holds no other call (what "CPU time per call" is measured on); none
    // for AttnScope's own runs and for kernels launched from no such range.
    std::optional<EventRef> scope;
    // A PyTorch run's call (run --backend torch, a what-if) timed on the host by the run's range around
    // it, which the run's trace keeps on its calls track: the call's host time where it has no scope.
    std::optional<TimeNs> runRangeNs;
    // Held to its expected shape (call_shapes.h): the shape's key ("" when none is known for it) and
    // kernels as written, the kernels it expected (matched + missing), the kernels it had no room for
    // (indices into TraceAnalysis::kernels, by start; each marked KernelAnalysis::unexpected, with a CPU
    // run's workers' shares of it) and the roles it expected and the call lacks.
    std::string shapeKey, shapeText;
    // Its kernels as a reader counts them: a CPU run's workers' shares of one kernel are one.
    std::uint32_t kernelCount = 0;
    std::uint32_t expectedKernels = 0;
    std::vector<std::uint32_t> unexpected;
    std::vector<std::pair<KernelRole, std::uint32_t>> missing;
    bool matchesShape() const { return unexpected.empty() && missing.empty(); }
    TimeNs duration() const { return end - start; }
    // Its backward pass (training): the kernels autograd ran for the ops of its forward pass, by start.
    // No call of their own, yet the call's time: a layer's attention costs its forward and its backward.
    std::vector<std::uint32_t> backward;
};

struct TraceAnalysis {
    // Every GPU kernel, copy and memset (and own CPU kernels): by event as analyzeTrace makes it; a join
    // (joinAnalyses) puts the part's after them, so that a snapshot and the join after it share the
    // lists' memory but for the chunks the step wrote (shared_list.h), and says their order by event in
    // kernelsByEvent.
    SharedList<KernelAnalysis> kernels;
    SharedList<AttentionCall> calls; // by start
    // The kernels by event (indices into kernels) when they are not in that order; empty when they are.
    std::vector<std::uint32_t> kernelsByEvent;
    // The i-th kernel by event.
    const KernelAnalysis& kernelByEvent(std::size_t i) const {
        return kernelsByEvent.empty() ? kernels[i] : kernels[kernelsByEvent[i]];
    }
    std::optional<DeviceSpec> device;    // the roofs used for GPU kernels
    std::string deviceNote;              // which spec was matched, or why none was
    std::optional<DeviceSpec> cpuShare;  // the roofs CPU kernels were held to: one worker's share
    std::string cpuNote;                 // why the CPU kernels have no roofs, when they have none
    unsigned cpuWorkers = 0;             // the CPU tracks whose kernels share the CPU's roofs
    KernelTables tables;                 // per name and role, for every view (kernel_tables.h)
    // The trace's kernels that achieved more than their roof (no verdict): the verdict table's count, the
    // one figure the roofline's header, chart and every verb say.
    std::uint64_t beyondRoof() const { return tables.verdictCount[std::size_t(Verdict::BeyondRoof)]; }
    const KernelAnalysis* find(EventRef e) const;
    // The roofs the kernel was held to (the CPU's share for kernels that ran on a CPU), or null.
    const DeviceSpec* roofsOf(const Trace& trace, EventRef kernel) const;
    // The verdict that holds most of the call's kernel time (unknown only when no kernel has one).
    Verdict dominantVerdict(const Trace& trace, const AttentionCall& call) const;
};

// Analyzes a trace. cpu: the roofs of the CPU, all cores at once, for kernels that ran on it
// (AttnScope's own CPU runs, whose events are each one worker's share of a kernel: each worker is held
// to the CPU's roofs over the workers, and to no more than cpuCore's, one core's, when given); without
// it those get no verdict. A kernel above its roof gets no verdict (KernelAnalysis::beyondRoof): the
// roofs are the device's, whatever the trace says. Large traces are read on up to `threads` threads (0: the
// machine's); the result is the same. Each call is held to its shape in shapes.
TraceAnalysis analyzeTrace(const Trace& trace, const DeviceSpec* cpu = nullptr,
                           const DeviceSpecs& specs = DeviceSpecs::standard(),
                           const RoleRules& rules = RoleRules::standard(),
                           const DeviceSpec* cpuCore = nullptr, unsigned threads = 0,
                           const CallShapes& shapes = CallShapes::standard());

// The analysis of a trace that grew by a part appended after it (trace_append.h), from the analysis it
// had and the part's own: the part's kernels and calls moved to where `place` says its events went, the
// calls in start order, the tables' sums added. What analyzeTrace gives on the grown trace when no call
// runs across the join (a profiled program's steps end where the program's do), at the cost of the part;
// but a CPU run's kernels are held to the CPU's roofs shared among its workers, so when the join has more
// workers (cpuWorkers) than either analysis had, its verdicts are not the grown trace's: analyse it whole.
// `before` is taken: its lists become the join's, the part's kernels after them (kernelsByEvent says their
// order by event) and its calls merged into the last ones, so the join writes the part and the calls it
// is merged among, not every kernel and call so far; a copy of `before` (a snapshot's, still read) shares
// every chunk of its lists the join does not write (shared_list.h).
TraceAnalysis joinAnalyses(const Trace& grown, TraceAnalysis before, const Trace& partTrace,
                           const TraceAnalysis& part, const std::function<EventRef(EventRef)>& place);

// Whether a process's or a track's events ran on a CPU: AttnScope's CPU runs label their kernels'
// process runargs::kCpuProcessLabel (its kernels make it look like a GPU's).
bool isCpuProcess(const ProcessInfo& p);
bool isCpuTrack(const Trace& trace, TrackId t);
// Whether the trace has kernels that ran on a CPU (AttnScope's CPU runs): they need the CPU's roofs.
bool hasCpuKernels(const Trace& trace);

// How a kernel's cost was obtained: "aten::mm [[8944,1024],[1024,1024]] bf16", "the run's own numbers",
// or empty when it is unknown.
std::string costBasis(const Trace& trace, const KernelAnalysis& k);

// Why kernels are beyond these roofs: a datasheet's roof cannot be beaten, so the cost is wrong; a
// measured CPU roof (DRAM bandwidth, FMA chains) can be, by data in cache or a measurement taken while
// the machine was busy. A phrase: "its cost is wrong", "…".
std::string beyondRoofReason(const DeviceSpec& roofs);

// Roofline numbers and verdict for one kernel of known cost that took durationNs on spec (no verdict,
// and beyondRoof, when it beat a roof).
void placeOnRoofline(KernelAnalysis& k, TimeNs durationNs, const DeviceSpec& spec);

} // namespace attnscope
