// SPDX-License-Identifier: MIT
#pragma once

// A verb's options, declared once. Each verb declares its options on a CLI11 app (CLI11, from Debian's
// archive), bound to its own arguments; CLI11 parses them, and the verb's synopsis (`attnscope --help`)
// and its options' help (`attnscope VERB --help`) are written from the same declaration. A usage error
// is said on stderr as "VERB: why" with exit status 2.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace attnscope::cli {

// Exit codes of every command-line verb.
enum Exit { kOk = 0, kFileError = 1, kUsage = 2, kFindings = 3 }; // kFindings: summary --fail-on

// What a verb does with its arguments once they are parsed: its exit status.
using VerbRun = std::function<int()>;

// One command-line verb: `attnscope NAME …`.
struct Verb {
    const char* name;
    const char* purpose; // one line
    const char* notes;   // lines under the options' help, or ""
    // Declares the verb's options on app, bound to arguments of its own, and returns what runs the verb
    // with them (program: argv[0], for the messages that name it).
    std::function<VerbRun(CLI::App& app, const char* program)> declare;
    const char* rest = ""; // what follows the options, read by the verb itself ("-- COMMAND ARGS...")
};

// A value among names, for an option's check: "--format: 'xml' is not one of text, json, csv".
CLI::Validator oneOf(std::initializer_list<const char*> names);
CLI::Validator oneOf(const std::vector<std::string>& names);
// --format NAME, each name with the value it sets in format; the help lists them as the option's type.
template <class Format>
void formatOption(CLI::App& app, Format& format, std::vector<std::pair<std::string, Format>> names,
                  const std::string& help) {
    std::vector<std::string> valid;
    std::string type;
    for (const auto& [name, value] : names) {
        valid.push_back(name);
        type += (type.empty() ? "" : "|") + name;
    }
    app.add_option_function<std::string>(
           "--format",
           [&format, names](const std::string& f) {
               for (const auto& [name, value] : names)
                   if (name == f) format = value;
           },
           help)
        ->type_name(type)
        ->check(oneOf(valid));
}
// A value the model reads (a severity, a backend's name), for an option's check: "'x' is not EXPECTED".
CLI::Validator accepted(std::function<bool(const std::string&)> valid, std::string expected);

// A usage error found by the verb itself once its options are parsed: "VERB: why", then where its options
// are listed (as a parse error says it); returns kUsage.
int usageError(const char* verb, const char* program, const std::string& why);

// The arguments after the verb's name, as its options declare them: "FILE... [--top N] [--ranks]", on
// lines of about a terminal's width (the later ones indented under the first's arguments).
std::string synopsis(const Verb& verb);
// `attnscope VERB --help`: usage, purpose, each option with its help, and the verb's notes.
std::string verbHelp(const Verb& verb, const char* program);

// Parses argv (argv[1] is the verb's name) as the verb declares, then runs it. --help prints the verb's
// help; a usage error is "VERB: why" on stderr and status 2.
int runVerb(const Verb& verb, int argc, char** argv);
// argv[0] is the name the arguments follow (the verb's, or the program's for the window's own options).
int runParsed(const Verb& verb, int argc, char** argv, const char* program);
// The same with arguments made by the program (the window's printed form of what it would show).
int runVerb(const Verb& verb, const char* program, std::vector<std::string> args);

} // namespace attnscope::cli
