// SPDX-License-Identifier: MIT
#include "core/analysis/analysis.h"
#include "core/analysis/kernel_reader.h"
#include "core/model/categories.h"
#include "core/model/kineto_args.h"

#include "core/analysis/attention_math.h"
#include "core/analysis/attention_ops.h"
#include "core/analysis/resources.h"
#include "core/model/args_codec.h"
#include "core/model/parallel_for.h"
#include "core/model/run_args.h"
#include "core/model/text_match.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

namespace attnscope {

using detail::KernelReader;
using detail::ModelledOp;

namespace {

std::string argValue(const Trace& trace, EventRef e, std::string_view key) {
    std::string out;
    trace.forEachArg(e, [&](std::string_view k, std::string_view v) {
        if (k == key) out.assign(v);
    });
    return out;
}

// The implementation a fused attention kernel's name tells (resources/kernel_roles.txt), else "fused".
std::string fusedImpl(std::string_view name) {
    std::string impl = RoleRules::standard().implementation(name);
    return impl.empty() ? "fused" : impl;
}

} // namespace

bool isCpuProcess(const ProcessInfo& p) {
    return !p.isGpu || p.labels == runargs::kCpuProcessLabel;
}

bool isCpuTrack(const Trace& trace, TrackId t) {
    return isCpuProcess(trace.process(trace.track(t).process));
}

std::string costBasis(const Trace& trace, const KernelAnalysis& k) {
    if (k.cost == CostSource::Exact) return "the run's own numbers";
    if (k.cost != CostSource::Inferred || !k.costOp) return {};
    const EventRef op = *k.costOp;
    return std::string(trace.str(trace.track(op.track).events.name[op.index])) + " " +
           argValue(trace, op, kineto::kInputDims) + " " + std::string(precisionName(k.precision));
}

bool hasCpuKernels(const Trace& trace) {
    if (trace.info().opKernels) return true;
    for (const ProcessInfo& p : trace.processes())
        if (p.isGpu && p.labels == runargs::kCpuProcessLabel) return true;
    return false;
}

const KernelAnalysis* TraceAnalysis::find(EventRef e) const {
    auto it = std::lower_bound(kernels.begin(), kernels.end(), e,
                               [](const KernelAnalysis& k, EventRef r) { return k.event < r; });
    return it != kernels.end() && it->event == e ? &*it : nullptr;
}

namespace {

// Below this many kernels one thread reads them all.
constexpr std::size_t kKernelsPerThread = 16384;

// The device's work the analysis reads: kernels, copies and an accelerator's own events.
bool isWork(CategoryKind k) {
    return k == CategoryKind::Kernel || k == CategoryKind::Copy || k == CategoryKind::DeviceEvent;
}

// One analysis, in passes over the trace's kernels.
class Analyzer {
public:
    Analyzer(const Trace& trace, const DeviceSpec* cpu, const DeviceSpec* cpuCore, const DeviceSpecs& specs,
             const RoleRules& rules, const CallShapes& shapes, unsigned threads)
        : trace(trace), cpu(cpu), cpuCore(cpuCore), specs(specs), rules(rules), shapes(shapes),
          maxThreads(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

    TraceAnalysis run() {
        chooseDevice();
        readKernels();
        assignOpCosts();
        findWarmups();
        findCalls();
        extendCallsToTheirScopes();
        callsOfAttentionOps();
        dropWarmupCalls();
        numberCalls();
        checkShapes();
        placeOnRoofs();
        a.tables = kernelTables(trace, a);
        return std::move(a);
    }

private:
    void chooseDevice() {
        // The roofs of the GPU the kernels ran on (its model as the trace builder matched it), else of
        // the first device the trace lists.
        std::vector<std::string> models;
        for (const ProcessInfo& p : trace.processes())
            if (p.isGpu && !p.deviceModel.empty()) models.push_back(p.deviceModel);
        for (const DeviceInfo& dev : trace.devices())
            if (!dev.name.empty()) models.push_back(dev.name);
        for (const std::string& model : models) {
            if (a.device) break;
            a.device = specs.match(model);
            a.deviceNote = a.device ? model + ": " + a.device->name + " (" + a.device->source + ")"
                                    : "no roofs known for '" + model + "' (add it to device_specs.txt)";
        }
        if (models.empty()) {
            // Why there are no roofs, as it is: the devices it has are not named (an MTIA's trace names
            // none), or it has none.
            std::string kind;
            for (const ProcessInfo& p : trace.processes())
                if (p.isGpu && !isCpuProcess(p) && kind.empty()) kind = std::string(deviceKind(p));
            a.deviceNote = kind.empty()
                               ? "the trace has no GPU"
                               : "no roofs are known for its devices: the trace does not name their model (" +
                                     kind + ")";
        }
    }

    // The kernels, read in contiguous ranges on several threads and joined in order, so the result
    // does not depend on how many threads read them.
    void readKernels() {
        std::vector<EventRef> refs;
        for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
            const Track& track = trace.tracks()[t];
            for (std::uint32_t i = 0; i < track.size(); ++i)
                if (isWork(trace.categoryKind(track.events.category[i])) ||
                    (track.events.flags[i] & kOpKernel))
                    refs.push_back({TrackId{t}, i});
        }
        const unsigned threads =
            unsigned(std::clamp<std::size_t>(refs.size() / kKernelsPerThread, 1, std::min(maxThreads, 8u)));
        std::vector<std::unique_ptr<KernelReader>> readers;
        for (unsigned p = 0; p < threads; ++p)
            readers.push_back(std::make_unique<KernelReader>(trace, rules));
        a.kernels.resize(refs.size());
        std::vector<ModelledOp> launchedBy(refs.size());
        parallelFor(threads, threads, [&](std::size_t p) {
            readers[p]->read(refs, refs.size() * p / threads, refs.size() * (p + 1) / threads,
                             a.kernels.data(), launchedBy.data());
        });
        for (auto& reader : readers)
            for (auto& [index, impl, call] : reader->ownCalls)
                ownCalls[{std::move(impl), call}].push_back(index);
        // Each op once, numbered in kernel order: a dense index per op track (an op event's number)
        // rather than a hash map, which took most of this pass on traces with a million kernels.
        kernelOp.assign(refs.size(), kNoOp);
        std::vector<std::vector<std::uint32_t>> opIndex(trace.tracks().size());
        for (std::size_t k = 0; k < refs.size(); ++k) {
            const ModelledOp& l = launchedBy[k];
            if (!l.cost) continue;
            std::vector<std::uint32_t>& index = opIndex[l.op.track.value];
            if (index.empty()) index.assign(trace.track(l.op.track).size(), kNoOp);
            std::uint32_t& op = index[l.op.index];
            if (op == kNoOp) {
                op = std::uint32_t(ops.size());
                ops.emplace_back(l.op, *l.cost);
            }
            kernelOp[k] = op;
        }
    }

    // Whether an op's cost can be a kernel's: the aten:: op standing for a kernel is its own kernel; a
    // GPU kernel must do the op's kind of work (its role).
    bool costFits(std::uint32_t k, KernelRole opRole) const {
        const KernelAnalysis& ka = a.kernels[k];
        return ops[kernelOp[k]].first == ka.event || ka.role == opRole;
    }

    void assignOpCosts() {
        // An op's cost goes to its one kernel of the op's role; with none or several, it stays unknown.
        // An op of several parts (a convolution's backward) gives each part to the one kernel whose
        // name holds the part's word.
        std::vector<std::uint32_t> matches(ops.size(), 0), chosen(ops.size(), 0);
        std::vector<std::vector<std::uint32_t>> fitting(ops.size());
        for (std::uint32_t k = 0; k < a.kernels.size(); ++k) {
            const std::uint32_t op = kernelOp[k];
            if (op == kNoOp || !costFits(k, ops[op].second.role)) continue;
            chosen[op] = k;
            ++matches[op];
            if (!ops[op].second.parts.empty()) fitting[op].push_back(k);
        }
        auto give = [&](std::uint32_t op, std::uint32_t kernel, double flops, double bytes) {
            KernelAnalysis& k = a.kernels[kernel];
            k.cost = CostSource::Inferred;
            k.flops = flops;
            k.bytes = bytes;
            const EventRef e = k.event;
            k.precision = precisionRunning(ops[op].second.precision,
                                           trace.str(trace.track(e.track).events.name[e.index]));
            k.costOp = ops[op].first;
        };
        for (std::uint32_t op = 0; op < ops.size(); ++op) {
            const OpCost& c = ops[op].second;
            if (c.parts.empty()) {
                if (matches[op] == 1) give(op, chosen[op], c.flops, c.bytes);
                continue;
            }
            for (const OpCost::Part& part : c.parts) {
                std::optional<std::uint32_t> only;
                int found = 0;
                for (std::uint32_t k : fitting[op]) {
                    const EventRef e = a.kernels[k].event;
                    if (!containsNoCase(trace.str(trace.track(e.track).events.name[e.index]), part.word))
                        continue;
                    only = k;
                    ++found;
                }
                if (found == 1) give(op, *only, part.flops, part.bytes);
            }
        }
    }

    void findCalls() {
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
        auto isBetween = [](KernelRole r) {
            return r == KernelRole::Elementwise || r == KernelRole::Reduction;
        };
        if (ownCalls.empty()) {
            std::map<TrackId, std::vector<std::uint32_t>> perTrack;
            for (std::uint32_t k = 0; k < a.kernels.size(); ++k)
                if (a.kernels[k].role != KernelRole::Copy) perTrack[a.kernels[k].event.track].push_back(k);
            constexpr int kMaxBetween = 4;
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
                    std::size_t before = p, after = p;
                    int between = 0;
                    while (before > 0 && isBetween(a.kernels[list[before - 1]].role) &&
                           between < kMaxBetween) {
                        --before;
                        ++between;
                    }
                    between = 0;
                    while (after + 1 < list.size() && isBetween(a.kernels[list[after + 1]].role) &&
                           between < kMaxBetween) {
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
                    a.calls.push_back(std::move(call));
                    qk.call = 0; // marks it taken until the calls are numbered below
                }
            }
        }
    }

    // A backward pass's kernels (an attention's gradients: flash_bwd, mem-efficient's cutlassB, cuDNN's
    // bprop, a softmax's backward, or on the CPU the ops named so) are attention work but no call of
    // their own: a call is the forward attention an implementation's expected call describes, one a layer
    // a forward pass. Read once a name (a trace has a few hundred, its kernels and ops hundreds of
    // thousands).
    bool backward(const KernelAnalysis& k) {
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

    // An SDPA call whose kernels no pattern found (the math backend's chain broken by dropout's kernels in
    // training, a decomposition of another shape) is still a call: its op bounds it, and the forward work
    // launched inside that op is the call's, so every view counts the calls the findings that read the op
    // count. The outermost SDPA op (the public one, else its _math backend) that holds no call already.
    void callsOfAttentionOps() {
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
                    if (EventRef{trackId, i} != a.kernels[it->second].event)
                        call.kernels.push_back(it->second);
                if (call.kernels.empty()) continue;
                call.scope = EventRef{trackId, i};
                a.calls.push_back(std::move(call));
            }
        }
    }

    // AttnScope's own runs mark each call's range with its implementation, number and whether it warmed up
    // (run_args.h): a warm-up call is not one of the calls measured, so it is no call in any view.
    void findWarmups() {
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
                if (!warmup) continue;
                warmupCalls.insert({impl, call});
                warmupRanges.emplace_back(track.events.start[i], track.end(i));
            }
        }
    }

    // The calls found by their kernels inside a warm-up call's range (PyTorch runs, whose kernels carry no
    // call numbers) are dropped: their kernels are outside any call.
    void dropWarmupCalls() {
        if (warmupRanges.empty() || !ownCalls.empty()) return;
        std::erase_if(a.calls, [&](const AttentionCall& call) {
            TimeNs start = INT64_MAX;
            for (std::uint32_t k : call.kernels)
                start = std::min(
                    start, trace.track(a.kernels[k].event.track).events.start[a.kernels[k].event.index]);
            return std::any_of(warmupRanges.begin(), warmupRanges.end(),
                               [&](const auto& r) { return r.first <= start && start < r.second; });
        });
    }

    // Where a kernel was asked for on the host: its launch, or the aten:: op standing for it. A graph's
    // kernels have none of their own: one cudaGraphLaunch / hipGraphLaunch asks for all of them, so the
    // ranges around it hold the whole graph and say nothing of which op made which kernel.
    // Each kernel's, found once for the passes that read them (kernel index → anchor).
    const std::optional<EventRef>& anchorOf(std::uint32_t k) {
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

    // Whether a host event bounds one attention call: an attention op (SDPA and its backends' ops) or
    // a range the user named (record_function("attn_fwd")), never the profiler's own step ranges.
    bool boundsACall(EventRef e) const {
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
               (name.starts_with("aten::scaled_dot_product") ||
                name.starts_with("aten::_scaled_dot_product") || name.starts_with("aten::_flash_attention") ||
                name.starts_with("aten::_efficient_attention"));
    }

    // A call is what runs inside the innermost attention op or user range around all of its kernels'
    // launches, not only the kernels its name-based chain found: the out-of-place masked_fill's copy of
    // a hand-written call, the casts and the mask SDPA's math backend makes. A kernel inside two calls'
    // scopes goes to the innermost; one inside none stays outside attention.
    void extendCallsToTheirScopes() {
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
                return trace.track(x.track).events.start[x.index] <
                       trace.track(y.track).events.start[y.index];
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
            std::sort(list.begin(), list.end(),
                      [](const Scope& x, const Scope& y) { return x.start < y.start; });
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

    // Whether a kernel was launched by an op that builds a mask from nothing (or is such an op).
    bool buildsTheMask(EventRef kernel) const {
        const bool op = trace.track(kernel.track).events.flags[kernel.index] & kOpKernel;
        const auto from = op ? std::optional(kernel) : trace.launchOf(kernel);
        auto named = [&](EventRef e) {
            return buildsAMask(trace.str(trace.track(e.track).events.name[e.index]));
        };
        return from && ((op && named(kernel)) || forEachEnclosingEvent(trace, *from, named));
    }

    // Whether a kernel ran inside SDPA's math backend (the op that launched it, or the op standing
    // for a kernel itself, is inside aten::_scaled_dot_product_attention_math).
    bool underSdpaMath(EventRef kernel) const {
        const bool op = trace.track(kernel.track).events.flags[kernel.index] & kOpKernel;
        const auto from = op ? std::optional(kernel) : trace.launchOf(kernel);
        return from && forEachEnclosingEvent(trace, *from, [&](EventRef e) {
                   return trace.str(trace.track(e.track).events.name[e.index])
                       .starts_with("aten::_scaled_dot_product_attention_math");
               });
    }

    // Calls by start, and each kernel's call.
    void numberCalls() {
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
    }

    // Each call's kernels counted (a CPU run's workers' shares of one kernel once) and held to its
    // expected shape, by start.
    void checkShapes() {
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
            std::vector<ShapeKernel> roles;
            bool fused = false;
            for (std::uint32_t k : kernels) {
                const EventRef e = a.kernels[k].event;
                roles.push_back({a.kernels[k].role, trace.str(trace.track(e.track).events.name[e.index])});
                fused = fused || a.kernels[k].role == KernelRole::FusedAttention;
            }
            const CallShape* shape = shapes.find(scopeName, call.impl, fused);
            if (!shape) continue;
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

    // The roofline: GPU kernels on the trace's device, a CPU run's kernels on the measured CPU. A CPU
    // run records each worker's share of a kernel, run at the same time as the other workers' shares:
    // each is held to its share of all cores' roofs, and to no more than one core's. A kernel above
    // its roof keeps no verdict: its cost is wrong, and the roof stays where the device puts it.
    void placeOnRoofs() {
        std::set<TrackId> workers;
        for (const KernelAnalysis& k : a.kernels)
            if (isCpuTrack(trace, k.event.track)) workers.insert(k.event.track);
        a.cpuWorkers = unsigned(workers.size());
        if (cpu && !workers.empty() && trace.info().opKernels) {
            // PyTorch's CPU ops: each spreads over all cores (intra-op threads), one op at a time.
            a.cpuShare = *cpu;
        } else if (cpu && !workers.empty()) {
            DeviceSpec share = *cpu;
            const double n = double(workers.size());
            auto each = [&](double all, double core) { return core > 0 ? std::min(core, all / n) : all / n; };
            share.fp32 = each(cpu->fp32, cpuCore ? cpuCore->fp32 : 0);
            share.fp16 = each(cpu->fp16, cpuCore ? cpuCore->fp16 : 0);
            share.bandwidth = each(cpu->bandwidth, cpuCore ? cpuCore->bandwidth : 0);
            share.name = cpu->name + " ÷ " + std::to_string(workers.size()) + " workers";
            a.cpuShare = share;
        }
        for (KernelAnalysis& k : a.kernels)
            if (const DeviceSpec* spec = a.roofsOf(trace, k.event)) {
                placeOnRoofline(k, trace.track(k.event.track).events.duration[k.event.index], *spec);
            }
    }

    const Trace& trace;
    const DeviceSpec* cpu;
    const DeviceSpec* cpuCore;
    const DeviceSpecs& specs;
    const RoleRules& rules;
    const CallShapes& shapes;
    const unsigned maxThreads;
    TraceAnalysis a;
    std::vector<std::optional<EventRef>> kernelAnchors;    // per kernel, made by the first anchorOf
    std::unordered_map<std::uint32_t, bool> backwardNames; // per kernel or op name
    std::set<std::pair<std::string, long>> warmupCalls;    // own runs' warm-up (impl, call)
    std::vector<std::pair<TimeNs, TimeNs>> warmupRanges;   // their ranges
    // The modelled ops that launched kernels, with their costs, and each kernel's op (or kNoOp).
    static constexpr std::uint32_t kNoOp = UINT32_MAX;
    std::vector<std::pair<EventRef, OpCost>> ops;
    std::vector<std::uint32_t> kernelOp;
    // AttnScope's own runs: (impl, call) → kernels.
    std::map<std::pair<std::string, long>, std::vector<std::uint32_t>> ownCalls;
};

// Room for n, for twice as many when it grows: a list refilled at every step (room reused from two
// snapshots before, two steps shorter) is moved to fresh memory, whose every page faults in, once each
// time the profile doubles, not at almost every step (room for n and a half again fitted the steps two
// snapshots on only late in a profile). The room not written is not resident. What it held is written
// over, not moved to the new memory first.
template <typename T> void reserveRoom(std::vector<T>& v, std::size_t n) {
    if (v.capacity() >= n) return;
    v.clear();
    v.reserve(2 * n);
}

} // namespace

TraceAnalysis joinAnalyses(const Trace& grown, const TraceAnalysis& before, const Trace& partTrace,
                           const TraceAnalysis& part, const std::function<EventRef(EventRef)>& place,
                           TraceAnalysis* room) {
    TraceAnalysis a;
    if (room) {
        a.kernels = std::move(room->kernels);
        a.kernels.clear();
        a.calls = std::move(room->calls); // its calls' strings and lists are copied over, not made anew
        *room = TraceAnalysis();
    }
    a.device = before.device ? before.device : part.device;
    a.deviceNote = before.device || part.deviceNote.empty() ? before.deviceNote : part.deviceNote;
    a.cpuShare = before.cpuShare ? before.cpuShare : part.cpuShare;
    a.cpuNote = before.cpuNote.empty() ? part.cpuNote : before.cpuNote;
    // The part's kernels where their events went, then both lists merged by event (each list is): on each
    // track the part's come after the ones before, so the merge copies runs.
    std::vector<KernelAnalysis> moved = part.kernels;
    for (KernelAnalysis& k : moved) {
        k.event = place(k.event);
        if (k.costOp) k.costOp = place(*k.costOp);
    }
    std::vector<std::uint32_t> movedTo(moved.size());
    std::iota(movedTo.begin(), movedTo.end(), 0u);
    auto byEvent = [&](std::uint32_t x, std::uint32_t y) { return moved[x].event < moved[y].event; };
    if (!std::is_sorted(movedTo.begin(), movedTo.end(), byEvent)) {
        std::stable_sort(movedTo.begin(), movedTo.end(), byEvent);
        std::vector<KernelAnalysis> sorted;
        sorted.reserve(moved.size());
        for (std::uint32_t k : movedTo)
            sorted.push_back(moved[k]);
        moved.swap(sorted);
    }
    std::vector<std::uint32_t> beforeTo(before.kernels.size()), partTo(moved.size());
    reserveRoom(a.kernels, before.kernels.size() + moved.size());
    for (std::size_t i = 0, j = 0; i < before.kernels.size() || j < moved.size();) {
        // The run of one side that comes before the other's next kernel, copied at once.
        const bool fromBefore =
            j == moved.size() || (i < before.kernels.size() && before.kernels[i].event < moved[j].event);
        const auto& from = fromBefore ? before.kernels : moved;
        std::size_t& at = fromBefore ? i : j;
        const std::size_t runStart = at;
        const std::size_t end =
            fromBefore ? (j == moved.size()
                              ? before.kernels.size()
                              : std::size_t(std::lower_bound(before.kernels.begin() + std::ptrdiff_t(i),
                                                             before.kernels.end(), moved[j].event,
                                                             [](const KernelAnalysis& k, EventRef e) {
                                                                 return k.event < e;
                                                             }) -
                                            before.kernels.begin()))
                       : (i == before.kernels.size()
                              ? moved.size()
                              : std::size_t(std::lower_bound(moved.begin() + std::ptrdiff_t(j), moved.end(),
                                                             before.kernels[i].event,
                                                             [](const KernelAnalysis& k, EventRef e) {
                                                                 return k.event < e;
                                                             }) -
                                            moved.begin()));
        std::vector<std::uint32_t>& to = fromBefore ? beforeTo : partTo;
        for (std::size_t k = runStart; k < end; ++k)
            to[k] = std::uint32_t(a.kernels.size() + (k - runStart));
        a.kernels.insert(a.kernels.end(), from.begin() + std::ptrdiff_t(runStart),
                         from.begin() + std::ptrdiff_t(end));
        at = end;
    }
    // The CPU tracks with kernels: the ones before, and the part's that had none before.
    a.cpuWorkers = before.cpuWorkers;
    for (std::size_t k = 0; k < moved.size(); ++k) {
        const TrackId t = moved[k].event.track;
        if ((k > 0 && moved[k - 1].event.track == t) || !isCpuTrack(grown, t)) continue;
        const auto had = std::lower_bound(before.kernels.begin(), before.kernels.end(), EventRef{t, 0},
                                          [](const KernelAnalysis& x, EventRef e) { return x.event < e; });
        a.cpuWorkers += had == before.kernels.end() || had->event.track != t;
    }
    if (movedTo.size() && !std::is_sorted(movedTo.begin(), movedTo.end())) {
        // partTo is by sorted position: back to the part's own kernel numbers.
        std::vector<std::uint32_t> byPart(moved.size());
        for (std::size_t k = 0; k < moved.size(); ++k)
            byPart[movedTo[k]] = partTo[k];
        partTo.swap(byPart);
    }
    // The calls with their kernels renumbered, in start order (as analyzeTrace numbers them). The part's
    // start after the ones before, as a program's steps do, and are put after them as they are.
    auto carry = [](AttentionCall& c, const std::vector<std::uint32_t>& to) {
        for (std::uint32_t& k : c.kernels)
            k = to[k];
        for (std::uint32_t& k : c.unexpected)
            k = to[k];
    };
    reserveRoom(a.calls, before.calls.size() + part.calls.size());
    a.calls = before.calls;
    const bool beforeMoved = !std::is_sorted(beforeTo.begin(), beforeTo.end()) ||
                             (!beforeTo.empty() && beforeTo.back() != beforeTo.size() - 1);
    if (beforeMoved)
        for (AttentionCall& c : a.calls)
            carry(c, beforeTo);
    const std::size_t first = a.calls.size();
    for (const AttentionCall& call : part.calls) {
        a.calls.push_back(call);
        carry(a.calls.back(), partTo);
        if (a.calls.back().scope) a.calls.back().scope = place(*a.calls.back().scope);
    }
    auto byStart = [](const AttentionCall& x, const AttentionCall& y) {
        return x.start != y.start ? x.start < y.start : x.impl < y.impl;
    };
    if (first > 0 && first < a.calls.size() && byStart(a.calls[first], a.calls[first - 1])) {
        std::stable_sort(a.calls.begin(), a.calls.end(), byStart);
        for (KernelAnalysis& k : a.kernels)
            k.call = -1;
        for (std::size_t c = 0; c < a.calls.size(); ++c)
            for (std::uint32_t k : a.calls[c].kernels)
                a.kernels[k].call = int(c);
    } else {
        for (std::size_t c = first; c < a.calls.size(); ++c)
            for (std::uint32_t k : a.calls[c].kernels)
                a.kernels[k].call = int(c);
    }
    if (!before.tables.sums || !part.tables.sums) { // not made by analyzeTrace: read every kernel
        a.tables = kernelTables(grown, a);
        return a;
    }
    auto sums = std::make_shared<KernelTableSums>(*before.tables.sums);
    addTableSums(*sums, *part.tables.sums,
                 [&](StringId id) { return grown.strings().find(partTrace.str(id)); });
    a.tables = tablesFromSums(std::move(sums), grown, a);
    return a;
}

TraceAnalysis analyzeTrace(const Trace& trace, const DeviceSpec* cpu, const DeviceSpecs& specs,
                           const RoleRules& rules, const DeviceSpec* cpuCore, unsigned threads,
                           const CallShapes& shapes) {
    return Analyzer(trace, cpu, cpuCore, specs, rules, shapes, threads).run();
}

} // namespace attnscope
