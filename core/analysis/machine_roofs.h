// SPDX-License-Identifier: MIT
#pragma once

// The roofs of this machine's CPU, for AttnScope's own CPU runs, and the one place where the roofs
// of a trace's kernels are chosen.
#include "core/analysis/analysis.h"

#include <optional>
#include <string>
#include <string_view>

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
    bool measuredNow = false;                   // measured by this call (nothing was cached yet)
    // Why these roofs are not this measurement's, or not cached (a measurement far below the CPU's
    // earlier one, or under valgrind), or what was wrong when they were measured (other work held the
    // cores: kept in the cache with them); empty when they are what was measured, at a quiet moment.
    std::string note;
    // One core's roofs, and all cores' at once: a CPU run's workers (one event: one worker's share of
    // a kernel, on one core) are each held to all cores' roofs over the workers, and never to more
    // than one core's.
    DeviceSpec coreSpec() const;
    DeviceSpec allCoresSpec() const;
};
CpuRoofs measureCpuRoofs();

// This machine's roofs: measured once and cached in ~/.cache/attnscope/cpu_roofs.txt ($XDG_CACHE_HOME
// honoured), keyed by CPU model, core count, ISA and AttnScope's version (measured again when any
// changes); the date of the measurement is kept with it. Nothing but a native measurement writes them:
// one under valgrind is not cached, and one far below what the same CPU measured before (under an
// emulator that hides its ISA, or beside a build) is not taken: the earlier roofs are, with a note.
CpuRoofs cpuRoofs();

// fp32 FLOP/s and read bandwidth on `threads` threads at once (the CPU benchmark's reference).
struct CpuPeak {
    double flops = 0;     // FLOP/s
    double bandwidth = 0; // bytes/s
};
CpuPeak measureCpuPeak(unsigned threads);

// This machine's name, as AttnScope's runs write it into their traces ("host_name").
std::string thisHostName();

// Whose CPU roofs a trace's CPU kernels (AttnScope's CPU runs, PyTorch's CPU ops) are held to.
enum class CpuRoofsChoice : std::uint8_t {
    Auto,        // this machine's when the trace was recorded here (its host_name is this machine's)
    ThisMachine, // this machine's, whatever host the trace names (the user says it ran on one like it)
    None,        // none: the CPU kernels get no verdict
};
// Parses "auto", "this-machine", "none".
std::optional<CpuRoofsChoice> parseCpuRoofsChoice(std::string_view text);

// The roofs a trace's CPU kernels are held to by the choice, or none with why in `why`. This
// machine is measured (cpuRoofs) only when the trace has CPU kernels that its roofs apply to.
std::optional<CpuRoofs> cpuRoofsFor(const Trace& trace, CpuRoofsChoice choice, std::string& why);

// The one place the roofs of a trace's kernels are chosen: GPU kernels against their device's
// datasheet roofs (the device specs), CPU kernels against the CPU roofs passed in (none: no verdict,
// the analysis' cpuNote says why). Roofs are never moved by a trace, so a trace's verdicts depend on
// the trace and these roofs only. openDocument analyses through it, so one trace gets one set of
// verdicts in every view and verb.
TraceAnalysis analyzeWithCpuRoofs(const Trace& trace, const std::optional<CpuRoofs>& cpu,
                                  const std::string& why = {});

} // namespace attnscope
