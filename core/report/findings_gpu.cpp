// SPDX-License-Identifier: MIT
// The rules about how the host keeps the GPU fed: idle gaps, launch-bound kernels, synchronizations,
// pageable copies, and kernels whose launch configuration leaves the SMs mostly empty.
#include "core/report/findings_rules.h"
#include "core/report/format.h"
#include "core/report/summary.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

namespace attnscope::findings {

namespace {

using Places = std::vector<std::pair<EventRef, std::string>>;

// The first synchronizing call (by end) that ends inside [from, to), if any.
std::optional<EventRef> syncEndingIn(Context& c, TimeNs from, TimeNs to) {
    const auto& syncs = c.syncCalls();
    const auto it = std::lower_bound(syncs.begin(), syncs.end(), from,
                                     [&](EventRef e, TimeNs v) { return c.end(e) < v; });
    if (it == syncs.end() || c.end(*it) >= to) return std::nullopt;
    return *it;
}

} // namespace

// 4. GPU idle: gaps between each GPU's work, split like HTA's idle-time analysis by what the GPU waited on.
void gpuIdle(Context& c, std::vector<Finding>& out) {
    const TimeNs minGap = TimeNs(c.th["gpu_idle_min_gap_us"] * 1000);
    TimeNs idle = 0, host = 0, sync = 0, other = 0, window = 0;
    std::uint64_t gaps = 0;
    enum Why : std::uint8_t { Sync, Host, Other };
    struct Gap {
        TimeNs length;
        EventRef next; // the work after it
        Why why;
    };
    std::vector<Gap> longest;
    for (const auto& [process, busy] : c.gpuBusy()) {
        window += busy.back().end - busy.front().start;
        for (std::size_t i = 1; i < busy.size(); ++i) {
            const TimeNs from = busy[i - 1].end, to = busy[i].start, gap = to - from;
            if (gap < minGap) continue;
            ++gaps;
            idle += gap;
            // What the GPU waited on: a sync the host sat in just before (it then resumed and had to launch
            // again), the host still launching (the next work's launch began after the GPU ran dry), or
            // something else (work queued behind an event, another stream, a copy engine).
            const auto launch = c.trace.launchOf(busy[i].first);
            const Why why = syncEndingIn(c, from - minGap, to)   ? Sync
                            : launch && c.start(*launch) >= from ? Host
                                                                 : Other;
            (why == Sync ? sync : why == Host ? host : other) += gap;
            longest.push_back({gap, busy[i].first, why});
        }
    }
    if (gaps == 0 || window <= 0) return;
    std::sort(longest.begin(), longest.end(), [](const Gap& a, const Gap& b) {
        return a.length != b.length ? a.length > b.length : a.next < b.next;
    });
    Places places;
    for (const Gap& g : longest)
        places.emplace_back(g.next, places.size() < std::size_t(c.th["max_evidence"])
                                        ? "idle " + formatDuration(g.length) + " before it: " +
                                              (g.why == Sync   ? "waiting on a synchronization"
                                               : g.why == Host ? "waiting on the host to launch"
                                                               : "other")
                                        : std::string());
    const bool several = c.gpuBusy().size() > 1;
    // "GPU", or what the devices are when none is one (an MTIA's).
    std::string_view noun = "GPU";
    for (const auto& [process, busy] : c.gpuBusy())
        noun = deviceKind(c.trace.process(process)) == "GPU" ? std::string_view("GPU")
                                                             : deviceKind(c.trace.process(process));
    // The title says the time, not a share: its share of the GPUs' window beside the row's share of the
    // trace's span read as two answers (the explanation says both, each with its base).
    Finding f = c.make("The " + std::string(noun) + (several ? "s idle " : " idles ") + formatDuration(idle) +
                           " in " + formatCount(gaps, "gap", "gaps") + " between " +
                           (several ? "their" : "its") + " first and last work",
                       idle);
    c.severityFromShare(f, double(idle) / double(window)); // of the GPUs' own span, as the explanation says
    f.explanation = formatCount(gaps, "gap", "gaps") + " of at least " + formatDuration(minGap) +
                    " with no kernel, copy or memset on any stream: " + formatDuration(idle) + " of the " +
                    formatDuration(window) + " from the first work to the last (" +
                    formatShare(double(idle) / double(window)) + " of those; " + formatShare(f.share) +
                    " of the trace's span, the share beside the finding)" +
                    ". Waiting on the host to launch (the next work was launched only "
                    "after the " +
                    std::string(noun) + " ran dry): " + formatDuration(host) +
                    "; waiting on a synchronization (the host "
                    "sat in a sync, then had to launch again): " +
                    formatDuration(sync) + "; other: " + formatDuration(other) + ".";
    f.suggestion =
        host >= sync && host >= other
            ? (noun == "GPU"
                   ? "The host cannot launch fast enough: capture the step in a " + c.graph() +
                         c.ifPyTorch(" (torch.compile mode=\"reduce-overhead\")") +
                         ", fuse small ops, and move " + c.ifPyTorch("Python ") + "work off the step's path."
                   : "The host cannot launch fast enough: fuse small ops" + c.ifPyTorch(" (torch.compile)") +
                         " and move " + c.ifPyTorch("Python ") + "work off the step's path.")
        : sync >= other ? "Remove the synchronizations inside the step (see the synchronization finding): "
                          "the device waits each time the host waits."
                        : "Look at what the work after each gap waited on: events, other streams, "
                          "copies, or a data loader.";
    Finding* kept = c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven);
    // Each place shows its gap with the work either side: as long again before it as the gap, then the
    // work after it (the event) — not the work alone, the gap off screen.
    for (std::size_t i = 0; kept && i < kept->evidence.size(); ++i) {
        Evidence& e = kept->evidence[i];
        e.showFromNs = e.startNs - 2 * longest[i].length;
        e.showToNs = e.startNs + std::max(e.durNs, longest[i].length / 2);
    }
}

// 5. Launch-bound kernels: short kernels whose launch call takes as long as they run.
void launchBound(Context& c, std::vector<Finding>& out) {
    const TimeNs shortNs = TimeNs(c.th["launch_bound_kernel_us"] * 1000);
    std::uint64_t count = 0;
    TimeNs launchNs = 0;
    struct Op {
        std::uint64_t kernels = 0;
        EventRef example;
    };
    std::map<std::string, Op, std::less<>> byOp;
    // Each launch call's time counts once, and the launches' time is the host's wall time in them
    // (overlaps across threads once): a time at stake never above the runtime calls' own time. A
    // kernel of a graph is not launched on its own: the graph's one launch replays it.
    std::vector<EventRef> launches;
    std::vector<std::pair<TimeNs, TimeNs>> launchIntervals;
    for (const KernelAnalysis& k : c.analysis.kernels) {
        if (c.kind(k.event) != Context::Kernel || c.dur(k.event) >= shortNs) continue;
        const auto launch = c.trace.launchOf(k.event);
        if (!launch || c.dur(*launch) < c.dur(k.event) ||
            c.name(*launch).find("GraphLaunch") != std::string_view::npos)
            continue;
        ++count;
        launches.push_back(*launch);
        const auto op = c.launchingOp(k.event);
        Op& o = byOp[op ? std::string(c.name(*op)) : std::string(c.name(*launch))];
        if (o.kernels++ == 0) o.example = op ? *op : *launch;
    }
    if (double(count) < c.th["launch_bound_min_kernels"]) return;
    std::sort(launches.begin(), launches.end());
    launches.erase(std::unique(launches.begin(), launches.end()), launches.end());
    for (EventRef l : launches)
        launchIntervals.emplace_back(c.start(l), c.end(l));
    launchNs = unionLength(launchIntervals);
    std::vector<std::pair<std::string, Op>> ops(byOp.begin(), byOp.end());
    std::stable_sort(ops.begin(), ops.end(),
                     [](const auto& a, const auto& b) { return a.second.kernels > b.second.kernels; });
    Finding f = c.make(formatCount(count, "kernel runs", "kernels run") + " shorter than " +
                           formatDuration(shortNs) + " and no longer than their launch",
                       launchNs);
    f.explanation =
        formatCount(count, "kernel", "kernels") + " ran under " + formatDuration(shortNs) +
        " while the runtime call that launched each took at least as long: " + formatDuration(launchNs) +
        " of the host's time went to their " + formatCount(launches.size(), "launch call", "launch calls") +
        ", so the GPU finishes each before the next arrives. The ops that launch most of them:";
    Places places;
    for (std::size_t i = 0; i < ops.size() && i < 5; ++i)
        f.explanation += " " + ops[i].first + " (" + std::to_string(ops[i].second.kernels) + "),";
    f.explanation.back() = '.';
    for (const auto& [name, op] : ops)
        places.emplace_back(op.example, formatCount(op.kernels, "short kernel", "short kernels") +
                                            " launched from " + name);
    f.suggestion = "Fewer, larger kernels: fuse the small ops" + c.ifPyTorch(" (torch.compile)") +
                   ", batch per-head or per-layer loops into one call, or capture the sequence in a " +
                   c.graph() +
                   " "
                   "so one launch replays it.";
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven);
}

// 6. Synchronizations: how long the host blocked and how long the GPU idled after each.
void synchronization(Context& c, std::vector<Finding>& out) {
    const auto& syncs = c.syncCalls();
    if (syncs.empty()) return;
    // All GPUs' busy stretches together, by start: what follows each sync's end.
    std::vector<std::pair<TimeNs, TimeNs>> busy;
    for (const auto& [process, stretches] : c.gpuBusy())
        for (const Busy& b : stretches)
            busy.emplace_back(b.start, b.end);
    std::sort(busy.begin(), busy.end());
    std::vector<TimeNs> latestEnd(busy.size()); // of the stretches up to each one
    for (std::size_t i = 0; i < busy.size(); ++i)
        latestEnd[i] = std::max(busy[i].second, i ? latestEnd[i - 1] : busy[i].second);
    TimeNs blocked = 0, idleAfter = 0;
    std::map<std::string, std::uint64_t> byName;
    Places places;
    // The GPU idles from a sync's end until the next work starts, unless work is running then — in a gap
    // between its work only: before its first work it had nothing to wait for (start-up, not the sync). A
    // gap after several syncs is counted once, from the first of them to end, so the idle time after syncs
    // is never more than the GPU's idle time.
    std::vector<TimeNs> idleOf(syncs.size(), 0);
    std::map<std::size_t, std::size_t> firstInGap; // the gap (its next stretch) → the sync that opened it
    for (std::size_t i = 0; i < syncs.size(); ++i) {
        const TimeNs e = c.end(syncs[i]);
        const auto next =
            std::lower_bound(busy.begin(), busy.end(), e,
                             [](const std::pair<TimeNs, TimeNs>& b, TimeNs t) { return b.first < t; });
        if (next == busy.begin() || next == busy.end())
            continue; // before the GPU's first work, after its last
        const std::size_t gap = std::size_t(next - busy.begin());
        if (latestEnd[gap - 1] > e) continue; // work still running when the sync returned
        const auto [at, added] = firstInGap.emplace(gap, i);
        if (!added && c.end(syncs[at->second]) > e) at->second = i;
    }
    for (const auto& [gap, i] : firstInGap) {
        idleOf[i] = busy[gap].first - c.end(syncs[i]);
        idleAfter += idleOf[i];
    }
    for (std::size_t i = 0; i < syncs.size(); ++i) {
        const EventRef s = syncs[i];
        const TimeNs idle = idleOf[i];
        blocked += c.dur(s);
        ++byName[std::string(c.name(s))];
        std::string note = "host blocked " + formatDuration(c.dur(s));
        forEachEnclosingEvent(c.trace, s, [&](EventRef p) {
            if (c.kind(p) != Context::CpuOp) return false;
            note += " in " + std::string(c.name(p)); // the op that synchronized: aten::item, …
            return true;
        });
        if (idle > 0) note += ", GPU idle " + formatDuration(idle) + " after";
        places.emplace_back(s, note);
    }
    // The syncs that cost most first: the GPU's idle time after them, then the host's wait.
    std::vector<std::size_t> order(syncs.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return idleOf[a] != idleOf[b] ? idleOf[a] > idleOf[b] : c.dur(syncs[a]) > c.dur(syncs[b]);
    });
    Places sorted;
    for (std::size_t i : order)
        sorted.push_back(places[i]);
    const bool hasGpu = !busy.empty();
    Finding f =
        c.make(formatCount(syncs.size(), "synchronization blocks", "synchronizations block") + " the host",
               hasGpu ? idleAfter : blocked);
    f.explanation = formatCount(syncs.size(), "synchronizing call", "synchronizing calls") + " (";
    for (const auto& [name, n] : byName)
        f.explanation += name + " ×" + std::to_string(n) + ", ";
    f.explanation.resize(f.explanation.size() - 2);
    f.explanation +=
        "): the host blocked " + formatDuration(blocked) + " in them" +
        (hasGpu ? ", and the GPU then idled " + formatDuration(idleAfter) +
                      " until the host launched again (the time at stake)"
                : "") +
        ". Each one drains the GPU's queue: the host stops running ahead, so the next kernels start "
        "only after the host has caught up.";
    f.suggestion =
        "Remove syncs from the step: .item(), .cpu(), .tolist(), printing or branching on GPU values, "
        "torch.cuda.synchronize() used for timing (use CUDA events), and copies to pageable memory; "
        "keep the values on the GPU or read them once per step with non_blocking=True into pinned memory.";
    if (f.timeNs == 0) return;
    // Any idle time after a sync: the GPU waited for nothing.
    c.keep(out, std::move(f), std::move(sorted), Context::Order::AsGiven, Context::Shown::Always);
}

// 7. Copies between host and device from pageable memory: staged through a bounce buffer, and synchronous.
void pageableMemcpy(Context& c, std::vector<Finding>& out) {
    std::uint64_t count = 0;
    TimeNs time = 0;
    double bytes = 0;
    Places places;
    c.forEachEvent(TrackKind::GpuStream, Context::Copy, [&](EventRef e, const Track&) {
        if (c.name(e).find("Pageable") == std::string_view::npos) return;
        const TimeNs d = c.dur(e);
        ++count;
        time += d;
        double b = 0;
        c.trace.forEachArg(e, [&](std::string_view key, std::string_view value) {
            if (key == "bytes") std::from_chars(value.data(), value.data() + value.size(), b);
        });
        bytes += b;
        places.emplace_back(e, formatRate(b, "B") +
                                   (d > 0 && b > 0 ? " at " + formatRate(b * 1e9 / double(d), "B/s") : ""));
    });
    if (count == 0) return;
    Finding f = c.make(formatCount(count, "copy uses", "copies use") + " pageable host memory", time);
    f.explanation =
        formatCount(count, "host↔device copy", "host↔device copies") +
        " from or to pageable memory: " + formatRate(bytes, "B") + " in " + formatDuration(time) +
        (time > 0 ? " (" + formatRate(bytes * 1e9 / double(time), "B/s") + ")" : "") +
        ". The driver stages pageable memory through a pinned buffer, which halves the rate, and the "
        "copy cannot overlap with the host: the host waits for it.";
    f.suggestion =
        "Allocate the host tensors pinned (tensor.pin_memory(), DataLoader(pin_memory=True)) and copy "
        "with non_blocking=True, so the copy runs at full rate beside the host's work.";
    c.keep(out, std::move(f), std::move(places), Context::Order::LongestFirst, Context::Shown::Always);
}

// 9. Low occupancy: kernel names whose launch leaves most of each SM's warps empty. A kernel's registers
// and shared memory are fixed when it is compiled, so its kernels launch alike: the occupancy of a name
// is read from up to kOccupancySample of its kernels spread over the trace (time-weighted), which keeps
// the rule cheap on traces with hundreds of thousands of kernels.
void lowOccupancy(Context& c, std::vector<Finding>& out) {
    constexpr std::size_t kOccupancySample = 256;
    struct Name {
        std::vector<EventRef> kernels;
        TimeNs time = 0;
        double weighted = 0, sampledNs = 0; // occupancy × time over the sample, and the sample's time
        const KernelAnalysis* longest = nullptr;
        TimeNs longestNs = -1;
    };
    std::unordered_map<std::uint32_t, Name> byName; // by name id
    TimeNs kernelNs = 0;
    for (const KernelAnalysis& k : c.analysis.kernels) {
        if (c.kind(k.event) != Context::Kernel) continue;
        kernelNs += c.dur(k.event);
        // Communication kernels use few SMs' worth of warps by design: their occupancy says nothing.
        if (k.role == KernelRole::Communication) continue;
        Name& n = byName[c.trace.track(k.event.track).events.name[k.event.index].value];
        n.kernels.push_back(k.event);
        n.time += c.dur(k.event);
        if (c.dur(k.event) > n.longestNs) {
            n.longestNs = c.dur(k.event);
            n.longest = &k;
        }
    }
    std::map<std::uint32_t, std::optional<DeviceLimits>> limitsOf; // per track
    auto occupancyOf = [&](EventRef e) -> std::optional<std::pair<double, LaunchConfig>> {
        auto [it, added] = limitsOf.try_emplace(e.track.value);
        if (added) it->second = deviceLimitsOf(c.trace, e.track);
        const auto config = it->second ? launchConfigOf(c.trace, e) : std::nullopt;
        if (!config) return std::nullopt;
        return std::pair{theoreticalOccupancy(*it->second, config->blockThreads, config->registersPerThread,
                                              config->sharedMemory),
                         *config};
    };
    // Kineto's estimate is 0 for kernels launched with cuLaunchKernelEx; the first kernel of a name
    // whose launch is in the trace tells (the trace may start after the first kernels' launches).
    auto reportedZero = [&](const Name& n) {
        for (std::size_t i = 0; i < n.kernels.size(); ++i) {
            const auto launch = c.trace.launchOf(n.kernels[i]);
            if (!launch) continue;
            const auto occ = occupancyOf(n.kernels[i]);
            return occ && occ->first > 0 && occ->second.reportedOccupancy &&
                   *occ->second.reportedOccupancy == 0 &&
                   c.name(*launch).find("LaunchKernelEx") != std::string_view::npos;
        }
        return false;
    };
    for (auto& [id, n] : byName) {
        if (double(n.time) < c.th["low_occupancy_min_kernel_us"] * 1000 * double(n.kernels.size()) ||
            double(n.time) < c.th["low_occupancy_min_kernel_share"] * double(kernelNs))
            continue;
        const std::size_t step = std::max<std::size_t>(1, n.kernels.size() / kOccupancySample);
        for (std::size_t i = 0; i < n.kernels.size(); i += step)
            if (const auto occ = occupancyOf(n.kernels[i])) {
                n.weighted += occ->first * double(c.dur(n.kernels[i]));
                n.sampledNs += double(c.dur(n.kernels[i]));
            }
    }
    const double limit = c.th["low_occupancy"];
    std::vector<std::pair<double, std::pair<EventRef, std::string>>> low; // time, place
    TimeNs time = 0;
    std::uint64_t count = 0, zeroReported = 0;
    for (const auto& [id, n] : byName) {
        if (n.sampledNs <= 0) continue; // not long enough to look at, or no launch configuration
        const double occ = n.weighted / n.sampledNs;
        // Only where it costs time: the name's longest kernel tells whether its occupancy is chosen (a
        // fused attention or GEMM kernel's tiles) or harmless (near its roof).
        if (occ >= limit ||
            !lowOccupancyByDesign(c.trace, *n.longest, c.th["low_occupancy_near_roof"]).empty())
            continue;
        time += n.time;
        count += n.kernels.size();
        if (reportedZero(n)) zeroReported += n.kernels.size();
        low.push_back({double(n.time),
                       {n.longest->event, "theoretical occupancy " + formatShare(occ) + ", " +
                                              formatCount(n.kernels.size(), "kernel", "kernels") + ", " +
                                              formatDuration(n.time)}});
    }
    if (count == 0) return;
    std::sort(low.begin(), low.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second.first < b.second.first;
    });
    Places places;
    for (auto& [t, place] : low)
        places.push_back(std::move(place));
    Finding f = c.make(formatCount(low.size(), "long-running kernel", "long-running kernels") + " under " +
                           formatShare(limit) + " theoretical occupancy",
                       time);
    // Low occupancy is a question to ask, not a verdict: never critical.
    if (f.severity == Severity::Critical) f.severity = Severity::Warning;
    f.explanation =
        formatCount(low.size(), "kernel name", "kernel names") + " (" +
        formatCount(count, "kernel", "kernels") + ", " + formatDuration(time) +
        (low.size() == 1 ? ") launches" : ") launch") + " so that under " + formatShare(limit) +
        " of each SM's warps can be resident (the CUDA occupancy calculator's formula over grid, "
        "block, registers per thread and shared memory, with the device's limits from the trace), and "
        "reach under " +
        formatShare(c.th["low_occupancy_near_roof"]) +
        " of their roof. Few resident warps hide memory latency poorly unless each warp has much "
        "independent work. Fused attention and GEMM kernels whose registers or shared memory hold "
        "their tiles are left out: their occupancy is low by design.";
    if (zeroReported)
        f.explanation += " The trace's \"est. achieved occupancy %\" is 0 for " +
                         formatCount(zeroReported, "kernel", "kernels") +
                         " launched with cudaLaunchKernelEx/cuLaunchKernelEx (Kineto writes 0 for them); the "
                         "figures here are computed instead.";
    f.suggestion =
        "Check what limits each (Details shows the kernel's registers, shared memory and occupancy): "
        "fewer registers (__launch_bounds__, a smaller tile), less shared memory per block, or more "
        "blocks (split the work, e.g. split-KV for decoding).";
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven);
}

} // namespace attnscope::findings
