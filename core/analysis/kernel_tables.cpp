// SPDX-License-Identifier: MIT
#include "core/analysis/kernel_tables.h"
#include "core/model/sorting.h"

#include "core/analysis/analysis.h"

#include <algorithm>
#include <map>
#include <tuple>
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
    case Verdict::BeyondRoof:
        return "beyond-roof";
    default:
        return "unknown";
    }
}

std::string_view shortVerdictName(Verdict v) {
    if (v == Verdict::BeyondRoof) return "beyond roof";
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

// Every analysed kernel's name and role, verdict (classes); the trace's kernels per name and role
// (roofline), per call implementation and role (roleTimes), per verdict; the calls per implementation.
KernelTableSums tableSums(const Trace& trace, const TraceAnalysis& a) {
    KernelTableSums s;
    auto group = [&](const std::string& impl, bool warmup) -> std::size_t {
        for (std::size_t g = 0; g < s.roleTimes.size(); ++g)
            if (s.roleTimes[g].impl == impl && s.roleTimes[g].warmup == warmup) return g;
        s.roleTimes.push_back({impl, {}, warmup});
        return s.roleTimes.size() - 1;
    };
    std::vector<std::int32_t> callGroup(a.calls.size(), -1); // each call's group, found once
    std::int32_t noCallGroup = -1, warmupGroup = -1;
    for (const KernelAnalysis& k : a.kernels) {
        const Track& t = trace.track(k.event.track);
        const StringId name = t.events.name[k.event.index];
        const TimeNs d = t.events.duration[k.event.index];
        s.roleTime[std::uint64_t(name.value) << 8 | std::uint8_t(k.role)] += d + 1;
        s.verdictTime[std::uint64_t(name.value) << 8 | std::uint8_t(k.verdict)] += d + 1;
        if (!isKernelEvent(trace, trace.track(k.event.track), k.event.index)) continue;
        KernelTableSums::Point& point = s.roofline[std::uint64_t(name.value) << 8 | unsigned(k.role)];
        RooflinePoint& p = point.p;
        p.name = name;
        p.role = k.role;
        ++p.count;
        p.totalNs += d;
        point.verdictNs[std::size_t(k.verdict)] += d + 1;
        // Every kernel with a verdict of its own has rates (a memory-bound copy has bytes and no FLOPs); one
        // beyond its roof is not placed.
        if (k.verdict != Verdict::Unknown && k.verdict != Verdict::BeyondRoof) {
            p.costed = true;
            p.precision = k.precision == Precision::Unknown ? Precision::F32 : k.precision;
            p.flops += k.flops;
            p.bytes += k.bytes;
            p.costedNs += d;
            ++p.costedCount;
            p.onCpu = isCpuTrack(trace, k.event.track);
        }
        std::int32_t& g = k.call >= 0 ? callGroup[std::size_t(k.call)] : k.warmup ? warmupGroup : noCallGroup;
        if (g < 0)
            g = std::int32_t(
                group(k.call >= 0 ? a.calls[std::size_t(k.call)].impl : std::string(), k.warmup));
        RoleTimes& times = s.roleTimes[std::size_t(g)].times;
        times.ns[std::size_t(k.role)] += d;
        ++times.count[std::size_t(k.role)];
        s.verdictNs[std::size_t(k.verdict)] += d;
        ++s.verdictCount[std::size_t(k.verdict)];
    }
    std::vector<std::pair<TimeNs, TimeNs>> intervals;
    for (const AttentionCall& c : a.calls) {
        ImplCalls& st = s.implCalls[c.impl];
        st.impl = c.impl;
        ++st.calls;
        st.totalNs += c.duration();
        st.kernels += c.kernelCount;
        bool costed = !c.kernels.empty();
        double bytes = 0;
        for (std::uint32_t k : c.kernels) {
            const KernelAnalysis& ka = a.kernels[k];
            st.verdictNs[std::size_t(ka.verdict)] +=
                trace.track(ka.event.track).events.duration[ka.event.index];
            costed = costed && ka.cost != CostSource::Unknown;
            bytes += ka.bytes;
        }
        // The time the call's kernels ran: a CPU run's workers' shares, or kernels on several streams, at
        // once counted once (their summed time is the verdicts' and the roles').
        st.kernelNs += kernelsTime(trace, a, c.kernels, intervals);
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
        if (!c.backward.empty()) {
            ++st.backwardCalls;
            st.backwardNs += kernelsTime(trace, a, c.backward, intervals);
        }
        if (const auto host = callHostNs(trace, c)) {
            ++st.hostCalls;
            st.hostNs += *host;
        }
    }
    return s;
}

// The name (or role, or verdict) that holds most time per name: ties go to the smaller value, so the
// result does not depend on the map's order.
template <class Set>
void pickByName(const std::unordered_map<std::uint64_t, TimeNs>& times, std::size_t names, Set&& set,
                bool (*preferred)(std::uint8_t) = nullptr) {
    struct Best {
        bool preferred = false;
        TimeNs time = 0;
        std::uint8_t value = 0;
    };
    std::unordered_map<std::uint32_t, Best> best;
    for (const auto& [key, time] : times) {
        const auto name = std::uint32_t(key >> 8);
        const auto value = std::uint8_t(key & 0xff);
        const bool first = preferred && preferred(value);
        Best& b = best[name];
        if (std::tuple(first, time, -int(value)) > std::tuple(b.preferred, b.time, -int(b.value)))
            b = {first, time, value};
    }
    for (const auto& [name, choice] : best)
        if (name < names) set(name, choice.value);
}

// A name's verdict, as its roofline row's: the placed kernels' (memory, compute, latency) when it has any.
bool placedVerdict(std::uint8_t v) {
    return Verdict(v) == Verdict::MemoryBound || Verdict(v) == Verdict::ComputeBound ||
           Verdict(v) == Verdict::LatencyBound;
}

} // namespace

std::optional<TimeNs> callHostNs(const Trace& trace, const AttentionCall& call) {
    if (call.scope) return trace.track(call.scope->track).events.duration[call.scope->index];
    return call.runRangeNs;
}

TimeNs kernelsTime(const Trace& trace, const TraceAnalysis& analysis,
                   const std::vector<std::uint32_t>& kernels,
                   std::vector<std::pair<TimeNs, TimeNs>>& scratch) {
    scratch.clear();
    for (std::uint32_t k : kernels) {
        const EventRef e = analysis.kernels[k].event;
        const Track& t = trace.track(e.track);
        scratch.emplace_back(t.events.start[e.index], t.end(e.index));
    }
    return unionLength(scratch);
}

void addTableSums(KernelTableSums& into, const KernelTableSums& part,
                  const std::function<StringId(StringId)>& name) {
    std::unordered_map<std::uint32_t, std::uint32_t> moved;
    auto key = [&](std::uint64_t k) {
        const auto id = std::uint32_t(k >> 8);
        auto [it, added] = moved.try_emplace(id, 0u);
        if (added) it->second = name(StringId(id)).value;
        return std::uint64_t(it->second) << 8 | (k & 0xff);
    };
    for (const auto& [k, time] : part.roleTime)
        into.roleTime[key(k)] += time;
    for (const auto& [k, time] : part.verdictTime)
        into.verdictTime[key(k)] += time;
    for (const auto& [k, point] : part.roofline) {
        KernelTableSums::Point& to = into.roofline[key(k)];
        RooflinePoint& p = to.p;
        p.name = StringId(std::uint32_t(key(k) >> 8));
        p.role = point.p.role;
        p.count += point.p.count;
        p.totalNs += point.p.totalNs;
        for (std::size_t v = 0; v < kVerdictCount; ++v)
            to.verdictNs[v] += point.verdictNs[v];
        if (point.p.costed) {
            p.costed = true;
            p.precision = point.p.precision;
            p.flops += point.p.flops;
            p.bytes += point.p.bytes;
            p.costedNs += point.p.costedNs;
            p.costedCount += point.p.costedCount;
            p.onCpu = point.p.onCpu;
        }
    }
    for (const ImplRoleTimes& g : part.roleTimes) {
        auto it = std::find_if(into.roleTimes.begin(), into.roleTimes.end(), [&](const ImplRoleTimes& have) {
            return have.impl == g.impl && have.warmup == g.warmup;
        });
        if (it == into.roleTimes.end())
            it = into.roleTimes.insert(into.roleTimes.end(), {g.impl, {}, g.warmup});
        it->times.add(g.times);
    }
    for (const auto& [impl, c] : part.implCalls) {
        ImplCalls& st = into.implCalls[impl];
        st.impl = impl;
        st.calls += c.calls;
        st.totalNs += c.totalNs;
        st.kernels += c.kernels;
        st.kernelNs += c.kernelNs;
        st.hostCalls += c.hostCalls;
        st.hostNs += c.hostNs;
        st.costedCalls += c.costedCalls;
        st.costedBytes += c.costedBytes;
        for (std::size_t v = 0; v < kVerdictCount; ++v)
            st.verdictNs[v] += c.verdictNs[v];
        st.shapedCalls += c.shapedCalls;
        st.expectedKernels += c.expectedKernels;
        st.mismatchedCalls += c.mismatchedCalls;
        st.unexpectedKernels += c.unexpectedKernels;
        st.unexpectedNs += c.unexpectedNs;
        st.backwardCalls += c.backwardCalls;
        st.backwardNs += c.backwardNs;
    }
    for (std::size_t v = 0; v < kVerdictCount; ++v) {
        into.verdictNs[v] += part.verdictNs[v];
        into.verdictCount[v] += part.verdictCount[v];
    }
}

KernelTables tablesFromSums(std::shared_ptr<const KernelTableSums> sums, const Trace& trace,
                            const TraceAnalysis& a) {
    const KernelTableSums& s = *sums;
    KernelTables tables;
    const std::size_t names = trace.strings().size();
    NameClasses& classes = tables.classes;
    classes.role.assign(names, std::nullopt);
    classes.verdict.assign(names, Verdict::Unknown);
    classes.severalRoles.assign(names, false);
    pickByName(s.roleTime, names,
               [&](std::uint32_t name, std::uint8_t v) { classes.role[name] = KernelRole(v); });
    for (const auto& [key, time] : s.roleTime)
        if (const auto name = std::uint32_t(key >> 8);
            name < names && classes.role[name] != KernelRole(key & 0xff))
            classes.severalRoles[name] = true;
    pickByName(
        s.verdictTime, names, [&](std::uint32_t name, std::uint8_t v) { classes.verdict[name] = Verdict(v); },
        placedVerdict);
    for (const auto& [key, point] : s.roofline) {
        RooflinePoint p = point.p;
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
        // The verdict the rates are of: the costed kernels' most common (by time) where there are any, so
        // that a row's rates never sit beside "unknown"; else the row's most common.
        auto most = [&](std::size_t from, std::size_t to) {
            return Verdict(std::max_element(point.verdictNs.begin() + from, point.verdictNs.begin() + to) -
                           point.verdictNs.begin());
        };
        const std::size_t firstPlaced = std::size_t(Verdict::Unknown) + 1;
        p.verdict = p.costed ? most(firstPlaced, std::size_t(Verdict::BeyondRoof)) : most(0, kVerdictCount);
        tables.roofline.push_back(p);
    }
    std::sort(tables.roofline.begin(), tables.roofline.end(),
              [&](const RooflinePoint& x, const RooflinePoint& y) {
                  if (x.totalNs != y.totalNs) return x.totalNs > y.totalNs;
                  if (x.name != y.name) return trace.str(x.name) < trace.str(y.name);
                  return roleName(x.role) < roleName(y.role);
              });
    tables.roleTimes = s.roleTimes;
    for (const auto& [impl, st] : s.implCalls)
        tables.implCalls.push_back(st);
    std::stable_sort(tables.implCalls.begin(), tables.implCalls.end(),
                     [](const ImplCalls& x, const ImplCalls& y) { return x.calls > y.calls; });
    tables.verdictNs = s.verdictNs;
    tables.verdictCount = s.verdictCount;
    tables.sums = std::move(sums);
    return tables;
}

KernelTables kernelTables(const Trace& trace, const TraceAnalysis& a) {
    return tablesFromSums(std::make_shared<const KernelTableSums>(tableSums(trace, a)), trace, a);
}

} // namespace attnscope
