// SPDX-License-Identifier: MIT
#pragma once

#include "kernels/cpu/worker_pool.h"

#include "core/analysis/analysis.h"

namespace attnscope::kernels {

// The CPU's roofs, measured on the pool's workers: fp32 FLOP/s from independent chains of 8-wide
// fused multiply-adds (AVX2), and read bandwidth from summing a buffer far larger than the caches.
struct CpuPeak {
    double flops = 0;     // FLOP/s
    double bandwidth = 0; // bytes/s
};
CpuPeak measureCpuPeak(WorkerPool& pool);

// The CPU's roofs for the roofline: measured once per machine (all cores) and cached in
// ~/.cache/attnscope/cpu_peak.txt ($XDG_CACHE_HOME honoured), keyed by CPU model and core count.
DeviceSpec cpuDeviceSpec();

// The one place the roofs of a trace's kernels are chosen, for every view and verb: GPU kernels
// against their device's datasheet roofs (core's device specs), AttnScope's own CPU kernels against
// this machine's measured roofs (measured only when the trace has such kernels). The window, the
// compare window, chart exports and the command line all analyse through it, so one trace gets one
// set of verdicts everywhere.
TraceAnalysis analyzeWithMachineRoofs(const Trace& trace);

} // namespace attnscope::kernels
