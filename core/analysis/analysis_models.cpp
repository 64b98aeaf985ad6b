// SPDX-License-Identifier: MIT
// What the analysis reads of real models' programs beside their kernels: attention written out inside a
// torch.compile region, and each call's backward pass.
#include "core/analysis/analyzer.h"

#include "core/model/kineto_args.h"
#include "core/model/op_args.h"

#include <charconv>

namespace attnscope {

bool compiledRegion(std::string_view name) {
    return name.starts_with("Torch-Compiled Region") || name.starts_with("## Call CompiledFxGraph") ||
           name.starts_with("CompiledFunction");
}

} // namespace attnscope

namespace attnscope::analysis_detail {

namespace {

struct Sequence {
    std::optional<std::int64_t> number;
    bool forward = false; // recorded on the forward pass (its "Fwd thread id" 0), not a backward node's
};

Sequence sequenceOf(const Trace& trace, EventRef e) {
    Sequence s;
    bool backwardThread = false;
    auto integer = [](std::string_view v) {
        std::int64_t out = 0;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
        return r.ec == std::errc() ? std::optional(out) : std::nullopt;
    };
    trace.forEachArg(e, [&](std::string_view key, std::string_view value) {
        if (key == kineto::kSequenceNumber)
            s.number = integer(value);
        else if (key == kineto::kForwardThread)
            backwardThread = integer(value).value_or(0) != 0;
    });
    s.forward = s.number && !backwardThread;
    return s;
}

// A batched GEMM op's two inputs, [B, m, k] and [B, k, n]; nullopt for anything else.
std::optional<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> bmmInputs(const Trace& trace,
                                                                                         EventRef e) {
    const OpInputs in = opInputs(trace, e);
    if (!in.dims || in.dims->size() < 2) return std::nullopt;
    const auto& a = (*in.dims)[0];
    const auto& b = (*in.dims)[1];
    if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1]) return std::nullopt;
    return std::pair{a, b};
}

} // namespace

// Inductor fuses attention's scale, mask and softmax into kernels of its own, which a CPU profile does not
// record, and leaves the two GEMMs to extern calls (aten::bmm): no chain is found. A QKᵀ bmm whose [B, s, t]
// output the next bmm on its thread reads as its first input ([B, s, t] × [B, t, d]) is a call, "compiled":
// its two GEMMs its kernels, its span the fused softmax's time between them. On a GPU the fused kernels are
// recorded, and the chain is found as any other.
void Analyzer::compiledCalls() {
    if (!ownCalls.empty() || !trace.info().opKernels) return;
    std::map<TrackId, std::vector<std::pair<TimeNs, TimeNs>>> regions; // per host thread
    std::unordered_map<std::uint32_t, bool> regionNames, bmmNames;
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const Track& track = trace.tracks()[t];
        if (track.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const StringId id = track.events.name[i];
            const auto [known, added] = regionNames.try_emplace(id.value, false);
            if (added) known->second = compiledRegion(trace.str(id));
            if (known->second) regions[TrackId(t)].emplace_back(track.events.start[i], track.end(i));
        }
    }
    if (regions.empty()) return;
    auto inRegion = [&](EventRef e) {
        const auto r = regions.find(e.track);
        const Track& t = trace.track(e.track);
        return r != regions.end() && std::any_of(r->second.begin(), r->second.end(), [&](const auto& x) {
                   return t.events.start[e.index] >= x.first && t.end(e.index) <= x.second;
               });
    };
    std::vector<std::uint8_t> inCall(a.kernels.size(), 0);
    for (const AttentionCall& call : a.calls)
        for (std::uint32_t k : call.kernels)
            inCall[k] = 1;
    constexpr std::uint32_t kNone = UINT32_MAX;
    std::uint32_t last = kNone; // the bmm before, on the same thread, not yet paired
    std::optional<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> lastInputs;
    for (std::uint32_t k = 0; k < a.kernels.size(); ++k) {
        const EventRef e = a.kernels[k].event;
        const Track& t = trace.track(e.track);
        if (inCall[k] || !(t.events.flags[e.index] & kOpKernel)) continue;
        const StringId id = t.events.name[e.index];
        const auto [known, added] = bmmNames.try_emplace(id.value, false);
        if (added) known->second = trace.str(id) == "aten::bmm";
        if (!known->second || !inRegion(e)) continue;
        const auto in = bmmInputs(trace, e);
        if (!in) continue;
        if (last != kNone && a.kernels[last].event.track == e.track) {
            const EventRef qk = a.kernels[last].event;
            // The PV GEMM reads the QKᵀ's [B, s, t] output: scores of s queries over t keys.
            const std::vector<std::int64_t> scores = {lastInputs->first[0], lastInputs->first[1],
                                                      lastInputs->second[2]};
            if (in->first == scores && in->second[2] == lastInputs->first[2] &&
                t.events.start[e.index] >= trace.track(qk.track).end(qk.index)) {
                a.kernels[last].role = KernelRole::QkGemm;
                a.kernels[k].role = KernelRole::PvGemm;
                AttentionCall call;
                call.impl = std::string(kCompiledImpl);
                call.kernels = {last, k};
                a.calls.push_back(std::move(call));
                last = kNone;
                continue;
            }
        }
        last = k;
        lastInputs = in;
    }
}

// Each attention call's gradient kernels, found as autograd records them. PyTorch's profiler gives each op
// recorded for the backward pass a sequence number, and the range of the backward node autograd runs for it
// ("autograd::engine::evaluate_function: BmmBackward0") the same one: the kernels launched inside that range
// are the gradient of that op. A call's backward is the work of the nodes of the ops of its forward pass: its
// QKᵀ and PV GEMMs' (each two GEMMs back), its softmax's, its dropout's, SDPA's own backward op.
void Analyzer::linkBackward() {
    if (!ownCalls.empty() || a.calls.empty()) return;
    // The sequence numbers of each call's forward ops: those inside its host range (its scope, else its
    // kernels' launching ops widened to the aten:: ops around them, as torch.matmul holds its bmm). A
    // number two calls claim (two forward threads number their ops alike) is neither's.
    constexpr int kAmbiguous = -2;
    std::unordered_map<std::int64_t, int> callOfSequence;
    for (std::size_t c = 0; c < a.calls.size(); ++c) {
        const AttentionCall& call = a.calls[c];
        std::optional<TrackId> track;
        TimeNs lo = INT64_MAX, hi = INT64_MIN;
        auto widen = [&](EventRef e) {
            const Track& t = trace.track(e.track);
            lo = std::min(lo, t.events.start[e.index]);
            hi = std::max(hi, t.end(e.index));
        };
        if (call.scope) {
            track = call.scope->track;
            widen(*call.scope);
        } else {
            for (std::uint32_t k : call.kernels) {
                const std::optional<EventRef>& anchor = anchorOf(k);
                if (!anchor || (track && anchor->track != *track)) continue;
                track = anchor->track;
                EventRef outer = *anchor;
                forEachEnclosingEvent(trace, *anchor, [&](EventRef e) {
                    const bool aten =
                        trace.str(trace.track(e.track).events.name[e.index]).starts_with("aten::");
                    if (aten) outer = e;
                    return !aten; // up to the first that is not an op (a module's range, a backward node)
                });
                widen(outer);
            }
        }
        if (!track) continue;
        const Track& t = trace.track(*track);
        const auto first = std::lower_bound(t.events.start.begin(), t.events.start.end(), lo);
        for (auto i = std::uint32_t(first - t.events.start.begin()); i < t.size() && t.events.start[i] <= hi;
             ++i) {
            if (t.end(i) > hi || trace.categoryKind(t.events.category[i]) != CategoryKind::CpuOp) continue;
            const Sequence s = sequenceOf(trace, {*track, i});
            if (!s.forward) continue;
            const auto [at, added] = callOfSequence.try_emplace(*s.number, int(c));
            if (!added && at->second != int(c)) at->second = kAmbiguous;
        }
    }
    if (callOfSequence.empty()) return; // no op of a call was recorded for a backward pass: inference
    // Each kernel outside calls whose innermost backward node is one of a call's ops' is that call's. The
    // ops between its launch and that node must be the node's own work: an op recorded for a backward pass
    // there is a forward pass run again inside it (activation checkpointing's recompute), not a gradient.
    std::unordered_map<std::uint32_t, bool> nodeNames; // per name: a backward node's range
    std::vector<EventRef> path;
    for (std::uint32_t k = 0; k < a.kernels.size(); ++k) {
        if (a.kernels[k].call >= 0 || a.kernels[k].warmup) continue;
        const std::optional<EventRef>& anchor = anchorOf(k);
        if (!anchor) continue;
        path.assign(1, *anchor);
        std::optional<EventRef> node;
        forEachEnclosingEvent(trace, *anchor, [&](EventRef e) {
            const StringId id = trace.track(e.track).events.name[e.index];
            const auto [known, added] = nodeNames.try_emplace(id.value, false);
            if (added) known->second = trace.str(id).starts_with(kineto::kBackwardNode);
            if (known->second)
                node = e;
            else
                path.push_back(e);
            return known->second;
        });
        if (!node) continue;
        const Sequence s = sequenceOf(trace, *node);
        if (!s.number) continue;
        const auto call = callOfSequence.find(*s.number);
        if (call == callOfSequence.end() || call->second < 0) continue;
        if (std::any_of(path.begin(), path.end(), [&](EventRef e) { return sequenceOf(trace, e).forward; }))
            continue;
        a.calls[std::size_t(call->second)].backward.push_back(k); // kernels are by event: by start per track
    }
    for (AttentionCall& call : a.calls) {
        auto startOf = [&](std::uint32_t k) {
            const EventRef e = a.kernels[k].event;
            return trace.track(e.track).events.start[e.index];
        };
        std::stable_sort(call.backward.begin(), call.backward.end(),
                         [&](std::uint32_t x, std::uint32_t y) { return startOf(x) < startOf(y); });
    }
}

} // namespace attnscope::analysis_detail
