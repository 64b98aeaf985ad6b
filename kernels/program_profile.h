// SPDX-License-Identifier: MIT
#pragma once
// A user's own program profiled from outside (attnscope profile -- COMMAND, and the window's Profile a
// Program): the command runs with AttnScope's start-up hook (resources/profile_hook.py, built into the
// program) first on its PYTHONPATH, which switches PyTorch's profiler on in every Python process of it
// that imports torch and writes each finished step's Kineto trace into a private folder. A thread
// here reads each step as it is written and hands it on; the program's code is not changed.
#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace attnscope {
struct Document;
class GrowingDocument;
} // namespace attnscope

namespace attnscope::kernels {

// The start-up hook, as shipped.
std::string_view profileHookScript();

// What a step is and which steps are recorded, as `nsys profile` and torch.profiler.schedule let
// users choose. Steps are the program's optimizer steps (the first optimizer that steps), or slices
// of time; auto: slices until the first optimizer step, optimizer steps from then on.
struct ProfileSchedule {
    enum class Steps : std::uint8_t { Auto, Optimizer, Time };
    Steps steps = Steps::Auto;
    int wait = 1, warmup = 1, active = 3; // optimizer steps, per cycle
    int repeat = 1;                       // cycles; 0: as long as the program runs
    double slice = 1.0;                   // seconds a time step lasts
    double delay = 0;                     // seconds from the program's start before any recording
    double duration = 0;                  // seconds of recording at most; 0: no limit
};
std::string_view stepsName(ProfileSchedule::Steps steps); // "auto", "optimizer", "time"
std::optional<ProfileSchedule::Steps> stepsNamed(std::string_view name);

struct ProfileConfig {
    std::vector<std::string> command;                             // the program and its arguments, as given
    std::string folder;                                           // the working folder ("": this process's)
    std::vector<std::pair<std::string, std::string>> environment; // set for the program, over ours
    ProfileSchedule schedule;
    // The window: stdout and stderr are read here (takeOutput), stdin is empty, and the program runs
    // in a process group of its own, so Stop reaches every process it started. Headless (false): the
    // program has this process's stdin, stdout and stderr, untouched, and its process group (Ctrl+C at
    // the terminal reaches it directly).
    bool captureOutput = false;
};

// One finished step of one process.
struct ProfiledStep {
    std::string process;                               // "rank 0" (torchrun's RANK), else "pid 1234"
    std::optional<std::int64_t> rank;                  // torchrun's RANK
    int index = 0;                                     // per process, from 0
    bool optimizer = false;                            // an optimizer step (else a slice of time)
    bool partial = false;                              // cut short by the program's end
    int firstOptimizerStep = 0, lastOptimizerStep = 0; // the optimizer steps it lies between
    std::shared_ptr<const Trace> trace;
};

class TempFolder;

class ProgramProfile {
public:
    explicit ProgramProfile(ProfileConfig config);
    ~ProgramProfile(); // stops the program (as stop()) and waits for it
    ProgramProfile(const ProgramProfile&) = delete;
    ProgramProfile& operator=(const ProgramProfile&) = delete;

    // Starts the program; "" when it started, else why not (the command not found, …).
    std::string start();
    // Ends the program, keeping what was captured: SIGINT (as Ctrl+C), SIGTERM after 5 s, SIGKILL
    // after 10 s, to its process group when it has its own.
    void stop();
    bool finished() const { return m_finished; }
    void wait();
    const ProfileConfig& config() const { return m_config; }
    pid_t pid() const { return m_pid; }

    // What arrived since the last call: finished steps, lines the program wrote (captureOutput), and
    // what AttnScope has to say about the profile (processes profiled or left out, the hook's errors).
    std::vector<ProfiledStep> takeSteps();
    std::vector<std::string> takeOutput();
    std::vector<std::string> takeNotices();
    std::uint64_t stepsRead() const { return m_stepsRead; }

    // Once finished: the exit code as a shell gives it (128 + N for signal N), what happened
    // ("exited with status 0", "was killed by signal 11 (Segmentation fault)"), why nothing was profiled
    // ("" when a step was), and the program's last words: the uncaught exception's traceback when the
    // hook saw one, else (captureOutput) the last lines of its stderr.
    int exitCode() const;
    std::string outcome() const;
    std::string problem() const;
    std::vector<std::string> lastWords() const;

private:
    void run();
    void readLog();
    void handle(const std::string& line);
    void drainOutput(int timeoutMs);

    ProfileConfig m_config;
    std::unique_ptr<TempFolder> m_temp;
    std::string m_folder; // the private folder: hook/ and steps/
    pid_t m_pid = -1;
    int m_outFd = -1, m_errFd = -1; // captureOutput: the program's stdout and stderr
    std::thread m_thread;
    std::atomic<bool> m_finished{false};
    std::atomic<bool> m_stopRequested{false};
    std::atomic<std::uint64_t> m_stepsRead{0};
    int m_status = 0;
    std::uint64_t m_logOffset = 0;
    std::string m_logPartial, m_outPartial, m_errPartial;
    int m_pythons = 0, m_torches = 0;
    std::vector<std::string> m_exception, m_stderrTail;
    mutable std::mutex m_mutex;
    std::vector<ProfiledStep> m_steps;
    std::vector<std::string> m_output, m_notices;
};

// The steps that show a process at work, the one rule for `profile` and the window: a process with
// optimizer steps loses the slices of time before its first one (its start-up: imports, the model built,
// the first iteration run cold), which would otherwise weigh in every figure. Taken step by step, as they
// come (each process's in order): a process's first optimizer step restarts it, the slices kept of it
// before are left out.
class SteadySteps {
public:
    enum class Take {
        Keep,
        Restart,
        LeaveOut
    }; // Restart: keep it, and leave out what was kept of its process
    Take take(const ProfiledStep& step);
    std::size_t leftOut() const { return m_leftOut; } // so far, those a restart dropped included

private:
    std::map<std::string, int> m_firstOptimizer;     // per process: the index of its first optimizer step
    std::map<std::string, std::size_t> m_keptBefore; // per process: slices kept before it
    std::size_t m_leftOut = 0;
};
// The steady steps of a whole list; how many were left out in leftOut. The steps' order is kept.
std::vector<ProfiledStep> steadySteps(const std::vector<ProfiledStep>& steps, std::size_t* leftOut = nullptr);

// A profile's steps so far as a growing document (growing_document.h), for the window's live view and
// the live benchmark: each call appends the steps that came since the last one, so it costs what they hold,
// and a step's trace is let go once it is in. The steps kept are the steady ones (SteadySteps). One
// thread at a time (a worker's).
class ProfileSnapshots {
public:
    explicit ProfileSnapshots(std::string name);
    ~ProfileSnapshots();
    // The steps taken since the last call, in the order they came; the steps so far as a document
    // (complete: no step comes after these, its findings are made on all of them).
    std::shared_ptr<const Document> add(std::vector<ProfiledStep> steps, bool complete = false);
    // The start-up slices left out so far (SteadySteps), for the window's status (read on any thread).
    std::size_t leftOut() const { return m_leftOut; }

private:
    std::string m_name;
    std::unique_ptr<GrowingDocument> m_growing;
    SteadySteps m_steady;
    std::atomic<std::size_t> m_leftOut = 0;
};

// The steps of each process merged into one trace per process, in the order the processes first
// wrote a step (ranks by rank): what `profile -o` writes and the window opens.
struct ProcessTrace {
    std::string process;
    std::optional<std::int64_t> rank;
    std::shared_ptr<const Trace> trace;
    int steps = 0;
};
std::vector<ProcessTrace> mergeProcessSteps(const std::vector<ProfiledStep>& steps);

// Where the trace of a process is written when the profile has several: OUT.json → OUT-rank1.json,
// OUT.pt.trace.json.gz → OUT-rank1.pt.trace.json.gz (the name before its first dot, the label's
// spaces as dashes); with one process, OUT itself.
std::string processOutputPath(const std::string& out, const std::string& process, std::size_t processes);

} // namespace attnscope::kernels
