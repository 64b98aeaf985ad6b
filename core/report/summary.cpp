// SPDX-License-Identifier: MIT
#include "core/report/summary.h"
#include "core/report/format.h"

#include "core/analysis/analysis.h"

#include "core/io/timestamp.h"
#include "core/model/sorting.h"
#include "core/model/timeline_index.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

namespace attnscope {

namespace {

using Interval = std::pair<TimeNs, TimeNs>;

// By total time, then name, then role.
void sortByTotal(std::vector<KernelStats>& rows) {
    std::sort(rows.begin(), rows.end(), [](const KernelStats& a, const KernelStats& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs
               : a.name != b.name     ? a.name < b.name
                                      : a.role < b.role;
    });
}

// The same kernels' statistics from another part: counts and times added, the extremes kept.
void addStats(KernelStats& into, const KernelStats& k) {
    if (into.count == 0) {
        into = k;
        return;
    }
    into.count += k.count;
    into.totalNs += k.totalNs;
    into.wholeNs += k.wholeNs;
    into.minNs = std::min(into.minNs, k.minNs);
    into.maxNs = std::max(into.maxNs, k.maxNs);
}

// Kernel statistics by name, as events are met.
class KernelAccumulator {
public:
    // dur: the whole kernel; counted: the part of it that counts towards the total (inside a range).
    void add(StringId name, TimeNs dur, TimeNs counted, std::optional<KernelRole> role = std::nullopt) {
        KernelStats& k = m_byName[std::uint64_t(name.value) << 8 | (role ? 1 + unsigned(*role) : 0u)];
        if (k.count == 0) {
            k.nameId = name;
            k.role = role;
            k.minNs = k.maxNs = dur;
        } else {
            k.minNs = std::min(k.minNs, dur);
            k.maxNs = std::max(k.maxNs, dur);
        }
        ++k.count;
        k.totalNs += counted;
        k.wholeNs += dur;
    }
    void add(StringId name, TimeNs dur) { add(name, dur, dur); }
    // By total time, then name.
    std::vector<KernelStats> sorted(const Trace& trace) {
        std::vector<KernelStats> out;
        out.reserve(m_byName.size());
        for (auto& [nameId, k] : m_byName) {
            k.name = std::string(trace.str(k.nameId));
            out.push_back(std::move(k));
        }
        sortByTotal(out);
        return out;
    }

private:
    std::unordered_map<std::uint64_t, KernelStats> m_byName; // by name id << 8 | 1 + role (0: none)
};

} // namespace

namespace {

// Kineto's GPUs are keyed by their index ("0"), named as the timeline names them; a CPU is never
// called a GPU; other devices' keys name themselves ("GPU 0", "r1:0").
std::string deviceLabel(const DeviceSummary& d) {
    const bool index = !d.id.empty() && d.id.size() <= 18 &&
                       std::all_of(d.id.begin(), d.id.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (d.cpu) return "CPU \u00b7 " + (d.name.empty() ? std::string("process") : d.name) + " (" + d.id + ")";
    if (!index && d.id.rfind("GPU ", 0) != 0) return d.name.empty() ? d.id : d.name + " (" + d.id + ")";
    const std::string gpu = index ? gpuName(std::stoll(d.id)) : d.id;
    return d.name.empty() || d.name == gpu ? gpu : gpu + " \u00b7 " + d.name;
}

} // namespace

TraceSummary summarize(const Trace& trace, std::size_t topN) {
    SummaryParts one;
    one.add(trace);
    return one.summary(trace, topN);
}

void SummaryParts::add(const Trace& part, const TraceAnalysis* analysis) {
    KernelAccumulator kernels;
    std::unordered_map<std::uint32_t, CategoryStats> categories; // by category id
    std::map<std::uint32_t, std::vector<Interval>> intervals;    // by process
    for (std::uint32_t ti = 0; ti < part.tracks().size(); ++ti) {
        const Track& track = part.tracks()[ti];
        const EventColumns& c = track.events;
        for (std::size_t i = 0; i < track.size(); ++i) {
            if (c.flags[i] & kInstant) continue;
            const TimeNs dur = c.duration[i];
            CategoryStats& cs = categories[c.category[i].value];
            ++cs.count;
            cs.totalNs += dur;
            if (!isKernelEvent(part, track, i)) continue;
            kernels.add(c.name[i], dur);
            intervals[track.process.value].emplace_back(c.start[i], c.start[i] + dur);
        }
    }
    for (const KernelStats& k : kernels.sorted(part))
        addStats(m_kernels[k.name], k);
    for (const auto& [id, c] : categories) {
        CategoryStats& into = m_categories[std::string(part.str(StringId(id)))];
        into.count += c.count;
        into.totalNs += c.totalNs;
    }
    for (auto& [process, added] : intervals) {
        Device& d = m_devices[std::string(part.str(part.process(ProcessId(process)).key))];
        d.kernels += added.size();
        std::vector<Interval> runs;
        forEachUnionRun(added, [&runs](TimeNs s, TimeNs e) { runs.emplace_back(s, e); });
        for (const auto& [s, e] : added)
            d.kernelNs += e - s;
        // The device's runs that end where the part's first starts or later may meet the part's: taken
        // out and merged again with them (the runs of a part that follows the ones before: none).
        const auto from = std::lower_bound(d.busy.begin(), d.busy.end(), runs.front().first,
                                           [](const Interval& r, TimeNs t) { return r.second < t; });
        std::vector<Interval> both(from, d.busy.end());
        for (auto it = from; it != d.busy.end(); ++it)
            d.busyNs -= it->second - it->first;
        d.busy.erase(from, d.busy.end());
        both.insert(both.end(), runs.begin(), runs.end());
        forEachUnionRun(both, [&d](TimeNs s, TimeNs e) {
            d.busy.emplace_back(s, e);
            d.busyNs += e - s;
        });
    }
    if (!analysis) {
        m_analysed = false;
        return;
    }
    for (const KernelStats& k : kernelStatsByRole(part, *analysis))
        addStats(m_byRole[{k.name, k.role ? int(*k.role) : -1}], k);
}

TraceSummary SummaryParts::summary(const Trace& whole, std::size_t topN) const {
    TraceSummary s;
    const TraceInfo& info = whole.info();
    s.path = info.path;
    s.format = info.format;
    s.events = info.eventsRead;
    s.startNs = whole.startNs();
    s.spanNs = saturatingSub(whole.endNs(), whole.startNs());
    s.warnings = info.warnings;
    if (info.opKernels)
        s.kernelsNote = "no GPU kernels: the " + std::to_string(info.opKernels) +
                        " aten:: ops that did the work (their time mostly their own, not their inner ops') "
                        "are its kernels";

    for (const auto& [name, k] : m_kernels) {
        s.topKernels.push_back(k);
        s.topKernels.back().nameId = whole.strings().find(name);
        s.kernelCount += k.count;
        s.kernelNs += k.totalNs;
    }
    sortByTotal(s.topKernels);
    if (topN && s.topKernels.size() > topN) s.topKernels.resize(topN);

    for (const auto& [name, c] : m_categories) {
        s.categories.push_back(c);
        s.categories.back().name = name;
    }
    std::sort(s.categories.begin(), s.categories.end(), [](const CategoryStats& a, const CategoryStats& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });

    for (const ProcessInfo& p : whole.processes()) {
        const std::string key(whole.str(p.key));
        const auto d = m_devices.find(key);
        if (d == m_devices.end() || std::any_of(s.devices.begin(), s.devices.end(),
                                                [&](const DeviceSummary& x) { return x.id == key; }))
            continue;
        DeviceSummary& out = s.devices.emplace_back();
        out.id = key;
        out.name = p.name;
        out.cpu = isCpuProcess(p);
        if (!p.deviceModel.empty() && !out.cpu) out.name = p.deviceModel;
        out.kernels = d->second.kernels;
        out.kernelNs = d->second.kernelNs;
        out.busyNs = d->second.busyNs;
        out.label = deviceLabel(out);
    }
    std::sort(s.devices.begin(), s.devices.end(), [](const DeviceSummary& a, const DeviceSummary& b) {
        if (a.id.size() != b.id.size()) return a.id.size() < b.id.size(); // numeric order for numeric ids
        return a.id < b.id;
    });
    return s;
}

std::optional<std::vector<KernelStats>> SummaryParts::kernelsByRole(const Trace& whole) const {
    if (!m_analysed) return std::nullopt;
    std::vector<KernelStats> rows;
    rows.reserve(m_byRole.size());
    for (const auto& [key, k] : m_byRole) {
        rows.push_back(k);
        rows.back().nameId = whole.strings().find(key.first);
    }
    sortByTotal(rows);
    return rows;
}

std::vector<KernelStats> kernelStatsInRange(const Trace& trace, const TimelineIndex& index, TimeNs from,
                                            TimeNs to, const TraceAnalysis* analysis) {
    KernelAccumulator kernels;
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const TrackId track(t);
        const EventColumns& c = trace.track(track).events;
        // Per lane only the events that overlap the range: a cost that follows the range, not the trace.
        for (std::uint16_t depth = 0; depth < index.laneCount(track); ++depth) {
            const TimelineIndex::Lane lane = index.lane(track, depth);
            for (std::size_t k = lane.firstEndingAfter(from); k < lane.size() && lane.start(k) < to; ++k) {
                const std::uint32_t i = lane[k];
                if (c.flags[i] & kInstant) continue;
                const TimeNs s = std::max(lane.start(k), from), e = std::min(lane.end(k), to);
                if (e <= s || !isKernelEvent(trace, trace.track(track), i)) continue;
                const KernelAnalysis* ka = analysis ? analysis->find({track, i}) : nullptr;
                kernels.add(c.name[i], c.duration[i], e - s, ka ? std::optional(ka->role) : std::nullopt);
            }
        }
    }
    return kernels.sorted(trace);
}

std::vector<KernelStats> kernelStatsByRole(const Trace& trace, const TraceAnalysis& analysis) {
    KernelAccumulator kernels;
    for (const KernelAnalysis& k : analysis.kernels) {
        const Track& t = trace.track(k.event.track);
        if (!isKernelEvent(trace, t, k.event.index)) continue;
        const TimeNs d = t.events.duration[k.event.index];
        kernels.add(t.events.name[k.event.index], d, d, k.role);
    }
    return kernels.sorted(trace);
}

namespace {

// The analysis' roofline table with the roofs' figures, as `summary` prints it.
std::optional<RooflineSummary> rooflineOf(const Trace& trace, const TraceAnalysis& a) {
    const std::optional<DeviceSpec>& spec = a.device ? a.device : a.cpuShare;
    if (!spec) return std::nullopt;
    RooflineSummary r;
    r.device = spec->name;
    r.source = spec->source;
    r.beyondRoof = a.beyondRoof();
    if (r.beyondRoof) r.beyondRoofReason = beyondRoofReason(*spec);
    r.bandwidth = spec->bandwidth;
    for (Precision p : {Precision::F32, Precision::TF32, Precision::F16, Precision::BF16, Precision::F8}) {
        const double peak = spec->peak(p);
        if (peak > 0) r.roofs.push_back({std::string(precisionName(p)), peak});
    }
    for (const RooflinePoint& p : a.tables.roofline) {
        r.kernels.push_back({p, std::string(trace.str(p.name))});
    }
    return r;
}

} // namespace

void addAnalysis(TraceSummary& s, const Trace& trace, const TraceAnalysis& a,
                 std::optional<std::vector<KernelStats>> kernelsByRole) {
    s.analyzed = true;
    // On the analysis' thread, not the window's.
    s.kernelsByRole = kernelsByRole ? std::move(*kernelsByRole) : kernelStatsByRole(trace, a);
    const RoleTimes roles = a.tables.allRoleTimes();
    s.verdicts.clear();
    for (Verdict v : kVerdictsShown)
        if (const std::uint64_t count = a.tables.verdictCount[std::size_t(v)])
            s.verdicts.push_back({std::string(verdictName(v)), count, a.tables.verdictNs[std::size_t(v)]});
    s.roles.clear();
    for (std::size_t i = 0; i < roles.count.size(); ++i)
        if (roles.count[i])
            s.roles.push_back({std::string(roleName(KernelRole(i))), roles.count[i], roles.ns[i]});
    s.attentionCalls = a.calls.size();
    s.attention = a.tables.implCalls;
    s.roofline = rooflineOf(trace, a);
    s.noRoofsNote = s.roofline ? std::string() : !a.cpuNote.empty() ? a.cpuNote : a.deviceNote;
}

std::string callsNote(const ImplCalls& impl) {
    if (impl.impl != kCompiledImpl || !impl.calls) return {};
    return "compiled: Inductor's fused softmax between each call's two GEMMs is not recorded on a CPU, so "
           "its kernel time per call is the GEMMs' (" +
           formatDuration(impl.kernelNsPerCall()) +
           "); from the first GEMM's start to the second's end a call took " + formatDuration(impl.meanNs()) +
           ".";
}

std::string verdictMix(const ImplCalls& impl) {
    std::string out;
    TimeNs all = 0; // the kernels' summed time, as the verdicts' is
    for (TimeNs ns : impl.verdictNs)
        all += ns;
    all = all ? all : 1;
    for (Verdict v : kVerdictsShown)
        if (const TimeNs ns = impl.verdictNs[std::size_t(v)])
            // A verdict with time but under a twentieth of a percent is there, not "0.0%".
            out += (out.empty() ? "" : ", ") + std::string(shortVerdictName(v)) + " " +
                   (double(ns) / double(all) < 0.0005 ? std::string("<0.1%")
                                                      : formatPercent(double(ns) / double(all)));
    return out;
}

} // namespace attnscope
