// SPDX-License-Identifier: MIT
// The verbs' table, the program's help, and the window's own options.
#include "cli.h"

#include "gui_module.h"
#include "ui/gui_requests.h"

#include "kernels/run_session.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace attnscope::cli {

const char* version() {
    return ATTNSCOPE_VERSION;
}

namespace {

Verb verbVersion() {
    return {"version", "print the version", "", [](CLI::App&, const char*) -> VerbRun {
                return [] {
                    std::printf("attnscope %s\n", version());
                    return int(kOk);
                };
            }};
}

struct WindowArgs {
    ui::WindowRequest request;
    std::vector<std::string> files;
    std::string backend;
};

int openWindow(WindowArgs& a, const char* program);

// The window's own options: `attnscope [FILE...] …` (named "attnscope" in its messages).
const Verb& windowVerb() {
    static const Verb verb = {
        "attnscope", "", "", [](CLI::App& app, const char* program) -> VerbRun {
            auto a = std::make_shared<WindowArgs>();
            app.set_help_flag(); // `attnscope --help` is the whole program's help
            app.add_option("FILE", a->files, "traces, or with --job rank records and folders")
                ->type_name("FILE...");
            app.add_flag("--compare", a->request.compare, "the files side by side");
            app.add_flag("--job", a->request.job, "the files are rank records: the Job window");
            app.add_option("--run-backend", a->backend, "the live run's backend (no file)")
                ->type_name("cpu|cuda|torch|auto")
                ->check(
                    accepted([](const std::string& b) { return kernels::backendChoiceNamed(b).has_value(); },
                             kernels::backendChoicesText()));
            app.add_option("--screenshot", a->request.screenshot,
                           "save the window once loaded or run, then quit")
                ->type_name("OUT.png");
            app.add_flag("--timing", a->request.timing, "")->group(""); // the tests' own
            return [a, program] { return openWindow(*a, program); };
        }};
    return verb;
}

// With no display: what the window would show, printed through the verbs' own code.
int printWhatTheWindowShows(const char* program, ui::WindowRequest& request) {
    std::fprintf(stderr, "attnscope: no display (DISPLAY and WAYLAND_DISPLAY are unset); printing what the "
                         "window would show. Use xvfb-run or a desktop session for the window.\n");
    std::vector<std::string> args = request.files;
    if (request.files.empty()) {
        // The window's first run is the first-look preset: print the same one.
        args = {"--preset", "first-look"};
        if (request.runBackend) {
            args.push_back("--backend");
            args.emplace_back(kernels::backendChoiceName(*request.runBackend));
        }
        return runVerb(*findVerb("run"), program, args);
    }
    return runVerb(*findVerb(request.job ? "job" : request.compare ? "compare" : "summary"), program, args);
}

} // namespace

const std::vector<Verb>& verbs() {
    static const std::vector<Verb> table = {verbSummary(), verbDiff(),   verbCompare(), verbConvert(),
                                            verbExport(),  verbReport(), verbRun(),     verbWhatIf(),
                                            verbProfile(), verbJob(),    verbVersion()};
    return table;
}

const Verb* findVerb(std::string_view name) {
    for (const Verb& v : verbs())
        if (name == v.name) return &v;
    return nullptr;
}

void printUsage(const char* program) {
    std::fprintf(stderr, "usage:\n  %s %s   the window (several files: the ranks of one job)\n", program,
                 synopsis(windowVerb()).c_str());
    for (const Verb& v : verbs()) {
        const std::string s = synopsis(v);
        std::fprintf(stderr, "  %s %s%s%s\n", program, v.name, s.empty() ? "" : " ", s.c_str());
    }
    std::fprintf(stderr, "  %s --help | VERB --help\n", program);
}

void printHelp(const char* program) {
    std::printf("AttnScope %s: a profiler for transformer attention.\n\n", version());
    std::printf(
        "  %s %s\n"
        "      open the window on traces (Kineto / Chrome JSON, plain or gzipped; Nsight Systems SQLite; "
        "several: the ranks of one job, or with --compare side by side in Compare Variants; with --job, "
        "rank records, the ranks' traces and folders of either in the Job window); "
        "no file: a live run (on the CPU, or the backend given). --screenshot saves the window once loaded "
        "or run, then quits. With no display, print what it would show.\n",
        program, synopsis(windowVerb()).c_str());
    for (const Verb& v : verbs()) {
        const std::string s = synopsis(v);
        std::printf("  %s %s%s%s\n      %s\n", program, v.name, s.empty() ? "" : " ", s.c_str(), v.purpose);
    }
    std::printf(
        "\n'%s VERB --help' lists a verb's options. Exit codes: 0 done, 1 a file could not be read or "
        "written, 2 bad usage, 3 summary --fail-on met a finding that severe.\n",
        program);
}

int window(int argc, char** argv) {
    kernels::prepareRuns(); // for the window's runs
    return runParsed(windowVerb(), argc, argv, argv[0]);
}

namespace {

int openWindow(WindowArgs& args, const char* program) {
    WindowArgs* a = &args;
    ui::WindowRequest& request = a->request;
    if (!a->backend.empty()) request.runBackend = kernels::backendChoiceNamed(a->backend);
    // The files: with --job records and folders of them; side by side, a file that cannot be read keeps its
    // row with why; else a path that cannot be read is said, and a word that is no path is no command.
    for (const std::string& arg : a->files) {
        struct stat st {};
        if (stat(arg.c_str(), &st) == 0 && (!S_ISDIR(st.st_mode) || request.job)) {
            request.files.push_back(arg);
        } else if (request.compare) {
            request.files.push_back(arg);
        } else if (request.job || arg.find('/') != std::string::npos || arg.find('.') != std::string::npos) {
            std::fprintf(stderr, "attnscope: %s: %s\n", arg.c_str(),
                         stat(arg.c_str(), &st) == 0 ? "is a folder, not a trace file"
                                                     : std::strerror(errno));
            return kFileError;
        } else {
            std::fprintf(stderr, "attnscope: '%s' is neither a command nor a trace file\n", arg.c_str());
            printUsage(program);
            return kUsage;
        }
    }
    if (!app::haveDisplay()) return printWhatTheWindowShows(program, request);
    std::string error;
    using Main = int (*)(const char*, const ui::WindowRequest*);
    auto entry = reinterpret_cast<Main>(app::guiEntry(program, "attnscope_gui_main", error));
    if (!entry) {
        std::fprintf(stderr,
                     "attnscope: the Qt part of AttnScope cannot load: %s\nThe other commands still work:\n",
                     error.c_str());
        printUsage(program);
        return kUsage;
    }
    return entry(program, &request);
}

} // namespace

} // namespace attnscope::cli
