// SPDX-License-Identifier: MIT
#include "call_inputs.h"

#include "core/model/op_args.h"
#include "core/model/run_args.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace attnscope {

namespace {

// AttnScope's own run: its kernels carry the workload's shape.
std::optional<CallInputs> fromRunArgs(const Trace& trace, EventRef kernel) {
    CallInputs in;
    bool any = false;
    trace.forEachArg(kernel, [&](std::string_view key, std::string_view value) {
        const std::string v(value);
        auto number = [&] { return std::int64_t(std::atoll(v.c_str())); };
        if (key == runargs::kBatch) in.batch = number(), any = true;
        if (key == runargs::kHeads) in.heads = number();
        if (key == runargs::kKvHeads) in.kvHeads = number();
        if (key == runargs::kSeq) in.queryLen = number();
        if (key == runargs::kKvLen) in.keyLen = number();
        if (key == runargs::kDim) in.headDim = number();
        if (key == runargs::kCausal) in.causal = value == "true";
        if (key == runargs::kDtype && value.size() >= 2)
            in.precision = precisionNamed(value.substr(1, value.size() - 2));
    });
    if (!any || in.headDim <= 0) return std::nullopt;
    if (in.kvHeads == in.heads) in.kvHeads = 0;
    in.optionsKnown = true;
    in.from = "run args";
    return in;
}

// An SDPA op: (query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa), query [B, H, N, D].
std::optional<CallInputs> fromSdpa(const Trace& trace, EventRef op) {
    const OpInputs a = opInputs(trace, op);
    if (!a.dims || a.dims->size() < 3) return std::nullopt;
    const auto& q = (*a.dims)[0];
    const auto& k = (*a.dims)[1];
    if (q.size() != 4 || k.size() != 4) return std::nullopt;
    CallInputs in;
    in.batch = q[0];
    in.heads = q[1];
    in.kvHeads = k[1] == q[1] ? 0 : k[1];
    in.queryLen = q[2];
    in.keyLen = k[2];
    in.headDim = q[3];
    if (!a.types.empty()) in.precision = precisionNamed(a.types[0]);
    in.from = std::string(trace.str(trace.track(op.track).events.name[op.index]));
    if (a.dims->size() > 3 && !(*a.dims)[3].empty())
        in.mask = a.types.size() > 3 && !a.types[3].empty() ? a.types[3] : "tensor";
    if (a.concrete.size() > 5) {
        in.optionsKnown = true;
        in.dropout = std::atof(a.concrete[4].c_str());
        in.causal = a.concrete[5] == "True";
        in.enableGqa = a.concrete.size() > 7 && a.concrete[7] == "True";
    }
    // One token decoded with grouped K/V and a mask: transformers packs each K/V head's query heads as that
    // many queries ([B, KV heads, query heads per KV head, D]) against a mask of one query row, broadcast
    // over them. Queries decoded together need a causal mask of as many rows, so one row over several
    // "queries" and a longer cache are one query of more heads.
    const auto* mask = a.dims->size() > 3 ? &(*a.dims)[3] : nullptr;
    if (mask && mask->size() == 4 && (*mask)[2] == 1 && q[2] > 1 && k[2] > q[2] && !in.causal &&
        !in.kvHeads) {
        in.kvHeads = q[1];
        in.heads = q[1] * q[2];
        in.queryLen = 1;
    }
    return in;
}

// The op of a QKᵀ GEMM: q [.., N, D] × kᵀ [.., D, Nk], 4-D (matmul) or 3-D (bmm: batch × heads).
std::optional<CallInputs> fromQkGemm(const Trace& trace, EventRef op) {
    const OpInputs a = opInputs(trace, op);
    if (!a.dims || a.dims->size() < 2) return std::nullopt;
    const auto& q = (*a.dims)[0];
    const auto& k = (*a.dims)[1];
    if (q.size() < 3 || q.size() != k.size() || q[q.size() - 1] != k[k.size() - 2]) return std::nullopt;
    CallInputs in;
    if (q.size() == 4) {
        in.batch = q[0];
        in.heads = q[1];
    } else {
        in.heads = q[0];
    }
    in.queryLen = q[q.size() - 2];
    in.headDim = q.back();
    in.keyLen = k.back();
    if (!a.types.empty()) in.precision = precisionNamed(a.types[0]);
    in.from = std::string(trace.str(trace.track(op.track).events.name[op.index]));
    return in;
}

bool isSdpa(std::string_view name) {
    return name == "aten::scaled_dot_product_attention";
}

} // namespace

std::string CallInputs::text() const {
    std::string s = batch ? "batch " + std::to_string(batch) + " × " + std::to_string(heads) + " heads"
                          : std::to_string(heads) + " batch × heads";
    if (kvHeads) s += " (" + std::to_string(kvHeads) + " KV)";
    s += " · " + std::to_string(queryLen) + (queryLen == 1 ? " query" : " queries") + " × " +
         std::to_string(keyLen) + (keyLen == 1 ? " key" : " keys") + " · head dim " + std::to_string(headDim);
    if (precision != Precision::Unknown) s += " · " + std::string(precisionName(precision));
    if (causal) s += " · causal";
    if (!mask.empty()) s += " · " + mask + " mask";
    if (dropout > 0) {
        char d[32];
        std::snprintf(d, sizeof d, "%g", dropout);
        s += std::string(" · dropout ") + d;
    }
    if (enableGqa) s += " · enable_gqa";
    if (masked) s += " · masked";
    return s;
}

bool CallInputs::sameShape(const CallInputs& o) const {
    const std::int64_t rows = batch ? batch * heads : heads,
                       otherRows = o.batch ? o.batch * o.heads : o.heads;
    return rows == otherRows && queryLen == o.queryLen && keyLen == o.keyLen && headDim == o.headDim &&
           (precision == o.precision || precision == Precision::Unknown || o.precision == Precision::Unknown);
}

std::optional<CallInputs> callInputs(const Trace& trace, const TraceAnalysis& a, const AttentionCall& call) {
    if (call.kernels.empty()) return std::nullopt;
    if (auto run = fromRunArgs(trace, a.kernels[call.kernels.front()].event)) return run;
    // The SDPA op: the call's range, one around it, or one inside it (the range a record_function).
    if (call.scope) {
        std::optional<CallInputs> found;
        const EventRef scope = *call.scope;
        auto tryOp = [&](EventRef e) {
            if (!found && isSdpa(trace.str(trace.track(e.track).events.name[e.index])))
                found = fromSdpa(trace, e);
            return found.has_value();
        };
        if (!tryOp(scope)) forEachEnclosingEvent(trace, scope, tryOp);
        const Track& t = trace.track(scope.track);
        for (std::uint32_t j = scope.index + 1;
             !found && j < t.size() && t.events.start[j] < t.end(scope.index); ++j)
            tryOp({scope.track, j});
        if (found) return found;
    }
    // Written by hand: the QKᵀ GEMM's op (a CPU trace's kernel is the op itself), and whether a mask is
    // applied between it and the softmax (the op of a kernel, or the kernel itself on a CPU trace).
    std::optional<CallInputs> in;
    for (std::uint32_t k : call.kernels) {
        const KernelAnalysis& ka = a.kernels[k];
        if (ka.role != KernelRole::QkGemm) continue;
        for (const std::optional<EventRef>& op : {ka.costOp, std::optional<EventRef>(ka.event)})
            if (op && !in) in = fromQkGemm(trace, *op);
        break;
    }
    if (!in) return std::nullopt;
    // masked_fill or where; or an additive mask (transformers' eager attention adds its causal mask): an
    // add of the scores and a tensor broadcast over the heads ([B, 1, N, Nk]).
    auto masks = [&](EventRef e) {
        const std::string_view n = trace.str(trace.track(e.track).events.name[e.index]);
        if (n.starts_with("aten::masked_fill") || n == "aten::where") return true;
        if (n != "aten::add" && n != "aten::add_") return false;
        const OpInputs args = opInputs(trace, e);
        if (!args.dims || args.dims->size() < 2) return false;
        const auto& x = (*args.dims)[0];
        const auto& m = (*args.dims)[1];
        return x.size() == 4 && m.size() == 4 && m[1] == 1 && x[1] > 1 && m[2] == x[2] && m[3] == x[3];
    };
    for (std::uint32_t k : call.kernels) {
        const EventRef e = a.kernels[k].event;
        if (a.kernels[k].role != KernelRole::Softmax && a.kernels[k].role != KernelRole::Elementwise)
            continue;
        std::optional<EventRef> by = masks(e) ? std::optional(e) : std::nullopt;
        if (const auto launch = trace.launchOf(e); launch && !by)
            forEachEnclosingEvent(trace, *launch, [&](EventRef op) {
                if (masks(op)) by = op;
                return by.has_value();
            });
        if (!by) continue;
        in->masked = true;
        // The outermost mask op around the kernel (masked_fill around the masked_fill_ it runs in place).
        std::string name(trace.str(trace.track(by->track).events.name[by->index]));
        forEachEnclosingEvent(trace, *by, [&](EventRef op) {
            if (!masks(op)) return true;
            name = trace.str(trace.track(op.track).events.name[op.index]);
            return false;
        });
        if (in->maskOp.empty()) in->maskOp = name;
    }
    return in;
}

} // namespace attnscope
