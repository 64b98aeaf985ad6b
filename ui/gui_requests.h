// SPDX-License-Identifier: MIT
#pragma once

#include "kernels/program_profile.h"
#include "kernels/run_session.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnscope::ui {

// The requests the executable hands the GUI module: plain values, so the module parses no arguments
// of its own.

// What `attnscope export` asks for, drawn by the GUI module.
struct ExportRequest {
    std::string file;                                           // the trace
    std::string out;                                            // .png, .svg or .pdf
    std::string chart;                                          // "" for the timeline, else the chart's name
    std::optional<std::pair<std::int64_t, std::int64_t>> range; // ns from the trace's first event
    int width = 0, height = 0;                                  // 0: the picture's default size
    double scale = 1;                                           // 1 or 2
    std::string tracks;                                         // a regular expression on track labels
    // export --compare: the traces side by side (then file is unused): the chart (breakdown or
    // roofline) or, with table set, the table as Markdown or CSV by out's suffix.
    std::vector<std::string> compare;
    std::size_t baseline = 0;
    bool table = false;
};

// What `attnscope report` asks for: the traces (or, with ranks, the ranks of one job) reported in out
// (.html, .md or .pdf).
struct ReportRequest {
    std::vector<std::string> files;
    bool ranks = false;
    std::string out;
};

// What the window is opened with, parsed by the command line (app/).
struct WindowRequest {
    std::vector<std::string> files; // none: a live run; several: the ranks of one job
    std::string screenshot;         // save a picture of the window once loaded, then quit
    bool compare = false;           // the files side by side in Compare Variants, not as ranks
    bool job = false;               // the files (and folders) are rank records: the Job window
    bool timing = false;            // print the time to the first painted timeline, then quit
    std::optional<kernels::BackendChoice> runBackend; // the live run's (none: the Run panel's)
    // attnscope profile -- COMMAND with a display: the program profiled live (files unused); with
    // screenshot, the picture is taken once it ended and its last steps are on show.
    std::optional<kernels::ProfileConfig> profile;
};

} // namespace attnscope::ui
