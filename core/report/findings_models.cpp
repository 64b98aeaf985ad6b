// SPDX-License-Identifier: MIT
// Rules for what real models' attention does beyond the post's experiment (findings_rules.h).
#include "core/model/kineto_args.h"
#include "core/model/op_args.h"
#include "core/model/precision.h"
#include "core/report/findings_rules.h"
#include "core/report/format.h"

#include <algorithm>
#include <map>
#include <set>

namespace attnscope::findings {

namespace {

// A copy that repeats K or V's heads for the query heads that share them (grouped-query or multi-query
// attention written by hand): transformers' repeat_kv, x[:, :, None].expand(b, h, r, s, d).reshape(b, h·r,
// s, d), or x.repeat_interleave(r, dim=1). What it copied, and its shapes before and after.
struct Repeat {
    EventRef op;                // the reshape or repeat_interleave
    std::vector<EventRef> work; // the copy's kernels (or, without GPU kernels, the ops that did it)
    std::vector<std::int64_t> from, to;
    double bytes = 0;      // written
    bool inMatmul = false; // a view, copied by the matmul that reads it (one K/V head)
};

std::optional<Repeat> repeatOfHeads(const Context& c, EventRef e) {
    const std::string_view name = c.name(e);
    const bool reshape = name == "aten::reshape";
    if (!reshape && name != "aten::repeat_interleave") return std::nullopt;
    const OpInputs in = opInputs(c, e);
    if (!in.dims || in.dims->empty()) return std::nullopt;
    const std::vector<std::int64_t>& x = in.dims->front();
    Repeat r{e, {}, {}, {}, 0};
    std::int64_t times = 0;
    if (reshape) {
        // [b, h, r, s, d] from an expand of [b, h, 1, s, d]: r copies of each head.
        if (x.size() != 5 || x[2] < 2) return std::nullopt;
        const auto before = previousSibling(c, e);
        if (!before || c.name(*before) != "aten::expand") return std::nullopt;
        const OpInputs ex = opInputs(c, *before);
        if (!ex.dims || ex.dims->empty() ||
            ex.dims->front() != std::vector<std::int64_t>{x[0], x[1], 1, x[3], x[4]})
            return std::nullopt;
        times = x[2];
        r.from = {x[0], x[1], x[3], x[4]};
    } else {
        // x.repeat_interleave(r, dim=1) of a 4-D [b, h, s, d]: its Concrete Inputs say r and the dim.
        if (x.size() != 4 || in.concrete.size() < 3 || in.concrete[2] != "1") return std::nullopt;
        const std::vector<std::int64_t> n = parseInts(in.concrete[1]);
        if (n.size() != 1 || n[0] < 2) return std::nullopt;
        times = n[0];
        r.from = x;
    }
    r.to = {r.from[0], r.from[1] * times, r.from[2], r.from[3]};
    // A repeat_interleave may be the op that did the copy itself (a trace without GPU kernels); a reshape's
    // copy is its clone's.
    r.work = reshape ? c.gpuWorkUnder(e) : workOf(c, e);
    // Nothing copied here: a view. With one K/V head (multi-query attention) the expand's reshape is a view
    // of stride 0 over the heads, and the matmul that reads it copies it (repeatedKvHeads finds that copy);
    // a repeat_interleave always copies.
    if (r.work.empty() && (!reshape || r.from[1] != 1)) return std::nullopt;
    const int size = in.types.empty() ? 0 : inputTypeBytes(in.types.front());
    r.bytes = double(size) * double(r.to[0] * r.to[1] * r.to[2] * r.to[3]);
    return r;
}

// The precision a dtype argument names in an op's Concrete Inputs: c10's ScalarType codes, "5" half, "6"
// float, "15" bfloat16.
Precision scalarTypeCode(std::string_view code) {
    return code == "5"    ? Precision::F16
           : code == "6"  ? Precision::F32
           : code == "15" ? Precision::BF16
                          : Precision::Unknown;
}

// A half-precision softmax asked to compute in fp32: softmax(x, dim, dtype=torch.float32) of fp16 or bf16
// scores (transformers' eager attention); the input's precision, or Unknown.
Precision upcastSoftmax(const Context& c, EventRef op) {
    if (c.name(op) != "aten::softmax") return Precision::Unknown;
    const OpInputs in = opInputs(c, op);
    const Precision from = in.types.empty() ? Precision::Unknown : precisionNamed(in.types.front());
    if ((from != Precision::F16 && from != Precision::BF16) || in.concrete.size() < 3 ||
        scalarTypeCode(in.concrete[2]) != Precision::F32)
        return Precision::Unknown;
    return from;
}

} // namespace

bool repeatsKvHeads(const Context& c, EventRef op) {
    const auto r = repeatOfHeads(c, op);
    return r && !r->work.empty();
}

namespace {

// A multi-query repeat that copied nothing itself is copied by the first matmul after it that reads it: one
// of the matmul's own reshapes, of its second input shaped as the repeat's output ([b, h, s, d] for V, or
// [b, h, d, s] for K transposed), that copies. Each such copy is one repeat's (K's is claimed before V's
// looks). Its work, or none.
std::vector<EventRef> copiedByItsMatmul(const Context& c, const Repeat& r, std::set<EventRef>& claimed) {
    const Track& t = c.trace.track(r.op.track);
    const std::vector<std::int64_t> v = r.to, k = {r.to[0], r.to[1], r.to[3], r.to[2]};
    // At most as far as the next attention call's end on this thread.
    const auto next = std::lower_bound(c.analysis.calls.begin(), c.analysis.calls.end(), c.end(r.op),
                                       [](const AttentionCall& a, TimeNs at) { return a.end < at; });
    const TimeNs until = next == c.analysis.calls.end() ? c.end(r.op) : next->end;
    for (std::uint32_t i = r.op.index + 1; i < t.size() && t.events.start[i] <= until; ++i) {
        const EventRef m{r.op.track, i};
        if (c.name(m) != "aten::matmul") continue;
        const OpInputs in = opInputs(c, m);
        if (!in.dims || in.dims->size() < 2 || ((*in.dims)[1] != v && (*in.dims)[1] != k)) continue;
        const std::uint16_t depth = t.events.depth[i];
        for (std::uint32_t j = i + 1; j < t.size() && t.events.depth[j] > depth; ++j) {
            const EventRef child{r.op.track, j};
            if (t.events.depth[j] != depth + 1 || c.name(child) != "aten::reshape" || claimed.count(child))
                continue;
            const OpInputs ch = opInputs(c, child);
            if (!ch.dims || ch.dims->empty() || ch.dims->front() != (*in.dims)[1]) continue;
            std::vector<EventRef> work = c.gpuWorkUnder(child);
            if (work.empty()) continue;
            claimed.insert(child);
            return work;
        }
    }
    return {};
}

} // namespace

void repeatedKvHeads(Context& c, std::vector<Finding>& out) {
    if (c.analysis.calls.empty() || (!c.trace.strings().find("aten::expand").valid() &&
                                     !c.trace.strings().find("aten::repeat_interleave").valid()))
        return;
    std::vector<Repeat> repeats;
    std::set<EventRef> claimed;
    c.forEachEvent(TrackKind::CpuThread, Context::CpuOp, [&](EventRef e, const Track&) {
        auto r = repeatOfHeads(c, e);
        if (r && r->work.empty()) {
            r->work = copiedByItsMatmul(c, *r, claimed);
            r->inMatmul = true;
        }
        if (r && !r->work.empty()) repeats.push_back(std::move(*r));
    });
    // Each copy is the call's that runs next in its process (K and V are repeated right before the
    // QKᵀ and PV GEMMs that read them); a copy after the last call feeds none.
    std::set<std::size_t> fed;
    std::vector<std::pair<EventRef, Repeat>> found;
    TimeNs time = 0;
    double bytes = 0;
    std::map<std::int64_t, std::uint64_t> byFactor;
    for (Repeat& r : repeats) {
        const TimeNs end = c.end(r.op);
        const auto call = std::lower_bound(c.analysis.calls.begin(), c.analysis.calls.end(), end,
                                           [](const AttentionCall& a, TimeNs t) { return a.start < t; });
        if (call == c.analysis.calls.end()) continue;
        fed.insert(std::size_t(call - c.analysis.calls.begin()));
        time += c.totalDuration(r.work);
        bytes += r.bytes;
        ++byFactor[r.to[1] / r.from[1]];
        found.emplace_back(r.op, std::move(r));
    }
    if (found.empty()) return;
    const std::size_t calls = fed.size();
    // "each head ×4", or with several factors "8 ×4, 4 ×2".
    std::string factors = byFactor.size() == 1 ? "each head ×" + std::to_string(byFactor.begin()->first) : "";
    for (const auto& [factor, n] : byFactor)
        if (byFactor.size() > 1)
            factors += (factors.empty() ? "" : ", ") + std::to_string(n) + " ×" + std::to_string(factor);
    const bool multiQuery =
        std::all_of(found.begin(), found.end(), [](const auto& p) { return p.second.from[1] == 1; });
    Finding f = c.make(std::string("K/V heads copied for ") + (multiQuery ? "multi-query" : "grouped-query") +
                           " attention in " + formatCount(calls, "attention call", "attention calls"),
                       time);
    f.explanation =
        formatCount(found.size(), "copy", "copies") + " (" + factors +
        ") repeated each K or V head for the query heads that share it, for " +
        formatCount(calls, "attention call", "attention calls") +
        (multiQuery ? " (a single K/V head: the repeat is a view, copied by the matmul that reads it)" : "") +
        ": " + formatDuration(time) + (bytes > 0 ? " writing " + formatRate(bytes, "B") : "") + ", about " +
        formatDuration(time / TimeNs(std::max<std::size_t>(1, calls))) +
        " a call. Grouped-query attention shares each K/V head among several query heads so that K and V "
        "(and the KV cache) stay small; copying them out to every query head undoes that on every call.";
    // The calls they fed already SDPA's (transformers repeats K/V for SDPA when it passes a mask): the fix
    // is SDPA's own grouped heads, not "use SDPA".
    bool sdpa = false;
    for (const std::size_t i : fed) {
        const AttentionCall& call = c.analysis.calls[i];
        sdpa = sdpa || call.impl != "naive";
    }
    f.suggestion =
        sdpa ? "These copies feed scaled_dot_product_attention calls: pass it the grouped K/V with "
               "enable_gqa=True (PyTorch 2.5 on) instead of repeating them. transformers repeats them for "
               "SDPA when it passes an attention mask: where the mask is only causal (an unpadded batch, no "
               "sliding window shorter than the sequence), is_causal lets it pass enable_gqa; a padding or "
               "sliding-window mask needs an implementation that takes grouped heads with a mask "
               "(flash_attention_2 "
               "on a GPU)."
             : "Let attention read the shared heads: torch.nn.functional.scaled_dot_product_attention(q, k, "
               "v, "
               "enable_gqa=True) (PyTorch 2.5 on), or in transformers attn_implementation=\"sdpa\" or "
               "\"flash_attention_2\", which take grouped K/V as they are. Hand-written attention can keep "
               "the "
               "heads grouped with q.view(b, h_kv, r, s, d) against k.unsqueeze(2) in one matmul instead.";
    Places places = longestFirst(c, std::move(found), [&](EventRef, const Repeat& r) {
        return "K/V heads ×" + std::to_string(r.to[1] / r.from[1]) + ": " + dimsText(r.from) + " → " +
               dimsText(r.to) + (r.bytes > 0 ? ", " + formatRate(r.bytes, "B") + " written" : "") +
               (r.inMatmul ? " by the matmul that reads it" : "");
    });
    // Always shown: a copy that only undoes what grouped-query attention saves, however small its share
    // (its time at stake says how much it weighs).
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven, Context::Shown::Always);
}

// Eager attention's softmax upcast: scores in fp16 or bf16, softmax(dtype=torch.float32), then .to() back
// (transformers' eager_attention_forward). The casts each read and write the whole N×N score matrix, and
// the fp32 softmax moves twice the bytes; a fused kernel keeps the softmax in fp32 in registers with no
// cast. The casts are the call's kernels under an aten::to: the one inside the softmax (a CPU's; a GPU's
// softmax reads half and writes fp32 in one kernel) and the one after it back to the input's precision.
SoftmaxCasts softmaxCasts(const Context& c, const AttentionCall& call) {
    SoftmaxCasts out;
    std::optional<EventRef> softmax;
    for (std::uint32_t k : call.kernels) {
        for (EventRef e : opsAround(c, c.analysis.kernels[k].event, call))
            if (const Precision p = upcastSoftmax(c, e); p != Precision::Unknown) {
                softmax = e;
                out.from = p;
            }
        if (softmax) break;
    }
    if (!softmax) return out;
    // The work of the casts: inside the softmax, what is not the call's own softmax kernel (the scores
    // cast up; none where the softmax kernel reads half itself); then the op right after it when it is
    // a .to() of fp32 back to the scores' precision.
    for (EventRef e : c.gpuWorkUnder(*softmax))
        if (std::none_of(call.kernels.begin(), call.kernels.end(), [&](std::uint32_t k) {
                return c.analysis.kernels[k].event == e && c.analysis.kernels[k].role != KernelRole::Copy;
            }))
            out.casts.emplace_back(e, true);
    if (const auto next = nextSibling(c, *softmax); next && c.name(*next) == "aten::to") {
        const OpInputs in = opInputs(c, *next);
        if (!in.types.empty() && precisionNamed(in.types.front()) == Precision::F32 &&
            in.concrete.size() >= 2 && scalarTypeCode(in.concrete[1]) == out.from)
            for (EventRef e : c.gpuWorkUnder(*next))
                out.casts.emplace_back(e, false);
    }
    return out;
}

void softmaxUpcast(Context& c, std::vector<Finding>& out) {
    if (c.analysis.calls.empty() || !c.trace.strings().find("aten::softmax").valid()) return;
    std::uint64_t calls = 0, inCalls = 0; // calls; casts that are kernels of their call
    TimeNs time = 0;
    double bytes = 0;
    std::string half;
    std::vector<std::pair<EventRef, std::string>> found;
    for (const AttentionCall& call : c.analysis.calls) {
        const auto [from, casts] = softmaxCasts(c, call);
        bool any = false;
        for (const auto& [e, up] : casts) {
            any = true;
            inCalls += std::any_of(call.kernels.begin(), call.kernels.end(),
                                   [&, e = e](std::uint32_t k) { return c.analysis.kernels[k].event == e; });
            time += c.dur(e);
            if (const KernelAnalysis* ka = c.analysis.find(e)) bytes += ka->bytes;
            found.emplace_back(e, up ? "the scores cast up to fp32 for the softmax"
                                     : "the softmax's fp32 output cast back to " +
                                           std::string(precisionName(from)));
        }
        if (!any) continue;
        ++calls;
        half = precisionName(from);
    }
    if (calls == 0) return;
    Finding f = c.make("Softmax upcast to fp32 and back in " +
                           formatCount(calls, "attention call", "attention calls"),
                       time);
    f.explanation =
        formatCount(calls, "call", "calls") + " computed the softmax of " + half +
        " scores in fp32 (softmax(…, dtype=torch.float32) and .to(" + half +
        "), as transformers' eager attention does): " + formatCount(found.size(), "cast", "casts") +
        " of the whole N×N score matrix took " + formatDuration(time) +
        (bytes > 0 ? " and moved " + formatRate(bytes, "B") : "") + ", about " +
        formatDuration(time / TimeNs(calls)) +
        " a call, and the softmax between them reads or writes fp32, twice the bytes. A fused kernel "
        "(SDPA's flash or memory-efficient backend, FlashAttention) computes the softmax in fp32 in "
        "registers and casts nothing." +
        partOfHandWritten(inCalls, "cast is", "casts are", "among the calls' own kernels",
                          "scale/mask/softmax time");
    f.suggestion =
        "Use a fused implementation: attn_implementation=\"sdpa\" in transformers, or "
        "torch.nn.functional.scaled_dot_product_attention. In hand-written attention, take the softmax "
        "in the scores' own dtype: PyTorch's half-precision softmax already accumulates in fp32.";
    Places places = longestFirst(c, std::move(found), [](EventRef, const std::string& what) { return what; });
    // Always shown: casts a fused kernel never makes, however small their share (the time at stake says how
    // much they weigh; a run's share of them varied about the worth-showing line).
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven, Context::Shown::Always);
}

namespace {

// A KV cache grown by concatenation: torch.cat((past, new), dim=-2) of [b, h, L, d] and [b, h, t, d], as
// transformers' DynamicCache appends each generated token's K and V. Its shapes and what it wrote.
struct CacheAppend {
    std::vector<std::int64_t> past, added;
    std::vector<EventRef> work;
    double bytes = 0; // written: the whole grown cache
};

std::optional<CacheAppend> cacheAppend(const Context& c, EventRef e) {
    if (c.name(e) != "aten::cat") return std::nullopt;
    const OpInputs in = opInputs(c, e);
    // A TensorList's dims come as one list of shapes: [[[b, h, L, d], [b, h, t, d]], []].
    std::string dims;
    c.trace.forEachArg(e, [&](std::string_view key, std::string_view value) {
        if (key == kineto::kInputDims) dims = value;
    });
    if (in.concrete.size() < 2 || (in.concrete[1] != "-2" && in.concrete[1] != "2")) return std::nullopt;
    // The list's first item, bracket to matching bracket.
    std::size_t end = 1;
    for (int depth = 0; end < dims.size(); ++end) {
        depth += dims[end] == '[' ? 1 : dims[end] == ']' ? -1 : 0;
        if (depth == 0) break;
    }
    if (dims.size() < 2 || dims[1] != '[' || end >= dims.size()) return std::nullopt;
    const auto shapes = parseDims(std::string_view(dims).substr(1, end));
    if (!shapes || shapes->size() != 2) return std::nullopt;
    const std::vector<std::int64_t>& past = (*shapes)[0];
    const std::vector<std::int64_t>& added = (*shapes)[1];
    // The past held something (the first append is of an empty cache), and each token adds no more rows
    // than the cache holds (a decoder's cache of its one start token takes the next): a cache growing, not a
    // short tensor joined onto a long one.
    if (past.size() != 4 || added.size() != 4 || past[0] != added[0] || past[1] != added[1] ||
        past[3] != added[3] || past[2] < 1 || added[2] < 1 || added[2] > past[2])
        return std::nullopt;
    CacheAppend a{past, added, workOf(c, e), 0};
    if (a.work.empty()) return std::nullopt;
    const int size = in.types.size() > 1 ? inputTypeBytes(in.types[1]) : 0;
    a.bytes = double(size > 0 ? size : 4) * double(past[0] * past[1] * (past[2] + added[2]) * past[3]);
    return a;
}

// The query length of a call: its SDPA op's query, else its QKᵀ GEMM's first input ([…, s, d]); 0 unknown.
std::int64_t queryLength(const Context& c, const AttentionCall& call) {
    for (std::uint32_t k : call.kernels) {
        const KernelAnalysis& ka = c.analysis.kernels[k];
        for (EventRef e : opsAround(c, ka.event, call)) {
            const std::string_view name = c.name(e);
            const bool sdpa = name.starts_with("aten::scaled_dot_product_attention") ||
                              name.starts_with("aten::_scaled_dot_product");
            if (!sdpa && !(ka.role == KernelRole::QkGemm && name == "aten::matmul")) continue;
            const OpInputs in = opInputs(c, e);
            if (in.dims && !in.dims->empty() && in.dims->front().size() >= 2)
                return in.dims->front()[in.dims->front().size() - 2];
        }
    }
    return 0;
}

} // namespace

// A KV cache grown by torch.cat at every generated token: each append copies the whole past, so the copies
// grow with the length and their sum with its square over a generation. A preallocated (static) cache
// writes the new token in place. Told only where a cache was seen growing (appends of two lengths at
// least), with the calls by phase: prefill (the prompt, many queries) and decode (one query a token).
void kvCacheConcat(Context& c, std::vector<Finding>& out) {
    if (c.analysis.calls.empty() || !c.trace.strings().find("aten::cat").valid()) return;
    std::vector<std::pair<EventRef, CacheAppend>> found;
    std::set<std::int64_t> lengths;
    TimeNs time = 0;
    double bytes = 0;
    std::int64_t longest = 0;
    c.forEachEvent(TrackKind::CpuThread, Context::CpuOp, [&](EventRef e, const Track&) {
        auto a = cacheAppend(c, e);
        if (!a) return;
        lengths.insert(a->past[2]);
        longest = std::max(longest, a->past[2] + a->added[2]);
        time += c.totalDuration(a->work);
        bytes += a->bytes;
        found.emplace_back(e, std::move(*a));
    });
    if (lengths.size() < 2) return;
    std::uint64_t prefill = 0, decode = 0;
    for (const AttentionCall& call : c.analysis.calls) {
        const std::int64_t q = queryLength(c, call);
        decode += q == 1;
        prefill += q > 1;
    }
    Finding f = c.make("KV cache grown by torch.cat: " + formatCount(found.size(), "copy", "copies") +
                           " of the whole past K/V",
                       time);
    f.explanation =
        formatCount(found.size(), "append", "appends") +
        " concatenated the new tokens' K or V onto the cache (" + std::to_string(*lengths.begin()) + " to " +
        std::to_string(*lengths.rbegin()) + " tokens before the append, " + std::to_string(longest) +
        " at the most): each torch.cat writes the whole cache again, so the copy grows with the length and "
        "the copies over a generation with its square. They took " +
        formatDuration(time) + (bytes > 0 ? " writing " + formatRate(bytes, "B") : "") + ". The trace's " +
        formatCount(prefill + decode, "attention call", "attention calls") +
        " with a known query length: " + std::to_string(prefill) +
        " prefill (the prompt, many queries a call), " + std::to_string(decode) +
        " decode (one query a generated token).";
    f.suggestion = "Preallocate the cache for the generation's length and write each token in place: in "
                   "transformers generate(..., cache_implementation=\"static\") (a StaticCache, which "
                   "also lets torch.compile capture the decode step); by hand, a [b, h, max_len, d] buffer "
                   "filled with index_copy_ or slicing.";
    Places places = longestFirst(c, std::move(found), [](EventRef, const CacheAppend& a) {
        return "cache of " + std::to_string(a.past[2]) + " tokens + " + std::to_string(a.added[2]) + ": " +
               dimsText(a.past) + " → " +
               dimsText({a.past[0], a.past[1], a.past[2] + a.added[2], a.past[3]}) +
               (a.bytes > 0 ? ", " + formatRate(a.bytes, "B") + " written" : "");
    });
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven, Context::Shown::Always);
}

// Attention written out by hand inside a torch.compile region (the analysis' "compiled" calls): Inductor
// fuses the scale, mask and softmax into kernels of its own (on a CPU not recorded by the profiler at all)
// but leaves the two GEMMs to extern calls, so the N×N scores are still written and read between them; at
// stake the time between the two (the fused softmax's, on the thread that runs it in between).
void compiledAttention(Context& c, std::vector<Finding>& out) {
    std::vector<std::pair<EventRef, std::pair<EventRef, TimeNs>>> pairs; // QKᵀ → (PV, between)
    TimeNs between = 0, gemms = 0;
    double scores = 0; // the N×N scores' elements, written once by each QKᵀ
    for (const AttentionCall& call : c.analysis.calls) {
        if (call.impl != kCompiledImpl || call.kernels.size() != 2) continue;
        const EventRef qk = c.analysis.kernels[call.kernels[0]].event;
        const EventRef pv = c.analysis.kernels[call.kernels[1]].event;
        const TimeNs gap = c.start(pv) - c.end(qk);
        between += gap;
        gemms += c.dur(qk) + c.dur(pv);
        if (const auto in = opInputs(c, qk).dims;
            in && in->size() >= 2 && (*in)[0].size() == 3 && (*in)[1].size() == 3)
            scores += double((*in)[0][0] * (*in)[0][1] * (*in)[1][2]);
        pairs.push_back({qk, {pv, gap}});
    }
    if (pairs.empty()) return;
    std::vector<std::pair<TimeNs, TimeNs>> regions;
    c.forEachEvent(TrackKind::CpuThread, Context::Other, [&](EventRef e, const Track&) {
        if (compiledRegion(c.name(e))) regions.emplace_back(c.start(e), c.end(e));
    });
    c.forEachEvent(TrackKind::CpuThread, Context::CpuOp, [&](EventRef e, const Track&) {
        if (compiledRegion(c.name(e))) regions.emplace_back(c.start(e), c.end(e));
    });
    const TimeNs regionNs = unionLength(regions);
    Finding f =
        c.make("Attention written out inside torch.compile: " + formatCount(pairs.size(), "call", "calls") +
                   " keep their N×N scores in memory",
               between);
    f.explanation =
        "torch.compile regions took " + formatDuration(regionNs) + " (" +
        formatShare(double(regionNs) / double(c.span)) + " of the trace). Inside them " +
        formatCount(pairs.size(), "pair", "pairs") +
        " of batched GEMMs are attention written out: a QKᵀ GEMM writes the scores (" +
        formatCount(std::uint64_t(scores), "score", "scores") +
        " in all) and the next reads them back for PV. Inductor fused the scale, mask and softmax between "
        "them "
        "into kernels of its own (on a CPU the profiler records none of them: each call is its two GEMMs, "
        "and the " +
        formatDuration(between) +
        " between the GEMMs is theirs), but the scores still go through memory; the GEMMs took " +
        formatDuration(gemms) + ".";
    f.suggestion =
        "Call torch.nn.functional.scaled_dot_product_attention inside the compiled model (in transformers "
        "attn_implementation=\"sdpa\"): the compiled graph keeps it as one fused kernel that never writes "
        "the scores.";
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    Places places;
    for (const auto& [qk, pv] : pairs)
        places.emplace_back(qk, "QKᵀ GEMM, then " + formatDuration(pv.second) +
                                    " before its PV GEMM (the fused softmax's time)");
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven, Context::Shown::Always);
}

// Attention computed again in the backward pass: activation checkpointing drops a layer's activations in
// the forward and recomputes them when the backward needs them, attention included. Such a call's host
// range runs inside autograd's evaluation of a backward function ("autograd::engine::evaluate_function:
// …Backward0"), where a call that is not checkpointed never runs (its backward is the backward op, not a
// call). At stake the recomputed calls' kernel time.
void recomputedAttention(Context& c, std::vector<Finding>& out) {
    if (c.analysis.calls.empty()) return;
    std::uint64_t recomputed = 0;
    TimeNs time = 0;
    Places places;
    for (const AttentionCall& call : c.analysis.calls) {
        // Its host range, else its first kernel's innermost op (a call written by hand has no range, and
        // the outermost op around its kernel may be autograd's evaluation itself): in autograd's backward.
        std::optional<EventRef> from = call.scope;
        if (!from && !call.kernels.empty()) {
            const std::vector<EventRef> ops =
                opsAround(c, c.analysis.kernels[call.kernels.front()].event, call);
            if (!ops.empty()) from = ops.front();
        }
        if (!from) continue;
        std::optional<EventRef> backward;
        forEachEnclosingEvent(c.trace, *from, [&](EventRef e) {
            if (c.name(e).starts_with("autograd::engine::evaluate_function:")) backward = e;
            return backward.has_value();
        });
        if (!backward) continue;
        ++recomputed;
        TimeNs kernels = 0;
        for (std::uint32_t k : call.kernels)
            kernels += c.dur(c.analysis.kernels[k].event);
        time += kernels;
        std::string within(
            c.name(*backward).substr(std::string_view("autograd::engine::evaluate_function: ").size()));
        places.emplace_back(*from, call.impl + " call run again inside " + within + " (" +
                                       formatDuration(kernels) + " of kernels)");
    }
    if (recomputed == 0) return;
    Finding f = c.make(formatCount(recomputed, "attention call", "attention calls") +
                           " run again in the backward pass (activation checkpointing)",
                       time);
    f.explanation =
        "Of the trace's " + formatCount(c.analysis.calls.size(), "attention call", "attention calls") + ", " +
        std::to_string(recomputed) +
        " ran inside the backward pass (under autograd's evaluation of a backward function): the forward "
        "recomputed for activation checkpointing, attention included, " +
        formatDuration(time) +
        " of kernel time done a second time. Checkpointing trades this time for the memory of the "
        "activations it does not keep; the calls are counted as calls everywhere, so a step shows more "
        "attention calls than the model has layers.";
    f.suggestion =
        "Where memory allows, checkpoint fewer layers, or keep attention's output with selective activation "
        "checkpointing (torch.utils.checkpoint.create_selective_checkpoint_contexts with a policy that saves "
        "the scaled_dot_product_attention ops), so the backward pass does not run attention again.";
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst, Context::Shown::Always);
}

} // namespace attnscope::findings
