// SPDX-License-Identifier: MIT
#pragma once

// What the verbs that open traces share: their common options, declared once, and a document as opened.
#include "cli_options.h"

#include "core/document/document.h"
#include "core/report/summary.h"

#include <memory>

namespace attnscope::cli {

// --cpu-roofs auto|this-machine|none, into options.cpuRoofs ("as summary's" for the verbs after it).
void cpuRoofsOption(CLI::App& app, DocumentOptions& options, bool explained = false);
// --format text|json|csv for the verbs that print a summary's tables.
void summaryFormatOption(CLI::App& app, SummaryFormat& format, const std::string& help);

// The document as opened, and on stderr that this machine's CPU was measured for it (once: then cached).
std::shared_ptr<const Document> opened(std::shared_ptr<const Document> doc);

} // namespace attnscope::cli
