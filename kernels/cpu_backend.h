// SPDX-License-Identifier: MIT
#pragma once

#include "kernels/run_hooks.h"
#include "kernels/run_session.h"

#include <string>

namespace attnscope::kernels {

// Runs config's cases on `workers` CPU workers, handing each record to hooks.events as it is made and
// stopping between calls once hooks.stopRequested(). Returns what stopped the run ("" when none).
std::string runCpu(const RunConfig& config, unsigned workers, const RunHooks& hooks);

} // namespace attnscope::kernels
