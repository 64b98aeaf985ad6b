// SPDX-License-Identifier: MIT
#include "core/analysis/analysis.h"
#include "core/analysis/analyzer.h"
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

using analysis_detail::argValue;

using detail::KernelReader;
using detail::ModelledOp;

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

namespace {

// The place, by event, of the first of a's kernels at or after e, searched from `from` on.
std::size_t firstByEvent(const TraceAnalysis& a, EventRef e, std::size_t from = 0) {
    std::size_t lo = from, hi = a.kernels.size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (a.kernelByEvent(mid).event < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

} // namespace

const KernelAnalysis* TraceAnalysis::find(EventRef e) const {
    const std::size_t at = firstByEvent(*this, e);
    return at < kernels.size() && kernelByEvent(at).event == e ? &kernelByEvent(at) : nullptr;
}

namespace analysis_detail {

// One analysis, in passes over the trace's kernels (analyzer.h): the device, the kernels read and costed,
// and the roofs; the calls are analysis_calls.cpp's.

void Analyzer::chooseDevice() {
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
        a.deviceNote = a.device
                           ? model + ": " + a.device->name + " (" + a.device->source + ")"
                           : "no roofs known for '" + model + "' (add its roofs to " +
                                 userDataFileForPeople("ATTNSCOPE_DEVICE_SPECS", "device_specs.txt") + ")";
    }
    if (models.empty()) {
        // Why there are no roofs, as it is: the devices it has are not named (an MTIA's trace names
        // none), or it has none.
        std::string kind;
        for (const ProcessInfo& p : trace.processes())
            if (p.isGpu && !isCpuProcess(p) && kind.empty()) kind = std::string(deviceKind(p));
        a.deviceNote =
            kind.empty()
                ? "the trace has no GPU"
                : "no roofs are known for its devices: the trace does not name their model (" + kind + ")";
    }
}

void Analyzer::readKernels() {
    std::vector<EventRef> refs;
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const Track& track = trace.tracks()[t];
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (isWork(trace.categoryKind(track.events.category[i])) || (track.events.flags[i] & kOpKernel))
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
        readers[p]->read(refs, refs.size() * p / threads, refs.size() * (p + 1) / threads, a.kernels.data(),
                         launchedBy.data());
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

bool Analyzer::costFits(std::uint32_t k, KernelRole opRole) const {
    const KernelAnalysis& ka = a.kernels[k];
    return ops[kernelOp[k]].first == ka.event || ka.role == opRole;
}

void Analyzer::assignOpCosts() {
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
        k.precision =
            precisionRunning(ops[op].second.precision, trace.str(trace.track(e.track).events.name[e.index]));
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

void Analyzer::placeOnRoofs() {
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

} // namespace analysis_detail

TraceAnalysis joinAnalyses(const Trace& grown, TraceAnalysis before, const Trace& partTrace,
                           const TraceAnalysis& part, const std::function<EventRef(EventRef)>& place) {
    TraceAnalysis a = std::move(before);
    if (!a.device) {
        if (!part.deviceNote.empty()) a.deviceNote = part.deviceNote;
        a.device = part.device;
    }
    if (!a.cpuShare) a.cpuShare = part.cpuShare;
    if (a.cpuNote.empty()) a.cpuNote = part.cpuNote;
    // The part's kernels where their events went, by event.
    std::vector<KernelAnalysis> moved(part.kernels.begin(), part.kernels.end());
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
    const TraceAnalysis& had = a; // read, not written: a list written copies the chunks it writes
    const std::size_t n = had.kernels.size(), m = moved.size();
    // The place among the kernels before, by event, of the first at or after e (none is appended yet).
    auto firstAtOrAfter = [&](std::size_t from, EventRef e) { return firstByEvent(had, e, from); };
    // The CPU tracks with kernels: the ones before, and the part's that had none before.
    for (std::size_t k = 0; k < m; ++k) {
        const TrackId t = moved[k].event.track;
        if ((k > 0 && moved[k - 1].event.track == t) || !isCpuTrack(grown, t)) continue;
        const std::size_t at = firstAtOrAfter(0, EventRef{t, 0});
        a.cpuWorkers += at == n || had.kernelByEvent(at).event.track != t;
    }
    // The part's kernels go after the ones before (no kernel before moves, so no call before is
    // renumbered and a snapshot's lists stay shared); where each goes among them by event (on each track
    // after the ones there) is said in kernelsByEvent.
    std::vector<std::uint32_t> at(m); // the first kernel before, by event, that comes after it
    for (std::size_t j = 0; j < m; ++j)
        at[j] = std::uint32_t(firstAtOrAfter(j ? at[j - 1] : 0, moved[j].event));
    if (m > 0 && (!had.kernelsByEvent.empty() || at.front() < n)) {
        std::vector<std::uint32_t> order;
        order.reserve(n + m);
        for (std::size_t i = 0, j = 0;; ++i) {
            for (; j < m && at[j] == i; ++j)
                order.push_back(std::uint32_t(n + j));
            if (i == n) break;
            order.push_back(had.kernelsByEvent.empty() ? std::uint32_t(i) : had.kernelsByEvent[i]);
        }
        a.kernelsByEvent = std::move(order);
    }
    std::vector<std::uint32_t> partTo(m);
    for (std::size_t j = 0; j < m; ++j) {
        partTo[j] = std::uint32_t(n + j);
        a.kernels.push_back(std::move(moved[j]));
    }
    if (!std::is_sorted(movedTo.begin(), movedTo.end())) {
        // partTo is by sorted position: back to the part's own kernel numbers.
        std::vector<std::uint32_t> byPart(m);
        for (std::size_t k = 0; k < m; ++k)
            byPart[movedTo[k]] = partTo[k];
        partTo.swap(byPart);
    }
    auto carry = [](AttentionCall& c, auto&& to) {
        for (std::uint32_t& k : c.kernels)
            k = to(k);
        for (std::uint32_t& k : c.unexpected)
            k = to(k);
        for (std::uint32_t& k : c.backward)
            k = to(k);
    };
    const std::size_t first = a.calls.size();
    std::vector<AttentionCall> added(part.calls.begin(), part.calls.end());
    for (AttentionCall& call : added) {
        carry(call, [&partTo](std::uint32_t k) { return partTo[k]; });
        if (call.scope) call.scope = place(*call.scope);
    }
    auto byStart = [](const AttentionCall& x, const AttentionCall& y) {
        return x.start != y.start ? x.start < y.start : x.impl < y.impl;
    };
    if (!std::is_sorted(added.begin(), added.end(), byStart))
        std::stable_sort(added.begin(), added.end(), byStart);
    // The part's calls start after the ones before, as a program's steps do, or among the last of them
    // (another rank's step in a job's merged trace): merged with those from where the first goes.
    std::size_t from = first;
    if (!added.empty())
        from = std::size_t(std::upper_bound(had.calls.begin(), had.calls.end(), added.front(), byStart) -
                           had.calls.begin());
    std::vector<AttentionCall> last(had.calls.begin() + std::ptrdiff_t(from), had.calls.end());
    a.calls.resize(from);
    std::size_t i = 0, j = 0;
    while (i < last.size() || j < added.size())
        a.calls.push_back(j == added.size() || (i < last.size() && !byStart(added[j], last[i]))
                              ? std::move(last[i++])
                              : std::move(added[j++]));
    for (std::size_t c = from; c < had.calls.size(); ++c)
        for (std::uint32_t k : had.calls[c].kernels)
            if (had.kernels[k].call != int(c)) a.kernels[k].call = int(c);
    if (!a.tables.sums || !part.tables.sums) { // not made by analyzeTrace: read every kernel
        a.tables = kernelTables(grown, a);
        return a;
    }
    auto sums = std::make_shared<KernelTableSums>(*a.tables.sums);
    addTableSums(*sums, *part.tables.sums,
                 [&](StringId id) { return grown.strings().find(partTrace.str(id)); });
    a.tables = tablesFromSums(std::move(sums), grown, a);
    return a;
}

TraceAnalysis analyzeTrace(const Trace& trace, const DeviceSpec* cpu, const DeviceSpecs& specs,
                           const RoleRules& rules, const DeviceSpec* cpuCore, unsigned threads,
                           const CallShapes& shapes) {
    return analysis_detail::Analyzer(trace, cpu, cpuCore, specs, rules, shapes, threads).run();
}

} // namespace attnscope
