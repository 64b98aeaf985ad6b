// SPDX-License-Identifier: MIT
#pragma once

// A kernel's place on its roofline, said once for every view that explains a kernel (Details, the
// command line): its verdict with the rates it reached and the roofs it was held to, and why — too
// little work to fill the device, far below its roof for another reason, beyond a roof (a wrong cost), or
// no verdict and the reason there is none.
#include "core/analysis/analysis.h"
#include "core/model/trace.h"

#include <string>

namespace attnscope {

std::string rooflineExplanation(const Trace& trace, const TraceAnalysis& analysis, const KernelAnalysis& k);

// Its occupancy: the theoretical one from its launch and its device's limits, what limits it, why low
// occupancy costs it nothing when that is known, and what the trace's own estimate means when it is 0 —
// Kineto's 0 for a cuLaunchKernelEx launch, or a real 0 for a grid too small to fill the SMs. analysis may
// be null.
std::string occupancyExplanation(const Trace& trace, const TraceAnalysis* analysis, EventRef kernel);

} // namespace attnscope
