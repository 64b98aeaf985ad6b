// SPDX-License-Identifier: MIT
// The analysis' attention calls: own runs' calls, fused kernels, naive chains, SDPA ops holding kernels no
// pattern found, the ranges around them, warm-ups left out, and each call held to its expected shape.
#include "core/analysis/analyzer.h"
#include "core/analysis/attention_ops.h"
#include "core/analysis/call_inputs.h"
#include "core/analysis/kernel_reader.h"

#include "core/model/args_codec.h"
#include "core/model/kineto_args.h"
#include "core/model/run_args.h"
#include "core/model/text_match.h"

#include <algorithm>
#include <cstdlib>

namespace attnscope::analysis_detail {

void Analyzer::findCalls() {
    // Attention calls. Own runs say which kernels make a call; their warm-up calls are none.
    for (auto& [key, kernels] : ownCalls) {
        if (warmupCalls.count(key)) continue;
        AttentionCall call;
        call.impl = key.first;
        call.kernels = kernels;
        a.calls.push_back(std::move(call));
    }
    // Fused kernels are a call each; naive chains are found per GPU track: a softmax with a GEMM
    // before it and one after, with only elementwise kernels (scale, mask, dropout) and reductions
    // (_safe_softmax's test for fully masked rows) between.
    auto isBetween = [](KernelRole r) { return r == KernelRole::Elementwise || r == KernelRole::Reduction; };
    if (ownCalls.empty()) {
        std::map<TrackId, std::vector<std::uint32_t>> perTrack;
        // The copies on each track by start: those a chain runs between its GEMMs are its own (the
        // out-of-place masked_fill's clone of the scores, an upcast for the softmax), whether or not a
        // range around the call says so; a copy to or from the host is not attention's work, nor is one
        // that lays a strided view out again (layout_copies' V, as its Q and K before the QKᵀ GEMM).
        std::map<TrackId, std::vector<std::pair<TimeNs, std::uint32_t>>> copies;
        for (std::uint32_t k = 0; k < a.kernels.size(); ++k) {
            const EventRef e = a.kernels[k].event;
            if (a.kernels[k].role != KernelRole::Copy) {
                perTrack[e.track].push_back(k);
                continue;
            }
            const std::string_view name = trace.str(trace.track(e.track).events.name[e.index]);
            if (name.find("HtoD") == std::string_view::npos && name.find("DtoH") == std::string_view::npos &&
                !isLayoutCopy(e))
                copies[e.track].emplace_back(trace.track(e.track).events.start[e.index], k);
        }
        for (auto& [track, list] : copies)
            std::sort(list.begin(), list.end());
        auto startOf = [&](const KernelAnalysis& k) {
            return trace.track(k.event.track).events.start[k.event.index];
        };
        // Up to six: the scale, a soft cap (Gemma 2: div, tanh, mul) and the mask before the softmax.
        constexpr int kMaxBetween = 6;
        std::unordered_map<std::uint32_t, std::string> implByName; // a fused kernel's name → its impl
        for (auto& [track, list] : perTrack) {
            for (std::size_t p = 0; p < list.size(); ++p) {
                KernelAnalysis& k = a.kernels[list[p]];
                if (k.role == KernelRole::FusedAttention) {
                    if (backward(k)) continue;
                    AttentionCall call;
                    const StringId name = trace.track(k.event.track).events.name[k.event.index];
                    auto [impl, added] = implByName.try_emplace(name.value);
                    if (added) impl->second = fusedImpl(trace.str(name));
                    call.impl = impl->second;
                    call.kernels = {list[p]};
                    a.calls.push_back(std::move(call));
                    continue;
                }
                if (k.role != KernelRole::Softmax || backward(k)) continue;
                // Under SDPA's math backend the softmax can have more around it: _safe_softmax's guard
                // (isneginf, all, where) then dropout's bernoulli_, div_, mul, six after it in training, and
                // more with a mask and casts; its GEMMs are the call's QKᵀ and PV all the same (they had
                // been left plain GEMMs, each "unexpected" in its own call, with QKᵀ and PV "missing").
                const int maxBetween = underSdpaMath(k.event) ? 2 * kMaxBetween : kMaxBetween;
                std::size_t before = p, after = p;
                int between = 0;
                while (before > 0 && isBetween(a.kernels[list[before - 1]].role) && between < maxBetween) {
                    --before;
                    ++between;
                }
                between = 0;
                while (after + 1 < list.size() && isBetween(a.kernels[list[after + 1]].role) &&
                       between < maxBetween) {
                    ++after;
                    ++between;
                }
                if (before == 0 || after + 1 >= list.size()) continue;
                KernelAnalysis& qk = a.kernels[list[before - 1]];
                KernelAnalysis& pv = a.kernels[list[after + 1]];
                if ((qk.role != KernelRole::Gemm && qk.role != KernelRole::QkGemm) ||
                    pv.role != KernelRole::Gemm || qk.call >= 0)
                    continue;
                qk.role = KernelRole::QkGemm;
                pv.role = KernelRole::PvGemm;
                AttentionCall call;
                call.impl = underSdpaMath(qk.event) ? kSdpaMathImpl : "naive";
                for (std::size_t q = before - 1; q <= after + 1; ++q) {
                    // Scale and mask before the softmax are part of it; a mask built anew is not.
                    if (q >= before && q < p && !buildsTheMask(a.kernels[list[q]].event))
                        a.kernels[list[q]].role = KernelRole::Softmax;
                    call.kernels.push_back(list[q]);
                }
                if (const auto c = copies.find(track); c != copies.end())
                    for (auto it =
                             std::lower_bound(c->second.begin(), c->second.end(), std::pair(startOf(qk), 0u));
                         it != c->second.end() && it->first < startOf(pv); ++it)
                        call.kernels.push_back(it->second);
                // In their order by start: the QKᵀ GEMM first, the PV GEMM last.
                std::stable_sort(call.kernels.begin(), call.kernels.end(),
                                 [&](std::uint32_t x, std::uint32_t y) {
                                     return startOf(a.kernels[x]) < startOf(a.kernels[y]);
                                 });
                a.calls.push_back(std::move(call));
                qk.call = 0; // marks it taken until the calls are numbered below
            }
        }
    }
}

bool Analyzer::backward(const KernelAnalysis& k) {
    auto named = [&](EventRef e) {
        const StringId id = trace.track(e.track).events.name[e.index];
        const auto [known, added] = backwardNames.try_emplace(id.value, false);
        if (added)
            for (const char* word : {"backward", "bwd", "bprop", "cutlassb"})
                known->second = known->second || containsNoCase(trace.str(id), word);
        return known->second;
    };
    return named(k.event) || (k.costOp && named(*k.costOp));
}

void Analyzer::callsOfAttentionOps() {
    if (!ownCalls.empty()) return;
    std::vector<std::uint8_t> inCall(a.kernels.size(), 0);
    for (const AttentionCall& call : a.calls)
        for (std::uint32_t k : call.kernels)
            inCall[k] = 1;
    // Per host track, the anchors of the kernels outside calls and of those in one, by start.
    std::map<TrackId, std::vector<std::pair<TimeNs, std::uint32_t>>> outside;
    std::map<TrackId, std::vector<TimeNs>> taken;
    for (std::uint32_t k = 0; k < a.kernels.size(); ++k) {
        const auto anchor = anchorOf(k);
        if (!anchor) continue;
        const TimeNs at = trace.track(anchor->track).events.start[anchor->index];
        if (inCall[k])
            taken[anchor->track].push_back(at);
        else if (a.kernels[k].role != KernelRole::Communication && !backward(a.kernels[k]))
            outside[anchor->track].emplace_back(at, k);
    }
    if (outside.empty()) return;
    for (auto& [track, list] : taken)
        std::sort(list.begin(), list.end());
    std::unordered_map<std::uint32_t, bool> sdpaNames;
    for (auto& [trackId, anchors] : outside) {
        std::sort(anchors.begin(), anchors.end());
        const Track& t = trace.track(trackId);
        const std::vector<TimeNs>& inCalls = taken[trackId];
        TimeNs coveredUntil = INT64_MIN;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (trace.categoryKind(t.events.category[i]) != CategoryKind::CpuOp ||
                t.events.start[i] < coveredUntil)
                continue;
            const StringId name = t.events.name[i];
            auto [known, added] = sdpaNames.try_emplace(name.value, false);
            if (added) {
                const std::string_view n = trace.str(name);
                known->second = n == "aten::scaled_dot_product_attention" ||
                                n.starts_with("aten::_scaled_dot_product_attention_math");
            }
            if (!known->second) continue;
            const TimeNs from = t.events.start[i], to = t.end(i);
            coveredUntil = to;
            if (std::lower_bound(inCalls.begin(), inCalls.end(), from) !=
                std::lower_bound(inCalls.begin(), inCalls.end(), to))
                continue; // a call found by its kernels is this op's
            AttentionCall call;
            call.impl = kSdpaMathImpl;
            for (auto it = std::lower_bound(anchors.begin(), anchors.end(), std::pair(from, 0u));
                 it != anchors.end() && it->first < to; ++it)
                if (EventRef{trackId, i} != a.kernels[it->second].event) call.kernels.push_back(it->second);
            if (call.kernels.empty()) continue;
            call.scope = EventRef{trackId, i};
            a.calls.push_back(std::move(call));
        }
    }
}

void Analyzer::findWarmups() {
    const StringId range = trace.strings().find(category::kUserAnnotation);
    if (!range.valid()) return;
    const detail::ArgShapes marked(trace, {runargs::kWarmup});
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const Track& track = trace.tracks()[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const EventRef e{TrackId{t}, i};
            if (track.events.category[i] != range || !marked.has(e)) continue;
            std::string impl;
            long call = -1;
            bool warmup = false;
            trace.forEachArg(e, [&](std::string_view key, std::string_view value) {
                if (key == runargs::kWarmup) warmup = value == "true";
                if (key == runargs::kImpl) impl = detail::jsonUnquote(value);
                if (key == runargs::kCall) call = std::atol(std::string(value).c_str());
            });
            runRanges.push_back({track.events.start[i], track.end(i), impl});
            if (!warmup) continue;
            warmupCalls.insert({impl, call});
            warmupRanges.emplace_back(track.events.start[i], track.end(i));
        }
    }
}

void Analyzer::dropWarmupCalls() {
    if (warmupRanges.empty() || !ownCalls.empty()) return;
    erase_if(a.calls, [&](const AttentionCall& call) {
        TimeNs start = INT64_MAX;
        for (std::uint32_t k : call.kernels)
            start =
                std::min(start, trace.track(a.kernels[k].event.track).events.start[a.kernels[k].event.index]);
        return std::any_of(warmupRanges.begin(), warmupRanges.end(),
                           [&](const auto& r) { return r.first <= start && start < r.second; });
    });
}

const std::optional<EventRef>& Analyzer::anchorOf(std::uint32_t k) {
    if (kernelAnchors.empty() && !a.kernels.empty()) {
        kernelAnchors.resize(a.kernels.size());
        std::unordered_map<std::uint32_t, bool> graphLaunch; // per runtime call name
        for (std::size_t i = 0; i < a.kernels.size(); ++i) {
            const EventRef kernel = a.kernels[i].event;
            if (trace.track(kernel.track).events.flags[kernel.index] & kOpKernel) {
                kernelAnchors[i] = kernel;
                continue;
            }
            const auto launch = trace.launchOf(kernel);
            if (!launch) continue;
            const StringId name = trace.track(launch->track).events.name[launch->index];
            auto [known, added] = graphLaunch.try_emplace(name.value, false);
            if (added) known->second = trace.str(name).find("GraphLaunch") != std::string_view::npos;
            if (!known->second) kernelAnchors[i] = launch;
        }
    }
    return kernelAnchors[k];
}

bool Analyzer::boundsACall(EventRef e) const {
    const Track& t = trace.track(e.track);
    const std::string_view name = trace.str(t.events.name[e.index]);
    const std::string_view cat = trace.str(t.events.category[e.index]);
    // Steps and compiled regions (torch.compile's graphs, Inductor's and Dynamo's frames) hold calls;
    // they are not calls.
    if (cat == category::kUserAnnotation)
        return !name.starts_with("ProfilerStep#") && !name.starts_with("## ") &&
               !name.starts_with("CompiledFunction") && !name.starts_with("Torch-Compiled Region") &&
               !name.starts_with("torch_compile") && !name.starts_with("TorchDynamo");
    return trace.categoryKind(t.events.category[e.index]) == CategoryKind::CpuOp &&
           (name.starts_with("aten::scaled_dot_product") || name.starts_with("aten::_scaled_dot_product") ||
            name.starts_with("aten::_flash_attention") || name.starts_with("aten::_efficient_attention"));
}

void Analyzer::extendCallsToTheirScopes() {
    if (!ownCalls.empty() || a.calls.empty()) return;
    struct Scope {
        TimeNs start, end;
        std::size_t call;
    };
    std::map<TrackId, std::vector<Scope>> scopes; // per host thread, by start
    std::vector<std::uint8_t> inCall(a.kernels.size(), 0);
    std::vector<std::vector<EventRef>> anchorsOf(a.calls.size());
    std::map<TrackId, std::vector<TimeNs>> firstAnchors; // per host thread: each call's first, sorted
    // Per host thread, the GEMMs and fused attention kernels by their anchors, with their calls: a range
    // that launched such work of another call, or of none (a model's projections), holds more than this
    // call and bounds none (a step's range around a whole forward, vLLM's execute_context).
    std::vector<int> callOf(a.kernels.size(), -1);
    for (std::size_t c = 0; c < a.calls.size(); ++c)
        for (std::uint32_t k : a.calls[c].kernels)
            callOf[k] = int(c);
    std::map<TrackId, std::vector<std::pair<TimeNs, int>>> heavyWork;
    for (std::uint32_t k = 0; k < a.kernels.size(); ++k) {
        const KernelRole r = a.kernels[k].role;
        if (r != KernelRole::Gemm && r != KernelRole::QkGemm && r != KernelRole::PvGemm &&
            r != KernelRole::FusedAttention)
            continue;
        if (const auto anchor = anchorOf(k))
            heavyWork[anchor->track].emplace_back(trace.track(anchor->track).events.start[anchor->index],
                                                  callOf[k]);
    }
    for (auto& [track, list] : heavyWork)
        std::sort(list.begin(), list.end());
    auto holdsOthers = [&](TrackId track, TimeNs from, TimeNs to, int call) {
        const auto it = heavyWork.find(track);
        if (it == heavyWork.end()) return false;
        for (auto w = std::lower_bound(it->second.begin(), it->second.end(), std::pair(from, INT_MIN));
             w != it->second.end() && w->first < to; ++w)
            if (w->second != call) return true;
        return false;
    };
    for (std::size_t c = 0; c < a.calls.size(); ++c) {
        std::vector<EventRef>& anchors = anchorsOf[c];
        for (std::uint32_t k : a.calls[c].kernels) {
            inCall[k] = 1;
            if (const auto anchor = anchorOf(k)) anchors.push_back(*anchor);
        }
        if (anchors.empty() || anchors.size() != a.calls[c].kernels.size()) {
            anchors.clear();
            continue;
        }
        std::sort(anchors.begin(), anchors.end(), [&](EventRef x, EventRef y) {
            return trace.track(x.track).events.start[x.index] < trace.track(y.track).events.start[y.index];
        });
        const EventRef first = anchors.front();
        firstAnchors[first.track].push_back(trace.track(first.track).events.start[first.index]);
    }
    for (auto& [track, starts] : firstAnchors)
        std::sort(starts.begin(), starts.end());
    for (std::size_t c = 0; c < a.calls.size(); ++c) {
        const std::vector<EventRef>& anchors = anchorsOf[c];
        if (anchors.empty()) continue;
        bool inner = true;
        forEachEnclosingEvent(trace, anchors.front(), [&](EventRef e) {
            if (!boundsACall(e)) return false;
            const Track& t = trace.track(e.track);
            const TimeNs from = t.events.start[e.index], to = t.end(e.index);
            for (EventRef x : anchors) {
                const Track& xt = trace.track(x.track);
                if (x.track != e.track || xt.events.start[x.index] < from || xt.end(x.index) > to)
                    return false;
            }
            if (holdsOthers(e.track, from, to, int(c))) return true; // nor any range around it
            // The kernels launched inside the innermost range around all of the call's go to it.
            if (inner) scopes[e.track].push_back({from, to, c});
            inner = false;
            // The call's own host range: the outermost one that holds no other call.
            const std::vector<TimeNs>& starts = firstAnchors[e.track];
            const auto held = std::lower_bound(starts.begin(), starts.end(), to) -
                              std::lower_bound(starts.begin(), starts.end(), from);
            if (held > 1) return true;
            a.calls[c].scope = e;
            return false;
        });
    }
    if (scopes.empty()) return;
    for (auto& [track, list] : scopes)
        std::sort(list.begin(), list.end(), [](const Scope& x, const Scope& y) { return x.start < y.start; });
    for (std::uint32_t k = 0; k < a.kernels.size(); ++k) {
        if (inCall[k]) continue;
        const auto anchor = anchorOf(k);
        const auto it = anchor ? scopes.find(anchor->track) : scopes.end();
        if (it == scopes.end()) continue;
        const Track& t = trace.track(anchor->track);
        const TimeNs at = t.events.start[anchor->index], end = t.end(anchor->index);
        // The innermost scope around it: scopes nest or follow each other, so the few that start
        // last before it are the ones to look at.
        const std::vector<Scope>& list = it->second;
        auto after = std::upper_bound(list.begin(), list.end(), at,
                                      [](TimeNs v, const Scope& s) { return v < s.start; });
        const Scope* inner = nullptr;
        for (int look = 0; after != list.begin() && look < 8; ++look) {
            const Scope& s = *--after;
            if (s.start <= at && end <= s.end && (!inner || s.end - s.start < inner->end - inner->start))
                inner = &s;
        }
        if (inner) a.calls[inner->call].kernels.push_back(k);
    }
}

bool Analyzer::buildsTheMask(EventRef kernel) const {
    const bool op = trace.track(kernel.track).events.flags[kernel.index] & kOpKernel;
    const auto from = op ? std::optional(kernel) : trace.launchOf(kernel);
    auto named = [&](EventRef e) {
        return buildsAMask(trace.str(trace.track(e.track).events.name[e.index]));
    };
    return from && ((op && named(kernel)) || forEachEnclosingEvent(trace, *from, named));
}

bool Analyzer::isLayoutCopy(EventRef kernel) const {
    const bool op = trace.track(kernel.track).events.flags[kernel.index] & kOpKernel;
    const auto from = op ? std::optional(kernel) : trace.launchOf(kernel);
    if (!from) return false;
    // The innermost op around it that is not the copy's own plumbing asked for it.
    bool layout = false;
    auto asked = [&](EventRef e) {
        const std::string_view name = trace.str(trace.track(e.track).events.name[e.index]);
        if (copiesFor(name)) return false;
        layout = laysOutAgain(name);
        return true;
    };
    if (!(op && asked(kernel))) forEachEnclosingEvent(trace, *from, asked);
    return layout;
}

bool Analyzer::underSdpaMath(EventRef kernel) const {
    const bool op = trace.track(kernel.track).events.flags[kernel.index] & kOpKernel;
    const auto from = op ? std::optional(kernel) : trace.launchOf(kernel);
    return from && forEachEnclosingEvent(trace, *from, [&](EventRef e) {
               return trace.str(trace.track(e.track).events.name[e.index])
                   .starts_with("aten::_scaled_dot_product_attention_math");
           });
}

void Analyzer::numberCalls() {
    for (AttentionCall& call : a.calls) {
        call.start = INT64_MAX;
        call.end = INT64_MIN;
        for (std::uint32_t k : call.kernels) {
            const EventRef e = a.kernels[k].event;
            const Track& t = trace.track(e.track);
            call.start = std::min(call.start, t.events.start[e.index]);
            call.end = std::max(call.end, t.end(e.index));
        }
    }
    std::sort(a.calls.begin(), a.calls.end(), [](const AttentionCall& x, const AttentionCall& y) {
        return x.start != y.start ? x.start < y.start : x.impl < y.impl;
    });
    for (KernelAnalysis& k : a.kernels)
        k.call = -1;
    for (std::size_t c = 0; c < a.calls.size(); ++c)
        for (std::uint32_t k : a.calls[c].kernels)
            a.kernels[k].call = int(c);
    // The kernels of warm-up calls: no call's, and named as warm-up rather than outside attention.
    if (!warmupRanges.empty())
        for (KernelAnalysis& k : a.kernels) {
            if (k.call >= 0) continue;
            const TimeNs start = trace.track(k.event.track).events.start[k.event.index];
            k.warmup = std::any_of(warmupRanges.begin(), warmupRanges.end(),
                                   [&](const auto& r) { return r.first <= start && start < r.second; });
        }
}

void Analyzer::namePhases() {
    if (!ownCalls.empty()) return; // a run names its cases itself
    std::sort(runRanges.begin(), runRanges.end(),
              [](const RunRange& x, const RunRange& y) { return x.start < y.start; });
    for (AttentionCall& call : a.calls) {
        // A PyTorch run's range names its implementation (the run's impl arg): where that is a variant of
        // what the kernels read as (naive_inplace of a naive chain), the run's word, or the variant's
        // calls would join the chain's row, measured as one.
        if (!runRanges.empty() && !call.kernels.empty()) {
            const EventRef first = a.kernels[call.kernels.front()].event;
            const TimeNs at = trace.track(first.track).events.start[first.index];
            // The run's calls follow each other: the last range to start at or before the kernel.
            const auto r = std::upper_bound(runRanges.begin(), runRanges.end(), at,
                                            [](TimeNs t, const RunRange& x) { return t < x.start; });
            if (r != runRanges.begin() && at < std::prev(r)->end &&
                std::prev(r)->impl.starts_with(call.impl + "_"))
                call.impl = std::prev(r)->impl;
            // The range around the call is its time on the host (the run's, on another track than its ops).
            if (r != runRanges.begin() && at < std::prev(r)->end && !call.scope)
                call.runRangeNs = std::prev(r)->end - std::prev(r)->start;
        }
        if (call.impl.ends_with(" decode")) continue;
        const auto in = callInputs(trace, a, call);
        if (in && in->queryLen == 1 && in->keyLen > 1) call.impl += " decode";
    }
}

void Analyzer::checkShapes() {
    const bool ownCpu = !ownCalls.empty() && !trace.info().opKernels;
    for (AttentionCall& call : a.calls) {
        const Track* scopeTrack = call.scope ? &trace.track(call.scope->track) : nullptr;
        const std::string_view scopeName =
            scopeTrack ? trace.str(scopeTrack->events.name[call.scope->index]) : std::string_view();
        std::vector<std::uint32_t> kernels = call.kernels;
        auto startOf = [&](std::uint32_t k) {
            const EventRef e = a.kernels[k].event;
            return trace.track(e.track).events.start[e.index];
        };
        std::stable_sort(kernels.begin(), kernels.end(),
                         [&](std::uint32_t x, std::uint32_t y) { return startOf(x) < startOf(y); });
        if (ownCpu) {
            // Each worker runs its share of each of the call's kernels, under the kernel's name.
            std::set<StringId> seen;
            std::erase_if(kernels, [&](std::uint32_t k) {
                const EventRef e = a.kernels[k].event;
                return isCpuTrack(trace, e.track) &&
                       !seen.insert(trace.track(e.track).events.name[e.index]).second;
            });
        }
        call.kernelCount = std::uint32_t(kernels.size());
        bool fused = false;
        for (std::uint32_t k : kernels)
            fused = fused || a.kernels[k].role == KernelRole::FusedAttention;
        const CallShape* shape = shapes.find(scopeName, call.impl, fused);
        if (!shape) continue;
        const bool patterns = std::any_of(shape->slots.begin(), shape->slots.end(),
                                          [](const CallShape::Slot& s) { return !s.pattern.empty(); });
        std::vector<ShapeKernel> roles;
        for (std::uint32_t k : kernels) {
            const EventRef e = a.kernels[k].event;
            roles.push_back({a.kernels[k].role, trace.str(trace.track(e.track).events.name[e.index])});
            if (!patterns) continue;
            // The ops that asked for it, up to the call's own range (a slot may name one).
            const std::optional<EventRef> launch =
                isCpuTrack(trace, e.track) ? std::optional(e) : trace.launchOf(e);
            if (!launch) continue;
            for (EventRef op : enclosingEvents(trace, *launch)) {
                if (call.scope && op == *call.scope) break;
                roles.back().ops.push_back(trace.str(trace.track(op.track).events.name[op.index]));
            }
        }
        const ShapeCheck check = checkShape(*shape, roles);
        call.shapeKey = shape->key;
        call.shapeText = shape->text;
        call.expectedKernels = check.expected;
        call.missing = check.missing;
        // An unexpected kernel is outlined with all of its workers' shares (its time is theirs, as the
        // call's is).
        auto nameOf = [&](std::uint32_t k) {
            const EventRef e = a.kernels[k].event;
            return trace.track(e.track).events.name[e.index];
        };
        for (std::size_t i : check.unexpected) {
            call.unexpected.push_back(kernels[i]);
            for (std::uint32_t k : call.kernels)
                if (k == kernels[i] || (ownCpu && isCpuTrack(trace, a.kernels[k].event.track) &&
                                        nameOf(k) == nameOf(kernels[i])))
                    a.kernels[k].unexpected = true;
        }
    }
}

} // namespace attnscope::analysis_detail
