// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

struct WriteOptions {
    std::function<void(double fraction)> progress; // called now and then with the share of events written
    const std::atomic<bool>* cancel = nullptr;     // checked between tracks: then LoadCancelled, no file
    // Notes (core/document/notes.h): written as the top-level "attnscopeNotes" and each as a global instant
    // of category kNoteCategory at its time (what Perfetto shows), in place of those the trace carried.
    // Empty: the trace's own (TraceInfo::notesJson and its instants) are written as they were read.
    std::string notesJson;
    struct NoteMark {
        TimeNs ns = 0; // absolute, as the trace's events
        std::string text;
    };
    std::vector<NoteMark> noteMarks;
};
inline constexpr std::string_view kNoteCategory = "attnscope_note";

// Writes the trace as Chrome trace JSON (what Perfetto and chrome://tracing open): processes and
// tracks as M events, slices as X, instants as i, counters as C, flows as s/f pairs, args as they
// were read, timestamps as microseconds with three decimals. Gzipped when the path ends in .gz.
// The file appears whole or not at all.
void writeChromeTrace(const Trace& trace, const std::string& path, const WriteOptions& options = {});

// The same into a string (tests, small traces).
std::string chromeTraceJson(const Trace& trace);

} // namespace attnscope
