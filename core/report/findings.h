// SPDX-License-Identifier: MIT
#pragma once

// What is wrong in a trace, how much time it costs and where to look: rules over the trace and its
// analysis, each a unit of its own (findings_*.cpp), in the spirit of Nsight Systems' expert rules
// and HTA's analyses, and knowing attention. Their thresholds are data (resources/findings.txt, the
// user's own file first, as for the role rules).
#include "core/analysis/analysis.h"
#include "core/analysis/call_inputs.h"
#include "core/model/occupancy.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

enum class Severity : std::uint8_t { Info, Warning, Critical };
std::string_view severityName(Severity s);                    // "info", "warning", "critical"
std::optional<Severity> severityNamed(std::string_view name); // the severity of that name, if any

// One place a finding points at: an event, one click from the timeline.
struct Evidence {
    EventRef event;
    std::string track; // "GPU 0 · stream 7"
    TimeNs startNs = 0;
    TimeNs durNs = 0;
    std::string name;
    std::string note; // what about this place ("idle 1.2 ms: waiting on the host"), or ""
    // The stretch of time that shows the place, where it is more than the event (a GPU-idle gap with the
    // work either side of it: the event is the work after it); 0, 0: the event itself.
    TimeNs showFromNs = 0, showToNs = 0;
};

// A finding's title fits one line of the findings table and of `summary`: at most this many bytes (its
// explanation can be long).
inline constexpr std::size_t kFindingTitleMax = 120;

struct Finding {
    std::string id; // its rule's: hand_written_attention, sdpa_math_fallback, … (findingRules)
    Severity severity = Severity::Info;
    std::string title;
    TimeNs timeNs = 0;              // the time at stake
    bool measured = false;          // that time a saving measured in the trace itself, not an estimate
    double share = 0;               // of the trace's span (0–1)
    std::uint64_t count = 0;        // how many places, before the list's cap: the one count shown
    std::string explanation;        // what was measured and why it matters
    std::string suggestion;         // what to try
    std::vector<Evidence> evidence; // the most telling first, capped (max_evidence)
};

// A finding rule: its id (spelled here only: findings_rules.cpp's table), the thresholds it reads (their
// values and meanings in resources/findings.txt) and the function that runs it over one trace — none for
// the rule over a job's ranks, which jobFindings runs.
namespace findings {
class Context;
}
struct FindingRule {
    using Run = void (*)(findings::Context&, std::vector<Finding>&);
    std::string_view id;
    Run run = nullptr;
    std::vector<std::string_view> thresholds;
};
// The rule over a job's ranks (the others' ids are read from the table where a finding is made).
inline constexpr std::string_view kRankImbalance = "rank_imbalance";
// The rule whose time at stake a saving measured elsewhere replaces (learnMeasuredSaving, learnSaving).
inline constexpr std::string_view kHandWrittenAttention = "hand_written_attention";
// Every rule, in the order they run (which breaks ties between findings of equal time).
const std::vector<FindingRule>& findingRules();
// A rule's place in that order (findingRules().size() for an unknown id).
std::size_t findingRuleOrder(std::string_view id);
// The thresholds every rule reads (how much is shown, severities, evidence per finding).
std::vector<std::string_view> generalThresholds();

// The rules' thresholds by name ("min_share 0.01" lines; '#' starts a comment).
class FindingThresholds {
public:
    static FindingThresholds parse(std::string_view text, std::vector<std::string>* problems = nullptr);
    // The built-in thresholds, overridden by the user's file (ATTNSCOPE_FINDINGS or
    // ~/.config/attnscope/findings.txt), read once.
    static const FindingThresholds& standard();
    // The value of a known key; a key the built-in file lacks is a programming error (throws).
    double operator[](std::string_view key) const;
    void set(std::string_view key, double value) { m_values[std::string(key)] = value; }
    bool has(std::string_view key) const { return m_values.find(key) != m_values.end(); }
    std::vector<std::string> names() const;

private:
    std::map<std::string, double, std::less<>> m_values;
};

// A finding's severity from its share (critical_share, warning_share).
Severity severityOfShare(double share, const FindingThresholds& thresholds);

// Everything the rules read: one trace. A job of several ranks is read rank by rank and put together
// (job_findings.h).
struct FindingInputs {
    const Trace& trace;
    const TraceAnalysis& analysis;
    const FindingThresholds& thresholds = FindingThresholds::standard();
};

// Every rule over the trace; the findings most time at stake first (then by id).
std::vector<Finding> findFindings(const FindingInputs& in);

// The attention call a finding is about: the call of its first place that is in one (an index into the
// analysis' calls), or none (no finding of that id, or none of its places in a call).
std::optional<std::size_t> callOfFinding(const std::vector<Finding>& findings, const TraceAnalysis& analysis,
                                         std::string_view id);

// A fused alternative's saving measured on the shape of a trace's calls elsewhere (a what-if run on this
// machine): alternative saved perCall against impl's call as it was, both run on `device`.
struct MeasuredSaving {
    std::string impl;        // the trace's calls' implementation ("naive")
    CallInputs shape;        // and what they compute
    std::string alternative; // the fused implementation measured ("flash")
    TimeNs perCall = 0;
    std::string device; // where both ran ("this machine's CPU")
};
// The time at stake of a saving measured per call, over calls that each took tookPerCall (their kernels,
// where they were recorded): no more than all of that (a machine slower or busier than the one that
// recorded them measures a saving larger than the calls); tookPerCall 0: not known, not capped.
inline TimeNs measuredStake(TimeNs perCall, TimeNs tookPerCall, std::uint64_t calls) {
    perCall = std::max<TimeNs>(0, perCall);
    return (tookPerCall > 0 && perCall > tookPerCall ? tookPerCall : perCall) * TimeNs(calls);
}
// hand_written_attention learns a saving measured elsewhere: its time at stake becomes the saving over
// its calls (no more than their kernels ran), its share and severity with it, said in its title and
// explanation, when every call it counts is of the saving's implementation and shape; the findings are
// sorted again. A finding measured in the trace itself keeps its own. True when it learned.
bool learnMeasuredSaving(std::vector<Finding>& findings, const FindingInputs& in, const MeasuredSaving& saving);

// A kernel's launch configuration from its args (Kineto's "grid", "block", "registers per thread",
// "shared memory"), and whether the trace's "est. achieved occupancy %" is the 0 Kineto writes for
// kernels launched with cuLaunchKernelEx.
struct LaunchConfig {
    int blockThreads = 0;
    long long gridBlocks = 0;
    int registersPerThread = 0;
    int sharedMemory = 0;
    std::optional<double> reportedOccupancy; // "est. achieved occupancy %", 0–100
};
std::optional<LaunchConfig> launchConfigOf(const Trace& trace, EventRef kernel);
// The limits of the GPU a kernel ran on, from the trace's deviceProperties.
std::optional<DeviceLimits> deviceLimitsOf(const Trace& trace, TrackId gpuTrack);
// Theoretical occupancy (0–1) of a kernel of the trace, when its launch and device are known.
std::optional<double> kernelOccupancy(const Trace& trace, EventRef kernel);
// Why a kernel's low occupancy costs it no time, or "" when it may: a fused attention or GEMM kernel
// held down by its registers or shared memory keeps its tiles on chip by design (FlashAttention's 255
// registers a thread leave 2 blocks an SM), and a kernel at nearRoof or more of the roof that limits it
// would not run faster with more warps resident.
std::string lowOccupancyByDesign(const Trace& trace, const KernelAnalysis& k, double nearRoof);

} // namespace attnscope
