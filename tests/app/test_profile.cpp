// SPDX-License-Identifier: MIT
// `attnscope profile -- COMMAND` as a user runs it, on real Python programs with the PyTorch of `make
// test` (tests/app/programs/: none of them has a profiler in it): steps arrive while the program runs,
// its stdout, stderr and exit code are its own, Ctrl+C and a crash keep the steps, torchrun's workers
// are ranks, and the transformers example's eager and sdpa attention are found.
#include "support/test_support.h"

#include "core/analysis/analysis.h"
#include "core/document/document.h"
#include "core/io/trace_loader.h"
#include "kernels/program_profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace attnscope;
using namespace attnscope::test;

namespace {

const std::string kPython = ATTNSCOPE_TORCH_PYTHON;
const std::string kPrograms = ATTNSCOPE_SOURCE_DIR "/tests/app/programs/";

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The attnscope binary with stdout and stderr into files of their own, stdin empty; no display; in
// the folder cwd ("": the test's).
pid_t spawnAttnscope(const std::vector<std::string>& args, const std::string& out, const std::string& err,
                     const std::string& cwd = {}) {
    std::vector<std::string> all = {"env", "-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "QT_QPA_PLATFORM"};
    if (!cwd.empty()) all.insert(all.end(), {"-C", cwd});
    all.push_back(ATTNSCOPE_BINARY);
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    // Its own process group, as a command started from a shell is: a signal to it reaches only it.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    const int failed = posix_spawnp(&pid, "env", &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return failed ? -1 : pid;
}

// Its exit code; -2 when it has not ended within the limit (then it and its program are killed, so a
// test that fails does not hang or leave them behind).
int exitCodeOf(pid_t pid, int limitSeconds = 180) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(limitSeconds);
    int status = 0;
    for (;;) {
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (r < 0) return -1;
        if (std::chrono::steady_clock::now() > until) {
            kill(-pid, SIGKILL); // its process group: attnscope and the program it started
            waitpid(pid, &status, 0);
            return -2;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

// Kills a spawned attnscope and its program when a test ends early.
struct Reaper {
    pid_t pid;
    ~Reaper() {
        if (pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0) {
            kill(-pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    }
};

struct Profiled {
    int exitCode = -1;
    std::string out, err, log;
};

Profiled profile(const TempDir& dir, const std::vector<std::string>& options,
                 const std::vector<std::string>& command, const std::string& cwd = {}) {
    std::vector<std::string> args = {"profile", "--log", dir.path("log.txt")};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    Profiled p;
    p.exitCode = exitCodeOf(spawnAttnscope(args, dir.path("stdout.txt"), dir.path("stderr.txt"), cwd));
    p.out = readText(dir.path("stdout.txt"));
    p.err = readText(dir.path("stderr.txt"));
    p.log = readText(dir.path("log.txt"));
    return p;
}

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
        ++n;
    return n;
}

// The attention calls of a saved trace, per implementation.
std::map<std::string, std::size_t> callsByImpl(const std::string& path) {
    const auto doc = openDocument(DocumentSource::file(path));
    std::map<std::string, std::size_t> calls;
    for (const AttentionCall& c : doc->analysis->calls)
        ++calls[c.impl];
    return calls;
}

class Profile : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(std::filesystem::exists(kPython))
            << "no Python with PyTorch at " << kPython << " (make test makes it)";
    }
    TempDir dir;
};

TEST_F(Profile, StepsArriveWhileTheProgramRunsAndItsAttentionIsFound) {
    // The program trains until the test has seen two steps: they can only have come while it ran.
    kernels::ProfileConfig config;
    config.command = {kPython, kPrograms + "train_loop.py", "--gate", dir.path("gate"), "--exit", "3"};
    config.schedule.wait = 0;
    config.schedule.warmup = 1;
    config.schedule.active = 4;
    config.captureOutput = true;
    kernels::ProgramProfile profile(config);
    ASSERT_EQ(profile.start(), "");
    std::vector<kernels::ProfiledStep> steps;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (steps.size() < 2 && !profile.finished() && std::chrono::steady_clock::now() < until) {
        for (auto& s : profile.takeSteps())
            steps.push_back(std::move(s));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_FALSE(profile.finished()) << "the program ended before its steps arrived";
    ASSERT_GE(steps.size(), 2u);
    writeFile(dir.path("gate"), "");
    profile.wait();
    for (auto& s : profile.takeSteps())
        steps.push_back(std::move(s));
    EXPECT_EQ(profile.exitCode(), 3);
    EXPECT_EQ(profile.outcome(), "exited with status 3");
    EXPECT_EQ(profile.problem(), "");
    // Its output was read, every line of it, in order.
    std::string output;
    for (const std::string& line : profile.takeOutput())
        output += line + "\n";
    EXPECT_NE(output.find("iter 0\niter 1\n"), std::string::npos) << output;
    EXPECT_NE(output.find("done\n"), std::string::npos) << output;
    // Steps are the optimizer's once it stepped, numbered in order, the active ones each a step.
    int optimizerSteps = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i].index, int(i));
        EXPECT_EQ(steps[i].process.rfind("pid ", 0), 0u);
        optimizerSteps += steps[i].optimizer;
        // An optimizer step lies between two of the optimizer's steps, each after the one before.
        if (steps[i].optimizer && !steps[i].partial) {
            EXPECT_EQ(steps[i].lastOptimizerStep, steps[i].firstOptimizerStep + 1) << i;
        }
        if (i > 0 && steps[i].optimizer && steps[i - 1].optimizer) {
            EXPECT_EQ(steps[i].firstOptimizerStep, steps[i - 1].lastOptimizerStep) << i;
        }
    }
    // Before the first optimizer step, time; the first optimizer step recorded follows the first and
    // the one warmed up on (--warmup 1).
    EXPECT_FALSE(steps.front().optimizer);
    const auto firstOptimizer =
        std::find_if(steps.begin(), steps.end(), [](const kernels::ProfiledStep& s) { return s.optimizer; });
    ASSERT_NE(firstOptimizer, steps.end());
    EXPECT_EQ(firstOptimizer->firstOptimizerStep, 2);
    EXPECT_GE(optimizerSteps, 2);
    const auto processes = kernels::mergeProcessSteps(steps);
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_EQ(processes.front().steps, int(steps.size()));
    std::uint64_t events = 0;
    for (const auto& s : steps)
        events += s.trace->eventCount();
    EXPECT_EQ(processes.front().trace->eventCount(), events) << "every step's events, once";
    // The hand-written attention of each forward pass is found as naive calls.
    const TraceAnalysis analysis = analyzeTrace(*processes.front().trace);
    std::size_t naive = 0;
    for (const AttentionCall& c : analysis.calls)
        naive += c.impl == "naive";
    EXPECT_GE(naive, std::size_t(optimizerSteps)) << "a forward pass per optimizer step";
}

TEST_F(Profile, TheProgramsStdoutStderrAndExitCodeAreItsOwn) {
    const Profiled p =
        profile(dir, {"-o", dir.path("train.json"), "--wait", "0", "--warmup", "1", "--active", "3"},
                {kPython, kPrograms + "train_loop.py", "--iters", "8", "--exit", "3"});
    EXPECT_EQ(p.exitCode, 3);
    EXPECT_EQ(p.out, "iter 0\niter 1\niter 2\niter 3\niter 4\niter 5\niter 6\niter 7\n");
    // Nothing of AttnScope's, the profiler's or Kineto's in the program's stderr.
    EXPECT_EQ(p.err, "done\n");
    EXPECT_NE(p.log.find("wrote " + dir.path("train.json")), std::string::npos) << p.log;
    EXPECT_EQ(count(p.log, "ended by optimizer step"), 3u) << p.log;
    // Its start-up (before the first optimizer step, a slice of time) is left out of the trace, and said.
    EXPECT_NE(p.log.find("left out 1 time slice before the first optimizer step"), std::string::npos)
        << p.log;
    EXPECT_GE(callsByImpl(dir.path("train.json"))["naive"], 3u);
}

TEST_F(Profile, AProgramWithoutAnOptimizerIsProfiledInSlicesOfTime) {
    const Profiled p = profile(dir, {"-o", dir.path("infer.json"), "--slice", "0.3"},
                               {kPython, kPrograms + "infer_loop.py", "--seconds", "1.5"});
    EXPECT_EQ(p.exitCode, 0);
    EXPECT_EQ(p.out, "ok\n");
    EXPECT_EQ(p.err, "");
    EXPECT_GE(count(p.log, "time slice"), 3u) << p.log;
    EXPECT_EQ(count(p.log, "optimizer step"), 0u) << p.log;
    // SDPA's fused call on the CPU, in every slice the loop ran in.
    EXPECT_GE(callsByImpl(dir.path("infer.json"))["flash"], 3u);
}

// A training loop that runs until interrupted, the signal sent to AttnScope once 3 steps were written:
// the exit code, AttnScope's lines, and the ProfilerStep ranges in the trace written.
struct Interrupted {
    int exitCode = -1;
    std::string log;
    std::size_t profilerSteps = 0;
};
Interrupted interrupt(const TempDir& dir, int signal) {
    Interrupted r;
    const std::string out = dir.path("interrupted.json"), log = dir.path("log.txt");
    const pid_t pid =
        spawnAttnscope({"profile", "-o", out, "--log", log, "--wait", "0", "--warmup", "0", "--active", "1",
                        "--repeat", "0", "--", kPython, kPrograms + "train_loop.py", "--forever"},
                       dir.path("stdout.txt"), dir.path("stderr.txt"));
    Reaper reaper{pid};
    if (pid <= 0) return r;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (count(readText(log), "ended by optimizer step") < 3 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    r.log = readText(log);
    if (count(r.log, "ended by optimizer step") < 3) return r;
    kill(pid, signal); // as a user's Ctrl+C, or a job scheduler's SIGTERM, reaches AttnScope: passed on
    r.exitCode = exitCodeOf(pid);
    r.log = readText(log);
    if (!std::filesystem::exists(out)) return r;
    const auto trace = loadTraceFile(out);
    for (const Track& t : trace->tracks())
        for (std::size_t i = 0; i < t.size(); ++i)
            r.profilerSteps += trace->str(t.events.name[i]).rfind("ProfilerStep#", 0) == 0;
    return r;
}

TEST_F(Profile, CtrlCKeepsTheStepsCapturedSoFar) {
    const Interrupted r = interrupt(dir, SIGINT);
    EXPECT_EQ(r.exitCode, 128 + SIGINT) << "the program ended by the interrupt, as without AttnScope\n"
                                        << r.log;
    EXPECT_NE(r.log.find("wrote " + dir.path("interrupted.json")), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("| KeyboardInterrupt"), std::string::npos) << r.log;
    EXPECT_GE(r.profilerSteps, 3u);
}

TEST_F(Profile, SigtermEndsTheProgramAsItWouldAndKeepsTheSteps) {
    const Interrupted r = interrupt(dir, SIGTERM);
    EXPECT_EQ(r.exitCode, 128 + SIGTERM) << "the program ended by SIGTERM, as without AttnScope\n" << r.log;
    EXPECT_NE(r.log.find("was killed by SIGTERM (Terminated)"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("wrote " + dir.path("interrupted.json")), std::string::npos) << r.log;
    EXPECT_GE(r.profilerSteps, 3u);
}

TEST_F(Profile, ACrashingProgramKeepsItsStepsAndItsError) {
    const Profiled p =
        profile(dir, {"-o", dir.path("crash.json"), "--wait", "0", "--warmup", "0", "--active", "2"},
                {kPython, kPrograms + "train_loop.py", "--crash", "4"});
    EXPECT_EQ(p.exitCode, 1);
    EXPECT_NE(p.err.find("RuntimeError: boom at iteration 4"), std::string::npos) << "its traceback, its own";
    EXPECT_NE(p.log.find("| RuntimeError: boom at iteration 4"), std::string::npos) << p.log;
    EXPECT_NE(p.log.find("wrote " + dir.path("crash.json")), std::string::npos) << p.log;
    EXPECT_GE(callsByImpl(dir.path("crash.json"))["naive"], 2u);
}

TEST_F(Profile, AProgramWithoutPyTorchIsToldSo) {
    Profiled p = profile(dir, {"-o", dir.path("echo.json")}, {"/bin/echo", "hi"});
    EXPECT_EQ(p.exitCode, 0);
    EXPECT_EQ(p.out, "hi\n");
    EXPECT_NE(p.log.find("'echo' did not run Python"), std::string::npos) << p.log;
    EXPECT_FALSE(std::filesystem::exists(dir.path("echo.json")));

    p = profile(dir, {"-o", dir.path("json.json")}, {kPython, kPrograms + "no_torch.py"});
    EXPECT_EQ(p.exitCode, 0);
    EXPECT_EQ(p.out, "{\"hello\": \"world\"}\n");
    EXPECT_NE(p.log.find("never imported torch"), std::string::npos) << p.log;

    // A typo in the script's name: Python fails before it imports torch, and that is what is said; a
    // trace already there is not overwritten, and that is said too.
    writeFile(dir.path("old.json"), "{}");
    p = profile(dir, {"-o", dir.path("old.json")}, {kPython, kPrograms + "no_such_script.py"});
    EXPECT_EQ(p.exitCode, 2);
    EXPECT_NE(p.log.find("the program exited with status 2 before it imported torch"), std::string::npos)
        << p.log;
    EXPECT_NE(p.log.find("old.json was not written: the file there is from before"), std::string::npos)
        << p.log;
    EXPECT_EQ(readText(dir.path("old.json")), "{}");

    p = profile(dir, {"-o", dir.path("none.json")}, {"attnscope-no-such-program"});
    EXPECT_EQ(p.exitCode, 127);
    EXPECT_NE(p.err.find("'attnscope-no-such-program': command not found"), std::string::npos) << p.err;
}

TEST_F(Profile, AProgramWithItsOwnProfilerKeepsItAndAttnScopeStepsAside) {
    const Profiled p =
        profile(dir, {"-o", dir.path("ours.json"), "--wait", "0", "--warmup", "0", "--active", "5"},
                {kPython, kPrograms + "own_profiler.py", dir.path("theirs.json")});
    EXPECT_EQ(p.exitCode, 0) << p.err;
    EXPECT_EQ(p.out, "exported True\n"); // its profiler recorded its ops, as without AttnScope
    EXPECT_NE(p.log.find("started its own torch.profiler"), std::string::npos) << p.log;
    const auto theirs = loadTraceFile(dir.path("theirs.json"));
    EXPECT_GT(theirs->eventCount(), 50u);
    // What AttnScope recorded before: the two optimizer steps' time before the program's profiler.
    EXPECT_TRUE(std::filesystem::exists(dir.path("ours.json"))) << p.log;
}

TEST_F(Profile, TorchrunWorkersAreTheRanksOfOneJob) {
    const std::string torchrun = std::filesystem::path(kPython).parent_path() / "torchrun";
    const Profiled p =
        profile(dir, {"-o", dir.path("job.json"), "--wait", "0", "--warmup", "1", "--active", "2"},
                {torchrun, "--nproc-per-node", "2", kPrograms + "ddp_loop.py"});
    EXPECT_EQ(p.exitCode, 0) << p.err;
    EXPECT_NE(p.out.find("rank 0 done"), std::string::npos);
    EXPECT_NE(p.out.find("rank 1 done"), std::string::npos);
    EXPECT_NE(p.log.find("is not profiled: torchrun's launcher"), std::string::npos) << p.log;
    const std::vector<std::string> ranks = {dir.path("job-rank-0.json"), dir.path("job-rank-1.json")};
    for (const std::string& r : ranks)
        ASSERT_TRUE(std::filesystem::exists(r)) << p.log;
    const auto doc = openDocument(DocumentSource::ranks(ranks));
    ASSERT_TRUE(doc->ranks);
    ASSERT_EQ(doc->ranks->ranks.size(), 2u);
    EXPECT_EQ(doc->ranks->ranks[0].rank, 0);
    EXPECT_EQ(doc->ranks->ranks[1].rank, 1);
}

TEST_F(Profile, TheTransformersExampleFindsEagersHandWrittenAttentionAndSdpasFusedCalls) {
    const std::vector<std::string> small = {"--layers", "1",  "--hidden", "64", "--heads",   "2",
                                            "--seq",    "64", "--steps",  "6",  "--threads", "1"};
    std::map<std::string, std::map<std::string, std::size_t>> found;
    for (const std::string attn : {"eager", "sdpa"}) {
        std::vector<std::string> command = {kPython, ATTNSCOPE_SOURCE_DIR "/examples/hf_attention.py",
                                            "--attn", attn};
        command.insert(command.end(), small.begin(), small.end());
        const Profiled p = profile(
            dir, {"-o", dir.path(attn + ".json"), "--wait", "0", "--warmup", "1", "--active", "3"}, command);
        ASSERT_EQ(p.exitCode, 0) << p.err;
        EXPECT_NE(p.out.find("step 5:"), std::string::npos) << p.out;
        found[attn] = callsByImpl(dir.path(attn + ".json"));
    }
    // One attention a layer a forward pass, three steps of one layer: eager's as naive calls (its matmul,
    // softmax, matmul), sdpa's as SDPA's fused call, neither as the other, and the backward passes (the
    // softmax's backward between its gradients' GEMMs, flash's backward op) as no call of their own.
    EXPECT_EQ(found["eager"]["naive"], 3u);
    EXPECT_EQ(found["eager"]["flash"], 0u);
    EXPECT_EQ(found["sdpa"]["flash"], 3u);
    EXPECT_EQ(found["sdpa"]["naive"], 0u);
}

TEST(ProfileOutput, ProcessesComeInRankOrderEachWithItsStepsInOrder) {
    // Steps as they may arrive: rank 1's first, a process's steps out of order.
    auto step = [](const std::string& process, std::int64_t rank, int index) {
        kernels::ProfiledStep s;
        s.process = process;
        s.rank = rank;
        s.index = index;
        s.trace =
            loadText(R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"step)" + std::to_string(index) +
                     R"(","pid":1,"tid":1,"ts":)" + std::to_string(10 * (index + 1)) + R"(,"dur":5}]})");
        return s;
    };
    const auto merged = kernels::mergeProcessSteps(
        {step("rank 1", 1, 1), step("rank 1", 1, 0), step("rank 0", 0, 0), step("rank 0", 0, 1)});
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].process, "rank 0");
    EXPECT_EQ(merged[1].process, "rank 1");
    for (const auto& p : merged) {
        EXPECT_EQ(p.steps, 2);
        EXPECT_EQ(p.trace->eventCount(), 2u);
    }
    EXPECT_TRUE(kernels::mergeProcessSteps({}).empty());
}

TEST_F(Profile, WithoutAFileNamedTheTraceIsTheNextFreeProfileN) {
    std::filesystem::create_directories(dir.path("here"));
    writeFile(dir.path("here/profile1.pt.trace.json"), "{}");
    writeFile(dir.path("here/profile2-rank-0.pt.trace.json"), "{}");
    const Profiled p = profile(dir, {"--slice", "0.2"},
                               {kPython, kPrograms + "infer_loop.py", "--seconds", "0.6"}, dir.path("here"));
    EXPECT_EQ(p.exitCode, 0) << p.err;
    EXPECT_NE(p.log.find("wrote profile3.pt.trace.json"), std::string::npos) << p.log;
    EXPECT_TRUE(std::filesystem::exists(dir.path("here/profile3.pt.trace.json")));
    EXPECT_EQ(readText(dir.path("here/profile1.pt.trace.json")), "{}"); // never over an existing file
}

TEST(ProfileOutput, StartUpSlicesBeforeTheFirstOptimizerStepAreLeftOut) {
    auto step = [](const std::string& process, int index, bool optimizer) {
        kernels::ProfiledStep s;
        s.process = process;
        s.index = index;
        s.optimizer = optimizer;
        return s;
    };
    std::size_t leftOut = 0;
    const auto kept =
        kernels::steadySteps({step("pid 1", 0, false), step("pid 2", 0, false), step("pid 1", 1, false),
                              step("pid 1", 2, true), step("pid 2", 1, false), step("pid 1", 3, true)},
                             &leftOut);
    EXPECT_EQ(leftOut, 2u); // pid 1's two slices; pid 2 has no optimizer: its slices are its steps
    std::vector<std::pair<std::string, int>> order;
    for (const auto& s : kept)
        order.emplace_back(s.process, s.index);
    EXPECT_EQ(order, (std::vector<std::pair<std::string, int>>{
                         {"pid 2", 0}, {"pid 1", 2}, {"pid 2", 1}, {"pid 1", 3}}));
    // Taken one at a time, as the window takes them, the same rule: the restart leaves out what it had
    // kept of pid 1, and a late slice before its first optimizer step is left out too.
    kernels::SteadySteps live;
    using Take = kernels::SteadySteps::Take;
    EXPECT_EQ(live.take(step("pid 1", 0, false)), Take::Keep);
    EXPECT_EQ(live.take(step("pid 1", 1, false)), Take::Keep);
    EXPECT_EQ(live.take(step("pid 2", 0, false)), Take::Keep);
    EXPECT_EQ(live.leftOut(), 0u);
    EXPECT_EQ(live.take(step("pid 1", 3, true)), Take::Restart);
    EXPECT_EQ(live.leftOut(), 2u);
    EXPECT_EQ(live.take(step("pid 1", 2, false)), Take::LeaveOut);
    EXPECT_EQ(live.take(step("pid 1", 4, false)), Take::Keep);
    EXPECT_EQ(live.leftOut(), 3u);
}

TEST(ProfileOutput, EachProcessHasAFileOfItsOwnWhenThereAreSeveral) {
    EXPECT_EQ(kernels::processOutputPath("out/job.json", "rank 1", 1), "out/job.json");
    EXPECT_EQ(kernels::processOutputPath("out/job.json", "rank 1", 2), "out/job-rank-1.json");
    EXPECT_EQ(kernels::processOutputPath("a.b/job.pt.trace.json.gz", "pid 7", 3),
              "a.b/job-pid-7.pt.trace.json.gz");
    EXPECT_EQ(kernels::processOutputPath("job", "rank 0", 2), "job-rank-0");
}

} // namespace
