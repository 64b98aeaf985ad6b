// SPDX-License-Identifier: MIT
#include "core/report/kernel_explanation.h"

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

} // namespace attnscope
