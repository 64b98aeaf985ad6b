// SPDX-License-Identifier: MIT
// Layout copies around attention written by hand (findings_rules.h).
#include "core/report/findings_rules.h"
#include "core/report/format.h"

#include <algorithm>
#include <map>
#include <set>

namespace attnscope::findings {

namespace {

// What a layout copy copied: Q, Kᵀ or V on their way into a matmul, or the output on its way out.
enum class Copied : std::uint8_t { Query, KeyT, Value, Output };

const char* copiedName(Copied what) {
    switch (what) {
    case Copied::Query:
        return "Q";
    case Copied::KeyT:
        return "Kᵀ";
    case Copied::Value:
        return "V";
    case Copied::Output:
        return "the output";
    }
    return "";
}

struct LayoutCopy {
    Copied what;
    std::vector<std::int64_t> dims, strides;
    std::vector<EventRef> work;
    double bytes = 0; // written
};

bool isReshapeOrCopy(std::string_view name) {
    return name == "aten::reshape" || name == "aten::contiguous" || name == "aten::clone" ||
           name == "aten::flatten";
}

// The ops that only change how a tensor is seen, or copy it to a new layout: those between the PV GEMM and
// the next op that computes (transformers' attn_output.transpose(1, 2).contiguous().reshape(b, s, -1)).
bool isLayoutOp(std::string_view name) {
    return isReshapeOrCopy(name) || name == "aten::transpose" || name == "aten::permute" ||
           name == "aten::view" || name == "aten::_unsafe_view";
}

// A reshape, .contiguous() or clone of a 4-D tensor laid out otherwise than row-major (a [b, h, s, d] view
// of a projection's [b, s, h, d], or that transposed back) that copied it: what it copied and its work.
// An expanded tensor (a stride of 0) is repeated_kv_heads' (its copy repeats heads), not a layout's.
std::optional<LayoutCopy> layoutCopy(const Context& c, EventRef op, Copied what) {
    if (!isReshapeOrCopy(c.name(op))) return std::nullopt;
    const OpInputs in = opInputs(c, op);
    if (!in.dims || !in.strides || in.dims->empty() || in.strides->empty()) return std::nullopt;
    const std::vector<std::int64_t>& dims = in.dims->front();
    const std::vector<std::int64_t>& strides = in.strides->front();
    if (dims.size() != 4 || strides.size() != 4 || rowMajor(dims, strides) ||
        std::find(strides.begin(), strides.end(), 0) != strides.end() || repeatsKvHeads(c, op))
        return std::nullopt;
    std::vector<EventRef> work = c.gpuWorkUnder(op);
    if (work.empty()) return std::nullopt; // a view after all: nothing copied
    const int size = in.types.empty() ? 0 : inputTypeBytes(in.types.front());
    return LayoutCopy{what, dims, strides, std::move(work),
                      double(size) * double(dims[0] * dims[1] * dims[2] * dims[3])};
}

// The outermost aten:: op a kernel of the call was launched from (or, a CPU's, stands for it), if any: the
// torch.matmul around its bmm, not what holds the whole call (autograd's evaluation of a backward node, where
// activation checkpointing runs the call again).
std::optional<EventRef> outermostOp(const Context& c, std::uint32_t kernel, const AttentionCall& call) {
    std::optional<EventRef> outer;
    for (const EventRef e : opsAround(c, c.analysis.kernels[kernel].event, call)) {
        if (!c.name(e).starts_with("aten::")) break;
        outer = e;
    }
    return outer;
}

// The layout copies of one call written by hand: inside its QKᵀ and PV matmuls (each copies a strided
// input into one contiguous batch before its GEMM), and right after the PV matmul (the output transposed
// back to [b, s, h, d] and made contiguous for the output projection). None of the call's own kernels but
// its copies (V's, made between the GEMMs, is one).
std::vector<std::pair<EventRef, LayoutCopy>> layoutCopiesOf(const Context& c, const AttentionCall& call) {
    std::vector<std::pair<EventRef, LayoutCopy>> found;
    if (call.kernels.empty()) return found;
    const std::optional<EventRef> qk = outermostOp(c, call.kernels.front(), call);
    const std::optional<EventRef> pv = outermostOp(c, call.kernels.back(), call);
    if (!qk || !pv || qk->track != pv->track || *qk == *pv) return found;
    std::set<EventRef> own;
    for (const std::uint32_t k : call.kernels)
        if (c.analysis.kernels[k].role != KernelRole::Copy) own.insert(c.analysis.kernels[k].event);
    auto take = [&](EventRef op, Copied what) {
        auto copy = layoutCopy(c, op, what);
        if (!copy ||
            std::any_of(copy->work.begin(), copy->work.end(), [&](EventRef w) { return own.count(w); }))
            return;
        found.emplace_back(op, std::move(*copy));
    };
    // Inside each matmul: its own reshapes (children), by which input they copied.
    const Track& t = c.trace.track(qk->track);
    for (const EventRef matmul : {*qk, *pv}) {
        const OpInputs in = opInputs(c, matmul);
        if (!in.dims || in.dims->size() < 2) continue;
        const std::uint16_t depth = t.events.depth[matmul.index];
        for (std::uint32_t j = matmul.index + 1; j < t.size() && t.events.depth[j] > depth; ++j) {
            const EventRef child{matmul.track, j};
            if (t.events.depth[j] != depth + 1) continue;
            const OpInputs ch = opInputs(c, child);
            if (!ch.dims || ch.dims->empty()) continue;
            const bool first = ch.dims->front() == (*in.dims)[0], second = ch.dims->front() == (*in.dims)[1];
            if (matmul == *qk && (first || second)) take(child, first ? Copied::Query : Copied::KeyT);
            if (matmul == *pv && second) take(child, Copied::Value);
        }
    }
    // After the PV matmul: the ops that only lay the output out again, up to the next that computes.
    std::optional<EventRef> next = nextSibling(c, *pv);
    for (int n = 0; next && n < 6 && isLayoutOp(c.name(*next)); ++n, next = nextSibling(c, *next))
        take(*next, Copied::Output);
    return found;
}

} // namespace

// Attention written by hand on [b, h, s, d] views of the projections' [b, s, h, d] outputs copies them:
// torch.matmul folds batch and heads into one batch dimension, which a strided view cannot be without a
// copy of Q, Kᵀ and V, and the output is copied back with transpose(1, 2).contiguous(). SDPA's fused kernels
// read the strided views as they are and write the output in the layout the output projection reads.
void layoutCopies(Context& c, std::vector<Finding>& out) {
    if (c.analysis.calls.empty() || !c.trace.strings().find("aten::matmul").valid()) return;
    std::vector<std::pair<EventRef, LayoutCopy>> found;
    std::uint64_t calls = 0;
    for (const AttentionCall& call : c.analysis.calls) {
        if (call.impl != "naive") continue; // a fused call's copies are its implementation's own
        auto copies = layoutCopiesOf(c, call);
        calls += !copies.empty();
        for (auto& copy : copies)
            found.push_back(std::move(copy));
    }
    if (found.empty()) return;
    TimeNs time = 0;
    double bytes = 0;
    std::map<Copied, std::uint64_t> byWhat;
    std::uint64_t inCalls = 0; // copies whose work is among their call's kernels
    for (const auto& [op, copy] : found) {
        inCalls += std::any_of(copy.work.begin(), copy.work.end(), [&](EventRef w) {
            const KernelAnalysis* k = c.analysis.find(w);
            return k && k->call >= 0;
        });
        time += c.totalDuration(copy.work);
        bytes += copy.bytes;
        ++byWhat[copy.what];
    }
    std::string what;
    for (const auto& [copied, n] : byWhat)
        what += (what.empty() ? "" : ", ") + std::string(copiedName(copied)) + " ×" + std::to_string(n);
    Finding f = c.make("Q, K, V or the output copied to another layout in " +
                           formatCount(calls, "attention call", "attention calls"),
                       time);
    f.explanation =
        formatCount(found.size(), "copy", "copies") + " (" + what + ") laid tensors out again around " +
        formatCount(calls, "call", "calls") + " of attention written by hand: " + formatDuration(time) +
        (bytes > 0 ? " writing " + formatRate(bytes, "B") : "") + ", about " +
        formatDuration(time / TimeNs(std::max<std::uint64_t>(1, calls))) +
        " a call. The projections write [batch, seq, heads, dim]; attention written as matmuls reads [batch, "
        "heads, seq, dim] views of it, which torch.matmul copies into one contiguous batch before each GEMM, "
        "and transpose(1, 2).contiguous() copies the output back. A fused kernel reads the strided views as "
        "they are and writes its output in the layout the output projection reads: no copy." +
        partOfHandWritten(inCalls, "copy runs", "copies run", "between a call's GEMMs, among its own kernels",
                          "time");
    f.suggestion =
        "Use torch.nn.functional.scaled_dot_product_attention (attn_implementation=\"sdpa\" in transformers) "
        "or FlashAttention's flash_attn_func, which takes [batch, seq, heads, dim] directly. Written by "
        "hand, "
        "one layout throughout (q, k, v made contiguous as [batch, heads, seq, dim] once, by the projection) "
        "spares the copies inside the matmuls.";
    Places places = longestFirst(c, std::move(found), [](EventRef, const LayoutCopy& copy) {
        return std::string(copiedName(copy.what)) + " " + dimsText(copy.dims) + ", strides " +
               dimsText(copy.strides) +
               (copy.bytes > 0 ? ": " + formatRate(copy.bytes, "B") + " copied" : "");
    });
    // Always shown: copies a fused kernel never makes, however small their share (the time at stake says
    // how much they weigh; on a small model it varies about the worth-showing line from run to run).
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst, Context::Shown::Always);
}

} // namespace attnscope::findings
