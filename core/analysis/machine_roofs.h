// SPDX-License-Identifier: MIT
#pragma once

// The roofs of this machine's CPU, for AttnScope's own CPU runs, and the one place where the roofs
// of a trace's kernels are chosen.
#include "core/analysis/analysis.h"

#include <string>

namespace attnscope {

// The widest vector path this CPU has for the compute roof: "AVX-512+BF16", "AVX-512", "AVX2" or
// "scalar".
std::string cpuIsa();
// Whether the CPU has AMX tiles with bf16 products and the OS lets this process use them (Linux asks
// each process to request the tiles' state; requested once, on the first call).
bool amxBf16Usable();

// The CPU's roofs as measured here: fp32 FLOP/s from independent chains of fused multiply-adds on the
// widest vectors the CPU has, bf16 FLOP/s from its bf16 dot products (0 without them), and read
// bandwidth from summing a buffer far larger than the caches — each on one core and on all cores at
// once, each the best of several short trials.
struct CpuRoofs {
    std::string model; // /proc/cpuinfo's model name
    unsigned cores = 0;
    std::string isa;
    std::string date;                           // when measured, YYYY-MM-DD
    double fp32Core = 0, fp32All = 0;           // FLOP/s
    double bf16Core = 0, bf16All = 0;           // FLOP/s; 0: no bf16 dot products
    double bandwidthCore = 0, bandwidthAll = 0; // bytes/s
    std::string note;                           // how a run raised them, when one did
    // One core's roofs, and all cores' at once: a CPU run's workers (one event: one worker's share of
    // a kernel, on one core) are each held to all cores' roofs over the workers, and never to more
    // than one core's.
    DeviceSpec coreSpec() const;
    DeviceSpec allCoresSpec() const;
};
CpuRoofs measureCpuRoofs();

// This machine's roofs: measured once and cached in ~/.cache/attnscope/cpu_roofs.txt ($XDG_CACHE_HOME
// honoured), keyed by CPU model, core count, ISA and AttnScope's version (measured again when any
// changes); the date of the measurement is kept with it.
CpuRoofs cpuRoofs();
// A run achieved more than the roofs allow: raised is the roofs one of its `workers` was raised to;
// the cache keeps the higher roofs, with the note saying so.
void raiseCpuRoofs(const DeviceSpec& raised, unsigned workers, const std::string& note);

// fp32 FLOP/s and read bandwidth on `threads` threads at once (the CPU benchmark's reference).
struct CpuPeak {
    double flops = 0;     // FLOP/s
    double bandwidth = 0; // bytes/s
};
CpuPeak measureCpuPeak(unsigned threads);

// The one place the roofs of a trace's kernels are chosen: GPU kernels against their device's
// datasheet roofs (the device specs), AttnScope's own CPU kernels against one core's measured roofs
// (measured only when the trace has such kernels). A kernel above its roof raises the roof
// (analyzeTrace), and a raised CPU roof is cached. openDocument analyses through it, so one trace gets
// one set of verdicts in every view and verb.
TraceAnalysis analyzeWithMachineRoofs(const Trace& trace);

} // namespace attnscope
