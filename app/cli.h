// SPDX-License-Identifier: MIT
#pragma once

namespace attnscope::cli {

// Exit codes of every command-line verb.
enum Exit { kOk = 0, kFileError = 1, kUsage = 2 };

// The headless verbs; they never touch the display or the GUI.
int summary(int argc, char** argv);
int convert(int argc, char** argv);
int run(int argc, char** argv);
int diff(int argc, char** argv);
void printUsage(const char* program);
const char* version();

} // namespace attnscope::cli
