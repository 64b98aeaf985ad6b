// SPDX-License-Identifier: MIT
#pragma once

namespace attnscope::cli {

// `attnscope run …`: runs attention on the CPU, a GPU or with PyTorch and prints time per call; -o
// saves the run as a trace.
int runVerb(int argc, char** argv);

} // namespace attnscope::cli
