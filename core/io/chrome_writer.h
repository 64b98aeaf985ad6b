// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <functional>
#include <string>

namespace attnscope {

struct WriteOptions {
    std::function<void(double fraction)> progress; // called now and then with the share of events written
    const std::atomic<bool>* cancel = nullptr;     // checked between tracks: then LoadCancelled, no file
};

// Writes the trace as Chrome trace JSON (what Perfetto and chrome://tracing open): processes and
// tracks as M events, slices as X, instants as i, counters as C, flows as s/f pairs, args as they
// were read, timestamps as microseconds with three decimals. Gzipped when the path ends in .gz.
// The file appears whole or not at all.
void writeChromeTrace(const Trace& trace, const std::string& path, const WriteOptions& options = {});

// The same into a string (tests, small traces).
std::string chromeTraceJson(const Trace& trace);

} // namespace attnscope
