// SPDX-License-Identifier: MIT
#pragma once

#include "cli_options.h"

#include <string_view>
#include <vector>

namespace attnscope::cli {

// Every verb, in the order `attnscope --help` lists them; each is declared in a file of its own
// (cli_VERB.cpp), its options once (cli_options.h).
const std::vector<Verb>& verbs();
const Verb* findVerb(std::string_view name);
Verb verbSummary();
Verb verbDiff();
Verb verbCompare();
Verb verbConvert();
Verb verbExport();
Verb verbReport();
Verb verbRun();
Verb verbWhatIf();
Verb verbProfile();
Verb verbJob();

// The window: `attnscope [FILE...]`. With no display it prints what the window would show through
// the same code as the verbs (the files' summaries, or the default run's table).
int window(int argc, char** argv);

// Every verb's synopsis (to stderr, after a usage error), or the whole help (to stdout).
void printUsage(const char* program);
void printHelp(const char* program);
const char* version();

// The map step of `attnscope job --map` (resources/job_map.py), carried inside the program.
std::string_view jobMapScript();

} // namespace attnscope::cli
