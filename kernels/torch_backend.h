// SPDX-License-Identifier: MIT
#pragma once
// PyTorch's own attention, run live: AttnScope starts the user's Python on its runner script
// (resources/torch_runner.py, built into the program), which runs each implementation under
// torch.profiler, one profiler step per call, and says on stdout (line-delimited JSON) where each
// step's Kineto trace is. Each step is read with the trace reader and handed to the run session
// as it arrives.
#include "kernels/run_hooks.h"

#include "core/model/trace.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnscope::kernels {

struct RunConfig;
struct RunEvent;

// The runner script, as shipped (and installed beside the program's other data).
std::string_view torchRunnerScript();

// The Python a PyTorch run starts: the configuration's, else ATTNSCOPE_PYTHON, else python3 on PATH.
std::string torchPython(const RunConfig& config);

// Runs the configuration with PyTorch on the calling thread; "" when it ran (or was stopped), else
// why it could not start or failed. What arrived before a failure has been reported.
std::string runTorch(const RunConfig& config, const RunHooks& hooks);

// One step's trace as run events: its events with times from origin (ns, the trace's clock), each
// tagged with the step's implementation and call, correlation ids made unique by the step's index.
// The call's record_function range ("flash attention") is the call.
std::vector<RunEvent> stepEvents(const Trace& step, TimeNs origin, const std::string& impl, int call,
                                 bool warmup, int stepIndex);

} // namespace attnscope::kernels
