// SPDX-License-Identifier: MIT
// The analysis' backward passes: each attention call's gradient kernels, found as autograd records them.
// PyTorch's profiler gives each op recorded for the backward pass a sequence number, and the range of
// the backward node autograd runs for it ("autograd::engine::evaluate_function: BmmBackward0") the same
// one: the kernels launched inside that range are the gradient of that op. A call's backward is the work
// of the nodes of the ops of its forward pass: its QKᵀ and PV GEMMs' (each two GEMMs back), its softmax's,
// its dropout's, SDPA's own backward op.
#include "core/analysis/analyzer.h"

#include "core/model/kineto_args.h"

#include <charconv>

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

} // namespace

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
                    if (trace.str(trace.track(e.track).events.name[e.index]).starts_with("aten::")) outer = e;
                    return false;
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
