// SPDX-License-Identifier: MIT
#include "core/analysis/kernel_tables.h"

#include "core/analysis/analysis.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace attnscope {

std::string_view costSourceLabel(CostSource s) {
    switch (s) {
    case CostSource::Exact:
        return "exact";
    case CostSource::Inferred:
        return "inferred from shapes";
    default:
        return "unknown";
    }
}

std::string_view verdictName(Verdict v) {
    switch (v) {
    case Verdict::MemoryBound:
        return "memory-bound";
    case Verdict::ComputeBound:
        return "compute-bound";
    case Verdict::LatencyBound:
        return "latency-bound";
    default:
        return "unknown";
    }
}

std::string_view shortVerdictName(Verdict v) {
    const std::string_view name = verdictName(v);
    return name.substr(0, name.find('-'));
}

TimeNs RoleTimes::total() const {
    TimeNs sum = 0;
    for (TimeNs t : ns)
        sum += t;
    return sum;
}

void RoleTimes::add(const RoleTimes& other) {
    for (std::size_t r = 0; r < ns.size(); ++r) {
        ns[r] += other.ns[r];
        count[r] += other.count[r];
    }
}

RoleTimes KernelTables::allRoleTimes() const {
    RoleTimes all;
    for (const ImplRoleTimes& group : roleTimes)
        all.add(group.times);
    return all;
}

namespace {

NameClasses classesByName(const Trace& trace, const TraceAnalysis& analysis) {
    const std::size_t names = trace.strings().size();
    NameClasses out;
    out.role.assign(names, std::nullopt);
    out.verdict.assign(names, Verdict::Unknown);
    out.severalRoles.assign(names, false);
    // (name << 8 | value) → time; +1 so that zero-length kernels still count.
    std::unordered_map<std::uint64_t, TimeNs> roleTime, verdictTime;
    for (const KernelAnalysis& k : analysis.kernels) {
        const Track& t = trace.track(k.event.track);
        const std::uint64_t name = t.events.name[k.event.index].value;
        const TimeNs d = t.events.duration[k.event.index] + 1;
        roleTime[name << 8 | std::uint8_t(k.role)] += d;
        verdictTime[name << 8 | std::uint8_t(k.verdict)] += d;
    }
    auto pick = [&](const std::unordered_map<std::uint64_t, TimeNs>& times, auto&& set) {
        std::unordered_map<std::uint32_t, std::pair<TimeNs, std::uint8_t>> best;
        for (const auto& [key, time] : times) {
            const auto name = std::uint32_t(key >> 8);
            auto& [bestTime, value] = best[name];
            // Ties go to the smaller value, so the result does not depend on the map's order.
            if (time > bestTime || (time == bestTime && std::uint8_t(key & 0xff) < value)) {
                bestTime = time;
                value = std::uint8_t(key & 0xff);
            }
        }
        for (const auto& [name, choice] : best)
            if (name < names) set(name, choice.second);
    };
    pick(roleTime, [&](std::uint32_t name, std::uint8_t v) { out.role[name] = KernelRole(v); });
    for (const auto& [key, time] : roleTime)
        if (const auto name = std::uint32_t(key >> 8);
            name < names && out.role[name] != KernelRole(key & 0xff))
            out.severalRoles[name] = true;
    pick(verdictTime, [&](std::uint32_t name, std::uint8_t v) { out.verdict[name] = Verdict(v); });
    return out;
}

// Per kernel name and role, over the trace's kernels (see RooflinePoint).
std::vector<RooflinePoint> rooflineOf(const Trace& trace, const TraceAnalysis& a) {
    struct Acc {
        RooflinePoint p;
        std::array<TimeNs, kVerdictCount> verdictNs{};
    };
    std::map<std::uint64_t, Acc> byName; // by name id << 8 | role
    for (const KernelAnalysis& k : a.kernels) {
        const Track& t = trace.track(k.event.track);
        if (!isKernelEvent(trace, t, k.event.index)) continue;
        const StringId name = t.events.name[k.event.index];
        const TimeNs d = t.events.duration[k.event.index];
        Acc& acc = byName[std::uint64_t(name.value) << 8 | unsigned(k.role)];
        RooflinePoint& p = acc.p;
        p.name = name;
        p.role = k.role;
        ++p.count;
        p.totalNs += d;
        acc.verdictNs[std::size_t(k.verdict)] += d + 1; // zero-length ones count
        if (k.verdict == Verdict::Unknown || k.flopsPerSec <= 0 || k.computeShare <= 0) continue;
        p.costed = true;
        p.precision = k.precision == Precision::Unknown ? Precision::F32 : k.precision;
        p.flops += k.flops;
        p.bytes += k.bytes;
        p.costedNs += d;
        p.onCpu = isCpuTrack(trace, k.event.track);
    }
    std::vector<RooflinePoint> out;
    for (auto& [key, acc] : byName) {
        RooflinePoint& p = acc.p;
        const std::optional<DeviceSpec>& roofs = p.onCpu ? a.cpuShare : a.device;
        if (p.costed && p.costedNs > 0) {
            const double seconds = double(p.costedNs) * 1e-9;
            p.flopsPerSec = p.flops / seconds;
            p.bytesPerSec = p.bytes / seconds;
            const double peak = roofs ? roofs->peak(p.precision) : 0;
            p.computeShare = peak > 0 ? p.flopsPerSec / peak : 0;
            p.memoryShare = roofs && roofs->bandwidth > 0 ? p.bytesPerSec / roofs->bandwidth : 0;
        } else {
            p.costed = false;
        }
        p.verdict =
            Verdict(std::max_element(acc.verdictNs.begin(), acc.verdictNs.end()) - acc.verdictNs.begin());
        out.push_back(p);
    }
    std::sort(out.begin(), out.end(), [&](const RooflinePoint& x, const RooflinePoint& y) {
        if (x.totalNs != y.totalNs) return x.totalNs > y.totalNs;
        if (x.name != y.name) return trace.str(x.name) < trace.str(y.name);
        return roleName(x.role) < roleName(y.role);
    });
    return out;
}

std::vector<ImplCalls> implCallsOf(const Trace& trace, const TraceAnalysis& a) {
    std::map<std::string, ImplCalls> byImpl;
    for (const AttentionCall& c : a.calls) {
        ImplCalls& st = byImpl[c.impl];
        st.impl = c.impl;
        ++st.calls;
        st.totalNs += c.duration();
        st.kernels += c.kernelCount;
        bool costed = !c.kernels.empty();
        double bytes = 0;
        for (std::uint32_t k : c.kernels) {
            const KernelAnalysis& ka = a.kernels[k];
            const TimeNs d = trace.track(ka.event.track).events.duration[ka.event.index];
            st.kernelNs += d;
            st.verdictNs[std::size_t(ka.verdict)] += d;
            costed = costed && ka.cost != CostSource::Unknown;
            bytes += ka.bytes;
        }
        if (costed) {
            ++st.costedCalls;
            st.costedBytes += bytes;
        }
        if (!c.shapeKey.empty()) {
            ++st.shapedCalls;
            st.expectedKernels += c.expectedKernels;
            st.mismatchedCalls += !c.matchesShape();
            st.unexpectedKernels += c.unexpected.size();
            for (std::uint32_t k : c.kernels)
                if (a.kernels[k].unexpected) {
                    const EventRef e = a.kernels[k].event;
                    st.unexpectedNs += trace.track(e.track).events.duration[e.index];
                }
        }
        if (c.scope) {
            ++st.hostCalls;
            st.hostNs += trace.track(c.scope->track).events.duration[c.scope->index];
        }
    }
    std::vector<ImplCalls> out;
    for (auto& [name, st] : byImpl)
        out.push_back(st);
    std::stable_sort(out.begin(), out.end(),
                     [](const ImplCalls& x, const ImplCalls& y) { return x.calls > y.calls; });
    return out;
}

} // namespace

KernelTables kernelTables(const Trace& trace, const TraceAnalysis& a) {
    KernelTables tables;
    tables.classes = classesByName(trace, a);
    tables.roofline = rooflineOf(trace, a);
    auto group = [&](const std::string& impl) -> RoleTimes& {
        for (ImplRoleTimes& g : tables.roleTimes)
            if (g.impl == impl) return g.times;
        tables.roleTimes.push_back({impl, {}});
        return tables.roleTimes.back().times;
    };
    for (const KernelAnalysis& k : a.kernels) {
        const Track& t = trace.track(k.event.track);
        if (!isKernelEvent(trace, t, k.event.index)) continue;
        const TimeNs d = t.events.duration[k.event.index];
        RoleTimes& times = group(k.call >= 0 ? a.calls[std::size_t(k.call)].impl : std::string());
        times.ns[std::size_t(k.role)] += d;
        ++times.count[std::size_t(k.role)];
        tables.verdictNs[std::size_t(k.verdict)] += d;
        ++tables.verdictCount[std::size_t(k.verdict)];
    }
    tables.implCalls = implCallsOf(trace, a);
    return tables;
}

} // namespace attnscope
