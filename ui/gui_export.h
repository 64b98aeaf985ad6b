// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace attnscope::ui {

// What `attnscope export` asks for, parsed by the command line (app/) and drawn by the GUI module:
// plain values, so the module parses no arguments of its own.
struct ExportRequest {
    std::string file;                                           // the trace
    std::string out;                                            // .png, .svg or .pdf
    std::string chart;                                          // "" for the timeline, else the chart's name
    std::optional<std::pair<std::int64_t, std::int64_t>> range; // ns from the trace's first event
    int width = 0, height = 0;                                  // 0: the picture's default size
    double scale = 1;                                           // 1 or 2
    std::string tracks;                                         // a regular expression on track labels
};

} // namespace attnscope::ui
