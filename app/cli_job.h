// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace attnscope::cli {

// The map step on Dask (resources/job_map.py), carried inside the program.
std::string_view jobMapScript();

// `attnscope job RECORDS... | --from DIR | --map TRACES...`: a job's report from its ranks' records
// (summary --format rank), made by the engine (Dask) with --map.
int jobVerb(int argc, char** argv);

} // namespace attnscope::cli
