// SPDX-License-Identifier: MIT
// "Guess first, then look": the rule that holds each attention call to its implementation's expected
// shape (call_shapes.txt) and names what ran otherwise — unexpected_kernels.
#include "core/analysis/analysis.h"
#include "core/analysis/call_shapes.h"
#include "core/model/demangle.h"
#include "core/report/findings_rules.h"
#include "core/report/format.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace attnscope::findings {

namespace {

// "aten::copy_ (copy) from aten::to", "… and aten::all (reduction) from aten::_safe_softmax", or the two
// commonest and how many more kinds: a title names what the explanation lists.
std::string firstKinds(const std::map<std::string, std::uint64_t>& byWhat) {
    std::vector<std::pair<std::string, std::uint64_t>> sorted(byWhat.begin(), byWhat.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out = sorted.empty() ? std::string() : sorted[0].first;
    if (sorted.size() == 2) out += " and " + sorted[1].first;
    if (sorted.size() > 2)
        out += ", " + sorted[1].first + " and " + std::to_string(sorted.size() - 2) + " more " +
               (sorted.size() == 3 ? "kind" : "kinds");
    return out;
}

// What of the unexpected kernels' time other findings name (the out-of-place copies, the softmax's casts):
// said, so that a reader does not add the two.
std::string namedElsewhere(TimeNs outOfPlaceNs, TimeNs upcastNs) {
    std::vector<std::string> parts;
    if (outOfPlaceNs > 0)
        parts.push_back(formatDuration(outOfPlaceNs) +
                        " of it is the out-of-place copies out_of_place_copy names");
    if (upcastNs > 0)
        parts.push_back(formatDuration(upcastNs) + (parts.empty() ? " of it is" : "") +
                        " the softmax's casts softmax_upcast names");
    if (parts.empty()) return {};
    return " " + (parts.size() == 1 ? parts[0] : parts[0] + ", " + parts[1]) +
           ": the same time, not time besides it.";
}

} // namespace

// "Guess first, then look": the calls of an implementation that ran otherwise than its expected shape
// (call_shapes.txt) — kernels it had no room for, named by the op that asked for them, and roles it
// lacks. One finding per implementation; the unexpected kernels are its places.
void unexpectedKernels(Context& c, std::vector<Finding>& out) {
    struct Impl {
        std::string shapeText;
        std::uint64_t calls = 0, mismatched = 0, kernels = 0, expected = 0, unexpected = 0;
        TimeNs time = 0;
        TimeNs outOfPlaceNs = 0;                       // of it, the copies out_of_place_copy names
        TimeNs upcastNs = 0;                           // and the casts softmax_upcast names
        std::map<std::string, std::uint64_t> byWhat;   // "aten::copy_ from aten::masked_fill" → count
        std::map<std::string, std::uint64_t> byKernel; // the same by the kernels' short names (the title's)
        std::map<std::string, std::uint64_t> missing;  // "pv_gemm" → calls lacking it
        Places places;
    };
    // Per implementation and the shape its calls were held to (a user's shape for their own range may
    // take some of an implementation's calls).
    std::map<std::pair<std::string, std::string>, Impl> impls;
    // The op that asked for a kernel: the innermost one around it that is not plumbing (clone, copy_,
    // the aten::_ internals), below the call's own range.
    auto maker = [&](const KernelAnalysis& ka, const AttentionCall& call) -> std::string {
        const std::vector<EventRef> ops = opsAround(c, ka.event, call);
        const std::string_view kernel = c.name(ka.event);
        for (EventRef e : ops) {
            const std::string_view n = c.name(e);
            if (e == ka.event || n == kernel || n == "aten::clone" || n == "aten::copy_" ||
                n == "aten::_to_copy" || n == "aten::empty" || n == "aten::empty_like")
                continue;
            return std::string(n);
        }
        return {};
    };
    for (const AttentionCall& call : c.analysis.calls) {
        if (call.shapeKey.empty()) continue;
        Impl& im = impls[{call.impl, call.shapeKey}];
        if (im.calls == 0) im.shapeText = call.shapeText;
        ++im.calls;
        im.kernels += call.kernelCount;
        im.expected += call.expectedKernels;
        if (call.matchesShape()) continue;
        ++im.mismatched;
        const SoftmaxCasts casts = softmaxCasts(c, call);
        for (std::uint32_t k : call.kernels) {
            if (!c.analysis.kernels[k].unexpected) continue;
            const KernelAnalysis& ka = c.analysis.kernels[k];
            const std::string from = maker(ka, call);
            const std::string what = std::string(shortKernelName(c.name(ka.event))) + " (" +
                                     std::string(roleName(ka.role)) + ")" +
                                     (from.empty() ? "" : " from " + from);
            // A CPU run's workers' shares of one kernel are one kernel, and their time its time.
            if (std::find(call.unexpected.begin(), call.unexpected.end(), k) != call.unexpected.end()) {
                ++im.byWhat[what];
                ++im.byKernel[std::string(shortKernelName(c.name(ka.event)))];
                ++im.unexpected;
            }
            im.time += c.dur(ka.event);
            if (outOfPlaceMaker(c, ka, call)) im.outOfPlaceNs += c.dur(ka.event);
            if (std::any_of(casts.casts.begin(), casts.casts.end(),
                            [&](const auto& cast) { return cast.first == ka.event; }))
                im.upcastNs += c.dur(ka.event);
            im.places.emplace_back(ka.event, "not in " + call.impl + "'s expected call" +
                                                 (from.empty() ? "" : ": from " + from));
        }
        for (const auto& [role, n] : call.missing)
            ++im.missing[std::string(roleName(role))];
    }
    for (auto& [key, im] : impls) {
        if (im.mismatched == 0) continue;
        const std::string& impl = key.first;
        // The shape as it is known: "naive's expected call", or "attn_fwd's" when a user's shape for the
        // range held it.
        const std::string shapeName = key.second == impl || key.second == "@fused" ? impl : key.second;
        const double kernels = kernelsPerCall(im.kernels, im.calls),
                     expected = kernelsPerCall(im.expected, im.calls);
        std::string what = opCounts(im.byWhat);
        std::string lacking;
        for (const auto& [role, n] : im.missing)
            lacking += (lacking.empty() ? "" : ", ") + role + " in " + formatCount(n, "call", "calls");
        // "6", or "5.5" when the calls differ.
        auto count = [](double v) {
            return v == std::floor(v) ? std::to_string(std::uint64_t(v)) : oneDecimal(v);
        };
        // The title names the kernels when they fit its line; the explanation says where each came from.
        std::string title = impl + ": " + count(kernels) + " kernels per call where " + count(expected) +
                            (expected == 1 ? " is" : " are") + " expected";
        if (const std::string named = title + ": " + firstKinds(im.byKernel);
            !im.byKernel.empty() && named.size() <= kFindingTitleMax)
            title = named;
        Finding f = c.make(title, im.time);
        // An observation against a guess, not a cost of its own: never critical.
        f.severity = std::min(f.severity, Severity::Warning);
        f.explanation =
            formatCount(im.mismatched, "call", "calls") + " of " + std::to_string(im.calls) +
            " ran otherwise than " + shapeName + "'s expected call (" + im.shapeText + "). " +
            (what.empty() ? std::string()
                          : "Kernels it did not expect: " + what + " (" + formatDuration(im.time) + "). ") +
            (lacking.empty() ? std::string() : "Missing: " + lacking + ". ") +
            "Each is work the implementation was not expected to do — or a guess to correct." +
            namedElsewhere(im.outOfPlaceNs, im.upcastNs);
        f.suggestion =
            "Look at where each comes from (the places below); when it is expected after all, say so "
            "in " +
            CallShapes::userFile() + " (\"" + shapeName + " = …\", or your record_function's name).";
        c.keep(out, std::move(f), std::move(im.places), Context::Order::LongestFirst,
               Context::Shown::Always); // always: the mismatch is the most interesting thing on the screen
    }
}

} // namespace attnscope::findings
