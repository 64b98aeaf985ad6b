// SPDX-License-Identifier: MIT
#include "core/model/trace.h"
#include "core/model/categories.h"

#include "core/model/args_codec.h"

#include <algorithm>
#include <cstring>

namespace attnscope {

bool isKernelCategory(std::string_view cat) {
    return cat == category::kKernel || cat == category::kKernelLegacy;
}

bool isCopyCategory(std::string_view cat) {
    return cat == category::kMemcpy || cat == category::kMemset || cat == category::kMemcpyLegacy ||
           cat == category::kMemsetLegacy;
}

bool isDeviceEventCategory(std::string_view cat) {
    return cat == category::kMtiaDevice;
}

CategoryKind categoryKindOf(std::string_view c) {
    return isKernelCategory(c)        ? CategoryKind::Kernel
           : isCopyCategory(c)        ? CategoryKind::Copy
           : isDeviceEventCategory(c) ? CategoryKind::DeviceEvent
           : isLaunchCategory(c)      ? CategoryKind::Launch
           : isCpuOpCategory(c)       ? CategoryKind::CpuOp
                                      : CategoryKind::Other;
}

void Trace::indexCategories() {
    for (std::size_t id = m_categoryKinds.size(); id < m_strings.size(); ++id)
        m_categoryKinds.push_back(categoryKindOf(m_strings.get(StringId(std::uint32_t(id)))));
}

bool isDeviceCopyName(std::string_view name) {
    return name == "dma_request";
}

bool isDeviceSyncName(std::string_view name) {
    return name == "event_record" || name == "event_wait";
}

bool isCpuOpCategory(std::string_view cat) {
    return cat == category::kCpuOp || cat == category::kCpuOpLegacy;
}

bool isBookkeepingOp(std::string_view name) {
    // Views, reshapes and empty tensors (no data moves), and the ops that return their input as it
    // is when they have no op inside them (to, contiguous: a copy would be a _to_copy or copy_ within).
    // clang-format off
    static constexpr std::string_view kOps[] = {
        "aten::empty", "aten::empty_like", "aten::empty_strided", "aten::as_strided", "aten::view",
        "aten::_unsafe_view", "aten::_reshape_alias", "aten::reshape", "aten::view_as", "aten::expand",
        "aten::expand_as", "aten::transpose", "aten::t", "aten::permute", "aten::unsqueeze",
        "aten::squeeze", "aten::select", "aten::slice", "aten::narrow", "aten::split", "aten::chunk",
        "aten::unbind", "aten::flatten", "aten::unflatten", "aten::detach", "aten::detach_",
        "aten::alias", "aten::lift_fresh", "aten::resolve_conj", "aten::resolve_neg", "aten::to",
        "aten::contiguous", "aten::scalar_tensor", "aten::result_type", "aten::size", "aten::stride",
        "aten::is_nonzero", "aten::set_", "aten::record_stream"};
    // clang-format on
    for (std::string_view op : kOps)
        if (name == op) return true;
    return false;
}

bool isGpuCategory(std::string_view cat) {
    return isKernelCategory(cat) || isCopyCategory(cat) || cat == category::kCudaSync ||
           cat == category::kGpuUserAnnotation || cat == category::kProfilerRange ||
           cat == category::kMtiaDevice;
}

bool isLaunchCategory(std::string_view cat) {
    return cat == category::kRuntime || cat == category::kDriver || cat == category::kRuntimeLegacy ||
           cat == category::kMtiaRuntime;
}

std::size_t Trace::eventCount() const {
    std::size_t n = 0;
    for (const Track& t : m_tracks)
        n += t.size();
    return n;
}

std::string Trace::argsJson(EventRef e) const {
    return encodedArgsToJson(m_strings, encodedArgs(e));
}

void Trace::forEachArg(EventRef e, const std::function<void(std::string_view, std::string_view)>& f) const {
    forEachEncodedArg(m_strings, encodedArgs(e), f);
}

std::string_view Trace::encodedArgs(EventRef e) const {
    const char* p = m_tracks[e.track.value].events.args[e.index];
    if (!p) return {};
    std::uint32_t len = 0;
    std::memcpy(&len, p, sizeof(len));
    return {p + sizeof(len), len};
}

std::string gpuName(std::int64_t deviceIndex) {
    return "GPU " + std::to_string(deviceIndex);
}

std::string rankName(std::int64_t rank) {
    return "rank " + std::to_string(rank);
}

std::string gpuLabel(const ProcessInfo& p) {
    if (!p.isGpu || p.deviceIndex < 0) return {};
    const std::string device = deviceKind(p) == "GPU"
                                   ? gpuName(p.deviceIndex)
                                   : std::string(deviceKind(p)) + " " + std::to_string(p.deviceIndex);
    return (p.rank >= 0 ? rankName(p.rank) + " \u00b7 " : std::string()) + device;
}

std::string_view deviceKind(const ProcessInfo& p) {
    return p.name.starts_with("MTIA") || p.labels.starts_with("MTIA") ? "MTIA" : "GPU";
}

std::string Trace::trackLabel(TrackId id) const {
    const Track& t = m_tracks[id.value];
    const ProcessInfo& p = m_processes[t.process.value];
    std::string processName = p.name;
    // GPU processes are named after the host program; the label tells the devices apart.
    if (p.isGpu && p.deviceIndex >= 0 && processName.rfind("GPU", 0) != 0) processName = gpuLabel(p);
    if (t.kind == TrackKind::Global) return t.name;
    return processName + " \u00b7 " + t.name;
}

namespace {
template <class Entries> auto equalRange(const Entries& entries, std::uint64_t correlation) {
    return std::equal_range(entries.begin(), entries.end(), correlation, [](const auto& a, const auto& b) {
        if constexpr (std::is_integral_v<std::decay_t<decltype(a)>>)
            return a < b.correlation;
        else
            return a.correlation < b;
    });
}
} // namespace

std::optional<EventRef> Trace::launchOf(EventRef gpuEvent) const {
    const std::uint64_t corr = m_tracks[gpuEvent.track.value].events.correlation[gpuEvent.index];
    if (!corr) return std::nullopt;
    auto [lo, hi] = equalRange(m_launches, corr);
    if (lo == hi || lo->event == gpuEvent) return std::nullopt; // a launch is not its own launch
    return lo->event;
}

std::vector<EventRef> Trace::gpuWorkOf(EventRef launch) const {
    std::vector<EventRef> out;
    const std::uint64_t corr = m_tracks[launch.track.value].events.correlation[launch.index];
    if (!corr) return out;
    auto [lo, hi] = equalRange(m_gpuWork, corr);
    // GPU work launches nothing, not even the other kernels of its graph (one correlation id for all).
    if (std::any_of(lo, hi, [&](const CorrelationEntry& c) { return c.event == launch; })) return out;
    for (auto it = lo; it != hi; ++it)
        out.push_back(it->event);
    return out;
}

std::vector<std::pair<EventRef, EventRef>> Trace::linksOf(EventRef e) const {
    std::vector<std::pair<EventRef, EventRef>> links;
    if (auto launch = launchOf(e)) links.emplace_back(*launch, e);
    for (const EventRef& work : gpuWorkOf(e))
        links.emplace_back(e, work);
    // Kineto writes its launch → kernel flows (ac2g) too: the same arrows once.
    for (const Flow& f : flowsOf(e))
        if (std::find(links.begin(), links.end(), std::make_pair(f.from, f.to)) == links.end())
            links.emplace_back(f.from, f.to);
    return links;
}

std::vector<Flow> Trace::flowsOf(EventRef e) const {
    std::vector<Flow> out;
    for (const Flow& f : m_flows)
        if (f.from == e || f.to == e) out.push_back(f);
    return out;
}

std::size_t Trace::memoryBytes() const {
    std::size_t total = m_strings.bytesUsed() + m_argsArena.bytesReserved() + m_storageBytes;
    for (const Track& t : m_tracks) {
        const EventColumns& c = t.events;
        total += c.start.bytes() + c.duration.bytes() + c.name.bytes() + c.category.bytes() +
                 c.depth.bytes() + c.parent.bytes() + c.flags.bytes() + c.correlation.bytes() +
                 c.args.bytes();
    }
    total += m_launches.bytes() + m_gpuWork.bytes();
    for (const CounterSeries& c : m_counters)
        total += c.time.capacity() * (sizeof(TimeNs) + sizeof(double));
    total += m_flows.capacity() * sizeof(Flow);
    return total;
}

bool forEachEnclosingEvent(const Trace& trace, EventRef event, const std::function<bool(EventRef)>& f) {
    const Track& t = trace.track(event.track);
    const TimeNs start = t.events.start[event.index], end = t.end(event.index);
    // Up the open events; one that overlaps this one only partly is passed over, not called.
    for (std::uint32_t i = t.events.parent[event.index]; i != kNoParent; i = t.events.parent[i]) {
        if (t.events.start[i] > start || t.end(i) < end) continue;
        if (f({event.track, i})) return true;
    }
    return false;
}

std::vector<EventRef> enclosingEvents(const Trace& trace, EventRef event) {
    std::vector<EventRef> out;
    forEachEnclosingEvent(trace, event, [&](EventRef e) {
        out.push_back(e);
        return false;
    });
    return out;
}

std::optional<EventRef> longestEventNamed(const Trace& trace, StringId name, TimeNs from, TimeNs to) {
    std::optional<EventRef> longest;
    TimeNs longestNs = -1;
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const Track& track = trace.tracks()[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (track.events.name[i] != name) continue;
            if (to > from && (track.events.start[i] >= to || track.end(i) <= from)) continue;
            if (track.events.duration[i] > longestNs) {
                longestNs = track.events.duration[i];
                longest = EventRef{TrackId(t), i};
            }
        }
    }
    return longest;
}

std::optional<ProcessId> firstProcessOfRank(const Trace& trace, std::int64_t rank) {
    std::optional<ProcessId> first;
    for (std::uint32_t p = 0; p < trace.processes().size(); ++p) {
        const ProcessInfo& info = trace.processes()[p];
        if (info.rank != rank) continue;
        if (!first || (info.isGpu && !trace.process(*first).isGpu)) first = ProcessId(p);
    }
    return first;
}

} // namespace attnscope
