// SPDX-License-Identifier: MIT
#pragma once

#include <cstdio>
#include <string_view>
#include <vector>

namespace attnscope::cli {

// Exit codes of every command-line verb.
enum Exit { kOk = 0, kFileError = 1, kUsage = 2, kFindings = 3 }; // kFindings: summary --fail-on

// One command-line verb: `attnscope NAME …`. Every verb is in the table; `attnscope --help` lists
// them and `attnscope NAME --help` prints the verb's own help.
struct Verb {
    const char* name;
    const char* synopsis;                  // the arguments after the name
    const char* purpose;                   // one line
    const char* options;                   // one option a line, indented, or ""
    int (*handler)(int argc, char** argv); // argv[1] is the verb's name
};
const std::vector<Verb>& verbs();
const Verb* findVerb(std::string_view name);

// The window: `attnscope [FILE...]`. With no display it prints what the window would show through
// the same code as the verbs (the files' summaries, or the default run's table).
int window(int argc, char** argv);

// Every verb's synopsis (to stderr, after a usage error), or the whole help (to stdout).
void printUsage(const char* program);
void printHelp(const char* program);
void printVerbHelp(const char* program, const Verb& verb, std::FILE* to = stdout);
const char* version();

} // namespace attnscope::cli
