// SPDX-License-Identifier: MIT
#include "cli_options.h"

#include <algorithm>
#include <string_view>

namespace attnscope::cli {

namespace {

constexpr std::size_t kSynopsisWidth = 96; // a synopsis line's arguments, past "attnscope VERB "
constexpr const char* kSynopsisIndent = "         ";
constexpr std::size_t kHelpColumn = 24; // where an option's help starts

bool hidden(const CLI::Option* o) {
    return o->get_group().empty();
}
bool isFlag(const CLI::Option* o) {
    return o->get_items_expected_max() == 0;
}
// The name a person types: the short one where there is one ("-o"), else the long one.
std::string shownName(const CLI::Option* o) {
    if (!o->get_snames().empty()) return "-" + o->get_snames().front();
    if (!o->get_lnames().empty()) return "--" + o->get_lnames().front();
    return o->get_name();
}
// The value's name as declared (type_name; the checks here add nothing to it).
std::string valueName(const CLI::Option* o) {
    return o->get_type_name();
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

// The verb's options as declared, on an app of its own (their bound arguments are thrown away).
template <class F> auto withDeclared(const Verb& verb, F&& f) {
    CLI::App app;
    verb.declare(app, "attnscope");
    return f(app);
}

} // namespace

CLI::Validator oneOf(const std::vector<std::string>& names) {
    return CLI::Validator(
        [names](std::string& value) -> std::string {
            if (std::find(names.begin(), names.end(), value) != names.end()) return {};
            return "'" + value + "' is not " + joined(names);
        },
        "");
}

CLI::Validator oneOf(std::initializer_list<const char*> names) {
    return oneOf(std::vector<std::string>(names.begin(), names.end()));
}

CLI::Validator accepted(std::function<bool(const std::string&)> valid, std::string expected) {
    return CLI::Validator(
        [valid = std::move(valid), expected = std::move(expected)](std::string& value) -> std::string {
            return valid(value) ? std::string() : "'" + value + "' is not " + expected;
        },
        "");
}

std::string synopsis(const Verb& verb) {
    return withDeclared(verb, [&verb](CLI::App& app) {
        std::vector<std::string> tokens;
        for (const CLI::Option* o : app.get_options()) {
            if (hidden(o) || shownName(o) == "-h") continue;
            std::string token = o->get_positional() ? valueName(o)
                                : isFlag(o)         ? shownName(o)
                                                    : shownName(o) + " " + valueName(o);
            tokens.push_back(o->get_required() ? token : "[" + token + "]");
        }
        if (*verb.rest) tokens.emplace_back(verb.rest);
        std::string out, line;
        for (const std::string& token : tokens) {
            if (!line.empty() && line.size() + 1 + token.size() > kSynopsisWidth) {
                out += line + "\n" + kSynopsisIndent;
                line.clear();
            }
            line += (line.empty() ? "" : " ") + token;
        }
        return out + line;
    });
}

std::string verbHelp(const Verb& verb, const char* program) {
    std::string out = std::string("usage: ") + program + " " + verb.name + " " + synopsis(verb) + "\n" +
                      verb.purpose + "\n";
    const std::string options = withDeclared(verb, [](CLI::App& app) {
        std::string text;
        for (const CLI::Option* o : app.get_options()) {
            if (hidden(o) || o->get_positional() || shownName(o) == "-h") continue;
            std::string head = "  " + shownName(o) + (isFlag(o) ? "" : " " + valueName(o));
            const std::string& help = o->get_description();
            if (head.size() + 2 > kHelpColumn) {
                text += head + "\n";
                head.clear();
            }
            head.resize(kHelpColumn, ' ');
            // The help's own lines, each under the first.
            std::size_t at = 0;
            while (at <= help.size()) {
                const std::size_t end = std::min(help.find('\n', at), help.size());
                text += head + help.substr(at, end - at) + "\n";
                head.assign(kHelpColumn, ' ');
                at = end + 1;
            }
        }
        return text;
    });
    if (!options.empty()) out += "\noptions:\n" + options;
    if (*verb.notes) out += std::string("\n") + verb.notes;
    return out;
}

int runParsed(const Verb& verb, int argc, char** argv, const char* program) {
    CLI::App app(verb.purpose, std::string(program) + " " + verb.name);
    const VerbRun run = verb.declare(app, program);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::fputs(verbHelp(verb, program).c_str(), stdout);
        return kOk;
    } catch (const CLI::ParseError& e) {
        return usageError(verb.name, program, e.what());
    }
    return run();
}

int usageError(const char* verb, const char* program, const std::string& why) {
    // The window's options are the program's own: "attnscope --help", else "attnscope VERB --help".
    const bool window = std::string_view(verb) == "attnscope";
    std::fprintf(stderr, "%s: %s\n(%s%s%s --help lists %s options)\n", verb, why.c_str(), program,
                 window ? "" : " ", window ? "" : verb, window ? "the" : "its");
    return kUsage;
}

int runVerb(const Verb& verb, int argc, char** argv) {
    return runParsed(verb, argc - 1, argv + 1, argv[0]); // from the verb's name on: its arguments
}

int runVerb(const Verb& verb, const char* program, std::vector<std::string> args) {
    std::vector<char*> argv = {const_cast<char*>(program), const_cast<char*>(verb.name)};
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    return runVerb(verb, int(argv.size()) - 1, argv.data());
}

} // namespace attnscope::cli
