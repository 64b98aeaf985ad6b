// SPDX-License-Identifier: MIT
// `attnscope summary` written out: JSON and CSV for programs, text for people.
#include "core/report/findings_format.h"
#include "core/report/format.h"
#include "core/report/summary.h"

#include "core/io/timestamp.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace attnscope {

namespace {

using nlohmann::json;

// One implementation's calls: the post's table, per call.
json implCallsJson(const ImplCalls& a) {
    json verdicts = json::object();
    for (std::size_t v = 0; v < kVerdictCount; ++v)
        if (a.verdictNs[v]) verdicts[std::string(verdictName(Verdict(v)))] = a.verdictNs[v];
    const auto host = a.hostNsPerCall();
    const auto bytes = a.bytesPerCall();
    return {{"impl", a.impl},
            {"calls", a.calls},
            // A call's span (its first kernel's start to its last one's end), apart from its kernels' time.
            {"span_ns_per_call", a.meanNs()},
            {"span_ns", a.totalNs},
            {"kernels_per_call", a.kernelsPerCall()},
            {"expected_kernels_per_call", a.expectedPerCall() ? json(*a.expectedPerCall()) : json(nullptr)},
            {"mismatched_calls", a.mismatchedCalls},
            {"kernel_ns_per_call", a.kernelNsPerCall()},
            {"host_ns_per_call", host ? json(*host) : json(nullptr)},
            {"note", callsNote(a).empty() ? json(nullptr) : json(callsNote(a))},
            // Training: its backward pass's kernel time per call, over the calls the trace holds one of.
            {"backward_calls", a.backwardCalls},
            {"backward_ns_per_call", a.backwardNsPerCall() ? json(*a.backwardNsPerCall()) : json(nullptr)},
            {"bytes_per_call", bytes ? json(*bytes) : json(nullptr)},
            {"kernel_ns_by_verdict", verdicts}};
}

json analysisJson(const TraceSummary& s) {
    json roles = json::array();
    for (const auto& r : s.roles)
        roles.push_back({{"role", r.role}, {"count", r.count}, {"total_ns", r.totalNs}});
    json verdicts = json::array();
    for (const auto& v : s.verdicts)
        verdicts.push_back({{"verdict", v.verdict}, {"count", v.count}, {"total_ns", v.totalNs}});
    json impls = json::array();
    for (const auto& a : s.attention)
        impls.push_back(implCallsJson(a));
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
                // The rates are over the kernels with a cost and a verdict: their count and time say which.
                j["costed_count"] = k.costedCount;
                j["costed_ns"] = k.costedNs;
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
    if (!s.noRoofsNote.empty()) out["no_roofs"] = s.noRoofsNote;
    return out;
}

std::string toCsv(const std::vector<SummaryResult>& results) {
    static constexpr std::size_t kColumns = 22;
    std::ostringstream out;
    out << "file,kind,id,name,count,total_ns,mean_ns,min_ns,max_ns,busy_ns,"
           "flops,bytes,flops_per_s,bytes_per_s,compute_share,memory_share,verdict,precision,"
           "kernels_per_call,kernel_ns_per_call,host_ns_per_call,bytes_per_call\n";
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
        for (const auto& a : s.attention) {
            std::vector<std::string> f = {file,       "attention",  "",           csvField(a.impl),
                                          n(a.calls), n(a.totalNs), n(a.meanNs())};
            f.resize(kColumns);
            f[18] = g(a.kernelsPerCall());
            f[19] = n(a.kernelNsPerCall());
            if (const auto host = a.hostNsPerCall()) f[20] = n(*host);
            if (const auto bytes = a.bytesPerCall()) f[21] = g(*bytes);
            row(f);
        }
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

// The text report of one file, a section at a time in the order it prints.
class TextReport {
public:
    explicit TextReport(std::ostringstream& out) : m_out(out) {}

    void print(const TraceSummary& s) {
        m_out << s.path << "  (" << s.format << ")\n";
        m_out << "  events " << s.events << "   span " << formatDuration(s.spanNs) << "   kernels "
              << s.kernelCount << " (" << formatDuration(s.kernelNs) << ")\n";
        // Before what was read: a truncated trace's figures are of what it kept, and a reader must know
        // that before reading them (it came after the findings).
        for (const auto& w : s.warnings)
            m_out << "  warning: " << w << '\n';
        if (!s.kernelsNote.empty()) m_out << "  " << s.kernelsNote << '\n';
        devices(s);
        kernels(s);
        categories(s);
        shares(s);
        if (s.roofline && !s.roofline->kernels.empty())
            roofline(*s.roofline);
        else if (!s.noRoofsNote.empty())
            m_out << "\n  roofline: none, " << s.noRoofsNote << '\n';
        if (s.analyzed) attention(s);
        m_out << '\n';
    }

private:
    // One formatted line.
    template <class... Args> void line(const char* format, Args... args) {
        char text[512];
        std::snprintf(text, sizeof text, format, args...);
        m_out << text;
    }
    static unsigned long long n(std::uint64_t v) { return static_cast<unsigned long long>(v); }

    void devices(const TraceSummary& s) {
        if (s.devices.empty()) return;
        line("\n  %-8s %-28s %10s %14s %14s\n", "device", "name", "kernels", "kernel time", "busy");
        for (const auto& d : s.devices)
            line("  %-8s %-28s %10llu %14s %14s\n", clip(d.id, 8).c_str(),
                 clip(d.cpu ? "CPU · " + d.name : d.name, 28).c_str(), n(d.kernels),
                 formatDuration(d.kernelNs).c_str(), formatDuration(d.busyNs).c_str());
    }

    void kernels(const TraceSummary& s) {
        if (s.topKernels.empty()) return;
        line("\n  %14s %8s %12s %12s %12s  %s\n", "total", "count", "mean", "min", "max", "kernel");
        for (const auto& k : s.topKernels)
            line("  %14s %8llu %12s %12s %12s  %s\n", formatDuration(k.totalNs).c_str(), n(k.count),
                 formatDuration(k.meanNs()).c_str(), formatDuration(k.minNs).c_str(),
                 formatDuration(k.maxNs).c_str(), clip(k.name, 100).c_str());
    }

    void categories(const TraceSummary& s) {
        if (s.categories.empty()) return;
        line("\n  %14s %8s  %s\n", "total", "count", "category");
        for (const auto& c : s.categories)
            line("  %14s %8llu  %s\n", formatDuration(c.totalNs).c_str(), n(c.count),
                 c.name.empty() ? "(none)" : clip(c.name, 60).c_str());
    }

    // Kernel time per role and per roofline verdict, each as a share of all kernel time.
    void shares(const TraceSummary& s) {
        const auto share = [&](TimeNs t) {
            return s.kernelNs ? 100.0 * double(t) / double(s.kernelNs) : 0.0;
        };
        if (!s.roles.empty()) {
            line("\n  %14s %8s %7s  %s\n", "total", "count", "share", "role");
            for (const auto& role : s.roles)
                line("  %14s %8llu %6.1f%%  %s\n", formatDuration(role.totalNs).c_str(), n(role.count),
                     share(role.totalNs), role.role.c_str());
        }
        if (!s.verdicts.empty()) {
            line("\n  %14s %8s %7s  %s\n", "total", "count", "share", "roofline");
            for (const auto& v : s.verdicts)
                line("  %14s %8llu %6.1f%%  %s\n", formatDuration(v.totalNs).c_str(), n(v.count),
                     share(v.totalNs), v.verdict.c_str());
        }
    }

    void roofline(const RooflineSummary& r) {
        m_out << "\n  roofline: " << r.device << " (" << r.source << "): memory "
              << formatRate(r.bandwidth, "B/s");
        for (const auto& roof : r.roofs)
            m_out << ", " << roof.precision << ' ' << formatRate(roof.flopsPerSec, "FLOP/s");
        m_out << '\n';
        if (r.beyondRoof)
            m_out << "  " << formatCount(r.beyondRoof, "kernel achieved", "kernels achieved")
                  << " more than a roof allows, so no verdict (" << r.beyondRoofReason << ")\n";
        constexpr std::size_t kRows = 20;
        int wide = 8; // the verdict column: as wide as its widest, "memory (24 of 34)"
        for (std::size_t i = 0; i < std::min(kRows, r.kernels.size()); ++i)
            wide = std::max(wide, int(r.kernels[i].verdictOfCosted().size()));
        line("  %14s %8s %14s %12s %8s %8s  %-*s %-15s %s\n", "total", "count", "achieved", "bandwidth",
             "compute", "memory", wide, "verdict", "role", "kernel");
        std::size_t shown = 0;
        for (const auto& k : r.kernels) {
            if (++shown > kRows) break;
            const std::string verdict = k.verdictOfCosted(), role(roleName(k.role));
            if (k.costed)
                line("  %14s %8llu %14s %12s %7.1f%% %7.1f%%  %-*s %-15s %s\n",
                     formatDuration(k.totalNs).c_str(), n(k.count),
                     formatRate(k.flopsPerSec, "FLOP/s").c_str(), formatRate(k.bytesPerSec, "B/s").c_str(),
                     100 * k.computeShare, 100 * k.memoryShare, wide, verdict.c_str(), role.c_str(),
                     clip(k.name, 60).c_str());
            else
                line("  %14s %8llu %14s %12s %8s %8s  %-*s %-15s %s\n", formatDuration(k.totalNs).c_str(),
                     n(k.count), "-", "-", "-", "-", wide, verdict.c_str(), role.c_str(),
                     clip(k.name, 60).c_str());
        }
    }

    void attention(const TraceSummary& s) {
        m_out << "\n  attention calls: " << s.attentionCalls << '\n';
        if (!s.attention.empty())
            line("  %-16s %8s %12s %13s %13s %11s  %s\n", "implementation", "calls", "kernels/call",
                 "kernel/call", "host/call", "bytes/call", "kernel time by verdict");
        for (const auto& a : s.attention) {
            const auto host = a.hostNsPerCall();
            const auto bytes = a.bytesPerCall();
            char perCall[32];
            std::snprintf(perCall, sizeof perCall, "%.1f", a.kernelsPerCall());
            const std::string verdicts = verdictMix(a);
            line("  %-16s %8llu %12s %13s %13s %11s  %s\n", clip(a.impl, 16).c_str(), n(a.calls), perCall,
                 formatDuration(a.kernelNsPerCall()).c_str(), host ? formatDuration(*host).c_str() : "-",
                 bytes ? formatRate(*bytes, "B").c_str() : "-", verdicts.c_str());
        }
        for (const auto& a : s.attention)
            if (const std::string note = callsNote(a); !note.empty()) m_out << "  " << note << '\n';
        // Training: each call's backward pass, its time beside the forward's (no call of its own).
        for (const auto& a : s.attention)
            if (const auto backward = a.backwardNsPerCall())
                m_out << "  " << a.impl << " backward: " << formatDuration(*backward)
                      << " of kernels a call (" << formatCount(a.backwardCalls, "call", "calls")
                      << " with one; forward " << formatDuration(a.kernelNsPerCall()) << ")\n";
        m_out << findingsText(s);
    }

    std::ostringstream& m_out;
};

std::string toText(const std::vector<SummaryResult>& results) {
    std::ostringstream out;
    TextReport report(out);
    for (const SummaryResult& r : results)
        if (r.summary) report.print(*r.summary); // a file that failed was said once, on stderr, by the caller
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
    out << "kernel,role,count,total_ns,mean_ns,min_ns,max_ns,share_percent\n";
    char share[32];
    for (const KernelStats& k : rows) {
        std::snprintf(share, sizeof share, "%.2f",
                      totalKernelNs ? 100.0 * double(k.totalNs) / double(totalKernelNs) : 0.0);
        // The role as the table shows it (a row per name and role), empty for a trace not yet analysed.
        out << csvField(k.name) << ',' << (k.role ? csvField(std::string(roleName(*k.role))) : std::string())
            << ',' << k.count << ',' << k.totalNs << ',' << k.meanNs() << ',' << k.minNs << ',' << k.maxNs
            << ',' << share << '\n';
    }
    return out.str();
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
