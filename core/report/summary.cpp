// SPDX-License-Identifier: MIT
#include "core/report/summary.h"
#include "core/report/format.h"

#include "core/report/findings_format.h"

#include "core/analysis/analysis.h"

#include "core/io/timestamp.h"
#include "core/model/timeline_index.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <sstream>
#include <unordered_map>

namespace attnscope {

TimeNs unionLength(std::vector<std::pair<TimeNs, TimeNs>>& intervals) {
    std::sort(intervals.begin(), intervals.end());
    TimeNs total = 0;
    bool open = false;
    TimeNs curStart = 0, curEnd = 0;
    for (const auto& [s, e] : intervals) {
        if (!open || s > curEnd) {
            if (open) total += curEnd - curStart;
            curStart = s;
            curEnd = e;
            open = true;
        } else {
            curEnd = std::max(curEnd, e);
        }
    }
    if (open) total += curEnd - curStart;
    return total;
}

namespace {

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
        std::sort(out.begin(), out.end(), [](const KernelStats& a, const KernelStats& b) {
            return a.totalNs != b.totalNs ? a.totalNs > b.totalNs
                   : a.name != b.name     ? a.name < b.name
                                          : a.role < b.role;
        });
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
    TraceSummary s;
    const TraceInfo& info = trace.info();
    s.path = info.path;
    s.format = info.format;
    s.events = info.eventsRead;
    s.startNs = trace.startNs();
    s.spanNs = saturatingSub(trace.endNs(), trace.startNs());
    s.warnings = info.warnings;
    if (info.opKernels)
        s.kernelsNote = "no GPU kernels: the " + std::to_string(info.opKernels) +
                        " aten:: ops that did the work (their time mostly their own, not their inner ops') "
                        "are its kernels";

    KernelAccumulator kernels;
    std::unordered_map<std::uint32_t, CategoryStats> categories; // by category id
    struct DeviceAccumulator {
        DeviceSummary summary;
        std::vector<std::pair<TimeNs, TimeNs>> intervals;
    };
    std::map<std::uint32_t, DeviceAccumulator> devices; // by process

    for (std::uint32_t ti = 0; ti < trace.tracks().size(); ++ti) {
        const Track& track = trace.tracks()[ti];
        const EventColumns& c = track.events;
        for (std::size_t i = 0; i < track.size(); ++i) {
            if (c.flags[i] & kInstant) continue;
            const TimeNs dur = c.duration[i];
            CategoryStats& cs = categories[c.category[i].value];
            ++cs.count;
            cs.totalNs += dur;
            if (!isKernelEvent(trace, track, i)) continue;
            kernels.add(c.name[i], dur);
            DeviceAccumulator& d = devices[track.process.value];
            ++d.summary.kernels;
            d.summary.kernelNs += dur;
            d.intervals.emplace_back(c.start[i], c.start[i] + dur);
        }
    }

    s.topKernels = kernels.sorted(trace);
    for (const KernelStats& k : s.topKernels) {
        s.kernelCount += k.count;
        s.kernelNs += k.totalNs;
    }
    if (topN && s.topKernels.size() > topN) s.topKernels.resize(topN);

    for (auto& [catId, c] : categories) {
        c.name = std::string(trace.str(StringId(catId)));
        s.categories.push_back(std::move(c));
    }
    std::sort(s.categories.begin(), s.categories.end(), [](const CategoryStats& a, const CategoryStats& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });

    for (auto& [processId, d] : devices) {
        const ProcessInfo& p = trace.process(ProcessId(processId));
        d.summary.id = std::string(trace.str(p.key));
        d.summary.name = p.name;
        d.summary.cpu = isCpuProcess(p);
        if (!p.deviceModel.empty() && !d.summary.cpu) d.summary.name = p.deviceModel;
        d.summary.busyNs = unionLength(d.intervals);
        d.summary.label = deviceLabel(d.summary);
        s.devices.push_back(std::move(d.summary));
    }
    std::sort(s.devices.begin(), s.devices.end(), [](const DeviceSummary& a, const DeviceSummary& b) {
        if (a.id.size() != b.id.size()) return a.id.size() < b.id.size(); // numeric order for numeric ids
        return a.id < b.id;
    });
    return s;
}

namespace {

using nlohmann::json;

json analysisJson(const TraceSummary& s) {
    json roles = json::array();
    for (const auto& r : s.roles)
        roles.push_back({{"role", r.role}, {"count", r.count}, {"total_ns", r.totalNs}});
    json verdicts = json::array();
    for (const auto& v : s.verdicts)
        verdicts.push_back({{"verdict", v.verdict}, {"count", v.count}, {"total_ns", v.totalNs}});
    json impls = json::array();
    for (const auto& a : s.attention)
        impls.push_back(
            {{"impl", a.impl}, {"calls", a.calls}, {"mean_ns", a.meanNs()}, {"total_ns", a.totalNs}});
    json out{{"roles", roles},
             {"verdicts", verdicts},
             {"attention", {{"calls", s.attentionCalls}, {"implementations", impls}}}};
    if (s.roofline) {
        const RooflineSummary& r = *s.roofline;
        json roofs = json::array();
        for (const auto& roof : r.roofs)
            roofs.push_back(
                {{"precision", roof.precision}, {"flops_per_s", roof.flopsPerSec}, {"source", r.source}});
        json kernels = json::array();
        for (const auto& k : r.kernels) {
            json j{{"name", k.name},   {"role", roleName(k.role)}, {"precision", k.precisionText()},
                   {"count", k.count}, {"total_ns", k.totalNs},    {"verdict", k.verdictText()}};
            if (k.costed) {
                j["flops"] = k.flops;
                j["bytes"] = k.bytes;
                j["flops_per_s"] = k.flopsPerSec;
                j["bytes_per_s"] = k.bytesPerSec;
                j["compute_share"] = k.computeShare;
                j["memory_share"] = k.memoryShare;
            }
            kernels.push_back(std::move(j));
        }
        out["roofline"] = {{"device", r.device},
                           {"roofs", roofs},
                           {"bandwidth_bytes_per_s", r.bandwidth},
                           {"beyond_roof", r.beyondRoof},
                           {"beyond_roof_reason", r.beyondRoofReason},
                           {"kernels", kernels}};
    }
    return out;
}

json toJson(const SummaryResult& r) {
    if (!r.summary) return json{{"path", r.path}, {"error", r.error}};
    const TraceSummary& s = *r.summary;
    json devices = json::array();
    for (const auto& d : s.devices)
        devices.push_back({{"id", d.id},
                           {"name", d.name},
                           {"kind", d.cpu ? "cpu" : "gpu"},
                           {"kernels", d.kernels},
                           {"kernel_ns", d.kernelNs},
                           {"busy_ns", d.busyNs}});
    json top = json::array();
    for (const auto& k : s.topKernels)
        top.push_back({{"name", k.name},
                       {"count", k.count},
                       {"total_ns", k.totalNs},
                       {"mean_ns", k.meanNs()},
                       {"min_ns", k.minNs},
                       {"max_ns", k.maxNs}});
    json cats = json::array();
    for (const auto& c : s.categories)
        cats.push_back({{"name", c.name}, {"count", c.count}, {"total_ns", c.totalNs}});
    json out{{"path", s.path},
             {"format", s.format},
             {"events", s.events},
             {"span_ns", s.spanNs},
             {"kernels", {{"count", s.kernelCount}, {"total_ns", s.kernelNs}}},
             {"devices", devices},
             {"top_kernels", top},
             {"categories", cats}};
    if (s.analyzed) {
        out.update(analysisJson(s));
        out["findings"] = findingsJson(s.findings);
    }
    if (!s.kernelsNote.empty()) out["kernels_note"] = s.kernelsNote;
    out["warnings"] = s.warnings;
    return out;
}

std::string toCsv(const std::vector<SummaryResult>& results) {
    static constexpr std::size_t kColumns = 18;
    std::ostringstream out;
    out << "file,kind,id,name,count,total_ns,mean_ns,min_ns,max_ns,busy_ns,"
           "flops,bytes,flops_per_s,bytes_per_s,compute_share,memory_share,verdict,precision\n";
    // A row of fields already quoted where they need it, the columns it lacks left empty.
    auto row = [&](std::vector<std::string> fields) {
        fields.resize(kColumns);
        for (std::size_t i = 0; i < kColumns; ++i)
            out << (i ? "," : "") << fields[i];
        out << '\n';
    };
    auto n = [](auto v) { return std::to_string(v); };
    auto g = [](double v) {
        std::ostringstream text;
        text << v;
        return text.str();
    };
    for (const SummaryResult& r : results) {
        const std::string file = csvField(r.path);
        if (!r.summary) {
            row({file, "error", "", csvField(r.error)});
            continue;
        }
        const TraceSummary& s = *r.summary;
        row({file, "trace", "", csvField(s.format), n(s.events), n(s.spanNs)});
        row({file, "kernels", "", "", n(s.kernelCount), n(s.kernelNs)});
        for (const auto& d : s.devices)
            row({file, "device", csvField(d.id), csvField(d.name), n(d.kernels), n(d.kernelNs), "", "", "",
                 n(d.busyNs)});
        for (const auto& k : s.topKernels)
            row({file, "kernel", "", csvField(k.name), n(k.count), n(k.totalNs), n(k.meanNs()), n(k.minNs),
                 n(k.maxNs)});
        for (const auto& c : s.categories)
            row({file, "category", "", csvField(c.name), n(c.count), n(c.totalNs)});
        for (const auto& role : s.roles)
            row({file, "role", "", role.role, n(role.count), n(role.totalNs)});
        for (const auto& v : s.verdicts)
            row({file, "verdict", "", v.verdict, n(v.count), n(v.totalNs)});
        if (s.analyzed) row({file, "attention_calls", "", "", n(s.attentionCalls)});
        for (const auto& a : s.attention)
            row({file, "attention", "", csvField(a.impl), n(a.calls), n(a.totalNs), n(a.meanNs())});
        if (s.roofline)
            for (const auto& k : s.roofline->kernels) {
                std::vector<std::string> f = {
                    file, "roofline", csvField(roleName(k.role)), csvField(k.name), n(k.count), n(k.totalNs)};
                f.resize(10);
                if (k.costed)
                    for (double v :
                         {k.flops, k.bytes, k.flopsPerSec, k.bytesPerSec, k.computeShare, k.memoryShare})
                        f.push_back(g(v));
                f.resize(16);
                f.emplace_back(k.verdictText());
                f.emplace_back(k.precisionText());
                row(std::move(f));
            }
        for (const auto& f : s.findings) {
            std::vector<std::string> fields = {file,       "finding",  f.id, csvField(f.title),
                                               n(f.count), n(f.timeNs)};
            fields.resize(16);
            fields.push_back(std::string(severityName(f.severity)));
            row(std::move(fields));
        }
    }
    return out.str();
}

// Long kernel names are cut for the terminal; JSON and CSV keep them whole.
std::string clip(std::string_view s, std::size_t width) {
    if (s.size() <= width) return std::string(s);
    return std::string(s.substr(0, width - 3)) + "...";
}

// Long on purpose: the text report in the order it prints.
std::string toText(const std::vector<SummaryResult>& results) {
    std::ostringstream out;
    char line[512];
    for (const SummaryResult& r : results) {
        if (!r.summary) continue; // said once, on stderr, by the caller that failed to open it
        const TraceSummary& s = *r.summary;
        out << s.path << "  (" << s.format << ")\n";
        out << "  events " << s.events << "   span " << formatDuration(s.spanNs) << "   kernels "
            << s.kernelCount << " (" << formatDuration(s.kernelNs) << ")\n";
        if (!s.kernelsNote.empty()) out << "  " << s.kernelsNote << '\n';
        if (!s.devices.empty()) {
            std::snprintf(line, sizeof line, "\n  %-8s %-28s %10s %14s %14s\n", "device", "name", "kernels",
                          "kernel time", "busy");
            out << line;
            for (const auto& d : s.devices) {
                std::snprintf(line, sizeof line, "  %-8s %-28s %10llu %14s %14s\n", clip(d.id, 8).c_str(),
                              clip(d.cpu ? "CPU · " + d.name : d.name, 28).c_str(),
                              static_cast<unsigned long long>(d.kernels), formatDuration(d.kernelNs).c_str(),
                              formatDuration(d.busyNs).c_str());
                out << line;
            }
        }
        if (!s.topKernels.empty()) {
            std::snprintf(line, sizeof line, "\n  %14s %8s %12s %12s %12s  %s\n", "total", "count", "mean",
                          "min", "max", "kernel");
            out << line;
            for (const auto& k : s.topKernels) {
                std::snprintf(line, sizeof line, "  %14s %8llu %12s %12s %12s  %s\n",
                              formatDuration(k.totalNs).c_str(), static_cast<unsigned long long>(k.count),
                              formatDuration(k.meanNs()).c_str(), formatDuration(k.minNs).c_str(),
                              formatDuration(k.maxNs).c_str(), clip(k.name, 100).c_str());
                out << line;
            }
        }
        if (!s.categories.empty()) {
            std::snprintf(line, sizeof line, "\n  %14s %8s  %s\n", "total", "count", "category");
            out << line;
            for (const auto& c : s.categories) {
                std::snprintf(line, sizeof line, "  %14s %8llu  %s\n", formatDuration(c.totalNs).c_str(),
                              static_cast<unsigned long long>(c.count),
                              c.name.empty() ? "(none)" : clip(c.name, 60).c_str());
                out << line;
            }
        }
        if (!s.roles.empty()) {
            std::snprintf(line, sizeof line, "\n  %14s %8s %7s  %s\n", "total", "count", "share", "role");
            out << line;
            for (const auto& role : s.roles) {
                std::snprintf(
                    line, sizeof line, "  %14s %8llu %6.1f%%  %s\n", formatDuration(role.totalNs).c_str(),
                    static_cast<unsigned long long>(role.count),
                    s.kernelNs ? 100.0 * double(role.totalNs) / double(s.kernelNs) : 0.0, role.role.c_str());
                out << line;
            }
        }
        if (!s.verdicts.empty()) {
            std::snprintf(line, sizeof line, "\n  %14s %8s %7s  %s\n", "total", "count", "share", "roofline");
            out << line;
            for (const auto& v : s.verdicts) {
                std::snprintf(line, sizeof line, "  %14s %8llu %6.1f%%  %s\n",
                              formatDuration(v.totalNs).c_str(), static_cast<unsigned long long>(v.count),
                              s.kernelNs ? 100.0 * double(v.totalNs) / double(s.kernelNs) : 0.0,
                              v.verdict.c_str());
                out << line;
            }
        }
        if (s.roofline && !s.roofline->kernels.empty()) {
            const RooflineSummary& r = *s.roofline;
            out << "\n  roofline: " << r.device << " (" << r.source << "): memory "
                << formatRate(r.bandwidth, "B/s");
            for (const auto& roof : r.roofs)
                out << ", " << roof.precision << ' ' << formatRate(roof.flopsPerSec, "FLOP/s");
            out << '\n';
            if (r.beyondRoof)
                out << "  " << formatCount(r.beyondRoof, "kernel achieved", "kernels achieved")
                    << " more than a roof allows, so no verdict (" << r.beyondRoofReason << ")\n";
            std::snprintf(line, sizeof line, "  %14s %8s %14s %12s %8s %8s  %-8s %-15s %s\n", "total",
                          "count", "achieved", "bandwidth", "compute", "memory", "verdict", "role", "kernel");
            out << line;
            std::size_t shown = 0;
            for (const auto& k : r.kernels) {
                if (++shown > 20) break;
                if (k.costed)
                    std::snprintf(
                        line, sizeof line, "  %14s %8llu %14s %12s %7.1f%% %7.1f%%  %-8s %-15s %s\n",
                        formatDuration(k.totalNs).c_str(), static_cast<unsigned long long>(k.count),
                        formatRate(k.flopsPerSec, "FLOP/s").c_str(), formatRate(k.bytesPerSec, "B/s").c_str(),
                        100 * k.computeShare, 100 * k.memoryShare, std::string(k.verdictText()).c_str(),
                        std::string(roleName(k.role)).c_str(), clip(k.name, 60).c_str());
                else
                    std::snprintf(line, sizeof line, "  %14s %8llu %14s %12s %8s %8s  %-8s %-15s %s\n",
                                  formatDuration(k.totalNs).c_str(), static_cast<unsigned long long>(k.count),
                                  "-", "-", "-", "-", std::string(k.verdictText()).c_str(),
                                  std::string(roleName(k.role)).c_str(), clip(k.name, 60).c_str());
                out << line;
            }
        }
        if (s.analyzed) {
            out << "\n  attention calls: " << s.attentionCalls << '\n';
            for (const auto& a : s.attention) {
                std::snprintf(line, sizeof line, "  %14s mean  %8llu calls  %s\n",
                              formatDuration(a.meanNs()).c_str(), static_cast<unsigned long long>(a.calls),
                              a.impl.c_str());
                out << line;
            }
            out << findingsText(s);
        }
        for (const auto& w : s.warnings)
            out << "  warning: " << w << '\n';
        out << '\n';
    }
    return out.str();
}

} // namespace

std::string csvField(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

std::string formatKernelCsv(const std::vector<KernelStats>& rows, TimeNs totalKernelNs) {
    std::ostringstream out;
    out << "kernel,count,total_ns,mean_ns,min_ns,max_ns,share_percent\n";
    char share[32];
    for (const KernelStats& k : rows) {
        std::snprintf(share, sizeof share, "%.2f",
                      totalKernelNs ? 100.0 * double(k.totalNs) / double(totalKernelNs) : 0.0);
        out << csvField(k.name) << ',' << k.count << ',' << k.totalNs << ',' << k.meanNs() << ',' << k.minNs
            << ',' << k.maxNs << ',' << share << '\n';
    }
    return out.str();
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
    r.beyondRoof = a.beyondRoof;
    if (r.beyondRoof) r.beyondRoofReason = beyondRoofReason(*spec);
    r.bandwidth = spec->bandwidth;
    for (Precision p : {Precision::F32, Precision::TF32, Precision::F16, Precision::BF16, Precision::F8}) {
        const double peak = spec->peak(p);
        if (peak > 0) r.roofs.push_back({std::string(precisionName(p)), peak});
    }
    for (const RooflinePoint& p : a.tables.roofline) {
        RooflineKernel k{p};
        k.name = std::string(trace.str(p.name));
        r.kernels.push_back(std::move(k));
    }
    return r;
}

} // namespace

void addAnalysis(TraceSummary& s, const Trace& trace, const TraceAnalysis& a) {
    s.analyzed = true;
    s.kernelsByRole = kernelStatsByRole(trace, a); // on the analysis' thread, not the window's
    const RoleTimes roles = a.tables.allRoleTimes();
    s.verdicts.clear();
    for (Verdict v : {Verdict::MemoryBound, Verdict::ComputeBound, Verdict::LatencyBound, Verdict::Unknown})
        if (const std::uint64_t count = a.tables.verdictCount[std::size_t(v)])
            s.verdicts.push_back({std::string(verdictName(v)), count, a.tables.verdictNs[std::size_t(v)]});
    s.roles.clear();
    for (std::size_t i = 0; i < roles.count.size(); ++i)
        if (roles.count[i])
            s.roles.push_back({std::string(roleName(KernelRole(i))), roles.count[i], roles.ns[i]});
    std::map<std::string, AttentionImplStats> impls;
    for (const AttentionCall& c : a.calls) {
        AttentionImplStats& st = impls[c.impl];
        st.impl = c.impl;
        ++st.calls;
        st.totalNs += c.duration();
    }
    s.attentionCalls = a.calls.size();
    s.attention.clear();
    for (auto& [name, st] : impls)
        s.attention.push_back(st);
    std::sort(s.attention.begin(), s.attention.end(), [](const auto& x, const auto& y) {
        return x.calls != y.calls ? x.calls > y.calls : x.impl < y.impl;
    });
    s.roofline = rooflineOf(trace, a);
}

std::string formatSummaries(const std::vector<SummaryResult>& results, SummaryFormat format) {
    switch (format) {
    case SummaryFormat::Json: {
        json files = json::array();
        for (const auto& r : results)
            files.push_back(toJson(r));
        return json{{"files", files}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
    case SummaryFormat::Csv:
        return toCsv(results);
    case SummaryFormat::Text:
        break;
    }
    return toText(results);
}

std::string formatFindings(const std::vector<SummaryResult>& results, SummaryFormat format) {
    std::string out;
    switch (format) {
    case SummaryFormat::Json: {
        json files = json::array();
        for (const auto& r : results)
            files.push_back(r.summary
                                ? json{{"path", r.path}, {"findings", findingsJson(r.summary->findings)}}
                                : json{{"path", r.path}, {"error", r.error}});
        return json{{"files", files}}.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }
    case SummaryFormat::Csv:
        out = findingsCsvHeader();
        for (const auto& r : results)
            if (r.summary) out += findingsCsvRows(r.path, r.summary->findings);
        return out;
    case SummaryFormat::Text:
        break;
    }
    for (const auto& r : results) {
        if (!r.summary) continue; // said once, on stderr, by the caller that failed to open it
        out += r.path + findingsText(*r.summary).substr(1) + "\n";
    }
    return out;
}

} // namespace attnscope
