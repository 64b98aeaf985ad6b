// SPDX-License-Identifier: MIT
// The rules that read an attention call the way "Profiling in PyTorch (Part 3): Attention is all you
// profile" does, one lesson each: a copy made by an out-of-place op, SDPA math's fp32 upcast, a mask
// built on every call, _safe_softmax's extra kernels, and attention whose host time exceeds its
// kernels' (the calls that ran otherwise than their expected shape: findings_shapes.cpp). Each walks the
// attention calls of the analysis and the ops its kernels were launched from (on the CPU: the ops that are
// its kernels), inside the call's own host range.
#include "core/analysis/analysis.h"
#include "core/analysis/attention_ops.h"
#include "core/model/text_match.h"
#include "core/report/findings_rules.h"
#include "core/report/format.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace attnscope::findings {

namespace {

// The cpu_ops a kernel was launched from, innermost first (an aten:: op standing for a kernel first
// itself), up to and without the call's host range.
template <class F> void forEachOpAround(const Context& c, EventRef kernel, const AttentionCall& call, F f) {
    const bool op = c.trace.track(kernel.track).events.flags[kernel.index] & kOpKernel;
    const auto from = op ? std::optional(kernel) : c.trace.launchOf(kernel);
    if (!from) return;
    if (op) f(kernel);
    forEachEnclosingEvent(c.trace, *from, [&](EventRef e) {
        if (call.scope && e == *call.scope) return true;
        if (c.kind(e) == Context::CpuOp) f(e);
        return false;
    });
}

bool anyNamed(const Context& c, const std::vector<EventRef>& ops,
              std::initializer_list<std::string_view> names) {
    return std::any_of(ops.begin(), ops.end(), [&](EventRef e) {
        return std::find(names.begin(), names.end(), c.name(e)) != names.end();
    });
}

// Whether the trace holds any of these strings (an op's name): a rule about an op the trace never ran
// walks nothing.
bool hasAny(const Context& c, std::initializer_list<std::string_view> names) {
    return std::any_of(names.begin(), names.end(),
                       [&](std::string_view n) { return c.trace.strings().find(n).valid(); });
}

bool isCopyKernel(const Context& c, const KernelAnalysis& k) {
    return c.kind(k.event) == Context::Copy || k.role == KernelRole::Copy;
}

} // namespace

std::string opCounts(const std::map<std::string, std::uint64_t>& byOp) {
    std::vector<std::pair<std::string, std::uint64_t>> sorted(byOp.begin(), byOp.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (const auto& [op, n] : sorted)
        out += (out.empty() ? "" : ", ") + op + " ×" + std::to_string(n);
    return out;
}

double kernelsPerCall(std::uint64_t kernels, std::uint64_t calls) {
    return calls ? double(kernels) / double(calls) : 0;
}

std::vector<EventRef> opsAround(const Context& c, EventRef kernel, const AttentionCall& call) {
    std::vector<EventRef> out;
    forEachOpAround(c, kernel, call, [&](EventRef e) { out.push_back(e); });
    return out;
}

// The lesson of the naive trace: an out-of-place op that is a clone and its in-place twin
// (masked_fill → clone → copy_, masked_fill_) copies its whole input inside an attention call.
std::optional<EventRef> outOfPlaceMaker(const Context& c, const KernelAnalysis& ka,
                                        const AttentionCall& call) {
    if (!isCopyKernel(c, ka)) return std::nullopt;
    const std::vector<EventRef> ops = opsAround(c, ka.event, call);
    const auto clone =
        std::find_if(ops.begin(), ops.end(), [&](EventRef e) { return c.name(e) == "aten::clone"; });
    if (clone == ops.end() || clone + 1 == ops.end()) return std::nullopt;
    const EventRef maker = *(clone + 1);
    const std::string makerName(c.name(maker));
    if (makerName.ends_with("_")) return std::nullopt;
    // The op's in-place twin runs inside it, after the clone: the out-of-place op is "copy, then do it in
    // place".
    const Track& t = c.trace.track(maker.track);
    for (std::uint32_t j = maker.index + 1; j < t.size() && t.events.start[j] < c.end(maker); ++j)
        if (t.events.depth[j] == t.events.depth[maker.index] + 1 &&
            c.name({maker.track, j}) == makerName + "_")
            return maker;
    return std::nullopt;
}

void outOfPlaceCopy(Context& c, std::vector<Finding>& out) {
    if (!hasAny(c, {"aten::clone"})) return;
    std::uint64_t copies = 0;
    TimeNs time = 0;
    double bytes = 0;
    std::map<std::string, std::uint64_t> byOp;
    std::vector<std::uint8_t> calls(c.analysis.calls.size(), 0);
    Places places;
    for (std::size_t ci = 0; ci < c.analysis.calls.size(); ++ci) {
        const AttentionCall& call = c.analysis.calls[ci];
        for (std::uint32_t k : call.kernels) {
            const KernelAnalysis& ka = c.analysis.kernels[k];
            const std::optional<EventRef> maker = outOfPlaceMaker(c, ka, call);
            if (!maker) continue;
            const std::string makerName(c.name(*maker));
            ++copies;
            calls[ci] = 1;
            time += c.dur(ka.event);
            bytes += ka.bytes;
            ++byOp[makerName];
            places.emplace_back(
                ka.event, makerName + " → aten::clone" +
                              (ka.bytes > 0 ? ": " + formatRate(ka.bytes, "B") + " read and written" : ""));
        }
    }
    if (copies == 0) return;
    const std::uint64_t inCalls = std::count(calls.begin(), calls.end(), 1);
    // The op that made most of them names the finding.
    const std::string first = std::max_element(byOp.begin(), byOp.end(), [](const auto& a, const auto& b) {
                                  return a.second < b.second;
                              })->first;
    const std::string shortName =
        first.substr(first.find("::") == std::string::npos ? 0 : first.find("::") + 2);
    Finding f = c.make("Out-of-place " + shortName + " copies its input in " +
                           formatCount(inCalls, "attention call", "attention calls"),
                       time);
    f.explanation = formatCount(copies, "copy", "copies") + " (" + formatDuration(time) +
                    (bytes > 0 ? ", " + formatRate(bytes, "B") + " read and written" : "") +
                    ") made by out-of-place ops inside attention calls: " + opCounts(byOp) +
                    ". An out-of-place op is a clone of its input followed by the in-place op on the clone: "
                    "the whole tensor (the N×N scores, for a mask) is copied before it is changed.";
    f.suggestion =
        "Use the in-place op (" + first + "_" +
        (first == "aten::masked_fill" ? ", e.g. scores.masked_fill_(mask, float(\"-inf\"))" : "") +
        "): no copy and no second tensor. It is safe under torch.no_grad() or inference_mode; in training, "
        "autograd may need the values it overwrites (PyTorch raises an error when it does).";
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst,
           Context::Shown::Always); // always: a one-line fix
}

// The first lesson of SDPA's math backend: half-precision inputs computed in fp32 — Q, K and V cast up,
// the GEMMs run in fp32 (sgemm kernels: the tensor cores left vacant), the result cast back down.
void mathUpcast(Context& c, std::vector<Finding>& out) {
    if (!hasAny(c, {"aten::_scaled_dot_product_attention_math",
                    "aten::_scaled_dot_product_attention_math_for_mps"}))
        return;
    std::uint64_t calls = 0, casts = 0, gemms = 0;
    TimeNs castNs = 0, gemmNs = 0, stake = 0;
    double castBytes = 0;
    std::string inputType;
    bool onGpu = false;
    Places gemmPlaces, castPlaces;
    for (const AttentionCall& call : c.analysis.calls) {
        // The call's _math op, and the type of its inputs.
        std::optional<EventRef> math;
        for (std::uint32_t k : call.kernels) {
            for (EventRef e : opsAround(c, c.analysis.kernels[k].event, call))
                if (c.name(e).starts_with("aten::_scaled_dot_product_attention_math")) math = e;
            if (math) break;
        }
        if (!math) continue;
        const std::vector<std::string> types = opInputs(c, *math).types;
        const Precision in = types.empty() ? Precision::Unknown : precisionNamed(types[0]);
        if (in != Precision::F16 && in != Precision::BF16) continue;
        std::uint64_t callCasts = 0, callGemms = 0;
        TimeNs callGemmNs = 0;
        const DeviceSpec* roofs = nullptr;
        for (std::uint32_t k : call.kernels) {
            const KernelAnalysis& ka = c.analysis.kernels[k];
            const std::vector<EventRef> ops = opsAround(c, ka.event, call);
            const bool gemm =
                ka.role == KernelRole::Gemm || ka.role == KernelRole::QkGemm || ka.role == KernelRole::PvGemm;
            const std::string_view name = c.name(ka.event);
            const bool fp32 = ka.precision == Precision::F32 || containsNoCase(name, "sgemm") ||
                              containsNoCase(name, "gemmsn") || containsNoCase(name, "f32") ||
                              containsNoCase(name, "fp32");
            if (gemm && fp32) {
                ++callGemms;
                callGemmNs += c.dur(ka.event);
                if (!roofs) roofs = c.analysis.roofsOf(c.trace, ka.event);
                onGpu = onGpu || !isCpuTrack(c.trace, ka.event.track);
                gemmPlaces.emplace_back(ka.event,
                                        "fp32 GEMM of a " + std::string(precisionName(in)) + " call");
            } else if (isCopyKernel(c, ka) && anyNamed(c, ops, {"aten::_to_copy", "aten::to"})) {
                ++callCasts;
                castNs += c.dur(ka.event);
                castBytes += ka.bytes;
                castPlaces.emplace_back(ka.event,
                                        "a cast between " + std::string(precisionName(in)) + " and fp32");
            }
        }
        if (callGemms == 0 && callCasts == 0) continue;
        ++calls;
        casts += callCasts;
        gemms += callGemms;
        gemmNs += callGemmNs;
        // At stake: the casts, and what the GEMMs would save at the half-precision roof (the ratio of
        // the roofs; nothing when the roofs are not known).
        const double ratio = roofs && roofs->peak(in) > 0 ? roofs->peak(Precision::F32) / roofs->peak(in) : 1;
        stake += TimeNs(double(callGemmNs) * std::max(0.0, 1 - ratio));
        inputType = precisionName(in);
    }
    if (calls == 0) return;
    const TimeNs castTotal = castNs;
    Finding f = c.make("SDPA's math backend computes " + inputType + " attention in fp32 in " +
                           formatCount(calls, "call", "calls"),
                       castTotal + stake);
    f.explanation =
        formatCount(calls, "call", "calls") + " of SDPA's math backend took " + inputType +
        " inputs and computed in fp32: " +
        (gemms ? formatCount(gemms, "fp32 GEMM", "fp32 GEMMs") + " (" + formatDuration(gemmNs) + ")" +
                     (onGpu ? " where a " + inputType +
                                  " GEMM runs on the tensor cores: the tensor cores "
                                  "are left vacant"
                            : " rather than in " + inputType)
               : std::string("its GEMMs")) +
        (casts ? ", and " + formatCount(casts, "cast", "casts") + " up to fp32 and back (" +
                     formatDuration(castTotal) +
                     (castBytes > 0 ? ", " + formatRate(castBytes, "B") + " moved" : "") + ")"
               : std::string()) +
        ". fp32 doubles the bytes every op after the cast moves. The time at stake is the casts' time" +
        (stake > 0
             ? " and what the GEMMs would save at the " + inputType + " roof (" + formatDuration(stake) + ")"
             : std::string()) +
        ".";
    f.suggestion =
        "The math backend upcasts for accuracy, by design: it is the reference, not the fast path. "
        "Let SDPA take a fused backend (flash, efficient, cuDNN on a GPU; flash on a CPU), which stays "
        "in " +
        inputType + (onGpu ? " on the tensor cores" : "") +
        ": is_causal instead of a mask, head dim ≤ 256, no sdpa_kernel(SDPBackend.MATH).";
    longestFirst(c, gemmPlaces);
    longestFirst(c, castPlaces);
    gemmPlaces.insert(gemmPlaces.end(), castPlaces.begin(), castPlaces.end());
    // Always: the math backend was not meant to be taken.
    c.keep(out, std::move(f), std::move(gemmPlaces), Context::Order::AsGiven, Context::Shown::Always);
}

// The mask built on every call: ones/tril/triu, the fill value, where (the math backend's causal
// mask, or a mask a user builds inside their attention), kernels named triu_tril.
void maskPerCall(Context& c, std::vector<Finding>& out) {
    if (c.analysis.calls.empty()) return;
    // What each name is, looked at once per name (a live profile finds this again over hundreds of
    // thousands of kernels): a softmax's, a mask maker's, SDPA's math backend, a kernel named triu_tril.
    enum : std::uint8_t { kSoftmax = 1, kMaker = 2, kMath = 4, kTriuTril = 8, kSeen = 128 };
    std::vector<std::uint8_t> what(c.trace.strings().size(), 0);
    auto whatIs = [&](StringId id) {
        std::uint8_t& w = what[id.value];
        if (!w) {
            const std::string_view n = c.trace.str(id);
            // The ops that build a mask, and where, which makes its fill values.
            const bool maker = buildsAMask(n) || n == "aten::where";
            w = std::uint8_t(
                kSeen |
                (n == "aten::_safe_softmax" || n == "aten::softmax" || n == "aten::_softmax" ? kSoftmax : 0) |
                (maker ? kMaker : 0) |
                (n.starts_with("aten::_scaled_dot_product_attention_math") ? kMath : 0) |
                (containsNoCase(n, "triu_tril") ? kTriuTril : 0));
        }
        return w;
    };
    // A trace whose names hold no mask maker and no triu_tril kernel has nothing to find: its calls' ops
    // are not walked.
    bool anyMaker = false;
    for (std::uint32_t id = 0; id < what.size() && !anyMaker; ++id)
        anyMaker = whatIs(StringId(id)) & (kMaker | kTriuTril);
    if (!anyMaker) return;
    auto nameOf = [&](EventRef e) { return c.trace.track(e.track).events.name[e.index]; };
    std::uint64_t calls = 0, kernels = 0;
    TimeNs time = 0;
    std::map<StringId, std::uint64_t> byOpId;
    std::vector<std::pair<EventRef, StringId>> found; // each kernel that built the mask, and its op
    bool math = false;
    std::uint64_t converted = 0; // calls whose SDPA op turned a boolean attn_mask into a float one
    for (const AttentionCall& call : c.analysis.calls) {
        std::uint64_t inCall = 0;
        // SDPA given a boolean attn_mask (a padding mask) converts it to an additive float mask with
        // aten::where inside the op, on every call: the user built the mask once.
        bool boolMask = false;
        if (call.scope && c.name(*call.scope) == "aten::scaled_dot_product_attention") {
            const OpInputs in = opInputs(c, *call.scope);
            boolMask = in.types.size() > 3 && in.types[3] == "bool";
        }
        bool convertedHere = false;
        for (std::size_t i = 0; i < call.kernels.size(); ++i) {
            const EventRef kernel = c.analysis.kernels[call.kernels[i]].event;
            bool softmax = false;
            std::optional<EventRef> maker;
            forEachOpAround(c, kernel, call, [&](EventRef op) {
                const std::uint8_t w = whatIs(nameOf(op));
                softmax = softmax || (w & kSoftmax);
                if ((w & kMaker) && !maker) maker = op;
                if (i == 0) math = math || (w & kMath);
            });
            if (softmax) continue;
            if (!maker && !(whatIs(nameOf(kernel)) & kTriuTril)) continue;
            ++inCall;
            convertedHere = convertedHere || (boolMask && maker && c.name(*maker) == "aten::where");
            time += c.dur(kernel);
            const StringId op = nameOf(maker ? *maker : kernel);
            ++byOpId[op];
            found.emplace_back(kernel, op);
        }
        if (inCall == 0) continue;
        ++calls;
        kernels += inCall;
        converted += convertedHere;
    }
    if (calls < 2) return; // once is a mask built, not one built again
    std::map<std::string, std::uint64_t> byOp;
    for (const auto& [op, n] : byOpId)
        byOp[std::string(c.trace.str(op))] += n;
    Places places = longestFirst(c, std::move(found), [&](EventRef, StringId op) {
        return "builds the mask (" + std::string(c.trace.str(op)) + ")";
    });
    // Every call's mask a conversion of a boolean one: said as such, and no word of is_causal (a padding mask
    // is not causal).
    const bool onlyConverted = converted == calls;
    Finding f =
        c.make((onlyConverted ? "scaled_dot_product_attention converts its boolean mask again in each of "
                              : "The attention mask is built again in each of ") +
                   formatCount(calls, "call", "calls"),
               time);
    f.explanation =
        formatCount(calls, "attention call", "attention calls") +
        " each built their mask again: " + oneDecimal(kernelsPerCall(kernels, calls)) +
        " kernels per call (" + opCounts(byOp) + "), " + formatDuration(time) + " in all." +
        (math ? " SDPA's math backend materializes the causal mask of is_causal=True on every call "
                "(ones → tril, the -inf fill value, where)."
              : "") +
        (converted ? " In " + formatCount(converted, "call", "calls") +
                         " scaled_dot_product_attention was given a boolean attn_mask and turned it into an "
                         "additive float mask (aten::where) inside the op: the mask was built once, its "
                         "conversion on every call."
                   : "");
    f.suggestion =
        std::string(converted ? "Pass SDPA a float mask built once (0 where a key is attended, -inf where it "
                                "is masked, in the inputs' dtype): a boolean attn_mask is converted inside "
                                "every call."
                              : "") +
        (onlyConverted
             ? std::string()
             : std::string(converted ? " " : "") +
                   std::string("With is_causal=True a fused backend (flash, efficient, cuDNN) applies the "
                               "causal mask inside its kernel and builds none. Where a mask must be a "
                               "tensor, build it once (per sequence length) and pass it to every call."));
    // A conversion on every call is always said (its time at stake says how much it weighs: a short padded
    // batch's was about the worth-showing line, shown in one run and not the next).
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven,
           onlyConverted ? Context::Shown::Always : Context::Shown::IfWorthShowing);
}

// _safe_softmax: the kernels besides the softmax that find fully masked rows and write 0 there.
void safeSoftmax(Context& c, std::vector<Finding>& out) {
    if (!hasAny(c, {"aten::_safe_softmax"})) return;
    std::uint64_t calls = 0, kernels = 0;
    TimeNs time = 0;
    std::map<std::string, std::uint64_t> byOp;
    Places places;
    for (const AttentionCall& call : c.analysis.calls) {
        std::uint64_t found = 0;
        for (std::uint32_t k : call.kernels) {
            const KernelAnalysis& ka = c.analysis.kernels[k];
            const std::vector<EventRef> ops = opsAround(c, ka.event, call);
            const auto safe = std::find_if(ops.begin(), ops.end(),
                                           [&](EventRef e) { return c.name(e) == "aten::_safe_softmax"; });
            if (safe == ops.end() ||
                anyNamed(c, std::vector<EventRef>(ops.begin(), safe), {"aten::softmax", "aten::_softmax"}))
                continue;
            // The op right inside _safe_softmax that launched it: isneginf, all, where, …
            const std::string op(c.name(safe == ops.begin() ? ka.event : *(safe - 1)));
            ++found;
            time += c.dur(ka.event);
            ++byOp[op];
            places.emplace_back(ka.event, "_safe_softmax's guard (" + op + ")");
        }
        if (found == 0) continue;
        ++calls;
        kernels += found;
    }
    if (calls == 0) return;
    Finding f = c.make("_safe_softmax adds " + oneDecimal(kernelsPerCall(kernels, calls)) +
                           " kernels per call to guard fully masked rows",
                       time);
    f.explanation =
        "Besides its softmax, aten::_safe_softmax ran " + formatCount(kernels, "kernel", "kernels") + " in " +
        formatCount(calls, "call", "calls") + " (" + opCounts(byOp) + ", " + formatDuration(time) +
        "): they find the rows whose every score is -inf and write 0 there, where a plain softmax "
        "would give NaN (0/0). Each reads the whole N×N scores again.";
    f.suggestion =
        "This is SDPA math's NaN safety, not a bug. A fused backend (flash, efficient, cuDNN) handles fully "
        "masked rows inside its one kernel: let SDPA take one.";
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst);
}

// The cuDNN lesson: an implementation whose host time per call exceeds its kernels' (on a GPU: the
// GPU waits for the host; on a CPU: the ops' overhead outweighs their work), and where that time sits.
void hostBoundAttention(Context& c, std::vector<Finding>& out) {
    for (const ImplCalls& impl : c.analysis.tables.implCalls) {
        const auto host = impl.hostNsPerCall();
        if (!host || impl.hostCalls == 0) continue;
        // The calls with a host range, their kernels on a GPU or on the CPU.
        TimeNs hostNs = 0, kernelNs = 0;
        bool onCpu = false;
        std::map<std::uint32_t, TimeNs> selfByOp; // where the host time sits: each op's own time, by name
        std::vector<TimeNs> own;                  // of the events of one call's range, from its start
        std::vector<std::pair<EventRef, TimeNs>> ranges; // each call's host range and its kernels' time
        for (const AttentionCall& call : c.analysis.calls) {
            if (call.impl != impl.impl || !call.scope) continue;
            TimeNs kernels = 0;
            for (std::uint32_t k : call.kernels) {
                const KernelAnalysis& ka = c.analysis.kernels[k];
                kernels += c.dur(ka.event);
                onCpu = onCpu || isCpuTrack(c.trace, ka.event.track);
            }
            const EventRef s = *call.scope;
            hostNs += c.dur(s);
            kernelNs += kernels;
            ranges.emplace_back(s, kernels);
            // Own time of the range and of the ops inside it (not the ops that are kernels).
            const Track& t = c.trace.track(s.track);
            own.clear();
            for (std::uint32_t j = s.index; j < t.size() && t.events.start[j] < c.end(s); ++j) {
                if (j != s.index && t.events.depth[j] <= t.events.depth[s.index]) break;
                own.push_back(t.events.duration[j]);
                const std::uint32_t parent = t.events.parent[j];
                if (j != s.index && parent != kNoParent && parent >= s.index)
                    own[parent - s.index] -= t.events.duration[j];
            }
            for (std::uint32_t j = 0; j < own.size(); ++j) {
                if (t.events.flags[s.index + j] & kOpKernel) continue;
                selfByOp[t.events.name[s.index + j].value] += std::max<TimeNs>(0, own[j]);
            }
        }
        const std::uint64_t calls = impl.hostCalls;
        if (calls == 0 || hostNs <= 0) continue;
        // On a CPU the kernels are part of the host's time: the rest is overhead.
        const TimeNs over = hostNs - kernelNs; // on a CPU the ops' overhead; on a GPU its wait per call
        const bool bound = onCpu ? hostNs - kernelNs > kernelNs : hostNs > kernelNs;
        if (!bound || over <= 0) continue;
        std::vector<std::pair<std::uint32_t, TimeNs>> sits(selfByOp.begin(), selfByOp.end());
        std::stable_sort(sits.begin(), sits.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        std::string where;
        for (std::size_t i = 0; i < std::min<std::size_t>(3, sits.size()); ++i)
            if (sits[i].second > 0)
                where += (where.empty() ? "" : ", ") + std::string(c.trace.str(StringId(sits[i].first))) +
                         " " + formatDuration(sits[i].second / TimeNs(calls)) + " of its own";
        Finding f = c.make(impl.impl + " attention is host-bound: " + formatDuration(hostNs / TimeNs(calls)) +
                               " on the host per call against " + formatDuration(kernelNs / TimeNs(calls)) +
                               (onCpu ? " in its ops' work" : " of kernels"),
                           over);
        f.explanation =
            formatCount(calls, impl.impl + " call", impl.impl + " calls") + " spent " +
            formatDuration(hostNs / TimeNs(calls)) + " per call on the host" +
            (onCpu ? ", of which " + formatDuration(kernelNs / TimeNs(calls)) +
                         " in the ops that did the work: the rest, dispatch and the library's own work, is "
                         "larger"
                   : " and " + formatDuration(kernelNs / TimeNs(calls)) +
                         " in kernels: the GPU finishes each call before the host has issued the next, so "
                         "the host "
                         "sets the pace") +
            (where.empty() ? std::string(".") : ". Per call the host's time sits in " + where + ".") +
            " A trace that looks clean (few ops, one kernel) can hide work moved into a library, where the "
            "profiler shows one opaque bar: cuDNN builds and selects its plan on the host.";
        f.suggestion =
            "Take the host out of the loop: capture the calls in a " + c.graph() +
            c.ifPyTorch(" (torch.compile mode=\"reduce-overhead\")") +
            ", batch more work per call, or compare another backend's host time per call (flash, efficient) "
            "for this shape.";
        // The longest ranges first.
        Places places = longestFirst(c, std::move(ranges), [&](EventRef s, TimeNs kernels) {
            return "host " + formatDuration(c.dur(s)) + ", kernels " + formatDuration(kernels);
        });
        c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven);
    }
}

} // namespace attnscope::findings
