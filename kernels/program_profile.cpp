// SPDX-License-Identifier: MIT
#include "kernels/program_profile.h"

#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"
#include "kernels/temp_folder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace attnscope::kernels {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kTailLines = 20; // the program's last stderr lines kept

std::string_view baseName(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Appends what fd has to read to partial and moves its complete lines into lines; false at its end.
bool readLines(int fd, std::string& partial, std::vector<std::string>& lines) {
    char chunk[65536];
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    if (n == 0) {
        if (!partial.empty()) lines.push_back(std::move(partial));
        partial.clear();
        return false;
    }
    partial.append(chunk, std::size_t(n));
    std::size_t from = 0;
    for (std::size_t nl; (nl = partial.find('\n', from)) != std::string::npos; from = nl + 1)
        lines.push_back(partial.substr(from, nl - from));
    partial.erase(0, from);
    return true;
}

// "SIGSEGV (Segmentation fault)", as people name a signal; its number where the C library has no name.
std::string signalText(int signal) {
    const char* abbrev = sigabbrev_np(signal);
    const char* name = strsignal(signal);
    return (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(signal)) +
           (name ? " (" + std::string(name) + ")" : std::string());
}

} // namespace

std::string_view stepsName(ProfileSchedule::Steps steps) {
    switch (steps) {
    case ProfileSchedule::Steps::Optimizer:
        return "optimizer";
    case ProfileSchedule::Steps::Time:
        return "time";
    case ProfileSchedule::Steps::Auto:
        break;
    }
    return "auto";
}

std::optional<ProfileSchedule::Steps> stepsNamed(std::string_view name) {
    for (auto s :
         {ProfileSchedule::Steps::Auto, ProfileSchedule::Steps::Optimizer, ProfileSchedule::Steps::Time})
        if (name == stepsName(s)) return s;
    return std::nullopt;
}

ProgramProfile::ProgramProfile(ProfileConfig config) : m_config(std::move(config)) {}

ProgramProfile::~ProgramProfile() {
    if (m_pid > 0 && !m_finished) stop();
    if (m_thread.joinable()) m_thread.join();
    if (m_outFd >= 0) close(m_outFd);
    if (m_errFd >= 0) close(m_errFd);
}

std::string ProgramProfile::start() {
    if (m_config.command.empty()) return "no command to profile";
    m_temp = std::make_unique<TempFolder>("attnscope-profile");
    m_folder = m_temp->path();
    if (m_folder.empty()) return std::string("cannot make a temporary folder: ") + std::strerror(errno);
    std::error_code e;
    fs::create_directories(m_folder + "/hook", e);
    fs::create_directories(m_folder + "/steps", e);
    {
        std::ofstream out(m_folder + "/hook/sitecustomize.py", std::ios::binary);
        out << profileHookScript();
        if (!out) return "cannot write the start-up hook into " + m_folder;
    }

    // The program's environment: ours, the configuration's, and the hook's.
    std::map<std::string, std::string> env;
    for (char** v = environ; v && *v; ++v) {
        const std::string_view entry(*v);
        const std::size_t eq = entry.find('=');
        if (eq != std::string_view::npos)
            env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
    }
    for (const auto& [key, value] : m_config.environment)
        env[key] = value;
    const std::string pythonPath = env.count("PYTHONPATH") ? env["PYTHONPATH"] : std::string();
    env["PYTHONPATH"] = m_folder + "/hook" + (pythonPath.empty() ? "" : ":" + pythonPath);
    env["ATTNSCOPE_PROFILE_DIR"] = m_folder + "/steps";
    const ProfileSchedule& s = m_config.schedule;
    env["ATTNSCOPE_PROFILE"] = nlohmann::json{
        {"steps", std::string(stepsName(s.steps))},
        {"wait", s.wait},
        {"warmup", s.warmup},
        {"active", s.active},
        {"repeat", s.repeat},
        {"slice", s.slice},
        {"delay", s.delay},
        {"duration", s.duration}}.dump();
    // Kineto's own log lines (profiler_start/stop at every step) would land in the program's stderr.
    if (!env.count("KINETO_LOG_LEVEL")) env["KINETO_LOG_LEVEL"] = "6";
    std::vector<std::string> envStrings;
    for (const auto& [key, value] : env)
        envStrings.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (std::string& v : envStrings)
        envp.push_back(v.data());
    envp.push_back(nullptr);
    std::vector<char*> argv;
    for (std::string& a : m_config.command)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Signals this process ignores or blocks (the headless verb ignores Ctrl+C while it waits) are the
    // program's to handle as it always does.
    sigset_t defaults, none;
    sigemptyset(&defaults);
    for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE})
        sigaddset(&defaults, sig);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
    if (m_config.captureOutput) {
        if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0) {
            const std::string why = std::string("cannot make a pipe: ") + std::strerror(errno);
            for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]})
                if (fd >= 0) close(fd);
            posix_spawn_file_actions_destroy(&actions);
            posix_spawnattr_destroy(&attr);
            return why;
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&attr, 0);
    }
    if (!m_config.folder.empty()) posix_spawn_file_actions_addchdir_np(&actions, m_config.folder.c_str());
    posix_spawnattr_setflags(&attr, flags);
    const int failed = posix_spawnp(&m_pid, argv[0], &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (m_config.captureOutput) {
        close(outPipe[1]);
        close(errPipe[1]);
        m_outFd = outPipe[0];
        m_errFd = errPipe[0];
    }
    if (failed) {
        m_pid = -1;
        if (!m_config.folder.empty() && !fs::is_directory(m_config.folder))
            return "the working folder " + m_config.folder + " does not exist";
        return failed == ENOENT ? "'" + m_config.command.front() + "': command not found"
                                : "cannot start '" + m_config.command.front() + "': " + std::strerror(failed);
    }
    m_thread = std::thread([this] { run(); });
    return {};
}

void ProgramProfile::stop() {
    m_stopRequested = true;
}

void ProgramProfile::wait() {
    if (m_thread.joinable()) m_thread.join();
}

void ProgramProfile::run() {
    using Clock = std::chrono::steady_clock;
    std::optional<Clock::time_point> stopAt;
    int escalation = 0; // signals sent since Stop: SIGINT, SIGTERM, SIGKILL
    const pid_t target = m_config.captureOutput ? -m_pid : m_pid;
    for (;;) {
        drainOutput(100);
        readLog();
        if (m_stopRequested) {
            const auto now = Clock::now();
            if (!stopAt) stopAt = now;
            const int due = now - *stopAt >= std::chrono::seconds(10)  ? 3
                            : now - *stopAt >= std::chrono::seconds(5) ? 2
                                                                       : 1;
            for (; escalation < due; ++escalation)
                kill(target, escalation == 0 ? SIGINT : escalation == 1 ? SIGTERM : SIGKILL);
        }
        int status = 0;
        const pid_t r = waitpid(m_pid, &status, WNOHANG);
        if (r == m_pid || (r < 0 && errno == ECHILD)) {
            m_status = status;
            break;
        }
        if (!m_config.captureOutput) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // What the program's processes wrote before the end (a process it left behind may hold the pipes
    // open: not waited for long).
    drainOutput(500);
    readLog();
    m_finished = true;
}

void ProgramProfile::drainOutput(int timeoutMs) {
    if (m_outFd < 0 && m_errFd < 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
        pollfd fds[2] = {{m_outFd, POLLIN, 0}, {m_errFd, POLLIN, 0}};
        const int left = int(
            std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now())
                .count());
        if (m_outFd < 0 && m_errFd < 0) return;
        if (poll(fds, 2, std::max(0, left)) <= 0) return;
        std::vector<std::string> out, err;
        if (fds[0].revents && !readLines(m_outFd, m_outPartial, out)) {
            close(m_outFd);
            m_outFd = -1;
        }
        if (fds[1].revents && !readLines(m_errFd, m_errPartial, err)) {
            close(m_errFd);
            m_errFd = -1;
        }
        for (const std::string& line : err) {
            m_stderrTail.push_back(line);
            if (m_stderrTail.size() > kTailLines) m_stderrTail.erase(m_stderrTail.begin());
        }
        std::lock_guard lock(m_mutex);
        m_output.insert(m_output.end(), out.begin(), out.end());
        m_output.insert(m_output.end(), err.begin(), err.end());
    }
}

void ProgramProfile::readLog() {
    std::ifstream in(m_folder + "/steps/events.jsonl", std::ios::binary);
    if (!in) return;
    in.seekg(std::streamoff(m_logOffset));
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    m_logOffset += chunk.size();
    m_logPartial += chunk;
    std::size_t from = 0;
    for (std::size_t nl; (nl = m_logPartial.find('\n', from)) != std::string::npos; from = nl + 1)
        handle(m_logPartial.substr(from, nl - from));
    m_logPartial.erase(0, from);
}

void ProgramProfile::handle(const std::string& line) {
    const nlohmann::json msg = nlohmann::json::parse(line, nullptr, false);
    if (!msg.is_object()) return;
    auto text = [&](const char* key) {
        const auto it = msg.find(key);
        return it != msg.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const std::string event = text("event");
    const std::string pid =
        msg.contains("pid") && msg["pid"].is_number() ? std::to_string(msg["pid"].get<long long>()) : "?";
    const std::string rankText = text("rank");
    std::optional<std::int64_t> rank;
    if (!rankText.empty()) rank = std::strtoll(rankText.c_str(), nullptr, 10);
    const std::string process = rank ? "rank " + std::to_string(*rank) : "pid " + pid;
    std::vector<std::string> notices;
    if (event == "python") {
        ++m_pythons;
    } else if (event == "skipped") {
        notices.push_back("pid " + pid + " is not profiled: " + text("why"));
    } else if (event == "torch") {
        ++m_torches;
        const bool cuda = msg.value("cuda", false);
        notices.push_back("profiling " + process + " (PyTorch " + text("torch") + ", " +
                          (cuda ? "CPU and CUDA activity" : "CPU activity") + ")");
    } else if (event == "aside") {
        notices.push_back(
            process + ": " + text("why") +
            ", so AttnScope's profiler kept the step under way and stepped aside (one profiler at "
            "a time)");
    } else if (event == "notice") {
        notices.push_back(process + ": " + text("message"));
    } else if (event == "error") {
        notices.push_back(process + ": " + text("message"));
    } else if (event == "exception") {
        m_exception.clear();
        if (const auto it = msg.find("lines"); it != msg.end() && it->is_array())
            for (const auto& l : *it)
                if (l.is_string()) {
                    std::string s = l.get<std::string>();
                    while (!s.empty() && s.back() == '\n')
                        s.pop_back();
                    std::size_t from = 0;
                    for (std::size_t nl; (nl = s.find('\n', from)) != std::string::npos; from = nl + 1)
                        m_exception.push_back(s.substr(from, nl - from));
                    m_exception.push_back(s.substr(from));
                }
    } else if (event == "step") {
        const std::string path = text("trace");
        // Only the hook's own step files are read, and removed: nothing outside the private folder.
        if (fs::path(path).parent_path() != fs::path(m_folder + "/steps")) return;
        ProfiledStep step;
        step.process = process;
        step.rank = rank;
        step.index = msg.value("step", 0);
        step.optimizer = text("mode") == "optimizer";
        step.partial = msg.value("partial", false);
        step.firstOptimizerStep = msg.value("first", 0);
        step.lastOptimizerStep = msg.value("last", 0);
        try {
            LoadOptions options;
            options.threads = 1; // the program runs beside: one core for reading its steps
            step.trace = loadTraceFile(path, options);
        } catch (const std::exception& e) {
            notices.push_back(process + ": step " + std::to_string(step.index) +
                              " could not be read: " + e.what());
        }
        std::error_code ignored;
        fs::remove(path, ignored);
        if (step.trace) {
            ++m_stepsRead;
            std::lock_guard lock(m_mutex);
            m_steps.push_back(std::move(step));
        }
    }
    if (!notices.empty()) {
        std::lock_guard lock(m_mutex);
        m_notices.insert(m_notices.end(), notices.begin(), notices.end());
    }
}

std::vector<ProfiledStep> ProgramProfile::takeSteps() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_steps, {});
}

std::vector<std::string> ProgramProfile::takeOutput() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_output, {});
}

std::vector<std::string> ProgramProfile::takeNotices() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_notices, {});
}

int ProgramProfile::exitCode() const {
    if (WIFEXITED(m_status)) return WEXITSTATUS(m_status);
    if (WIFSIGNALED(m_status)) return 128 + WTERMSIG(m_status);
    return 1;
}

std::string ProgramProfile::outcome() const {
    if (WIFSIGNALED(m_status)) return "was killed by " + signalText(WTERMSIG(m_status));
    return "exited with status " + std::to_string(exitCode());
}

std::string ProgramProfile::problem() const {
    if (m_stepsRead) return {};
    const std::string program(baseName(m_config.command.front()));
    if (!m_pythons)
        return "'" + program +
               "' did not run Python with AttnScope's start-up hook, so nothing was profiled: `attnscope "
               "profile` profiles Python programs that use PyTorch (a Python started with -I, -E or -S "
               "skips the hook)";
    if (!m_torches)
        return exitCode() != 0
                   ? "the program " + outcome() + " before it imported torch: nothing was profiled"
                   : "the program ran Python but never imported torch: there was nothing for "
                     "PyTorch's profiler to record";
    if (m_config.schedule.steps != ProfileSchedule::Steps::Time)
        return "PyTorch's profiler was on but no step was recorded: the program ended before the first "
               "recorded step (--wait " +
               std::to_string(m_config.schedule.wait) + " --warmup " +
               std::to_string(m_config.schedule.warmup) +
               " optimizer steps come first; fewer, or --steps time, record sooner)";
    return "PyTorch's profiler was on but no step was recorded (--delay or --duration left none)";
}

std::vector<std::string> ProgramProfile::lastWords() const {
    return m_exception.empty() ? m_stderrTail : m_exception;
}

SteadySteps::Take SteadySteps::take(const ProfiledStep& s) {
    auto first = m_firstOptimizer.find(s.process);
    if (s.optimizer && first == m_firstOptimizer.end()) {
        m_firstOptimizer.emplace(s.process, s.index);
        m_leftOut += m_keptBefore[s.process];
        return Take::Restart;
    }
    if (first == m_firstOptimizer.end()) {
        ++m_keptBefore[s.process];
        return Take::Keep;
    }
    if (!s.optimizer && s.index < first->second) {
        ++m_leftOut;
        return Take::LeaveOut;
    }
    return Take::Keep;
}

std::vector<ProfiledStep> steadySteps(const std::vector<ProfiledStep>& steps, std::size_t* leftOut) {
    SteadySteps steady;
    std::vector<ProfiledStep> kept;
    for (const ProfiledStep& s : steps) {
        const SteadySteps::Take take = steady.take(s);
        if (take == SteadySteps::Take::Restart)
            std::erase_if(kept, [&](const ProfiledStep& k) { return k.process == s.process; });
        if (take != SteadySteps::Take::LeaveOut) kept.push_back(s);
    }
    if (leftOut) *leftOut = steady.leftOut();
    return kept;
}

std::vector<ProcessTrace> mergeProcessSteps(const std::vector<ProfiledStep>& steps) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const ProfiledStep*>> byProcess;
    for (const ProfiledStep& s : steps) {
        auto& list = byProcess[s.process];
        if (list.empty()) order.push_back(s.process);
        list.push_back(&s);
    }
    std::vector<ProcessTrace> out;
    for (const std::string& process : order) {
        auto& list = byProcess[process];
        std::stable_sort(list.begin(), list.end(),
                         [](const ProfiledStep* a, const ProfiledStep* b) { return a->index < b->index; });
        std::vector<std::shared_ptr<const Trace>> traces;
        for (const ProfiledStep* s : list)
            traces.push_back(s->trace);
        out.push_back({process, list.front()->rank, mergeSteps(traces), int(list.size())});
    }
    std::stable_sort(out.begin(), out.end(), [](const ProcessTrace& a, const ProcessTrace& b) {
        return a.rank.value_or(INT64_MAX) < b.rank.value_or(INT64_MAX);
    });
    return out;
}

std::string processOutputPath(const std::string& out, const std::string& process, std::size_t processes) {
    if (processes <= 1) return out;
    const std::size_t slash = out.rfind('/');
    const std::size_t nameAt = slash == std::string::npos ? 0 : slash + 1;
    std::size_t dot = out.find('.', nameAt);
    if (dot == std::string::npos) dot = out.size();
    std::string label = process;
    std::replace(label.begin(), label.end(), ' ', '-');
    return out.substr(0, dot) + "-" + label + out.substr(dot);
}

} // namespace attnscope::kernels
