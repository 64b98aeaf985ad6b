// SPDX-License-Identifier: MIT
#pragma once

// The roofs of this machine's CPU, for AttnScope's own CPU runs, and the one place where the roofs
// of a trace's kernels are chosen.
#include "core/analysis/analysis.h"

namespace attnscope {

// The CPU's roofs measured on `threads` threads at once: fp32 FLOP/s from independent chains of
// 8-wide fused multiply-adds (AVX2), and read bandwidth from summing a buffer far larger than the
// caches.
struct CpuPeak {
    double flops = 0;     // FLOP/s
    double bandwidth = 0; // bytes/s
};
CpuPeak measureCpuPeak(unsigned threads);

// The CPU's roofs for the roofline: measured once per machine (all cores) and cached in
// ~/.cache/attnscope/cpu_peak.txt ($XDG_CACHE_HOME honoured), keyed by CPU model and core count.
DeviceSpec cpuDeviceSpec();

// The one place the roofs of a trace's kernels are chosen: GPU kernels against their device's
// datasheet roofs (the device specs), AttnScope's own CPU kernels against this machine's measured
// roofs (measured only when the trace has such kernels). openDocument analyses through it, so one
// trace gets one set of verdicts in every view and verb.
TraceAnalysis analyzeWithMachineRoofs(const Trace& trace);

} // namespace attnscope
