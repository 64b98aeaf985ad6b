// SPDX-License-Identifier: MIT
#pragma once

// Inside the findings: what the rules share (the trace classified once, each GPU's busy time, the
// synchronizations, evidence and severity), and the rules, one function each. Not for other users.
#include "core/model/op_args.h"
#include "core/model/sorting.h"
#include "core/report/findings.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope::findings {

// A busy stretch of one GPU (its kernels, copies and memsets on any stream, overlaps joined), with
// the event that opened it.
struct Busy {
    TimeNs start = 0;
    TimeNs end = 0;
    EventRef first;
};

class Context {
public:
    explicit Context(const FindingInputs& in);

    const Trace& trace;
    const TraceAnalysis& analysis;
    const FindingThresholds& th;
    TimeNs span = 0; // the trace's span (at least 1)

    // What an event is, by its category (an accelerator's own events by their name).
    enum Kind : std::uint8_t { Other, CpuOp, Launch, Kernel, Copy };
    Kind kind(EventRef e) const;
    TimeNs start(EventRef e) const { return trace.track(e.track).events.start[e.index]; }
    TimeNs dur(EventRef e) const { return trace.track(e.track).events.duration[e.index]; }
    TimeNs end(EventRef e) const { return start(e) + dur(e); }
    std::string_view name(EventRef e) const { return trace.str(trace.track(e.track).events.name[e.index]); }

    // Each GPU process's busy stretches, by start (computed on first use).
    const std::vector<std::pair<ProcessId, std::vector<Busy>>>& gpuBusy();
    // f(event, its track) for each event of category kind eventKind on the tracks of kind trackKind, in
    // track order (the rules' walk over a trace).
    template <class F> void forEachEvent(TrackKind trackKind, Kind eventKind, F f) const {
        for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
            const Track& track = trace.tracks()[t];
            if (track.kind != trackKind) continue;
            for (std::uint32_t i = 0; i < track.size(); ++i)
                if (kind({TrackId(t), i}) == eventKind) f(EventRef{TrackId(t), i}, track);
        }
    }
    // The host's synchronizing calls (cudaDeviceSynchronize, … and synchronous cudaMemcpy), by end.
    const std::vector<EventRef>& syncCalls();

    // The op that launched GPU work: the innermost cpu_op around its runtime call, if any.
    std::optional<EventRef> launchingOp(EventRef gpuEvent) const;
    // Whether f holds for an op around the GPU work's runtime call (innermost first); for an aten::
    // op standing for a kernel (a trace without GPU kernels), around the op itself.
    bool launchedUnder(EventRef gpuEvent, const std::function<bool(EventRef)>& f) const;
    // The GPU work launched from inside a CPU event (by the runtime calls it encloses), or in a trace
    // without GPU kernels the aten:: ops standing for kernels inside it.
    std::vector<EventRef> gpuWorkUnder(EventRef cpuEvent) const;
    // Whether the trace is of a PyTorch program (it names an aten:: op): advice that names PyTorch's tools
    // (torch.compile) is given only then; an Nsight Systems export of a CUDA program gets the general form.
    bool pytorch() const;
    // text for a PyTorch program, else nothing: " (torch.compile)" after "fuse small ops".
    std::string ifPyTorch(std::string_view text) const {
        return pytorch() ? std::string(text) : std::string();
    }
    // "CUDA graph", or on ROCm (its runtime calls are hip*) "HIP graph": the graph its runtime captures.
    std::string graph() const;
    TimeNs totalDuration(const std::vector<EventRef>& events) const {
        TimeNs sum = 0;
        for (EventRef e : events)
            sum += dur(e);
        return sum;
    }

    // A finding with its share of the span and its severity from its time at stake (its count comes
    // with its places: keep; its id is its rule's, given when the rules have run).
    Finding make(std::string title, TimeNs timeNs) const;
    // The severity from another share (of what the rule measures against: the GPUs' own window, each
    // communicating GPU's span); the finding's share stays of the trace's span, as every finding's is, so
    // that one column of shares has one base.
    void severityFromShare(Finding& f, double share) const;
    // A rule's last step: its places as the finding's evidence (the longest first, or in the order given
    // where the rule put the most telling first), capped at max_evidence, the finding's count how many
    // places there are; then the finding is kept when it holds enough of the span (min_share), or always
    // for a rule that reports any occurrence. The finding kept, or null.
    enum class Order : std::uint8_t { LongestFirst, AsGiven };
    enum class Shown : std::uint8_t { IfWorthShowing, Always };
    Finding* keep(std::vector<Finding>& out, Finding f, std::vector<std::pair<EventRef, std::string>> places,
                  Order order, Shown shown = Shown::IfWorthShowing) const;

private:
    std::optional<std::vector<std::pair<ProcessId, std::vector<Busy>>>> m_busy;
    std::optional<std::vector<EventRef>> m_syncs;
    mutable std::optional<bool> m_pytorch, m_rocm;
};

// Most time at stake first, then in the rules' order (findFindings' order).
void sortFindings(std::vector<Finding>& findings);
// A call of attention written by hand (hand_written_attention's): its scores through a softmax kernel of
// their own, SDPA's math backend aside.
bool writtenByHand(const TraceAnalysis& a, const AttentionCall& call);

// "3.0" (one decimal: kernels per call).
std::string oneDecimal(double v);
double kernelsPerCall(std::uint64_t kernels, std::uint64_t calls);
// "aten::tril ×4, aten::where ×4": the ops a list of places came from, by count.
std::string opCounts(const std::map<std::string, std::uint64_t>& byOp);
// " 4 casts are among the calls' own kernels: part of hand_written_attention's time where that is shown,
// not time besides it." (one and many: "cast is", "casts are"; where: where they run among the calls'
// kernels; which: the part of its time), said of a finding's places that are also a naive call's; empty
// when there are none.
std::string partOfHandWritten(std::uint64_t n, std::string_view one, std::string_view many,
                              std::string_view where, std::string_view which);

// A finding's places (an event and its note).
using Places = std::vector<std::pair<EventRef, std::string>>;
void longestFirst(const Context& c, Places& places);
// Places from (event, what to say of it), the longest first, each note written (note(event, what)) only
// for the places shown as evidence: a live profile finds a rule again over hundreds of thousands.
template <class T, class Note>
Places longestFirst(const Context& c, std::vector<std::pair<EventRef, T>> found, Note note) {
    std::stable_sort(found.begin(), found.end(),
                     [&](const auto& a, const auto& b) { return c.dur(a.first) > c.dur(b.first); });
    Places places;
    places.reserve(found.size());
    for (const auto& [e, what] : found)
        places.emplace_back(e, places.size() < std::size_t(c.th["max_evidence"]) ? note(e, what)
                                                                                 : std::string());
    return places;
}

// The cpu_ops a kernel of a call was launched from, innermost first (an aten:: op standing for a kernel
// first itself), up to and without the call's host range.
std::vector<EventRef> opsAround(const Context& c, EventRef kernel, const AttentionCall& call);

// The out-of-place op (masked_fill: clone, then masked_fill_ in place) whose clone a copy kernel of the call
// is, if it is one (out_of_place_copy's copies; unexpected_kernels says when its kernels are those).
std::optional<EventRef> outOfPlaceMaker(const Context& c, const KernelAnalysis& ka,
                                        const AttentionCall& call);

// What a PyTorch op's args say of its inputs (record_shapes), parsed.
OpInputs opInputs(const Context& c, EventRef op); // op_args.h's, of the context's trace

// The op before or after e at e's depth on its thread (its previous or next sibling), if any.
std::optional<EventRef> previousSibling(const Context& c, EventRef e);
std::optional<EventRef> nextSibling(const Context& c, EventRef e);
// The work an op did: the GPU work it launched, or in a trace without GPU kernels the ops standing for
// kernels inside it, or the op itself where it stands for one.
std::vector<EventRef> workOf(const Context& c, EventRef op);
// A shape as PyTorch prints it: "[2, 8, 384, 32]".
std::string dimsText(const std::vector<std::int64_t>& dims);

// The rules (findings_attention.cpp, findings_lessons.cpp, findings_models.cpp, findings_layout.cpp,
// findings_gpu.cpp, findings_jobs.cpp); each appends what it found.
void handWrittenAttention(Context& c, std::vector<Finding>& out);
void sdpaMathFallback(Context& c, std::vector<Finding>& out);
void outOfPlaceCopy(Context& c, std::vector<Finding>& out);
void mathUpcast(Context& c, std::vector<Finding>& out);
void maskPerCall(Context& c, std::vector<Finding>& out);
void safeSoftmax(Context& c, std::vector<Finding>& out);
void hostBoundAttention(Context& c, std::vector<Finding>& out);
void unexpectedKernels(Context& c, std::vector<Finding>& out);
void castsAndCopies(Context& c, std::vector<Finding>& out);
void latencyBound(Context& c, std::vector<Finding>& out);
void gpuIdle(Context& c, std::vector<Finding>& out);
void launchBound(Context& c, std::vector<Finding>& out);
void synchronization(Context& c, std::vector<Finding>& out);
void repeatedKvHeads(Context& c, std::vector<Finding>& out);
void layoutCopies(Context& c, std::vector<Finding>& out);
void softmaxUpcast(Context& c, std::vector<Finding>& out);
// A half-precision call's softmax computed in fp32: the casts' work (up: the scores to fp32 for it; else
// its output back) and the precision cast from; none where the call has no such softmax.
struct SoftmaxCasts {
    Precision from = Precision::Unknown;
    std::vector<std::pair<EventRef, bool>> casts;
};
SoftmaxCasts softmaxCasts(const Context& c, const AttentionCall& call);
void kvCacheConcat(Context& c, std::vector<Finding>& out);
void compiledAttention(Context& c, std::vector<Finding>& out);
void recomputedAttention(Context& c, std::vector<Finding>& out);
// Whether op is a copy that repeats K or V heads for grouped-query attention (repeated_kv_heads'): the
// other rules leave its copy to that one.
bool repeatsKvHeads(const Context& c, EventRef op);
void pageableMemcpy(Context& c, std::vector<Finding>& out);
void lowOccupancy(Context& c, std::vector<Finding>& out);
void exposedCommunication(Context& c, std::vector<Finding>& out);

} // namespace attnscope::findings
