// SPDX-License-Identifier: MIT
#pragma once

// The findings in the summary's three formats (summary.cpp prints them in its reports, and alone for
// --findings-only). Inside core/report only.
#include "core/report/summary.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attnscope {

// The "findings" array: [{"id","severity","title","time_ns","share","count","explanation",
// "suggestion","evidence":[{"track","start_ns","dur_ns","name","note"}]}]; count is how many places,
// of which evidence lists the first.
nlohmann::json findingsJson(const std::vector<Finding>& findings);
// The text section: a line per finding, then its explanation, suggestion and first places.
std::string findingsText(const TraceSummary& s);
// CSV rows of the findings-only table (file,id,severity,title,time_ns,share,count,explanation,
// suggestion), and its header.
std::string findingsCsvHeader();
std::string findingsCsvRows(const std::string& file, const std::vector<Finding>& findings);

} // namespace attnscope
