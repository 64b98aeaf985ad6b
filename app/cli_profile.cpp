// SPDX-License-Identifier: MIT
// The profile verb: a user's own program run with PyTorch's profiler switched on from outside, each
// finished step read as it is written, the steps saved per process (the window: shown live).
#include "cli_profile.h"
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

bool parseNumber(const char* s, double& out, double lo, double hi) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (!*s || *end || !(v >= lo && v <= hi)) return false;
    out = v;
    return true;
}

bool parseCount(const char* s, int& out, int lo, int hi) {
    double v = 0;
    if (!parseNumber(s, v, lo, hi) || v != double(int(v))) return false;
    out = int(v);
    return true;
}

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

std::optional<ProfileRequest> parseProfileArgs(int argc, char** argv) {
    ProfileRequest r;
    ProfileSchedule& s = r.config.schedule;
    auto usage = [&](const std::string& why) -> std::optional<ProfileRequest> {
        std::fprintf(stderr, "profile: %s\n(%s profile --help lists the options)\n", why.c_str(), argv[0]);
        return std::nullopt;
    };
    int i = 2;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--") {
            ++i;
            break;
        }
        if (a.rfind('-', 0) != 0) break; // the command
        if (a == "-o" && value) {
            r.out = argv[++i];
        } else if (a == "--steps" && value) {
            const auto steps = stepsNamed(argv[++i]);
            if (!steps)
                return usage("--steps takes auto, optimizer or time, got '" + std::string(argv[i]) + "'");
            s.steps = *steps;
        } else if ((a == "--wait" || a == "--warmup" || a == "--active" || a == "--repeat") && value) {
            int& field = a == "--wait"     ? s.wait
                         : a == "--warmup" ? s.warmup
                         : a == "--active" ? s.active
                                           : s.repeat;
            if (!parseCount(argv[++i], field, a == "--active" ? 1 : 0, 1000000))
                return usage(a + " takes a number of steps" + (a == "--active" ? " from 1" : "") + ", got '" +
                             argv[i] + "'");
        } else if ((a == "--slice" || a == "--delay" || a == "--duration") && value) {
            double& field = a == "--slice" ? s.slice : a == "--delay" ? s.delay : s.duration;
            if (!parseNumber(argv[++i], field, a == "--slice" ? 0.05 : 0, 1e7))
                return usage(a + " takes seconds" + (a == "--slice" ? " (at least 0.05)" : "") + ", got '" +
                             argv[i] + "'");
        } else if (a == "--cd" && value) {
            r.config.folder = argv[++i];
        } else if (a == "--screenshot" && value) {
            r.screenshot = argv[++i];
        } else if (a == "--log" && value) {
            r.log = argv[++i];
        } else {
            return usage("unknown option or missing value: " + a);
        }
    }
    for (; i < argc; ++i)
        r.config.command.emplace_back(argv[i]);
    if (r.config.command.empty())
        return usage("which program? attnscope profile [options] -- COMMAND ARGS...");
    return r;
}

} // namespace

int profileVerb(int argc, char** argv) {
    std::optional<ProfileRequest> request = parseProfileArgs(argc, argv);
    if (!request) return kUsage;
    if (request->out.empty() && (app::haveDisplay() || !request->screenshot.empty())) {
        // The window: the steps open as they are written.
        if (!app::haveDisplay()) setenv("QT_QPA_PLATFORM", "offscreen", 1);
        ui::WindowRequest window;
        window.profile = request->config;
        window.screenshot = request->screenshot;
        std::string error;
        using Main = int (*)(const char*, const ui::WindowRequest*);
        auto entry = reinterpret_cast<Main>(app::guiEntry(argv[0], "attnscope_gui_main", error));
        if (entry) return entry(argv[0], &window);
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

} // namespace attnscope::cli
