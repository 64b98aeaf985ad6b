// SPDX-License-Identifier: MIT
#include "kernels/whatif.h"

#include "core/analysis/kernel_tables.h"
#include "core/document/document.h"
#include "core/report/format.h"

#include <algorithm>
#include <map>

namespace attnscope::kernels {

WhatIfPlan whatIfPlan(const CallInputs& in, std::vector<std::string> tries, int repeat, std::string python) {
    WhatIfPlan plan;
    RunConfig& c = plan.config;
    c.backend = Backend::Torch;
    const bool all = tries.empty();
    c.impls = all ? torchImpls() : std::move(tries);
    c.shape.batch = int(in.batch ? in.batch : 1);
    c.shape.heads = int(in.heads);
    c.shape.kvHeads = int(in.kvHeads);
    c.shape.seq = int(in.queryLen);
    c.shape.kvLen = in.keyLen == in.queryLen ? 0 : int(in.keyLen);
    c.shape.dim = int(in.headDim);
    c.shape.causal = in.causal;
    c.shape.dtype =
        in.precision == Precision::BF16 || in.precision == Precision::F16 ? in.precision : Precision::F32;
    // Half precision is an alternative only to a call that ran fp32 (asked for, the runner says why not).
    if (all && c.shape.dtype != Precision::F32) std::erase(c.impls, "flash_bf16");
    c.warmup = 1;
    c.iters = repeat;
    c.stepsAfter = true; // the calls timed with nothing of ours beside them
    c.python = std::move(python);
    std::vector<std::string>& notes = plan.notes;
    if (!in.batch)
        notes.push_back("its batch and heads are one number in its matmul: run as batch 1 × " +
                        std::to_string(in.heads) + " heads (the same work)");
    if (!in.optionsKnown && in.masked && in.queryLen == in.keyLen) {
        // A square mask applied by hand is most often the causal one; what kind it was is not recorded.
        c.shape.causal = true;
        notes.push_back(
            "what its mask hides (causal, padding) is not recorded: run causal, as a square mask most "
            "often is");
    } else if (!in.optionsKnown) {
        notes.push_back(in.masked ? "what its mask hides is not recorded: run without a mask"
                                  : "the trace shows no mask between QKᵀ and the softmax: run without one");
    }
    if (!in.mask.empty())
        notes.push_back("its " + in.mask + " attn_mask is not re-created: run " +
                        (in.causal ? std::string("causal") : std::string("without a mask")));
    // Written by hand, the mask applied as the call applied it (its copy, or none, is the call's).
    if (in.maskOp == "aten::masked_fill_")
        c.maskBy = "masked_fill_";
    else if (in.maskOp == "aten::where")
        c.maskBy = "where";
    else if (in.maskOp == "aten::add" || in.maskOp == "aten::add_")
        c.maskBy = "add";
    if (c.shape.causal && !in.maskOp.empty() && in.maskOp != "aten::masked_fill")
        notes.push_back("naive applies its mask as the call did (" + in.maskOp +
                        (c.maskBy == "add" ? ", an additive mask" : "") + ")");
    if (in.dropout > 0) notes.push_back("run without its dropout (the runner runs inference)");
    if (in.precision != Precision::Unknown && in.precision != c.shape.dtype)
        notes.push_back("its " + std::string(precisionName(in.precision)) + " run as fp32");
    return plan;
}

TraceAnalysis sameShapeCalls(const Trace& trace, const TraceAnalysis& a, const AttentionCall& chosen,
                             const CallInputs& inputs) {
    TraceAnalysis out = a;
    std::vector<int> kept(a.calls.size(), -1);
    out.calls.clear();
    for (std::size_t i = 0; i < a.calls.size(); ++i) {
        const AttentionCall& call = a.calls[i];
        if (call.impl != chosen.impl) continue;
        const std::optional<CallInputs> in = callInputs(trace, a, call);
        if (!in || !in->sameShape(inputs)) continue;
        kept[i] = int(out.calls.size());
        out.calls.push_back(call);
    }
    for (KernelAnalysis& k : out.kernels)
        if (k.call >= 0) k.call = kept[std::size_t(k.call)];
    out.tables = kernelTables(trace, out);
    return out;
}

namespace {

// The least, lower quartile, median, upper quartile and most of d (sorted here); the median of an even
// count the mean of the middle two (of two rounds, not the lower one).
std::array<TimeNs, 5> quartiles(std::vector<TimeNs>& d) {
    std::array<TimeNs, 5> q{};
    if (d.empty()) return q;
    std::sort(d.begin(), d.end());
    for (std::size_t i = 0; i < q.size(); ++i)
        q[i] = d[(d.size() - 1) * i / 4];
    if (d.size() % 2 == 0) q[2] = (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;
    return q;
}

} // namespace

std::vector<WhatIfSaving> whatIfSavings(const Document& run, const CompareRow& asItWas,
                                        const std::vector<const CompareRow*>& alternatives,
                                        const CallInputs& recorded) {
    // Each implementation's calls' kernel and host times, in the order they ran: the i-th calls of two ran
    // in one round, side by side.
    struct Times {
        std::vector<TimeNs> kernel;
        std::vector<std::optional<TimeNs>> host;
    };
    std::map<std::string, Times> times;
    std::vector<std::pair<TimeNs, TimeNs>> scratch;
    for (const AttentionCall& c : run.analysis->calls) {
        Times& t = times[c.impl];
        t.kernel.push_back(kernelsTime(*run.trace, *run.analysis, c.kernels, scratch));
        t.host.push_back(callHostNs(*run.trace, c));
    }
    std::vector<WhatIfSaving> out;
    for (const CompareRow* row : alternatives) {
        WhatIfSaving s;
        s.impl = row->impl;
        s.perCall = asItWas.calls.kernelNsPerCall() - row->calls.kernelNsPerCall();
        if (const auto as = asItWas.calls.hostNsPerCall(), alt = row->calls.hostNsPerCall(); as && alt)
            s.hostPerCall = *as - *alt;
        s.fused = row->roles.ns[std::size_t(KernelRole::FusedAttention)] > 0 && row->inputs &&
                  row->inputs->precision == recorded.precision;
        const auto as = times.find(asItWas.impl), alt = times.find(row->impl);
        std::vector<TimeNs> d, host;
        if (as != times.end() && alt != times.end())
            for (std::size_t i = 0; i < std::min(as->second.kernel.size(), alt->second.kernel.size()); ++i) {
                d.push_back(as->second.kernel[i] - alt->second.kernel[i]);
                if (as->second.host[i] && alt->second.host[i])
                    host.push_back(*as->second.host[i] - *alt->second.host[i]);
            }
        s.rounds = d.size();
        s.pairs = quartiles(d);
        if (s.hostPerCall) {
            s.hostRounds = host.size();
            s.hostPairs = quartiles(host);
        }
        out.push_back(s);
    }
    return out;
}

std::string whatIfSavingText(const WhatIfSaving& s, std::uint64_t callsInTrace, std::size_t steps) {
    auto signedDuration = [](TimeNs ns) { return (ns < 0 ? "-" : "") + formatDuration(ns < 0 ? -ns : ns); };
    const TimeNs size = s.perCall < 0 ? -s.perCall : s.perCall;
    std::string out = formatDuration(size) + " a call " + (s.perCall >= 0 ? "less" : "more") + " (" +
                      formatDuration(size * TimeNs(callsInTrace)) + " over the trace's " +
                      formatCount(callsInTrace, "call", "calls") +
                      (steps ? ", " + formatDuration(savingPerStep(size, callsInTrace, steps)) + " a step over its " +
                                   formatCount(steps, "step", "steps")
                             : std::string()) +
                      ")";
    // The spread: the pairs of calls that ran in one round, what they saved at the median, and from the
    // least to the most (negative: cost).
    if (s.rounds > 1)
        out += "; over " + std::to_string(s.rounds) + " rounds " + signedDuration(s.pairs[2]) +
               " at the median (" + signedDuration(s.pairs[0]) + " to " + signedDuration(s.pairs[4]) + ")" +
               (s.withinNoise() ? ", within the noise" : "");
    if (s.hostPerCall) {
        out += "; on the host " + formatDuration(*s.hostPerCall < 0 ? -*s.hostPerCall : *s.hostPerCall) +
               " a call " + (*s.hostPerCall >= 0 ? "less" : "more") + " (the calls' ranges)";
        if (s.hostRounds > 1)
            out += ", " + signedDuration(s.hostPairs[2]) + " at the median (" + signedDuration(s.hostPairs[0]) +
                   " to " + signedDuration(s.hostPairs[4]) + ")";
    }
    return out;
}

const WhatIfSaving* fusedSaving(const std::vector<WhatIfSaving>& savings) {
    const WhatIfSaving* fused = nullptr;
    for (const WhatIfSaving& saving : savings)
        if (saving.fused && (!fused || saving.perCall > fused->perCall)) fused = &saving;
    return fused;
}

const WhatIfSaving* learnWhatIf(CompareRow& recorded, const std::vector<WhatIfSaving>& savings,
                                std::uint64_t calls) {
    const WhatIfSaving* fused = fusedSaving(savings);
    if (fused) learnSaving(recorded, fused->impl, fused->perCall, calls, "here");
    return fused;
}

} // namespace attnscope::kernels
