// SPDX-License-Identifier: MIT
#pragma once

// A what-if run: an attention call read from a trace (call_inputs.h) as a PyTorch run of its shape, as it
// was and as each alternative, and what of the call the run cannot re-create. One plan for `attnscope
// whatif` and the window's "Try the Alternatives…".
#include "kernels/run_session.h"

#include "core/analysis/call_inputs.h"
#include "core/report/compare.h"

#include <array>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

namespace attnscope {
struct Document;
}

namespace attnscope::kernels {

struct WhatIfPlan {
    RunConfig config;               // Backend::Torch, the call's shape, the implementations to try
    std::vector<std::string> notes; // what of the call is not re-created, each a sentence
};

// tries: PyTorch's implementations to run (empty: all of torchImpls()); repeat: measured calls of each.
WhatIfPlan whatIfPlan(const CallInputs& call, std::vector<std::string> tries, int repeat, std::string python);

// The recorded analysis with only the calls of the chosen call's implementation and shape: the "as
// recorded" row is of the calls the run re-created, not the mean of an implementation whose calls differ
// (a prefill and a longer one), and "over the trace" counts those calls.
TraceAnalysis sameShapeCalls(const Trace& trace, const TraceAnalysis& a, const AttentionCall& chosen,
                             const CallInputs& inputs);

// What an alternative saves a call against the call as it was, both run here side by side: the difference
// of their kernel time per call (the comparison's figures; negative: slower), and its spread over the pairs
// of calls that ran in one round (the runner runs one call of each a round).
struct WhatIfSaving {
    std::string impl;
    TimeNs perCall = 0;
    // The pairs' least, lower quartile, median, upper quartile and most (a machine shared with others times
    // some calls far slower: the median holds, the mean moves).
    std::array<TimeNs, 5> pairs{};
    std::size_t rounds = 0;
    // The same on the host: the difference of the calls' ranges per call (what a wall clock around the
    // call sees: its kernels' time and what they leave out, the frees of the scores, the launches), when
    // both have them.
    std::optional<TimeNs> hostPerCall;
    // Its spread, as pairs' is: the host's difference of each round's two calls (hostRounds of them).
    std::array<TimeNs, 5> hostPairs{};
    std::size_t hostRounds = 0;
    // Its calls ran a fused attention kernel in the recorded call's precision (flash in bf16 of an fp32
    // call does other work: not what attention by hand would save).
    bool fused = false;
    // The machine's noise is larger than the saving: the middle half of the pairs disagree on its sign, or
    // the pairs' median and the mean (perCall) do (a few slow calls moved the mean across zero).
    bool withinNoise() const {
        return rounds > 1 && ((pairs[1] < 0 && pairs[3] > 0) || (pairs[2] < 0) != (perCall < 0));
    }
};
// "51.981 ms a call less (259.905 ms over the trace's 5 calls); over 5 rounds 52.334 ms at the median
// (48.436 ms to 55.476 ms)", ", within the noise" when it is: one sentence for the verb and the window.
// steps: the trace's profiler steps, when it has them: the saving a step too (over the trace's calls, per
// step: "129.953 ms a step over its 2 steps").
std::string whatIfSavingText(const WhatIfSaving& saving, std::uint64_t callsInTrace, std::size_t steps = 0);
// The saving over a step: per call × the trace's calls of the shape ÷ its profiler steps.
inline TimeNs savingPerStep(TimeNs perCall, std::uint64_t callsInTrace, std::size_t steps) {
    return steps ? perCall * TimeNs(callsInTrace) / TimeNs(steps) : 0;
}

// Each alternative's saving against asItWas; run: the what-if's run, whose calls pair the rounds.
std::vector<WhatIfSaving> whatIfSavings(const Document& run, const CompareRow& asItWas,
                                        const std::vector<const CompareRow*>& alternatives,
                                        const CallInputs& recorded);
// What a what-if measured, for the window: the trace as recorded and the run (saved side by side), the call's
// implementation, each alternative's saving against it as it was measured here, and where.
struct WhatIfAnswer {
    std::string recordedPath, measuredPath;
    std::string impl;
    std::vector<WhatIfSaving> savings;
    std::uint64_t calls = 0;     // the recorded trace's calls of its implementation and shape
    std::size_t steps = 0;       // its profiler steps (none: no saving per step)
    TimeNs asItWasNsPerCall = 0; // the call as it was, measured here
    std::string device;          // "this machine's CPU", or the GPU's name
    // What could not run here, each "efficient: PyTorch has this backend on CUDA only (…)".
    std::vector<std::string> unavailable;
};

// Of the alternatives, the fused one that saves most: what a finding learns (null: none measured).
const WhatIfSaving* fusedSaving(const std::vector<WhatIfSaving>& savings);
// The finding learns the answer: attention by hand's time at stake in the recorded row is the saving of the
// fused alternative that saves most, per call × the trace's calls of the shape (no more than those calls'
// kernel time as recorded), and its title says it was measured here. The fused saving it learned, or null
// (none measured).
const WhatIfSaving* learnWhatIf(CompareRow& recorded, const std::vector<WhatIfSaving>& savings,
                                std::uint64_t calls);

} // namespace attnscope::kernels
