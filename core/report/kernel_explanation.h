// SPDX-License-Identifier: MIT
#pragma once

// A kernel's place on its roofline, said once for every view that explains a kernel (Details, the
// command line): its verdict with the rates it reached and the roofs it was held to, and why — too
// little work to fill the device, far below its roof for another reason, beyond a roof (a wrong cost), or
// no verdict and the reason there is none.
#include "core/analysis/analysis.h"

#include <string>

namespace attnscope {

std::string rooflineExplanation(const Trace& trace, const TraceAnalysis& analysis, const KernelAnalysis& k);

} // namespace attnscope
