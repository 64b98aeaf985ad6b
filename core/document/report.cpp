// SPDX-License-Identifier: MIT
#include "core/document/report.h"

#include "core/report/compare.h"
#include "core/report/format.h"
#include "core/report/job_report.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <utility>

namespace attnscope {

std::string htmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string markdownTablesAsHtml(const std::string& markdown) {
    std::istringstream in(markdown);
    std::string out, line;
    bool inTable = false, header = false;
    auto cells = [](const std::string& row) {
        std::vector<std::string> out;
        std::string cell;
        for (std::size_t i = 1; i < row.size(); ++i) { // past the first '|'
            if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
                cell += '|';
                ++i;
            } else if (row[i] == '|') {
                out.push_back(cell);
                cell.clear();
            } else {
                cell += row[i];
            }
        }
        for (std::string& c : out) { // trimmed
            c.erase(0, c.find_first_not_of(' '));
            c.erase(c.find_last_not_of(' ') + 1);
        }
        return out;
    };
    auto keepBreaks = [](std::string escaped) {
        for (std::size_t at; (at = escaped.find("&lt;br&gt;")) != std::string::npos;)
            escaped.replace(at, 10, "<br>");
        return escaped;
    };
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '|') {
            const std::vector<std::string> row = cells(line);
            const bool dashes = std::all_of(row.begin(), row.end(), [](const std::string& c) {
                return !c.empty() && c.find_first_not_of("-: ") == std::string::npos;
            });
            if (dashes) continue;
            if (!inTable) out += "<table>\n", inTable = header = true;
            out += "<tr>";
            for (const std::string& c : row)
                out += (header ? "<th>" : "<td>") + keepBreaks(htmlEscape(c)) + (header ? "</th>" : "</td>");
            out += "</tr>\n";
            header = false;
            continue;
        }
        if (inTable) out += "</table>\n", inTable = false;
        if (line.find_first_not_of(' ') == std::string::npos) continue;
        if (line.rfind("#", 0) == 0) { // a heading: "## Job" is <h2>
            const std::size_t level = std::min<std::size_t>(line.find_first_not_of('#'), 6);
            const std::size_t text = line.find_first_not_of("# ");
            out += "<h" + std::to_string(level) + ">" +
                   htmlEscape(text == std::string::npos ? "" : line.substr(text)) + "</h" +
                   std::to_string(level) + ">\n";
            continue;
        }
        out += "<p>" + keepBreaks(htmlEscape(line)) + "</p>\n";
    }
    if (inTable) out += "</table>\n";
    return out;
}

std::size_t reportFindings(const Document& doc) {
    return doc.findings ? std::min(doc.findings->size(), kReportFindings) : 0;
}

namespace {

// What the page is written with: the same sections in either format.
class Page {
public:
    explicit Page(ReportFormat format) : m_html(format == ReportFormat::Html) {}

    // The next block starts a page when printed (the PDF, a browser's print): a finding, a note or a chart
    // with its picture is not cut from its heading, nor a heading left at the foot of a page.
    void breakPage() { m_break = m_html; }
    // What the next block's opening tag carries: the page break asked for.
    std::string breakBefore() {
        const bool b = std::exchange(m_break, false);
        return b ? " style=\"page-break-before: always\"" : "";
    }
    void heading(int level, const std::string& text, const std::string& anchor = {}) {
        if (m_html)
            m_out << "<h" << level << breakBefore() << (anchor.empty() ? "" : " id=\"" + anchor + "\"") << ">"
                  << htmlEscape(text) << "</h" << level << ">\n";
        else
            m_out << std::string(std::size_t(level), '#') << ' ' << md(text) << "\n\n";
    }
    void paragraph(const std::string& text, const char* htmlClass = nullptr) {
        if (m_html)
            m_out << "<p" << breakBefore() << (htmlClass ? std::string(" class=\"") + htmlClass + "\"" : "")
                  << ">" << htmlEscape(text) << "</p>\n";
        else
            m_out << md(text) << "\n\n";
    }
    // Text for Markdown: a '<' of a template or of a person's note is not taken for an HTML tag.
    static std::string md(const std::string& text) {
        std::string out;
        for (const char c : text)
            out += c == '<' ? std::string("&lt;") : std::string(1, c);
        return out;
    }
    // Label and text: "**Fix.** …".
    void labelled(const std::string& label, const std::string& text) {
        if (m_html)
            m_out << "<p" << breakBefore() << "><b>" << htmlEscape(label) << "</b> " << htmlEscape(text)
                  << "</p>\n";
        else
            m_out << "**" << md(label) << "** " << md(text) << "\n\n";
    }
    // A table from Markdown (compare's, job's).
    void markdown(const std::string& md) {
        if (m_html)
            m_out << "<div class=\"wide\">\n" << markdownTablesAsHtml(md) << "</div>\n";
        else
            m_out << md << (md.empty() || md.back() == '\n' ? "\n" : "\n\n");
    }
    void rows(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
        std::string md = "|";
        for (const std::string& h : header)
            md += " " + h + " |";
        md += "\n|";
        for (std::size_t i = 0; i < header.size(); ++i)
            md += " --- |";
        md += "\n";
        for (const auto& row : rows) {
            md += "|";
            for (const std::string& c : row) {
                std::string cell = c;
                for (std::size_t at = 0; (at = cell.find('|', at)) != std::string::npos; at += 2)
                    cell.replace(at, 1, "\\|");
                md += " " + cell + " |";
            }
            md += "\n";
        }
        markdown(md);
    }
    void picture(const ReportPicture& p) {
        if (m_html) {
            m_out << "<figure" << breakBefore() << ">\n"
                  << (p.svg.empty()
                          ? "<img src=\"" + htmlEscape(p.file) + "\" alt=\"" + htmlEscape(p.caption) + "\">"
                          : p.svg)
                  << "\n<figcaption>" << htmlEscape(p.caption) << "</figcaption>\n</figure>\n";
        } else {
            m_out << "![" << md(p.caption) << "](" << p.file << ")\n\n*" << md(p.caption) << "*\n\n";
        }
    }
    std::string text(const std::string& title) const {
        if (!m_html) return m_out.str();
        // Self-contained: its style here, the system's fonts, nothing fetched.
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
               htmlEscape(title) +
               "</title>\n<style>\n"
               "body { font-family: sans-serif; max-width: 1280px; margin: 2em auto; padding: 0 1em; color: "
               "#222; }\n"
               "h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }\n"
               "table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }\n"
               "th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }\n"
               "th { background: #f2f2f2; }\n"
               ".wide { overflow-x: auto; } .wide table { font-size: 0.8em; }\n"
               "figure { margin: 1em 0; } figure svg, figure img { max-width: 100%; height: auto; "
               "border: 1px solid #ddd; }\n"
               "figcaption { font-size: 0.85em; color: #555; }\n"
               ".made { color: #666; font-size: 0.9em; }\n"
               ".critical { color: #b00020; } .warning { color: #a05a00; } .info { color: #345; }\n"
               "@media print { figure { page-break-inside: avoid; } }\n"
               "</style>\n</head>\n<body>\n" +
               m_out.str() + "</body>\n</html>\n";
    }
    bool html() const { return m_html; }
    std::ostringstream& raw() { return m_out; }

private:
    bool m_html;
    bool m_break = false;
    std::ostringstream m_out;
};

std::string devicesOf(const TraceSummary& s) {
    std::string out;
    for (const DeviceSummary& d : s.devices)
        out += (out.empty() ? "" : "; ") + d.label;
    return out.empty() ? "-" : out;
}

} // namespace

std::string formatReport(const ReportInput& input, ReportFormat format) {
    Page page(format);
    std::string names;
    for (const ReportTrace& t : input.traces)
        names += (names.empty() ? "" : ", ") + t.label;
    const std::string title = "AttnScope report: " + names;
    page.heading(1, title);
    std::size_t files = 0;
    for (const ReportTrace& t : input.traces)
        files += t.doc->job ? t.doc->job->records.size() : 1;
    page.paragraph(
        "Made " + input.made + " from " + formatCount(files, "trace file", "trace files") +
            (input.traces.size() == 1 && input.traces[0].doc->job ? ", the ranks of one job." : "."),
        "made");

    // The traces and their devices.
    page.heading(2, "Traces", "traces");
    std::vector<std::vector<std::string>> rows;
    for (const ReportTrace& t : input.traces) {
        const TraceSummary& s = *t.doc->summary;
        rows.push_back({t.label, devicesOf(s), std::to_string(s.events), formatDuration(s.spanNs),
                        std::to_string(s.kernelCount), formatDuration(s.kernelNs),
                        std::to_string(t.doc->findings ? t.doc->findings->size() : 0)});
    }
    page.rows({"trace", "devices", "events", "span", "kernels", "kernel time", "findings"}, rows);
    for (const ReportTrace& t : input.traces)
        for (const std::string& w : t.doc->summary->warnings)
            page.paragraph("⚠ " + t.label + " was read in part: " + w);

    // The at-a-glance table of their attention implementations, as compare prints it.
    page.heading(2, "Attention at a glance", "at-a-glance");
    Comparison c;
    for (const ReportTrace& t : input.traces)
        c.traces.push_back(compareEntry(*t.doc, t.label));
    learnFromComparison(c);
    page.markdown(formatComparison(c, CompareFormat::Markdown));

    // A job's ranks, their spread and its straggler, as `job` says them (under a heading of its own).
    for (const ReportTrace& t : input.traces)
        if (t.doc->job) page.markdown(formatJobReport(*t.doc->job, JobFormat::Markdown));

    // Each finding: its time at stake, explanation, fix and its first place.
    for (std::size_t ti = 0; ti < input.traces.size(); ++ti) {
        const ReportTrace& t = input.traces[ti];
        const std::vector<Finding>& findings = t.doc->findings ? *t.doc->findings : std::vector<Finding>{};
        page.breakPage();
        page.heading(2, "Findings: " + t.label, "findings-" + std::to_string(ti + 1));
        if (!t.doc->findingsNote.empty()) page.paragraph(t.doc->findingsNote);
        if (findings.empty()) page.paragraph("Nothing found: no rule's threshold was crossed.");
        const std::size_t shown = reportFindings(*t.doc);
        if (findings.size() > shown)
            page.paragraph("The " + std::to_string(shown) + " with most time at stake of " +
                           std::to_string(findings.size()) +
                           " (attnscope summary --findings-only lists all).");
        for (std::size_t i = 0; i < shown; ++i) {
            const Finding& f = findings[i];
            const std::string severity(severityName(f.severity));
            if (i > 0) page.breakPage(); // each finding with its picture on a page of its own
            if (page.html())
                page.raw() << "<h3" << page.breakBefore() << "><span class=\"" << severity << "\">"
                           << severity << "</span> " << htmlEscape(f.title) << "</h3>\n";
            else
                page.heading(3, severity + ": " + f.title);
            page.labelled("Time at stake:", formatDuration(f.timeNs) + " (" + formatShare(f.share) +
                                                " of the span), " + formatCount(f.count, "place", "places") +
                                                " [" + f.id + "]");
            if (!f.explanation.empty()) page.labelled("Why:", f.explanation);
            if (!f.suggestion.empty()) page.labelled("Fix:", f.suggestion);
            if (i < t.places.size() && t.places[i]) page.picture(*t.places[i]);
        }
    }

    // What people noted, each with its place.
    for (std::size_t ti = 0; ti < input.traces.size(); ++ti) {
        const ReportTrace& t = input.traces[ti];
        if (t.notes.empty() && t.notesProblems.empty()) continue;
        page.breakPage();
        page.heading(2, "Notes: " + t.label, "notes-" + std::to_string(ti + 1));
        for (const std::string& p : t.notesProblems) // what the reader of the page is not shown, and why
            page.paragraph("⚠ " + (p.empty() ? p : char(std::toupper((unsigned char)p[0])) + p.substr(1)));
        for (std::size_t i = 0; i < t.notes.size(); ++i) {
            const ReportNote& n = t.notes[i];
            if (i > 0 && n.picture) page.breakPage();
            page.labelled((n.note.bookmark ? "Bookmark, " : "") +
                              (n.note.author.empty() ? "someone" : n.note.author) +
                              (n.note.editor.empty() ? "" : ", edited by " + n.note.editor) + " (" +
                              noteTime(n.note.edited) + "), " + n.where + ":",
                          n.note.text);
            if (n.picture) page.picture(*n.picture);
        }
    }

    // The charts.
    for (const ReportTrace& t : input.traces) {
        if (t.charts.empty()) continue;
        page.breakPage();
        page.heading(2, "Charts: " + t.label);
        for (std::size_t i = 0; i < t.charts.size(); ++i) {
            if (i > 0) page.breakPage();
            page.picture(t.charts[i]);
        }
    }
    return page.text(title);
}

} // namespace attnscope
