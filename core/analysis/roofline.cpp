// SPDX-License-Identifier: MIT
// Where a kernel sits on its roofs: its verdict, the roofs it was held to, and why a kernel beyond a
// roof gets no verdict.
#include "core/analysis/analysis.h"

#include <algorithm>
#include <array>

namespace attnscope {

const DeviceSpec* TraceAnalysis::roofsOf(const Trace& trace, EventRef kernel) const {
    const std::optional<DeviceSpec>& spec = isCpuTrack(trace, kernel.track) ? cpuShare : device;
    return spec ? &*spec : nullptr;
}

Verdict TraceAnalysis::dominantVerdict(const Trace& trace, const AttentionCall& call) const {
    std::array<TimeNs, kVerdictCount> time{}; // by verdict
    for (std::uint32_t k : call.kernels) {
        const KernelAnalysis& ka = kernels[k];
        time[std::size_t(ka.verdict)] += trace.track(ka.event.track).events.duration[ka.event.index];
    }
    Verdict best = Verdict::Unknown;
    TimeNs bestTime = 0;
    for (Verdict v : {Verdict::MemoryBound, Verdict::ComputeBound, Verdict::LatencyBound})
        if (time[std::size_t(v)] > bestTime) {
            best = v;
            bestTime = time[std::size_t(v)];
        }
    return best;
}

bool tooSmallToFill(const KernelAnalysis& k, const DeviceSpec& spec) {
    const double peak = spec.peak(k.precision == Precision::Unknown ? Precision::F32 : k.precision);
    const double atTheRoofs =
        std::max(peak > 0 ? k.flops / peak : 0, spec.bandwidth > 0 ? k.bytes / spec.bandwidth : 0);
    return atTheRoofs < kLatencyWorkSeconds;
}

std::string beyondRoofReason(const DeviceSpec& roofs) {
    return roofs.source.starts_with("measured")
               ? "faster than this machine's measured roof: its data came from cache, or the roof was "
                 "measured while the machine was busy"
               : "its cost is wrong: no " + roofs.name + " runs that fast";
}

void placeOnRoofline(KernelAnalysis& k, TimeNs durationNs, const DeviceSpec& spec) {
    k.verdict = Verdict::Unknown;
    const double peak = spec.peak(k.precision == Precision::Unknown ? Precision::F32 : k.precision);
    if (k.cost == CostSource::Unknown || durationNs <= 0 || peak <= 0 || spec.bandwidth <= 0 || k.bytes <= 0)
        return;
    const double seconds = double(durationNs) * 1e-9;
    k.intensity = k.flops / k.bytes;
    k.flopsPerSec = k.flops / seconds;
    k.bytesPerSec = k.bytes / seconds;
    k.computeShare = k.flopsPerSec / peak;
    k.memoryShare = k.bytesPerSec / spec.bandwidth;
    k.beyondRoof = k.computeShare > 1 || k.memoryShare > 1;
    if (k.beyondRoof) {
        k.verdict = Verdict::BeyondRoof;
        return;
    }
    const bool memorySide = k.intensity < peak / spec.bandwidth;
    const double share = memorySide ? k.memoryShare : k.computeShare;
    const bool latency =
        share < kLatencyBoundShare && tooSmallToFill(k, spec) && seconds < kLatencyMaxSeconds;
    k.verdict = latency ? Verdict::LatencyBound : memorySide ? Verdict::MemoryBound : Verdict::ComputeBound;
}

} // namespace attnscope
