// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/summary.h"
#include "core/model/timeline_index.h"
#include "core/model/trace.h"

#include <QByteArray>

#include <memory>
#include <string>

namespace attnscope::ui {

class JobControl;

// A loaded trace with what the views need, all made on the worker thread.
struct LoadedTrace {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const TimelineIndex> index;
    TraceSummary summary;    // all kernels
    double loadSeconds = 0;  // reading the file
    double totalSeconds = 0; // and indexing it
};

// Reads a trace — the file at path, or the bytes given when path is empty (the embedded sample),
// named name in messages — and builds its timeline index and summary, reporting progress to the job
// and stopping when it is cancelled (LoadCancelled). A job's work: it runs on a worker thread.
std::shared_ptr<const LoadedTrace> loadForViews(const std::string& path, const QByteArray& bytes,
                                                const std::string& name, JobControl& control);

} // namespace attnscope::ui
