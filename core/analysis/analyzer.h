// SPDX-License-Identifier: MIT
#pragma once

// The analysis' passes over a trace's kernels (analysis.h's analyzeTrace), shared by the files that hold
// them: the kernels read and costed, and the roofs (analysis.cpp); the attention calls found
// (analysis_calls.cpp). Not for use outside core/analysis.
#include "core/analysis/analysis.h"
#include "core/analysis/attention_ops.h"
#include "core/analysis/call_shapes.h"
#include "core/analysis/op_cost.h"
#include "core/model/categories.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnscope::analysis_detail {

inline std::string argValue(const Trace& trace, EventRef e, std::string_view key) {
    std::string out;
    trace.forEachArg(e, [&](std::string_view k, std::string_view v) {
        if (k == key) out.assign(v);
    });
    return out;
}

// The implementation a fused attention kernel's name tells (resources/kernel_roles.txt), else "fused".
inline std::string fusedImpl(std::string_view name) {
    std::string impl = RoleRules::standard().implementation(name);
    return impl.empty() ? "fused" : impl;
}

// Below this many kernels one thread reads them all.
constexpr std::size_t kKernelsPerThread = 16384;

// The device's work the analysis reads: kernels, copies and an accelerator's own events.
inline bool isWork(CategoryKind k) {
    return k == CategoryKind::Kernel || k == CategoryKind::Copy || k == CategoryKind::DeviceEvent;
}

// One analysis, in passes over the trace's kernels.
class Analyzer {
public:
    Analyzer(const Trace& trace, const DeviceSpec* cpu, const DeviceSpec* cpuCore, const DeviceSpecs& specs,
             const RoleRules& rules, const CallShapes& shapes, unsigned threads)
        : trace(trace), cpu(cpu), cpuCore(cpuCore), specs(specs), rules(rules), shapes(shapes),
          maxThreads(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

    TraceAnalysis run() {
        chooseDevice();
        readKernels();
        assignOpCosts();
        findWarmups();
        findCalls();
        extendCallsToTheirScopes();
        callsOfAttentionOps();
        compiledCalls();
        dropWarmupCalls();
        numberCalls();
        linkBackward();
        namePhases();
        checkShapes();
        placeOnRoofs();
        a.tables = kernelTables(trace, a);
        return std::move(a);
    }

private:
    void chooseDevice();

    // The kernels, read in contiguous ranges on several threads and joined in order, so the result
    // does not depend on how many threads read them.
    void readKernels();

    // Whether an op's cost can be a kernel's: the aten:: op standing for a kernel is its own kernel; a
    // GPU kernel must do the op's kind of work (its role).
    bool costFits(std::uint32_t k, KernelRole opRole) const;

    void assignOpCosts();

    void findCalls();

    // A backward pass's kernels (an attention's gradients: flash_bwd, mem-efficient's cutlassB, cuDNN's
    // bprop, a softmax's backward, or on the CPU the ops named so) are attention work but no call of
    // their own: a call is the forward attention an implementation's expected call describes, one a layer
    // a forward pass. Read once a name (a trace has a few hundred, its kernels and ops hundreds of
    // thousands).
    bool backward(const KernelAnalysis& k);

    // An SDPA call whose kernels no pattern found (the math backend's chain broken by dropout's kernels in
    // training, a decomposition of another shape) is still a call: its op bounds it, and the forward work
    // launched inside that op is the call's, so every view counts the calls the findings that read the op
    // count. The outermost SDPA op (the public one, else its _math backend) that holds no call already.
    void callsOfAttentionOps();

    // Attention written out inside a torch.compile region, on a CPU (analysis_models.cpp).
    void compiledCalls();

    // AttnScope's own runs mark each call's range with its implementation, number and whether it warmed up
    // (run_args.h): a warm-up call is not one of the calls measured, so it is no call in any view.
    void findWarmups();

    // The calls found by their kernels inside a warm-up call's range (PyTorch runs, whose kernels carry no
    // call numbers) are dropped: their kernels are outside any call.
    void dropWarmupCalls();

    // Where a kernel was asked for on the host: its launch, or the aten:: op standing for it. A graph's
    // kernels have none of their own: one cudaGraphLaunch / hipGraphLaunch asks for all of them, so the
    // ranges around it hold the whole graph and say nothing of which op made which kernel.
    // Each kernel's, found once for the passes that read them (kernel index → anchor).
    const std::optional<EventRef>& anchorOf(std::uint32_t k);

    // Whether a host event bounds one attention call: an attention op (SDPA and its backends' ops) or
    // a range the user named (record_function("attn_fwd")), never the profiler's own step ranges.
    bool boundsACall(EventRef e) const;

    // A call is what runs inside the innermost attention op or user range around all of its kernels'
    // launches, not only the kernels its name-based chain found: the out-of-place masked_fill's copy of
    // a hand-written call, the casts and the mask SDPA's math backend makes. A kernel inside two calls'
    // scopes goes to the innermost; one inside none stays outside attention.
    void extendCallsToTheirScopes();

    // Whether a kernel was launched by an op that builds a mask from nothing (or is such an op).
    bool buildsTheMask(EventRef kernel) const;

    // Whether a copy was asked for by an op that lays a tensor out again (torch.matmul's reshape of a
    // strided view), not by the arithmetic (masked_fill's clone of the scores, the softmax's upcast).
    bool isLayoutCopy(EventRef kernel) const;

    // Whether a kernel ran inside SDPA's math backend (the op that launched it, or the op standing
    // for a kernel itself, is inside aten::_scaled_dot_product_attention_math).
    bool underSdpaMath(EventRef kernel) const;

    // Calls by start, and each kernel's call.
    void numberCalls();
    // Each call's backward pass, found by autograd's sequence numbers (analysis_models.cpp).
    void linkBackward();
    // A decode call (one query against a longer KV cache) is its implementation's "decode" case ("flash
    // decode"), as a run's preset names it: a generation's prefill and decode calls are not one average.
    void namePhases();

    // Each call's kernels counted (a CPU run's workers' shares of one kernel once) and held to its
    // expected shape, by start.
    void checkShapes();

    // The roofline: GPU kernels on the trace's device, a CPU run's kernels on the measured CPU. A CPU
    // run records each worker's share of a kernel, run at the same time as the other workers' shares:
    // each is held to its share of all cores' roofs, and to no more than one core's. A kernel above
    // its roof keeps no verdict: its cost is wrong, and the roof stays where the device puts it.
    void placeOnRoofs();

    const Trace& trace;
    const DeviceSpec* cpu;
    const DeviceSpec* cpuCore;
    const DeviceSpecs& specs;
    const RoleRules& rules;
    const CallShapes& shapes;
    const unsigned maxThreads;
    TraceAnalysis a;
    std::vector<std::optional<EventRef>> kernelAnchors;    // per kernel, made by the first anchorOf
    std::unordered_map<std::uint32_t, bool> backwardNames; // per kernel or op name
    std::set<std::pair<std::string, long>> warmupCalls;    // own runs' warm-up (impl, call)
    std::vector<std::pair<TimeNs, TimeNs>> warmupRanges;   // their ranges
    struct RunRange {
        TimeNs start, end;
        std::string impl;
    };
    std::vector<RunRange> runRanges; // a run's calls' ranges (warm-up or not), by start, with their impl
    // The modelled ops that launched kernels, with their costs, and each kernel's op (or kNoOp).
    static constexpr std::uint32_t kNoOp = UINT32_MAX;
    std::vector<std::pair<EventRef, OpCost>> ops;
    std::vector<std::uint32_t> kernelOp;
    // AttnScope's own runs: (impl, call) → kernels.
    std::map<std::pair<std::string, long>, std::vector<std::uint32_t>> ownCalls;
};

} // namespace attnscope::analysis_detail
