// SPDX-License-Identifier: MIT
#include "core/report/findings_format.h"
#include "core/report/format.h"

#include <cstdio>
#include <sstream>

namespace attnscope {

nlohmann::json findingsJson(const std::vector<Finding>& findings) {
    nlohmann::json out = nlohmann::json::array();
    for (const Finding& f : findings) {
        nlohmann::json evidence = nlohmann::json::array();
        for (const Evidence& e : f.evidence) {
            nlohmann::json j{
                {"track", e.track}, {"start_ns", e.startNs}, {"dur_ns", e.durNs}, {"name", e.name}};
            if (!e.note.empty()) j["note"] = e.note;
            evidence.push_back(std::move(j));
        }
        out.push_back({{"id", f.id},
                       {"severity", severityName(f.severity)},
                       {"title", f.title},
                       {"time_ns", f.timeNs},
                       {"share", f.share},
                       {"count", f.count},
                       {"explanation", f.explanation},
                       {"suggestion", f.suggestion},
                       {"evidence", evidence}});
    }
    return out;
}

std::string findingsText(const TraceSummary& s) {
    std::ostringstream out;
    out << "\n  findings: " << (s.findings.empty() ? "none" : std::to_string(s.findings.size())) << '\n';
    char line[256];
    for (const Finding& f : s.findings) {
        std::snprintf(line, sizeof line, "  %-8s %12s %6.1f%% %8llu  ",
                      std::string(severityName(f.severity)).c_str(), formatDuration(f.timeNs).c_str(),
                      100 * f.share, static_cast<unsigned long long>(f.count));
        out << line << f.title << "  [" << f.id << "]\n";
        out << "      " << f.explanation << '\n';
        out << "      try: " << f.suggestion << '\n';
        const std::size_t shown = std::min<std::size_t>(f.evidence.size(), 3);
        for (std::size_t i = 0; i < shown; ++i) {
            const Evidence& e = f.evidence[i];
            out << "      at " << formatDuration(e.startNs - s.startNs) << " on " << e.track << ": "
                << (e.name.size() > 80 ? e.name.substr(0, 77) + "..." : e.name);
            if (!e.note.empty()) out << " (" << e.note << ')';
            out << '\n';
        }
        if (f.count > shown) out << "      … " << formatCount(f.count, "place", "places") << " in all\n";
    }
    return out.str();
}

std::string findingsCsvHeader() {
    return "file,id,severity,title,time_ns,share,count,explanation,suggestion\n";
}

std::string findingsCsvRows(const std::string& file, const std::vector<Finding>& findings) {
    std::ostringstream out;
    for (const Finding& f : findings)
        out << csvField(file) << ',' << f.id << ',' << severityName(f.severity) << ',' << csvField(f.title)
            << ',' << f.timeNs << ',' << f.share << ',' << f.count << ',' << csvField(f.explanation) << ','
            << csvField(f.suggestion) << '\n';
    return out.str();
}

} // namespace attnscope
