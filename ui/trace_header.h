// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/summary.h"

#include <QString>

namespace attnscope::ui {

// The line or two above the timeline: the trace's name and format, events, span, kernels and their
// time, each device with its kernels and busy time, then the load's warnings.
QString traceHeaderText(const QString& name, const TraceSummary& summary);

// A trace file's name without its trace suffixes (.json, .gz, .sqlite, PyTorch's .pt.trace), for the
// names AttnScope suggests when saving what it shows: "rank0.pt.trace.json.gz" -> "rank0".
QString traceBaseName(const QString& fileName);

// What the file dialogs that open traces offer: every reader's suffixes (traceReaders), then all files.
QString traceFileFilter();

} // namespace attnscope::ui
