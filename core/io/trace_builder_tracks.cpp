// SPDX-License-Identifier: MIT
// The builder's stages that make tracks: each track's events sorted and nested into depths, and
// processes, tracks and GPUs named.
#include "core/io/slice_nester.h"
#include "core/io/trace_builder_stages.h"
#include "core/model/kineto_args.h"

#include "core/io/timestamp.h"
#include "core/model/args_codec.h"
#include "core/model/op_args.h"
#include "core/model/sorting.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <numeric>
#include <thread>

namespace attnscope {

// Long on purpose: one track's stages in order (sort, pair begins with ends, clamp, nest into
// depths), sharing the sorted arrays; it runs for many tracks at once.
void TraceBuilder::Impl::buildTrack(StagedTrack& staged, Track& out, std::vector<std::uint32_t>* seqToIndex,
                                    TimeNs traceEnd, TimeNs timeOffset,
                                    std::vector<std::string>& warningsOut) {
    // Time order, the enclosing slice first on equal starts, file order last.
    auto less = [](const RawEvent& x, const RawEvent& y) {
        if (x.start != y.start) return x.start < y.start;
        if (x.duration != y.duration) return x.duration > y.duration;
        return x.order < y.order;
    };
    // A track of slices that arrived in order (what most files hold) is laid out from the builder's
    // blocks as they are; any other is copied into one array and sorted there.
    const bool inOrder = !staged.hasBeginEnd && staged.events.sortedBy(less);
    BigVector<RawEvent> events;
    if (!inOrder) {
        events.reserve(staged.events.size());
        staged.events.forEach([&](const RawEvent& e) { events.push_back(e); });
        staged.events.clear();
    }

    if (staged.hasBeginEnd) {
        // B/E pair up in time order on their track; file order breaks ties.
        std::vector<RawEvent> marks;
        std::erase_if(events, [&](const RawEvent& e) {
            if (e.kind != RawKind::Begin && e.kind != RawKind::End) return false;
            marks.push_back(e);
            return true;
        });
        std::sort(marks.begin(), marks.end(), [](const RawEvent& a, const RawEvent& b) {
            return a.start != b.start ? a.start < b.start : a.order < b.order;
        });
        std::vector<RawEvent> open;
        for (const RawEvent& e : marks) {
            if (e.kind == RawKind::Begin) {
                open.push_back(e);
            } else if (open.empty()) {
                warningsOut.emplace_back("an E event has no matching B event; ignored");
            } else {
                RawEvent slice = open.back();
                open.pop_back();
                slice.duration = e.start - slice.start;
                slice.kind = RawKind::Slice;
                if (!slice.args) slice.args = e.args;
                events.push_back(slice);
            }
        }
        for (RawEvent slice : open) {
            warningsOut.emplace_back(
                "a B event has no matching E event; it is shown as lasting to the end of the trace");
            slice.duration = std::max<TimeNs>(0, traceEnd - slice.start);
            slice.kind = RawKind::Slice;
            slice.unfinished = true;
            events.push_back(slice);
        }
    }

    const std::size_t n = inOrder ? staged.events.size() : events.size();
    BigVector<std::uint32_t> order(inOrder ? 0 : n);
    std::iota(order.begin(), order.end(), 0u);
    auto before = [&](std::uint32_t a, std::uint32_t b) { return less(events[a], events[b]); };
    if (!inOrder) {
        // Events in a few sorted runs (a parallel load appends its workers' builders one after another,
        // each in file order): merged.
        if (auto runs = sortedRunEnds(order, kMergedRuns, before)) {
            mergeSortedRuns(order, std::move(*runs), before);
        } else {
            // Linear in the number of events: radix by start, then the rare runs of equal starts.
            struct Key {
                std::uint64_t start;
                std::uint32_t index;
            };
            TimeNs minStart = std::numeric_limits<TimeNs>::max();
            for (const RawEvent& e : events)
                minStart = std::min(minStart, e.start);
            BigVector<Key> keys(n);
            for (std::uint32_t i = 0; i < n; ++i)
                keys[i] = {std::uint64_t(events[i].start) - std::uint64_t(minStart), i};
            stableSortByKey(keys, [](const Key& k) { return k.start; });
            for (std::size_t i = 0; i < n; ++i)
                order[i] = keys[i].index;
            for (std::size_t runStart = 0; runStart < n;) {
                std::size_t runEnd = runStart + 1;
                while (runEnd < n && keys[runEnd].start == keys[runStart].start)
                    ++runEnd;
                if (runEnd - runStart > 1)
                    std::sort(order.begin() + std::ptrdiff_t(runStart),
                              order.begin() + std::ptrdiff_t(runEnd), before);
                runStart = runEnd;
            }
        }
    }

    EventColumns& c = out.events;
    c.start = PodArray<TimeNs>(n);
    c.duration = PodArray<TimeNs>(n);
    c.name = PodArray<StringId>(n);
    c.category = PodArray<StringId>(n);
    c.depth = PodArray<std::uint16_t>(n);
    c.parent = PodArray<std::uint32_t>(n);
    c.flags = PodArray<std::uint8_t>(n);
    c.correlation = PodArray<std::uint64_t>(n);
    c.args = PodArray<const char*>(n);
    if (seqToIndex) seqToIndex->assign(n, 0);

    SliceNester nester;
    std::size_t i = 0;
    auto layOut = [&](const RawEvent& e) {
        c.start[i] = saturatingAdd(e.start, timeOffset);
        c.duration[i] = c.start[i] > 0 ? std::min(e.duration, std::numeric_limits<TimeNs>::max() - c.start[i])
                                       : e.duration;
        c.name[i] = e.name;
        c.category[i] = e.category;
        c.correlation[i] = e.correlation;
        c.args[i] = e.args;
        std::uint8_t flags = 0;
        if (e.kind == RawKind::Instant) flags |= kInstant;
        if (e.unfinished) flags |= kUnfinished;
        c.flags[i] = flags;
        if (seqToIndex && e.seq < n) (*seqToIndex)[e.seq] = std::uint32_t(i);

        const SliceNester::Placed placed = nester.place(e.start, e.duration, std::uint32_t(i));
        c.parent[i] = placed.parent;
        c.depth[i] = placed.depth;
        ++i;
    };
    if (inOrder) {
        staged.events.forEach(layOut);
        staged.events.clear();
    } else {
        for (std::uint32_t k : order)
            layOut(events[k]);
    }
    if (nester.clamped()) warningsOut.emplace_back(kDepthClampedWarning);
    out.maxDepth = nester.maxDepth();
}

void TraceBuilder::Impl::markOpKernels() {
    Trace& t = *trace;
    // Per category string: 1 a kernel category, 2 cpu_op; per name: an aten:: op that works.
    const std::size_t strings = t.m_strings.size();
    std::vector<std::uint8_t> kind(strings, 0), works(strings, 0), copies(strings, 0);
    bool anyOp = false;
    for (std::uint32_t id = 0; id < strings; ++id) {
        const std::string_view s = t.m_strings.get(StringId(id));
        const CategoryKind k = t.categoryKind(StringId(id));
        kind[id] = k == CategoryKind::Kernel || k == CategoryKind::DeviceEvent ? 1
                   : k == CategoryKind::CpuOp                                  ? 2
                                                                               : 0;
        works[id] = s.substr(0, 6) == "aten::" && !isBookkeepingOp(s);
        copies[id] = s == "aten::contiguous" || s == "aten::clone" || s == "aten::copy_" || s == "aten::to" ||
                     s == "aten::_to_copy";
    }
    // GPU kernels (on GPU tracks, looked at first: a large trace has them early) and an accelerator's
    // own device events are the kernels.
    for (const TrackKind k : {TrackKind::GpuStream, TrackKind::CpuThread, TrackKind::Global})
        for (const Track& track : t.m_tracks)
            for (std::size_t i = 0; track.kind == k && i < track.size(); ++i) {
                if (kind[track.events.category[i].value] == 1) return;
                anyOp = anyOp || kind[track.events.category[i].value] == 2;
            }
    if (!anyOp) return;
    // The kernels are the ops that do their work themselves: an op that works and has no working op
    // inside it (the outermost ones) of its own size — `aten::matmul` around its `aten::bmm`, `softmax`
    // around `_softmax` and `scaled_dot_product_attention` around its implementation are wrappers, while
    // `aten::all` around the `fill_` of its small output and `aten::mul` around the `_to_copy` of its
    // scalar do the work — and no op around it is one. Sizes come from the ops' "Input Dims" (an op
    // inside reading an eighth or less of the elements is setup, and so is a copy inside an op that is not
    // one: a bf16 aten::bmm making an input contiguous does its work itself, and had lost its QKᵀ GEMM to
    // the clone's copy_); without them, an op whose working ops inside take less than half its time. Sizes
    // first: timing alone lets a short matmul in a busy process cross the line between calls. Two passes per
    // track: what is inside each op, then the choice, outermost first.
    std::vector<std::size_t> open; // indices of the events that enclose the current one
    std::vector<TimeNs> inside;
    std::vector<std::uint8_t> working, wrapper, unsized;
    std::vector<std::int64_t> elements; // -2 not read yet, -1 no "Input Dims"
    for (std::uint32_t ti = 0; ti < t.m_tracks.size(); ++ti) {
        Track& track = t.m_tracks[ti];
        if (track.kind != TrackKind::CpuThread) continue;
        EventColumns& c = track.events;
        const std::size_t n = track.size();
        inside.assign(n, 0);
        working.assign(n, 0);
        wrapper.assign(n, 0);
        unsized.assign(n, 0);
        elements.assign(n, -2);
        auto inputs = [&](std::size_t i) {
            if (elements[i] == -2) {
                elements[i] = -1;
                forEachEncodedArg(t.m_strings, t.encodedArgs({TrackId(ti), std::uint32_t(i)}),
                                  [&](std::string_view key, std::string_view value) {
                                      if (key != kineto::kInputDims) return;
                                      if (const auto dims = parseDims(value))
                                          elements[i] = std::int64_t(
                                              std::min<std::uint64_t>(inputElements(*dims), INT64_MAX / 16));
                                  });
            }
            return elements[i];
        };
        auto enclosing = [&](std::size_t i) {
            while (!open.empty() && c.start[open.back()] + c.duration[open.back()] <= c.start[i])
                open.pop_back();
        };
        open.clear();
        for (std::size_t i = 0; i < n; ++i) {
            if (c.flags[i] & kInstant) continue;
            enclosing(i);
            working[i] = kind[c.category[i].value] == 2 && works[c.name[i].value];
            const auto parent =
                std::find_if(open.rbegin(), open.rend(), [&](std::size_t o) { return working[o]; });
            if (working[i] && parent != open.rend()) {
                const std::size_t o = *parent;
                inside[o] += c.duration[i];
                const std::int64_t own = inputs(o), its = inputs(i);
                if (own < 0 || its < 0)
                    unsized[o] = 1;
                else if (8 * its > own && (!copies[c.name[i].value] || copies[c.name[o].value]))
                    wrapper[o] = 1;
            }
            open.push_back(i);
        }
        open.clear();
        for (std::size_t i = 0; i < n; ++i) {
            if (c.flags[i] & kInstant) continue;
            enclosing(i);
            const bool taken =
                std::any_of(open.begin(), open.end(), [&](std::size_t o) { return c.flags[o] & kOpKernel; });
            const bool mostlyOwnTime = 2 * inside[i] < c.duration[i] + (c.duration[i] == 0);
            if (!taken && working[i] && !wrapper[i] && (!unsized[i] || mostlyOwnTime)) {
                c.flags[i] |= kOpKernel;
                ++t.m_info.opKernels;
            }
            open.push_back(i);
        }
    }
}

void TraceBuilder::Impl::nameProcessesAndTracks() {
    Trace& t = *trace;
    std::vector<bool> gpuWork(processes.size(), false);
    for (const StagedTrack& track : tracks)
        if (track.gpu) gpuWork[track.process.value] = true;
    for (std::size_t i = 0; i < processes.size(); ++i) {
        const StagedProcess& p = processes[i];
        ProcessInfo info;
        info.key = p.key;
        info.labels = p.labels.value;
        const std::string_view key = t.m_strings.get(p.key);
        // A process is a GPU when its label says so or when its tracks carry GPU work.
        info.isGpu = gpuWork[i] || info.labels.rfind("GPU", 0) == 0;
        if (info.isGpu) {
            if (auto index = asInteger(key))
                info.deviceIndex = *index;
            else if (info.labels.size() > 4)
                info.deviceIndex = asInteger(std::string_view(info.labels).substr(4)).value_or(-1);
        }
        if (p.name.set)
            info.name = p.name.value;
        else if (key.empty())
            info.name = "(no process)";
        else if (info.isGpu && info.deviceIndex >= 0)
            info.name = gpuName(info.deviceIndex);
        else
            info.name = asInteger(key) ? "process " + std::string(key) : std::string(key);
        info.sortIndex = p.sortIndex.set ? p.sortIndex.value
                                         : asInteger(key).value_or(std::numeric_limits<std::int64_t>::max());
        info.rank = p.rank.set ? p.rank.value : -1;
        t.m_processes.push_back(std::move(info));
    }
    nameDeviceModels(gpuWork);
}

void TraceBuilder::Impl::nameDeviceModels(const std::vector<bool>& gpuWork) {
    Trace& t = *trace;
    // A trace from a process that saw its GPUs renumbered (HIP/CUDA_VISIBLE_DEVICES) lists device 0
    // while its kernels run on "device 2": with one model listed, that model is the GPU's.
    std::string oneModel, listedIds;
    bool several = false;
    for (const DeviceInfo& d : t.m_devices) {
        if (d.name.empty()) continue;
        if (!oneModel.empty() && d.name != oneModel) several = true;
        oneModel = d.name;
        listedIds += (listedIds.empty() ? "" : ", ") + std::to_string(d.id);
    }
    std::string unmatched;
    for (std::size_t i = 0; i < t.m_processes.size(); ++i) {
        ProcessInfo& p = t.m_processes[i];
        if (!p.isGpu || p.deviceIndex < 0) continue;
        auto listed = std::find_if(t.m_devices.begin(), t.m_devices.end(), [&](const DeviceInfo& d) {
            return d.id == p.deviceIndex && !d.name.empty();
        });
        if (listed != t.m_devices.end()) {
            p.deviceModel = listed->name;
        } else if (!oneModel.empty() && gpuWork[i]) {
            // Only a GPU that ran something is named after a guess (Kineto labels every GPU it saw).
            unmatched += (unmatched.empty() ? "" : ", ") + std::to_string(p.deviceIndex);
            if (!several) p.deviceModel = oneModel;
        }
    }
    if (unmatched.empty()) return;
    warn("kernels run on GPU " + unmatched + " but the trace lists properties only for device " + listedIds +
             (several ? "; the models differ, so no model is assumed"
                      : "; taken as " + oneModel + ", the only model it lists"),
         std::nullopt);
}

void TraceBuilder::Impl::buildCounters() {
    // Samples in time order; file order among equal times.
    for (StagedCounter& c : counters) {
        std::sort(c.samples.begin(), c.samples.end(), [](const CounterSample& a, const CounterSample& b) {
            return a.time != b.time ? a.time < b.time : a.order < b.order;
        });
        CounterSeries series;
        series.process = c.process;
        series.name = std::move(c.name);
        series.unit = std::move(c.unit);
        series.fromMemoryEvents = c.fromMemoryEvents;
        series.time.reserve(c.samples.size());
        series.value.reserve(c.samples.size());
        for (const CounterSample& sample : c.samples) {
            series.time.push_back(sample.time);
            series.value.push_back(sample.value);
        }
        trace->m_counters.push_back(std::move(series));
    }
    counters.clear();
}

} // namespace attnscope
