// SPDX-License-Identifier: MIT
#include "core/report/kernel_explanation.h"

#include "core/model/occupancy.h"
#include "core/report/findings.h"
#include "core/report/format.h"

#include <cstdio>

namespace attnscope {

namespace {

std::string rates(const KernelAnalysis& k) {
    return formatRate(k.flopsPerSec, "FLOP/s") + " (" + formatPercent(k.computeShare) + " of the peak) and " +
           formatRate(k.bytesPerSec, "B/s") + " (" + formatPercent(k.memoryShare) + " of the bandwidth)";
}

} // namespace

std::string rooflineExplanation(const Trace& trace, const TraceAnalysis& analysis, const KernelAnalysis& k) {
    const DeviceSpec* roofs = analysis.roofsOf(trace, k.event);
    const bool onCpu = isCpuTrack(trace, k.event.track);
    if (k.verdict == Verdict::BeyondRoof && roofs)
        return "beyond its roof, so no verdict: " + beyondRoofReason(*roofs) + " — at " + rates(k);
    if (k.cost == CostSource::Unknown)
        return "unknown: its cost is not known (no op with input shapes that AttnScope models launched it)";
    if (k.verdict == Verdict::Unknown) {
        const std::string& why = onCpu ? analysis.cpuNote : analysis.deviceNote;
        return "unknown: " + (why.empty() ? std::string("no roofs are known for the device it ran on") : why);
    }
    char intensity[32];
    std::snprintf(intensity, sizeof intensity, "%.4g", k.intensity);
    std::string out = std::string(verdictName(k.verdict)) + " · " + intensity + " FLOP/byte · " + rates(k);
    if (roofs) out += " · roofs: " + roofs->name + " (" + roofs->source + ")";
    const double share = k.verdict == Verdict::ComputeBound ? k.computeShare : k.memoryShare;
    if (k.verdict == Verdict::LatencyBound)
        out += onCpu ? ". Too little work to keep the CPU's cores busy: the op waits on its own overhead "
                       "(dispatch, threads waking up, allocation)."
                     : ". Too little work to fill the device: the kernel waits on launch latency, "
                       "synchronization or a tail of few blocks.";
    else if (share < kLatencyBoundShare && roofs && tooSmallToFill(k, *roofs))
        out +=
            ". Far below its roof (" + formatPercent(share) + ") with little work, yet it took " +
            formatDuration(trace.track(k.event.track).events.duration[k.event.index]) + ": longer than any " +
            (onCpu ? "op's" : "launch's") + " own overhead, so it waited on something else — " +
            (onCpu ? "a first call setting up its threads or memory, the OS, a lock."
                   : "a synchronization or a wait inside the kernel, or the device shared with other work.");
    else if (share < kLatencyBoundShare)
        out +=
            ". Far below its roof (" + formatPercent(share) +
            ") with work enough to reach it: slow for another "
            "reason — " +
            (onCpu
                 ? "an op that runs on few threads, is not vectorized, or reads memory with strides."
                 : "too few blocks or threads for the device, strided or uncoalesced access, or waits inside "
                   "the kernel.");
    return out;
}

std::string occupancyExplanation(const Trace& trace, const TraceAnalysis* analysis, EventRef e) {
    if (isCpuTrack(trace, e.track)) return "— (ran on the CPU)";
    const auto config = launchConfigOf(trace, e);
    const auto limits = deviceLimitsOf(trace, e.track);
    if (!config || !limits) return "unknown: the trace has no launch configuration or device limits for it";
    const int blocks =
        residentBlocks(*limits, config->blockThreads, config->registersPerThread, config->sharedMemory);
    const int warps = (config->blockThreads + limits->warpSize - 1) / limits->warpSize;
    const double occupancy =
        theoreticalOccupancy(*limits, config->blockThreads, config->registersPerThread, config->sharedMemory);
    std::string out =
        "theoretical " + formatPercent(occupancy) + " (" +
        formatCount(std::uint64_t(blocks), "block", "blocks") + " of " + std::to_string(warps) +
        " warps per SM; " + std::to_string(config->registersPerThread) + " registers a thread, " +
        std::to_string(config->sharedMemory) + " B shared a block; limited by " +
        occupancyLimiterName(occupancyLimiter(*limits, config->blockThreads, config->registersPerThread,
                                              config->sharedMemory)) +
        ")";
    // Low occupancy is a question, and for tiled kernels or kernels near their roof the answer is known.
    const FindingThresholds& th = FindingThresholds::standard();
    const KernelAnalysis* k = analysis ? analysis->find(e) : nullptr;
    if (k && occupancy < th["low_occupancy"])
        if (const std::string why = lowOccupancyByDesign(trace, *k, th["low_occupancy_near_roof"]);
            !why.empty())
            out += " · " + why;
    if (config->reportedOccupancy && *config->reportedOccupancy == 0) {
        // How it was launched: its own launch, else (the trace began after it) that of a kernel of its name.
        auto launch = trace.launchOf(e);
        const StringId name = trace.track(e.track).events.name[e.index];
        for (std::size_t i = 0; analysis && !launch && i < analysis->kernels.size(); ++i) {
            const EventRef other = analysis->kernels[i].event;
            if (trace.track(other.track).events.name[other.index] == name) launch = trace.launchOf(other);
        }
        const bool ex =
            launch &&
            trace.str(trace.track(launch->track).events.name[launch->index]).find("LaunchKernelEx") !=
                std::string_view::npos;
        int sms = 0;
        const ProcessInfo& p = trace.process(trace.track(e.track).process);
        for (const DeviceInfo& d : trace.devices())
            if (d.id == p.deviceIndex || trace.devices().size() == 1) sms = d.numSms;
        if (ex)
            out += " · the trace's estimate is 0: Kineto writes 0 for kernels launched with cuLaunchKernelEx";
        else if (sms > 0 && config->gridBlocks > 0 && config->gridBlocks < sms)
            out += " · the trace's estimate of 0 is real: a grid of " +
                   formatCount(std::uint64_t(config->gridBlocks), "block", "blocks") +
                   " leaves most of the " + std::to_string(sms) + " SMs idle";
        else
            out += " · the trace's estimate of the achieved occupancy is 0";
    }
    return out;
}

} // namespace attnscope
