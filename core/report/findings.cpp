// SPDX-License-Identifier: MIT
#include "core/report/findings.h"
#include "core/model/kineto_args.h"
#include "core/report/format.h"

#include "core/analysis/op_cost.h"
#include "core/analysis/resources.h"
#include "core/model/parallel_for.h"
#include "core/report/findings_rules.h"
#include "core/report/summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace attnscope {

std::string_view severityName(Severity s) {
    switch (s) {
    case Severity::Critical:
        return "critical";
    case Severity::Warning:
        return "warning";
    default:
        return "info";
    }
}

std::optional<Severity> severityNamed(std::string_view name) {
    for (Severity s : {Severity::Info, Severity::Warning, Severity::Critical})
        if (severityName(s) == name) return s;
    return std::nullopt;
}

Severity severityOfShare(double share, const FindingThresholds& th) {
    return share >= th["critical_share"]  ? Severity::Critical
           : share >= th["warning_share"] ? Severity::Warning
                                          : Severity::Info;
}

FindingThresholds FindingThresholds::parse(std::string_view text, std::vector<std::string>* problems) {
    FindingThresholds t;
    std::size_t lineNo = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++lineNo;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        const std::size_t a = line.find_first_not_of(" \t\r");
        if (a == std::string_view::npos) continue;
        line = line.substr(a);
        const std::size_t space = line.find_first_of(" \t");
        const std::string_view key = line.substr(0, space);
        std::string_view value = space == std::string_view::npos
                                     ? std::string_view()
                                     : line.substr(line.find_first_not_of(" \t", space));
        value = value.substr(0, value.find_last_not_of(" \t\r") + 1);
        double v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v < 0) {
            if (problems)
                problems->push_back("line " + std::to_string(lineNo) + ": expected 'name value', got '" +
                                    std::string(line) + "'");
            continue;
        }
        t.m_values[std::string(key)] = v;
    }
    return t;
}

namespace {

// The built-in thresholds are the rules' own: each one a rule reads is in the file, and the file has
// none that no rule reads (a misspelt name fails the first reading of the table, not a rule later).
void checkAgainstRules(const FindingThresholds& builtin) {
    std::vector<std::string_view> read = generalThresholds();
    for (const FindingRule& r : findingRules())
        read.insert(read.end(), r.thresholds.begin(), r.thresholds.end());
    std::string wrong;
    for (std::string_view name : read)
        if (!builtin.has(name))
            wrong += " '" + std::string(name) + "' is read by a rule but not in the file;";
    for (const std::string& name : builtin.names())
        if (std::find(read.begin(), read.end(), name) == read.end())
            wrong += " '" + name + "' is in the file but no rule reads it;";
    if (!wrong.empty()) throw std::logic_error("resources/findings.txt:" + wrong);
}

} // namespace

const FindingThresholds& FindingThresholds::standard() {
    static const FindingThresholds thresholds = [] {
        FindingThresholds all = parse(builtinFindings());
        checkAgainstRules(all);
        if (const std::string path = userDataFile("ATTNSCOPE_FINDINGS", "findings.txt"); !path.empty()) {
            const FindingThresholds user = parse(readTextFile(path));
            for (const auto& [key, value] : user.m_values)
                if (all.m_values.count(key)) all.m_values[key] = value; // unknown names change nothing
        }
        return all;
    }();
    return thresholds;
}

std::vector<std::string> FindingThresholds::names() const {
    std::vector<std::string> out;
    for (const auto& [name, value] : m_values)
        out.push_back(name);
    return out;
}

double FindingThresholds::operator[](std::string_view key) const {
    const auto it = m_values.find(key);
    if (it == m_values.end()) throw std::logic_error("no finding threshold named " + std::string(key));
    return it->second;
}

namespace {

// "[5, 16, 16]" → 1280, "128" → 128 (0 when the value holds no number).
long long productOf(std::string_view s) {
    const std::vector<std::int64_t> values = parseInts(s);
    long long p = values.empty() ? 0 : 1;
    for (std::int64_t v : values)
        p *= v;
    return p;
}

} // namespace

std::optional<LaunchConfig> launchConfigOf(const Trace& trace, EventRef kernel) {
    LaunchConfig c;
    bool hasBlock = false;
    trace.forEachArg(kernel, [&](std::string_view key, std::string_view value) {
        if (key == kineto::kBlock) {
            c.blockThreads = int(productOf(value));
            hasBlock = true;
        } else if (key == kineto::kGrid) {
            c.gridBlocks = productOf(value);
        } else if (key == kineto::kRegistersPerThread) {
            c.registersPerThread = int(productOf(value));
        } else if (key == kineto::kSharedMemory) {
            c.sharedMemory = int(productOf(value));
        } else if (key == kineto::kReportedOccupancy) {
            double v = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc())
                c.reportedOccupancy = v;
        }
    });
    if (!hasBlock || c.blockThreads <= 0) return std::nullopt;
    return c;
}

std::optional<DeviceLimits> deviceLimitsOf(const Trace& trace, TrackId gpuTrack) {
    const ProcessInfo& p = trace.process(trace.track(gpuTrack).process);
    if (!p.isGpu) return std::nullopt;
    const DeviceInfo* device = nullptr;
    for (const DeviceInfo& d : trace.devices())
        if (d.id == p.deviceIndex) device = &d;
    if (!device && trace.devices().size() == 1) device = &trace.devices().front();
    if (!device || device->json.empty()) return std::nullopt;
    const auto j = nlohmann::json::parse(device->json, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    auto number = [&](const char* key) {
        return j.contains(key) && j[key].is_number() ? j[key].get<int>() : 0;
    };
    const int threads = number("maxThreadsPerMultiprocessor"), registers = number("regsPerMultiprocessor");
    const int shared = number("sharedMemPerMultiprocessor"), warp = number("warpSize");
    if (threads <= 0 || registers <= 0 || shared <= 0 || warp <= 0) return std::nullopt;
    return deviceLimitsFor(device->computeMajor, device->computeMinor, threads, registers, shared, warp);
}

std::optional<double> kernelOccupancy(const Trace& trace, EventRef kernel) {
    const auto limits = deviceLimitsOf(trace, kernel.track);
    const auto config = limits ? launchConfigOf(trace, kernel) : std::nullopt;
    if (!config) return std::nullopt;
    return theoreticalOccupancy(*limits, config->blockThreads, config->registersPerThread,
                                config->sharedMemory);
}

std::string lowOccupancyByDesign(const Trace& trace, const KernelAnalysis& k, double nearRoof) {
    if (const double roofShare = std::max(k.computeShare, k.memoryShare);
        k.verdict != Verdict::Unknown && roofShare >= nearRoof)
        return "it reaches " + formatShare(roofShare) +
               " of its roof: more resident warps would not make it faster";
    const bool tiled = k.role == KernelRole::FusedAttention || k.role == KernelRole::Gemm ||
                       k.role == KernelRole::QkGemm || k.role == KernelRole::PvGemm;
    const auto limits = tiled ? deviceLimitsOf(trace, k.event.track) : std::nullopt;
    const auto config = limits ? launchConfigOf(trace, k.event) : std::nullopt;
    if (!config) return {};
    const OccupancyLimiter limiter =
        occupancyLimiter(*limits, config->blockThreads, config->registersPerThread, config->sharedMemory);
    if (limiter != OccupancyLimiter::Registers && limiter != OccupancyLimiter::SharedMemory) return {};
    return std::string("low by design: a ") +
           (k.role == KernelRole::FusedAttention ? "fused attention" : "GEMM") + " kernel whose " +
           occupancyLimiterName(limiter) +
           " hold its tiles on chip, so that each warp has much independent work";
}

namespace findings {

namespace {

bool isSyncName(std::string_view n) {
    static constexpr std::string_view kSyncs[] = {
        "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
        "cudaMemcpy2D",          "cuCtxSynchronize",      "cuStreamSynchronize",  "cuEventSynchronize",
        "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",  "hipMemcpy"};
    return std::find(std::begin(kSyncs), std::end(kSyncs), n) != std::end(kSyncs);
}

} // namespace

Context::Context(const FindingInputs& in)
    : trace(in.trace), analysis(in.analysis), th(in.thresholds),
      span(std::max<TimeNs>(1, in.trace.endNs() - in.trace.startNs())) {}

namespace {

// Whether any of the trace's strings (names, categories, args' keys) starts with one of the prefixes.
bool anyStringStarting(const Trace& trace, std::initializer_list<std::string_view> prefixes) {
    const StringPool& strings = trace.strings();
    for (std::uint32_t i = 0; i < strings.size(); ++i)
        for (std::string_view prefix : prefixes)
            if (strings.get(StringId(i)).starts_with(prefix)) return true;
    return false;
}

} // namespace

bool Context::pytorch() const {
    if (!m_pytorch) m_pytorch = anyStringStarting(trace, {"aten::"});
    return *m_pytorch;
}

std::string Context::graph() const {
    if (!m_rocm) m_rocm = anyStringStarting(trace, {"hipLaunch", "hipExtLaunch"});
    return *m_rocm ? "HIP graph" : "CUDA graph";
}

Context::Kind Context::kind(EventRef e) const {
    switch (trace.categoryKind(e)) {
    case CategoryKind::CpuOp:
        return CpuOp;
    case CategoryKind::Launch:
        return Launch;
    case CategoryKind::Kernel:
        return Kernel;
    case CategoryKind::Copy:
        return Copy;
    case CategoryKind::DeviceEvent: {
        const std::string_view n = name(e); // an accelerator's events, told apart by name
        return isDeviceCopyName(n) ? Copy : isDeviceSyncName(n) ? Other : Kernel;
    }
    case CategoryKind::Other:
        break;
    }
    return Other;
}

const std::vector<std::pair<ProcessId, std::vector<Busy>>>& Context::gpuBusy() {
    if (m_busy) return *m_busy;
    m_busy.emplace();
    for (std::uint32_t p = 0; p < trace.processes().size(); ++p) {
        if (!trace.processes()[p].isGpu) continue;
        std::vector<Busy> work;
        std::vector<std::size_t> runEnds; // each stream's work is in order already
        for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
            const Track& track = trace.tracks()[t];
            if (track.process.value != p || track.kind != TrackKind::GpuStream ||
                isCpuTrack(trace, TrackId(t)))
                continue;
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                const Kind k = kind({TrackId(t), i});
                if ((k == Kernel || k == Copy) && track.events.duration[i] > 0)
                    work.push_back({track.events.start[i], track.end(i), {TrackId(t), i}});
            }
            runEnds.push_back(work.size());
        }
        if (work.empty()) continue;
        mergeSortedRuns(work, std::move(runEnds),
                        [](const Busy& a, const Busy& b) { return a.start < b.start; });
        std::vector<Busy> joined;
        for (const Busy& b : work) {
            if (!joined.empty() && b.start <= joined.back().end)
                joined.back().end = std::max(joined.back().end, b.end);
            else
                joined.push_back(b);
        }
        m_busy->emplace_back(ProcessId(p), std::move(joined));
    }
    return *m_busy;
}

const std::vector<EventRef>& Context::syncCalls() {
    if (m_syncs) return *m_syncs;
    m_syncs.emplace();
    std::vector<std::uint8_t> isSync(trace.strings().size(), 2); // 2: not looked at yet
    forEachEvent(TrackKind::CpuThread, Launch, [&](EventRef e, const Track& track) {
        const StringId name = track.events.name[e.index];
        std::uint8_t& s = isSync[name.value];
        if (s == 2) s = isSyncName(trace.str(name));
        if (s) m_syncs->push_back(e);
    });
    std::sort(m_syncs->begin(), m_syncs->end(), [&](EventRef a, EventRef b) { return end(a) < end(b); });
    return *m_syncs;
}

std::optional<EventRef> Context::launchingOp(EventRef gpuEvent) const {
    std::optional<EventRef> op;
    launchedUnder(gpuEvent, [&](EventRef e) {
        op = e;
        return true;
    });
    return op;
}

bool Context::launchedUnder(EventRef gpuEvent, const std::function<bool(EventRef)>& f) const {
    // An aten:: op standing for a kernel (a trace without GPU kernels) is inside its ops itself.
    const bool op = trace.track(gpuEvent.track).events.flags[gpuEvent.index] & kOpKernel;
    const auto launch = op ? std::optional(gpuEvent) : trace.launchOf(gpuEvent);
    if (!launch) return false;
    return forEachEnclosingEvent(trace, *launch, [&](EventRef e) { return kind(e) == CpuOp && f(e); });
}

std::vector<EventRef> Context::gpuWorkUnder(EventRef cpuEvent) const {
    std::vector<EventRef> out;
    const Track& t = trace.track(cpuEvent.track);
    const TimeNs endNs = t.end(cpuEvent.index);
    const std::uint16_t depth = t.events.depth[cpuEvent.index];
    for (std::uint32_t i = cpuEvent.index + 1; i < t.size() && t.events.start[i] < endNs; ++i) {
        if (t.events.depth[i] <= depth) break;
        if (t.events.flags[i] & kOpKernel) out.push_back({cpuEvent.track, i});
        if (kind({cpuEvent.track, i}) != Launch) continue;
        for (EventRef w : trace.gpuWorkOf({cpuEvent.track, i}))
            out.push_back(w);
    }
    return out;
}

Finding Context::make(std::string title, TimeNs timeNs) const {
    Finding f;
    f.title = std::move(title);
    f.timeNs = std::max<TimeNs>(0, timeNs);
    f.share = std::clamp(double(f.timeNs) / double(span), 0.0, 1.0);
    f.severity = severityOfShare(f.share, th);
    return f;
}

void Context::severityFromShare(Finding& f, double share) const {
    f.severity = severityOfShare(std::clamp(share, 0.0, 1.0), th);
}

Finding* Context::keep(std::vector<Finding>& out, Finding f, Places places, Order order, Shown shown) const {
    if (order == Order::LongestFirst) longestFirst(*this, places);
    f.count = places.size();
    const std::size_t cap = std::min(places.size(), std::size_t(th["max_evidence"]));
    for (std::size_t i = 0; i < cap; ++i) {
        const EventRef e = places[i].first;
        f.evidence.push_back({e, trace.trackLabel(e.track), start(e), dur(e), std::string(name(e)),
                              std::move(places[i].second)});
    }
    if (shown == Shown::IfWorthShowing && f.share < th["min_share"]) return nullptr;
    out.push_back(std::move(f));
    return &out.back();
}

std::string oneDecimal(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}

std::string partOfHandWritten(std::uint64_t n, std::string_view one, std::string_view many,
                              std::string_view where, std::string_view which) {
    if (n == 0) return {};
    return " " + formatCount(n, one, many) + " " + std::string(where) +
           ": part of hand_written_attention's " + std::string(which) +
           " where that is shown, not time besides it.";
}

void longestFirst(const Context& c, Places& places) {
    std::stable_sort(places.begin(), places.end(),
                     [&](const auto& a, const auto& b) { return c.dur(a.first) > c.dur(b.first); });
}

OpInputs opInputs(const Context& c, EventRef op) {
    return attnscope::opInputs(c.trace, op);
}

} // namespace findings

const std::vector<FindingRule>& findingRules() {
    using namespace findings;
    static const std::vector<FindingRule> rules = {
        {kHandWrittenAttention, handWrittenAttention, {}},
        {"sdpa_math_fallback", sdpaMathFallback, {"math_fallback_kernels_per_call"}},
        {"out_of_place_copy", outOfPlaceCopy, {}},
        {"repeated_kv_heads", repeatedKvHeads, {}},
        {"layout_copies", layoutCopies, {}},
        {"math_upcast", mathUpcast, {}},
        {"softmax_upcast", softmaxUpcast, {}},
        {"kv_cache_concat", kvCacheConcat, {}},
        {"compiled_attention", compiledAttention, {}},
        {"recomputed_attention", recomputedAttention, {}},
        {"mask_per_call", maskPerCall, {}},
        {"safe_softmax", safeSoftmax, {}},
        {"host_bound_attention", hostBoundAttention, {}},
        {"casts_and_copies", castsAndCopies, {"casts_window_us"}},
        {"gpu_idle", gpuIdle, {"gpu_idle_min_gap_us"}},
        {"launch_bound", launchBound, {"launch_bound_kernel_us", "launch_bound_min_kernels"}},
        {"synchronization", synchronization, {}},
        {"pageable_memcpy", pageableMemcpy, {}},
        {"latency_bound", latencyBound, {"latency_bound_min_kernel_share"}},
        {"low_occupancy",
         lowOccupancy,
         {"low_occupancy", "low_occupancy_min_kernel_us", "low_occupancy_min_kernel_share",
          "low_occupancy_near_roof"}},
        {kRankImbalance, nullptr, {"rank_imbalance_excess"}},
        {"exposed_communication", exposedCommunication, {}},
        {"unexpected_kernels", unexpectedKernels, {}},
    };
    return rules;
}

std::size_t findingRuleOrder(std::string_view id) {
    const auto& rules = findingRules();
    return std::size_t(
        std::find_if(rules.begin(), rules.end(), [&](const FindingRule& r) { return r.id == id; }) -
        rules.begin());
}

std::vector<std::string_view> generalThresholds() {
    return {"min_share", "critical_share", "warning_share", "max_evidence"};
}

std::vector<Finding> findFindings(const FindingInputs& in) {
    findings::Context c(in);
    std::vector<const FindingRule*> rules; // those over one trace
    for (const FindingRule& r : findingRules())
        if (r.run) rules.push_back(&r);
    // The rules only read the trace and the analysis, and the context's shared parts are made
    // before they start, so they run side by side, each into a list of its own (joined in rule
    // order: the result does not depend on the threads).
    c.gpuBusy();
    c.syncCalls();
    std::vector<std::vector<Finding>> found(rules.size());
    parallelFor(rules.size(), std::max(1u, std::thread::hardware_concurrency()),
                [&](std::size_t r) { rules[r]->run(c, found[r]); });
    std::vector<Finding> out;
    for (std::size_t r = 0; r < rules.size(); ++r)
        for (Finding& f : found[r]) {
            f.id = rules[r]->id;
            out.push_back(std::move(f));
        }
    findings::sortFindings(out);
    return out;
}

std::optional<std::size_t> callOfFinding(const std::vector<Finding>& findings, const TraceAnalysis& analysis,
                                         std::string_view id) {
    for (const Finding& f : findings) {
        if (f.id != id) continue;
        for (const Evidence& e : f.evidence)
            if (const KernelAnalysis* k = analysis.find(e.event);
                k && k->call >= 0 && std::size_t(k->call) < analysis.calls.size())
                return std::size_t(k->call);
    }
    return std::nullopt;
}

void findings::sortFindings(std::vector<Finding>& findings) {
    std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
        return a.timeNs != b.timeNs ? a.timeNs > b.timeNs : findingRuleOrder(a.id) < findingRuleOrder(b.id);
    });
}

} // namespace attnscope
