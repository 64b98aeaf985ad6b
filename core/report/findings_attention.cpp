// SPDX-License-Identifier: MIT
// The rules that know attention: attention written by hand, SDPA on its math backend, casts and
// copies around attention, and kernels too small to fill the device.
#include "core/analysis/call_inputs.h"
#include "core/analysis/op_cost.h"
#include "core/model/kineto_args.h"
#include "core/report/findings_rules.h"
#include "core/report/format.h"
#include "core/report/summary.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace attnscope::findings {

namespace {

std::string bytesText(double bytes) {
    return formatRate(bytes, "B");
}

// The attention ops of a trace: SDPA and its backends, FlashAttention's own ops.
bool isAttentionOpName(std::string_view n) {
    return n.find("scaled_dot_product") != std::string_view::npos ||
           n.find("flash_attn") != std::string_view::npos ||
           n.find("_flash_attention") != std::string_view::npos ||
           n.find("_efficient_attention") != std::string_view::npos;
}

bool isCastOpName(std::string_view n) {
    return n == "aten::to" || n == "aten::_to_copy" || n == "aten::copy_" || n == "aten::contiguous" ||
           n == "aten::clone";
}

} // namespace

// 1. Naive calls: the memory-bound scale/mask/softmax kernels between the two GEMMs, and what one fused
// kernel would take at the device's roofs.
namespace {

// The time a call's kernels ran, overlaps counted once: a call's kernel time, as every table has it.
TimeNs callKernelNs(const Context& c, const AttentionCall& call) {
    std::vector<std::pair<TimeNs, TimeNs>> ran;
    for (std::uint32_t k : call.kernels)
        ran.emplace_back(c.start(c.analysis.kernels[k].event), c.end(c.analysis.kernels[k].event));
    return unionLength(ran);
}

// The fused calls of a trace, by implementation, each with what it computes: where the trace also holds
// calls written by hand of the same shape (a run of naive and flash, a comparison run), the fused calls'
// measured time is what a fused kernel would take, not an estimate from the roofs.
struct FusedMeasure {
    std::string impl;
    CallInputs inputs;
    TimeNs kernelNs = 0;
    std::uint64_t calls = 0;
    TimeNs perCall() const { return calls ? kernelNs / TimeNs(calls) : 0; }
};

std::vector<FusedMeasure> fusedMeasures(const Context& c) {
    std::vector<FusedMeasure> out;
    for (const AttentionCall& call : c.analysis.calls) {
        const bool fused = std::any_of(call.kernels.begin(), call.kernels.end(), [&](std::uint32_t k) {
            return c.analysis.kernels[k].role == KernelRole::FusedAttention;
        });
        if (!fused) continue;
        const std::optional<CallInputs> in = callInputs(c.trace, c.analysis, call);
        if (!in) continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const FusedMeasure& m) {
            return m.impl == call.impl && m.inputs.sameShape(*in) && m.inputs.causal == in->causal;
        });
        if (it == out.end()) it = out.insert(out.end(), FusedMeasure{call.impl, *in});
        it->kernelNs += callKernelNs(c, call);
        ++it->calls;
    }
    return out;
}

} // namespace

// Hand-written: the scores go through a softmax kernel of their own (own runs name their implementations
// as they like; the analysis calls recognized chains "naive"). SDPA's math backend makes the same chain
// ("SDPA math"): sdpa_math_fallback says that, with its reasons.
bool writtenByHand(const TraceAnalysis& a, const AttentionCall& call) {
    return !call.kernels.empty() && call.impl != kSdpaMathImpl &&
           std::any_of(call.kernels.begin(), call.kernels.end(),
                       [&](std::uint32_t k) { return a.kernels[k].role == KernelRole::Softmax; });
}

void handWrittenAttention(Context& c, std::vector<Finding>& out) {
    std::uint64_t calls = 0;
    TimeNs callNs = 0, kernelNs = 0, scoreNs = 0, saving = 0;
    double scoreBytes = 0;
    std::uint64_t estimated = 0;
    // Measured: each call's kernel time against the fastest fused implementation's calls of its shape in
    // this trace (the saving of them all, and which fused calls it was measured against).
    std::optional<std::vector<FusedMeasure>> fused;
    TimeNs measuredSaving = 0, measuredNaiveNs = 0;
    std::uint64_t measured = 0;
    const FusedMeasure* measuredAgainst = nullptr;
    std::vector<std::pair<TimeNs, TimeNs>> allRan;   // every naive call's kernels' intervals
    bool costsUnknown = false, roofsUnknown = false; // why a call's fused time could not be estimated
    Places places;
    for (const AttentionCall& call : c.analysis.calls) {
        if (!writtenByHand(c.analysis, call)) continue;
        ++calls;
        callNs += call.duration();
        double gemmFlops = 0, gemmBytes = 0, scoresMoved = 0;
        bool costed = true;
        TimeNs kernelsNs = 0;
        std::vector<std::pair<TimeNs, TimeNs>> ran; // the call's kernels' intervals
        Precision precision = Precision::Unknown;
        const DeviceSpec* roofs = nullptr;
        for (std::uint32_t k : call.kernels) {
            const KernelAnalysis& ka = c.analysis.kernels[k];
            kernelsNs += c.dur(ka.event);
            ran.emplace_back(c.start(ka.event), c.end(ka.event));
            allRan.emplace_back(c.start(ka.event), c.end(ka.event));
            costed = costed && ka.cost != CostSource::Unknown;
            if (ka.role == KernelRole::QkGemm || ka.role == KernelRole::PvGemm) {
                gemmFlops += ka.flops;
                gemmBytes += ka.bytes;
                if (precision == Precision::Unknown) precision = ka.precision;
                if (!roofs) roofs = c.analysis.roofsOf(c.trace, ka.event);
            } else if (ka.role == KernelRole::Softmax) { // scale, mask and softmax of the scores
                scoreNs += c.dur(ka.event);
                scoresMoved += ka.bytes;
                places.emplace_back(ka.event, std::string(roleLabel(ka.role)) + " of a naive call");
            }
        }
        scoreBytes += scoresMoved;
        kernelNs += kernelsNs;
        if (!fused) fused = fusedMeasures(c);
        if (!fused->empty())
            if (const std::optional<CallInputs> in = callInputs(c.trace, c.analysis, call)) {
                const FusedMeasure* best = nullptr;
                for (const FusedMeasure& m : *fused)
                    if (m.inputs.sameShape(*in) && (!in->optionsKnown || m.inputs.causal == in->causal) &&
                        (!best || m.perCall() < best->perCall()))
                        best = &m;
                if (best) {
                    const TimeNs naive = unionLength(ran);
                    measuredSaving += std::max<TimeNs>(0, naive - best->perCall());
                    measuredNaiveNs += naive;
                    ++measured;
                    if (!measuredAgainst || best->perCall() < measuredAgainst->perCall())
                        measuredAgainst = best;
                }
            }
        // A fused kernel reads Q, K, V and writes O once: the GEMMs' traffic without the scores, which the
        // QKᵀ GEMM wrote and the PV GEMM read (each as much as the softmax reads, half its traffic).
        costsUnknown = costsUnknown || !costed;
        roofsUnknown = roofsUnknown || !roofs || roofs->bandwidth <= 0 || roofs->peak(precision) <= 0;
        if (costed && roofs && roofs->bandwidth > 0 && roofs->peak(precision) > 0 && scoresMoved > 0) {
            const double fusedBytes = std::max(0.0, gemmBytes - scoresMoved);
            const double fusedNs =
                1e9 * std::max(gemmFlops / roofs->peak(precision), fusedBytes / roofs->bandwidth);
            // In the time the call's kernels ran: they may run side by side (a CPU run's workers), so the
            // share of kernel time saved is applied to that time, overlaps counted once.
            if (kernelsNs > 0)
                saving += TimeNs(double(unionLength(ran)) * std::max(0.0, 1 - fusedNs / double(kernelsNs)));
            ++estimated;
        }
    }
    if (calls == 0) return;
    // Calls on several streams at once save no more than the time their kernels ran, together.
    const TimeNs ranNs = unionLength(allRan);
    saving = std::min(saving, ranNs);
    measuredSaving = std::min(measuredSaving, ranNs);
    const bool allEstimated = estimated == calls;
    // A measured saving beats an estimated one: every call measured against fused calls of its shape.
    const bool allMeasured = measured == calls && measuredAgainst;
    Finding f =
        c.make("Attention written by hand: " + formatCount(calls, "call materializes", "calls materialize") +
                   " the N×N scores",
               allMeasured    ? measuredSaving
               : allEstimated ? saving
                              : scoreNs);
    f.measured = allMeasured;
    f.explanation =
        formatCount(calls, "naive attention call", "naive attention calls") +
        " (QKᵀ GEMM, softmax, PV GEMM as separate kernels) took " + formatDuration(callNs) +
        "; of their kernels' time (" + formatDuration(kernelNs) +
        ", summed over the threads or "
        "streams that ran them) " +
        formatDuration(scoreNs) + " went to the scale/mask/softmax kernels between the GEMMs" +
        (scoreBytes > 0 ? ", which moved " + bytesText(scoreBytes) + " of scores through memory" : "") +
        ". Those kernels do little arithmetic per byte, so they run at memory speed, and the N×N scores "
        "grow with the square of the sequence.";
    if (allMeasured)
        f.explanation +=
            " Measured in this trace: " + measuredAgainst->impl + "'s " +
            formatCount(measuredAgainst->calls, "call", "calls") + " of the same shape (" +
            measuredAgainst->inputs.text() + ") took " + formatDuration(measuredAgainst->perCall()) +
            " a call against the naive calls' " + formatDuration(measuredNaiveNs / TimeNs(calls)) +
            (measuredSaving > 0
                 ? ": " + formatDuration(measuredSaving) + " less over the " +
                       formatCount(calls, "call", "calls") + " (the time at stake, measured" +
                       (allEstimated ? "; the roofs' best case would be " + formatDuration(saving)
                                     : std::string()) +
                       ")."
                 : std::string(
                       ": at these shapes, on this device, the fused kernel saves nothing (no time at "
                       "stake, measured; the scores still grow with the square of the sequence)."));
    else if (allEstimated)
        f.explanation += " At the device's roofs a fused kernel would do the same work in " +
                         formatDuration(callNs - saving) + ": about " + formatDuration(saving) +
                         " less (the time at stake; a best case, as no kernel reaches its roofs).";
    else
        f.explanation += std::string(" The time at stake is the scale/mask/softmax time (") +
                         (costsUnknown && roofsUnknown ? "the costs of some of the calls' kernels and the "
                                                         "device's roofs are"
                          : costsUnknown               ? "the costs of some of the calls' kernels, ops "
                                                         "AttnScope does not model, are"
                                                       : "the device's roofs are") +
                         " not known, so the fused kernel's time is not estimated).";
    f.suggestion =
        "Use torch.nn.functional.scaled_dot_product_attention (its flash and memory-efficient "
        "backends) or FlashAttention: one fused kernel keeps the scores on chip (in cache on a CPU) and "
        "reads Q, K and V once.";
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst,
           Context::Shown::Always); // always: the fused kernel is the fix whatever the share
}

// 2. SDPA on its math backend: the _math op (or an SDPA op launching far more kernels than a fused
// one), its kernels per call, and the reasons its inputs give.
namespace {

// Whether an op holds one of the analysis' calls: GPU work it launched, or (a CPU trace) an op kernel
// inside it, in a call.
bool holdsACall(const Context& c, EventRef op, const std::vector<EventRef>& work) {
    auto inCall = [&](EventRef e) {
        const KernelAnalysis* k = c.analysis.find(e);
        return k && k->call >= 0;
    };
    if (std::any_of(work.begin(), work.end(), inCall)) return true;
    const Track& t = c.trace.track(op.track);
    for (std::uint32_t j = op.index + 1; j < t.size() && t.events.start[j] < t.end(op.index); ++j)
        if (inCall({op.track, j})) return true;
    return false;
}

} // namespace

void sdpaMathFallback(Context& c, std::vector<Finding>& out) {
    const double manyKernels = c.th["math_fallback_kernels_per_call"];
    std::uint64_t calls = 0, kernels = 0;
    TimeNs time = 0;
    Places places;
    std::map<std::string, std::uint64_t> reasons;
    // No input rules the fused backend out: the math backend was pinned (the post's sdpa_kernel).
    static constexpr const char* kChosenMath =
        "nothing in the inputs rules out the CPU's flash backend, so the math backend was chosen by "
        "torch.nn.attention.sdpa_kernel or torch.backends settings";
    bool chosen = false;
    c.forEachEvent(TrackKind::CpuThread, Context::CpuOp, [&](EventRef e, const Track& track) {
        const std::uint32_t i = e.index;
        const std::string_view n = c.name(e);
        const bool math = n.starts_with("aten::_scaled_dot_product_attention_math");
        if (!math && n != "aten::scaled_dot_product_attention") return;
        const std::vector<EventRef> work = c.gpuWorkUnder(e);
        // Only the calls the analysis counts (a warm-up call is none): every view then counts the same.
        if (!holdsACall(c, e, work)) return;
        if (!math) {
            // The public op: a fallback when it launched many kernels and no _math op says so below it.
            bool hasMathChild = false;
            for (std::uint32_t j = i + 1; j < track.size() && track.events.start[j] < track.end(i); ++j)
                hasMathChild = hasMathChild ||
                               c.name({e.track, j}).starts_with("aten::_scaled_dot_product_attention_math");
            if (hasMathChild || double(work.size()) < manyKernels) return;
        }
        ++calls;
        kernels += work.size();
        time += work.empty() ? c.dur(e) : c.totalDuration(work); // a CPU trace: the op itself is the work
        // The reasons are read from the public op around it, which has the user's inputs.
        EventRef inputsOf = e;
        forEachEnclosingEvent(c.trace, e, [&](EventRef p) {
            if (c.name(p) != "aten::scaled_dot_product_attention") return false;
            inputsOf = p;
            return true;
        });
        const OpInputs in = opInputs(c, inputsOf);
        const auto& d = in.dims;
        const auto& ty = in.types;
        const auto& con = in.concrete;
        std::string why;
        auto reason = [&](std::string r) {
            why += (why.empty() ? "" : "; ") + r;
            ++reasons[r];
        };
        const bool cpu = c.trace.info().opKernels > 0; // its flash backend takes fp32, any head dim
        if (!cpu && !ty.empty() && (ty[0] == "float" || ty[0] == "double"))
            reason(ty[0] == "float" ? "fp32 inputs (the flash backend takes fp16/bf16 only)"
                                    : "fp64 inputs (only the math backend takes them)");
        if (!cpu && d && !d->empty() && !(*d)[0].empty() && (*d)[0].back() > 256)
            reason("head dim " + std::to_string((*d)[0].back()) + " (flash takes at most 256)");
        if (!cpu && d && d->size() > 3 && !(*d)[3].empty())
            reason("an explicit attn_mask (flash takes none)");
        if (con.size() > 4 && !con[4].empty() && std::atof(con[4].c_str()) != 0)
            reason("dropout_p " + formatNumber(std::atof(con[4].c_str())) + " (training)");
        if (cpu && why.empty()) {
            reason(kChosenMath);
            chosen = true;
        }
        places.emplace_back(e, std::to_string(work.size()) + " kernels" + (why.empty() ? "" : ": " + why));
    });
    if (calls == 0) return;
    const bool cpu = c.trace.info().opKernels > 0;
    const bool dropoutOnly =
        !reasons.empty() && std::all_of(reasons.begin(), reasons.end(),
                                        [](const auto& r) { return r.first.starts_with("dropout_p "); });
    Finding f = c.make("scaled_dot_product_attention fell back to its math backend in " +
                           formatCount(calls, "call", "calls"),
                       time);
    f.explanation = formatCount(calls, "SDPA call", "SDPA calls") +
                    " ran on the math backend: " + oneDecimal(double(kernels) / double(calls)) +
                    " kernels per call (a fused backend runs one), " + formatDuration(time) +
                    (kernels ? " of kernel time" : " in the op") +
                    ". The math backend is attention written out op by op: it materializes the N×N scores.";
    if (reasons.empty()) {
        f.explanation +=
            " The trace does not record the op's inputs (record_shapes), so the reason is not known.";
    } else {
        f.explanation += " What the inputs show:";
        for (const auto& [r, n] : reasons)
            f.explanation += " " + r + " (" + formatCount(n, "call", "calls") + ");";
        f.explanation.back() = '.';
    }
    f.suggestion =
        chosen && reasons.size() == 1
            ? "Remove the pin to SDPBackend.MATH (sdpa_kernel, or "
              "torch.backends.cuda.enable_flash_sdp(False) "
              "and the like): with these inputs SDPA takes its flash backend, one op a call."
        : cpu && dropoutOnly
            ? "On a CPU SDPA's flash backend takes no dropout: train with the attention dropout at 0 "
              "(attention_dropout=0.0 in transformers, as most language models are trained), or on a GPU, "
              "where the flash and memory-efficient backends apply dropout inside their kernels."
            : "Give SDPA inputs a fused backend takes (fp16/bf16, head dim ≤ 256, is_causal instead of a "
              "causal mask, no dropout at inference), and check with torch.nn.attention.sdpa_kernel("
              "SDPBackend.FLASH_ATTENTION) that it is taken: it raises the reason when it is not.";
    f.explanation +=
        " Its time holds the casts, the mask and _safe_softmax's kernels (math_upcast, mask_per_call, "
        "safe_softmax and unexpected_kernels, where shown): those findings are parts of this one, not time "
        "besides it.";
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst,
           Context::Shown::Always); // always
}

// 3. Casts and copies inside attention ops or right before them (on the same thread).
void castsAndCopies(Context& c, std::vector<Finding>& out) {
    const TimeNs window = TimeNs(c.th["casts_window_us"] * 1000);
    std::uint64_t count = 0;
    TimeNs time = 0;
    double bytes = 0;
    Places places;
    std::map<std::string, std::uint64_t> byOp;
    // What each op name is, read once per name rather than once per event: 1 attention, 2 cast.
    std::vector<std::uint8_t> nameKind(c.trace.strings().size(), 0xff);
    auto kindOf = [&](const Track& track, std::uint32_t i) {
        std::uint8_t& k = nameKind[track.events.name[i].value];
        if (k == 0xff) {
            const std::string_view name = c.trace.str(track.events.name[i]);
            k = isAttentionOpName(name) ? 1 : isCastOpName(name) ? 2 : 0;
        }
        return k;
    };
    for (std::uint32_t t = 0; t < c.trace.tracks().size(); ++t) {
        const Track& track = c.trace.tracks()[t];
        if (track.kind != TrackKind::CpuThread) continue;
        // The attention ops' starts and ends on this thread (outermost only), by start.
        std::vector<std::pair<TimeNs, TimeNs>> attention;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const EventRef e{TrackId(t), i};
            if (kindOf(track, i) != 1 || c.kind(e) != Context::CpuOp) continue;
            if (!attention.empty() && track.events.start[i] < attention.back().second) continue;
            attention.emplace_back(track.events.start[i], track.end(i));
        }
        if (attention.empty()) continue;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const EventRef e{TrackId(t), i};
            if (kindOf(track, i) != 2 || c.kind(e) != Context::CpuOp) continue;
            // Only the outermost of nested casts (aten::to → _to_copy → copy_) counts: a cast whose
            // innermost enclosing op is a cast is inside one (the walk stops there, not at the step).
            bool nested = false;
            forEachEnclosingEvent(c.trace, e, [&](EventRef p) {
                if (c.kind(p) != Context::CpuOp) return false;
                nested = isCastOpName(c.name(p));
                return true;
            });
            if (nested) continue;
            // Casts inside SDPA's math backend are its upcast: math_upcast says so, with their reason.
            if (forEachEnclosingEvent(c.trace, e, [&](EventRef p) {
                    return c.name(p).starts_with("aten::_scaled_dot_product_attention_math");
                }))
                continue;
            // A copy that repeats K/V heads for grouped-query attention is repeated_kv_heads' (its time
            // claimed once).
            if (forEachEnclosingEvent(c.trace, e, [&](EventRef p) { return repeatsKvHeads(c, p); })) continue;
            const TimeNs s = track.events.start[i], end = track.end(i);
            // The first attention op that ends after this cast starts: inside it, or starting soon after.
            const auto next = std::lower_bound(attention.begin(), attention.end(), s,
                                               [](const auto& a, TimeNs v) { return a.second <= v; });
            if (next == attention.end()) continue;
            const bool inside = next->first <= s && end <= next->second;
            const bool before = end <= next->first && next->first - end <= window;
            if (!inside && !before) continue;
            const std::vector<EventRef> work = c.gpuWorkUnder(e);
            // An op that copied nothing (a cast to the dtype it had, .contiguous() of a contiguous
            // tensor) is not counted: on a GPU it launched no work; on a CPU no copy_ ran inside it.
            if (work.empty()) {
                if (!c.gpuBusy().empty()) continue;
                bool copied = c.name(e) == "aten::copy_" || c.name(e) == "aten::clone";
                for (std::uint32_t j = i + 1; !copied && j < track.size() && track.events.start[j] < end; ++j)
                    copied = track.events.depth[j] > track.events.depth[i] &&
                             c.name({TrackId(t), j}) == "aten::copy_";
                if (!copied) continue;
            }
            ++count;
            time += work.empty() ? track.events.duration[i] : c.totalDuration(work);
            const OpInputs in = opInputs(c, e);
            const auto& d = in.dims;
            const auto& ty = in.types;
            if (d && !d->empty()) {
                double n = 1;
                for (std::int64_t x : (*d)[0])
                    n *= double(x);
                const int size = ty.empty() ? 4 : precisionBytes(precisionNamed(ty[0]));
                bytes += 2 * n * size; // read once, written once
            }
            ++byOp[std::string(c.name(e))];
            places.emplace_back(e, inside ? "inside an attention op" : "right before an attention op");
        }
    }
    if (count == 0) return;
    Finding f =
        c.make(formatCount(count, "cast or copy", "casts and copies") + " around attention calls", time);
    f.explanation = "Cast and copy ops inside attention ops or at most " + formatDuration(window) +
                    " before one took " + formatDuration(time) +
                    (bytes > 0 ? " and moved about " + bytesText(bytes) : "") + ":";
    for (const auto& [op, n] : byOp)
        f.explanation += " " + op + " ×" + std::to_string(n) + ",";
    f.explanation.back() = '.';
    f.explanation += " Each reads and writes a whole tensor at memory speed, and a dtype cast before a fused "
                     "kernel often means it runs at a precision the model does not need.";
    f.suggestion =
        "Keep Q, K and V in the dtype the attention kernel takes from the projection on (autocast, "
        "or the model's dtype), and pass transposed views to SDPA instead of .contiguous() copies: "
        "its fused backends take strided inputs whose last dimension is contiguous.";
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst);
}

// 8. Latency-bound kernels: under 10% of both roofs, holding a real share of the kernel time.
void latencyBound(Context& c, std::vector<Finding>& out) {
    TimeNs kernelNs = 0, latencyNs = 0;
    std::uint64_t count = 0;
    bool onGpu = false; // the words fit the device: a CPU's ops are not told about CUDA graphs
    Places places;
    std::vector<std::pair<TimeNs, TimeNs>> intervals;                           // the latency-bound kernels'
    std::unordered_map<std::uint32_t, std::pair<std::uint64_t, TimeNs>> byName; // name id → kernels, time
    auto nameId = [&](EventRef e) { return c.trace.track(e.track).events.name[e.index].value; };
    for (const KernelAnalysis& k : c.analysis.kernels) {
        if (c.kind(k.event) == Context::Copy) continue;
        kernelNs += c.dur(k.event);
        if (k.verdict != Verdict::LatencyBound) continue;
        onGpu = onGpu || !isCpuTrack(c.trace, k.event.track);
        latencyNs += c.dur(k.event);
        intervals.emplace_back(c.start(k.event), c.end(k.event));
        ++count;
        auto& n = byName[nameId(k.event)];
        if (n.first++ == 0) places.emplace_back(k.event, ""); // one place per name: its first kernel
        n.second += c.dur(k.event);
    }
    if (count == 0 || double(latencyNs) < c.th["latency_bound_min_kernel_share"] * double(kernelNs)) return;
    for (auto& [e, note] : places) {
        const auto& n = byName[nameId(e)];
        note = formatCount(n.first, "kernel", "kernels") + ", " + formatDuration(n.second) + " in all";
    }
    std::stable_sort(places.begin(), places.end(), [&](const auto& a, const auto& b) {
        return byName[nameId(a.first)].second > byName[nameId(b.first)].second;
    });
    // At stake: the time they ran, kernels on several streams at once counted once (their sum can exceed
    // the trace's span).
    const TimeNs wallNs = unionLength(intervals);
    Finding f = c.make(formatCount(count, "kernel is", "kernels are") + " latency-bound", wallNs);
    f.explanation =
        formatCount(count, "kernel", "kernels") + " (" + std::to_string(byName.size()) +
        " names), each with work its roofs would do in under " +
        formatDuration(TimeNs(kLatencyWorkSeconds * 1e9)) + ", reached under " +
        formatShare(kLatencyBoundShare) + " of the roof that limits it, and took " +
        formatDuration(latencyNs) + ", " + formatShare(kernelNs ? double(latencyNs) / double(kernelNs) : 0) +
        " of the kernel time (" + formatDuration(wallNs) +
        " of the trace's time, streams at once counted once): " +
        (onGpu ? "too little work per launch to fill the device, so they wait on launch latency, "
                 "synchronization inside the kernel or a tail of few blocks."
               : "too little work per op to keep the CPU's cores and vector units busy, so they "
                 "wait on the op's own overhead (dispatch, threads waking up, memory allocation).");
    f.suggestion =
        onGpu ? "Give each kernel more work: batch the calls (a larger batch or several heads per "
                "launch), fuse small ops" +
                    c.ifPyTorch(" (torch.compile)") + ", or capture the sequence in a " + c.graph() + "."
              : "Give each op more work: batch the calls (a larger batch or several heads per op), "
                "or fuse small ops" +
                    c.ifPyTorch(" (torch.compile)") + " so fewer ops each do more.";
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven);
}

} // namespace attnscope::findings

namespace attnscope {

bool learnMeasuredSaving(std::vector<Finding>& found, const FindingInputs& in, const MeasuredSaving& saving) {
    const auto it = std::find_if(found.begin(), found.end(),
                                 [](const Finding& f) { return f.id == kHandWrittenAttention; });
    if (it == found.end() || it->measured) return false;
    // Every call the finding counts, of the implementation and shape measured, and their kernel time per
    // call as every table has it (a call's kernels, overlaps once): the time at stake is then the one a
    // comparison's row of the same calls learns (learnSaving).
    const findings::Context c(in);
    std::uint64_t calls = 0;
    TimeNs kernelNs = 0;
    for (const AttentionCall& call : in.analysis.calls) {
        if (!findings::writtenByHand(in.analysis, call)) continue;
        const std::optional<CallInputs> shape = callInputs(in.trace, in.analysis, call);
        if (call.impl != saving.impl || !shape || !shape->sameShape(saving.shape)) return false;
        ++calls;
        kernelNs += findings::callKernelNs(c, call);
    }
    if (calls == 0) return false;
    const TimeNs perCall = std::max<TimeNs>(0, saving.perCall), over = perCall * TimeNs(calls),
                 took = kernelNs / TimeNs(calls);
    Finding learned = c.make(it->title, measuredStake(perCall, took, calls));
    const std::string measured =
        " — measured here: " + saving.alternative + " saves " + formatDuration(perCall) + " a call";
    if (learned.title.size() + measured.size() <= kFindingTitleMax) learned.title += measured;
    learned.measured = true;
    learned.explanation =
        it->explanation + " Since measured on " + saving.device + ", by running the call (" +
        saving.shape.text() + ") as it was and with " + saving.alternative + " side by side: " +
        saving.alternative + " saved " + formatDuration(perCall) + " a call, " + formatDuration(over) +
        " over the " + formatCount(calls, "call", "calls") +
        (learned.timeNs < over ? ", more than their kernels ran in the trace (" + formatDuration(took) +
                                     " a call): the time at stake is all of that"
                               : ": the time at stake, measured") +
        ", in place of the estimate above.";
    learned.id = it->id;
    learned.count = it->count;
    learned.suggestion = std::move(it->suggestion);
    learned.evidence = std::move(it->evidence);
    *it = std::move(learned);
    findings::sortFindings(found);
    return true;
}

} // namespace attnscope
