// SPDX-License-Identifier: MIT
#pragma once

// A report of traces in one page (`attnscope report`, File → Export Report…): what a reader of a
// performance report wants, from the figures every other view shows — the traces and their devices, the
// at-a-glance table of their attention implementations (`compare`'s), a job's ranks and its straggler
// (`job`'s), each finding with its time at stake, explanation, fix and a picture of its first place, and
// the breakdown and roofline charts, and the people's notes on them. The pictures are drawn by the caller
// (the GUI module); this writes the page around them, as HTML (pictures inline as SVG, or as image files) or
// Markdown (image files beside it).
#include "core/document/document.h"
#include "core/document/notes.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnscope {

struct ReportPicture {
    std::string caption;
    std::string file; // a file the page points to, relative to it (Markdown; HTML without svg)
    std::string svg;  // the picture itself, an <svg> element (HTML)
};

// A person's note on the trace: what it says, by whom, where (describePlace), and a picture of its place.
struct ReportNote {
    Note note;
    std::string where;
    std::optional<ReportPicture> picture;
};

struct ReportTrace {
    std::shared_ptr<const Document> doc; // opened with its summary and analysis
    std::string label;                   // what the page calls it: the file's name
    // Per finding shown (reportFindings of it, in order): a picture of its first place, if one was drawn.
    std::vector<std::optional<ReportPicture>> places;
    std::vector<ReportPicture> charts;      // breakdown, roofline
    std::vector<ReportNote> notes;          // as they were made
    std::vector<std::string> notesProblems; // notes that could not be read, and why (said on the page)
};

struct ReportInput {
    std::vector<ReportTrace> traces;
    std::string made; // "2026-12-07 03:10 by AttnScope 0.9"
};

// The findings of a trace a report shows: the first kReportFindings (most time at stake first).
inline constexpr std::size_t kReportFindings = 8;
std::size_t reportFindings(const Document& doc);

enum class ReportFormat { Html, Markdown };
// A whole page: HTML self-contained but for pictures given as files (no script, font or style sheet from
// elsewhere), Markdown with its pictures as files.
std::string formatReport(const ReportInput& input, ReportFormat format);

// Markdown's tables and paragraphs (what compare and job write) as HTML: a line that starts with '|' is a
// row, the row of dashes under the header is dropped, "<br>" in a cell is kept, everything else escaped.
std::string markdownTablesAsHtml(const std::string& markdown);
std::string htmlEscape(std::string_view text);

} // namespace attnscope
