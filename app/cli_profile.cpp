// SPDX-License-Identifier: MIT
// The profile verb: a user's own program run with PyTorch's profiler switched on from outside, each
// finished step read as it is written, the steps saved per process (the window: shown live).
#include "cli.h"

#include "gui_module.h"

#include "core/io/chrome_writer.h"
#include "kernels/program_profile.h"
#include "ui/gui_requests.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

namespace attnscope::cli {

namespace {

using namespace attnscope::kernels;

bool exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

// nsys's habit: report1, report2, … in the working folder, never over an existing file.
std::string defaultOutput() {
    for (int n = 1;; ++n) {
        const std::string path = "profile" + std::to_string(n) + ".pt.trace.json";
        if (!exists(path) && !exists("profile" + std::to_string(n) + "-rank-0.pt.trace.json")) return path;
    }
}

// AttnScope's own lines: never the program's stdout or stderr.
class Messages {
public:
    explicit Messages(std::FILE* to, bool own) : m_to(to), m_own(own) {}
    ~Messages() {
        if (m_own && m_to) std::fclose(m_to);
    }
    void say(const std::string& line) {
        if (!m_to) return;
        std::fprintf(m_to, "attnscope: %s\n", line.c_str());
        std::fflush(m_to);
    }

private:
    std::FILE* m_to;
    bool m_own;
};

std::atomic<pid_t> g_program{-1};

// A signal another process sent AttnScope is passed on to the program; the terminal's Ctrl+C reaches the
// program by itself (it is in the terminal's foreground process group too).
void forwardSignal(int signal, siginfo_t* info, void*) {
    const pid_t pid = g_program.load();
    if (pid > 0 && info && info->si_code <= 0) kill(pid, signal);
}

struct ProfileRequest {
    ProfileConfig config;
    std::string out;
    std::string screenshot; // the window: its picture once the program ended, then it closes
    std::string log;        // "": the terminal, else the file beside the output; "-": stderr
};

} // namespace

namespace {

int profile(std::optional<ProfileRequest> request, const char* program) {
    if (request->out.empty() && (app::haveDisplay() || !request->screenshot.empty())) {
        // The window: the steps open as they are written.
        if (!app::haveDisplay()) setenv("QT_QPA_PLATFORM", "offscreen", 1);
        ui::WindowRequest window;
        window.profile = request->config;
        window.screenshot = request->screenshot;
        std::string error;
        using Main = int (*)(const char*, const ui::WindowRequest*);
        auto entry = reinterpret_cast<Main>(app::guiEntry(program, "attnscope_gui_main", error));
        if (entry) return entry(program, &window);
        std::fprintf(stderr, "attnscope profile: the Qt part of AttnScope cannot load (%s): use -o FILE\n",
                     error.c_str());
        return kUsage;
    }
    if (request->out.empty()) request->out = defaultOutput();
    const std::string& out = request->out;

    std::FILE* to = nullptr;
    bool own = false;
    if (request->log == "-") {
        to = stderr;
    } else if (!request->log.empty()) {
        to = std::fopen(request->log.c_str(), "w"), own = true;
    } else if ((to = std::fopen("/dev/tty", "w"))) {
        own = true;
    } else {
        to = std::fopen((out + ".log").c_str(), "w"), own = true;
    }
    Messages messages(to, own);

    ProgramProfile profile(request->config);
    if (const std::string why = profile.start(); !why.empty()) {
        std::fprintf(stderr, "attnscope profile: %s\n", why.c_str()); // the program never ran: stderr is ours
        return 127;
    }
    g_program = profile.pid();
    struct sigaction forward {
    }, previousInt{}, previousTerm{};
    forward.sa_sigaction = forwardSignal;
    forward.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&forward.sa_mask);
    sigaction(SIGINT, &forward, &previousInt);
    sigaction(SIGTERM, &forward, &previousTerm);

    std::vector<ProfiledStep> steps;
    std::uint64_t events = 0;
    auto take = [&] {
        for (const std::string& line : profile.takeNotices())
            messages.say(line);
        for (ProfiledStep& s : profile.takeSteps()) {
            const std::uint64_t n = s.trace->eventCount();
            events += n;
            messages.say(s.process + ": step " + std::to_string(s.index) + ", " +
                         (s.optimizer ? "ended by optimizer step " + std::to_string(s.lastOptimizerStep)
                                      : std::string("a time slice")) +
                         (s.partial ? " (cut short)" : "") + ", " + std::to_string(n) + " events");
            steps.push_back(std::move(s));
        }
    };
    while (!profile.finished()) {
        take();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    profile.wait();
    take();
    g_program = -1;
    sigaction(SIGINT, &previousInt, nullptr);
    sigaction(SIGTERM, &previousTerm, nullptr);

    messages.say("the program " + profile.outcome());
    if (steps.empty()) {
        messages.say(profile.problem());
        if (exists(out)) messages.say(out + " was not written: the file there is from before");
    } else {
        std::size_t startUp = 0;
        const std::vector<ProcessTrace> traces = mergeProcessSteps(steadySteps(steps, &startUp));
        if (startUp)
            messages.say(
                "left out " + std::to_string(startUp) + " time slice" + (startUp == 1 ? "" : "s") +
                " before the first optimizer step (start-up: the model built, the first iteration run "
                "cold); --steps time keeps them");
        for (const ProcessTrace& p : traces) {
            const std::string path = processOutputPath(out, p.process, traces.size());
            try {
                writeChromeTrace(*p.trace, path);
                messages.say("wrote " + path + ": " + p.process + ", " + std::to_string(p.steps) + " step" +
                             (p.steps == 1 ? "" : "s") + ", " + std::to_string(p.trace->eventCount()) +
                             " events");
            } catch (const std::exception& e) {
                messages.say("could not write " + path + ": " + e.what());
            }
        }
        messages.say(traces.size() == 1 ? "open it with: attnscope " + out
                                        : "open them as the ranks of one job with: attnscope " +
                                              processOutputPath(out, "*", traces.size()));
    }
    if (profile.exitCode() != 0)
        for (const std::string& line : profile.lastWords())
            messages.say("| " + line);
    return profile.exitCode();
}

} // namespace

Verb verbProfile() {
    return {
        "profile",
        "run your own program with PyTorch's profiler on, no change to its code: each finished step's trace "
        "saved (-o) or shown live in the window",
        "The program's stdin, stdout and stderr are its own, untouched; its exit code is the verb's (127:\n"
        "it could not start). Ctrl+C ends it and keeps the steps recorded so far. torchrun's workers are\n"
        "profiled, each a rank.\n",
        [](CLI::App& app, const char* program) -> VerbRun {
            auto r = std::make_shared<ProfileRequest>();
            ProfileSchedule& s = r->config.schedule;
            app.add_option("-o", r->out,
                           "where the steps are saved, one trace per process (several processes:\n"
                           "OUT-rank-0.json, OUT-rank-1.json, …). Without -o: the window, live, when there\n"
                           "is a display; else profileN.pt.trace.json in this folder (the next free N)")
                ->type_name("OUT.json[.gz]");
            app.add_option_function<std::string>(
                   "--steps", [r](const std::string& name) { r->config.schedule.steps = *stepsNamed(name); },
                   "what a step is: optimizer (the program's optimizer steps), time (slices of\n"
                   "--slice seconds) or auto (default: slices until the first optimizer step,\n"
                   "those slices then left out of the trace as start-up)")
                ->type_name("auto|optimizer|time")
                ->check(oneOf({"auto", "optimizer", "time"}));
            const auto steps = CLI::Range(0, 1000000).description("");
            app.add_option("--wait", s.wait, "optimizer steps skipped per cycle (default 1)")
                ->type_name("W")
                ->check(steps);
            app.add_option("--warmup", s.warmup, "optimizer steps warmed up per cycle (default 1)")
                ->type_name("U")
                ->check(steps);
            app.add_option("--active", s.active, "optimizer steps recorded per cycle (default 3)")
                ->type_name("A")
                ->check(CLI::Range(1, 1000000).description(""));
            app.add_option("--repeat", s.repeat,
                           "cycles (default 1; 0: as long as the program runs), as\n"
                           "torch.profiler.schedule's wait, warmup, active and repeat")
                ->type_name("R")
                ->check(steps);
            app.add_option("--slice", s.slice, "seconds a time step lasts (default 1, at least 0.05)")
                ->type_name("S")
                ->check(CLI::Range(0.05, 1e7).description(""));
            app.add_option("--delay", s.delay,
                           "seconds from the program's start before recording (default 0)")
                ->type_name("S")
                ->check(CLI::Range(0.0, 1e7).description(""));
            app.add_option("--duration", s.duration,
                           "seconds of recording at most (default: until the program ends)")
                ->type_name("S")
                ->check(CLI::Range(0.0, 1e7).description(""));
            app.add_option("--cd", r->config.folder, "run the program there")->type_name("DIR");
            app.add_option("--log", r->log,
                           "AttnScope's own lines (default: the terminal, else OUT.log; -: stderr)")
                ->type_name("FILE|-");
            app.add_option("--screenshot", r->screenshot,
                           "the window's picture once the program ended and its steps are on show")
                ->type_name("PNG");
            // The program and its arguments: everything from the first argument that is not an option of
            // profile's (or after --), its own options too.
            app.prefix_command();
            return [r, &app, program]() -> int {
                auto& command = r->config.command;
                command = app.remaining();
                if (!command.empty() && command.front() == "--") command.erase(command.begin());
                if (command.empty() || (command.front().size() > 1 && command.front()[0] == '-')) {
                    return usageError("profile", program,
                                      command.empty()
                                          ? "which program? attnscope profile [options] -- COMMAND ARGS..."
                                          : "unknown option or missing value: " + command.front());
                }
                return profile(std::move(*r), program);
            };
        },
        "-- COMMAND ARGS..."};
}

} // namespace attnscope::cli
