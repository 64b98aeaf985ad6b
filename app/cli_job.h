// SPDX-License-Identifier: MIT
#pragma once

namespace attnscope::cli {

// `attnscope job RECORDS... | --from DIR`: a job's report from its ranks' records (summary --format rank).
int jobVerb(int argc, char** argv);

} // namespace attnscope::cli
