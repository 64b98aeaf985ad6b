// SPDX-License-Identifier: MIT
#pragma once

// A report of traces in one step (`attnscope report`, File → Export Report…): the page core writes
// (core/document/report.h) with its pictures drawn here — a timeline picture of each finding's first
// place and each trace's breakdown and roofline charts — as SVG inside the HTML, PNG files in a folder
// beside a Markdown file, and a PDF laid out from the same page.
#include "core/document/document.h"
#include "core/document/notes.h"

#include <QString>

#include <functional>
#include <memory>
#include <vector>

namespace attnscope::ui {

struct ReportDocument {
    std::shared_ptr<const Document> doc;    // what it lacks (the timeline's index, the summary) is computed
    QString label;                          // the trace's name on the page
    std::vector<Note> notes;                // what people noted in it
    std::vector<std::string> notesProblems; // what of its notes could not be read (notesOfTrace's)
};

// "html", "md" or "pdf" by the path's suffix, else "".
QString reportFormatOf(const QString& path);
// The folder a Markdown report's pictures go in: "report.md" → "report_files".
QString reportPicturesFolder(const QString& path);

// Writes the report; progress(done, total) after each picture, false from it cancels (nothing is left
// half-written: the page is written to a temporary file and renamed). "" when written, else why not;
// missing: why a picture could not be drawn (the page is written without it).
QString exportReport(const std::vector<ReportDocument>& docs, const QString& path,
                     const std::function<bool(int, int)>& progress = {}, QString* missing = nullptr);

} // namespace attnscope::ui
