// SPDX-License-Identifier: MIT
#pragma once

namespace attnscope::cli {

// `attnscope profile [options] -- COMMAND ARGS...`: the program run with PyTorch's profiler on from
// outside; its steps saved per process (-o), or shown live in the window.
int profileVerb(int argc, char** argv);

} // namespace attnscope::cli
