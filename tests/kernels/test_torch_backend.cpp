// SPDX-License-Identifier: MIT
// The PyTorch backend against the real thing: the Python of the virtual environment `make test`
// makes (PyTorch from PyPI), on the CPU at a small shape. And what a user sees when Python or torch
// is missing, broken or dies.
#include "support/run_to_end.h"
#include "support/test_support.h"

#include "kernels/attention.h"
#include "kernels/run_session.h"
#include "kernels/torch_backend.h"

#include "core/analysis/analysis.h"
#include "core/io/chrome_writer.h"
#include "core/io/trace_loader.h"
#include "core/report/findings.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sys/stat.h>
#include <thread>

using namespace attnscope;
using namespace attnscope::kernels;
using namespace attnscope::test;

namespace {

// The Python with PyTorch: `make test` creates it (build/torch-venv); a missing one fails the tests
// that need it, with how to make it.
std::string torchPython() {
    const std::string python = ATTNSCOPE_TORCH_PYTHON;
    return std::filesystem::exists(python) ? python : std::string();
}

#define REQUIRE_TORCH(python)                                                                                \
    const std::string python = torchPython();                                                                \
    ASSERT_FALSE(python.empty()) << "no Python with PyTorch at " ATTNSCOPE_TORCH_PYTHON                      \
                                    " (make test creates it: python3 -m venv build/torch-venv && "           \
                                    "build/torch-venv/bin/pip install torch)"

RunConfig smallRun(const std::string& python, std::vector<std::string> impls) {
    RunConfig c;
    c.backend = Backend::Torch;
    c.python = python;
    c.impls = std::move(impls);
    c.shape.batch = 1;
    c.shape.heads = 2;
    c.shape.seq = 128;
    c.shape.dim = 32;
    c.warmup = 1;
    c.iters = 2;
    c.threads = 1;
    return c;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines)
        out += l + "\n";
    return out;
}

// A stand-in for Python: a shell script.
std::string fakePython(const TempDir& dir, const std::string& body) {
    const std::string path = dir.path("python");
    writeFile(path, "#!/bin/sh\n" + body + "\n");
    chmod(path.c_str(), 0755);
    return path;
}

} // namespace

TEST(TorchBackend, NaiveMathAndFlashArriveLiveWithRolesCostsAndFindings) {
    REQUIRE_TORCH(python);
    const RunConfig config = smallRun(python, {"naive", "math", "flash", "efficient"});
    ASSERT_EQ(checkRunConfig(config), "");
    RunSession session(config);
    bool live = false;
    const std::vector<RunEvent> events = runToEnd(session, &live);
    ASSERT_EQ(session.error(), "");
    EXPECT_TRUE(live) << "each step is handed over as it finishes, not at the end";
    const std::string notices = joined(session.takeNotices());
    EXPECT_NE(notices.find("PyTorch "), std::string::npos) << notices;
    // The memory-efficient backend is CUDA's: PyTorch's reason, and the others still ran.
    EXPECT_NE(notices.find("efficient: not available here: "), std::string::npos) << notices;

    // run's table: time per call and kernels per call (on the CPU: the aten:: ops that did the work).
    std::map<std::string, ImplStats> stats;
    for (ImplStats& st : runStats(config, events))
        stats[st.impl] = st;
    for (const char* impl : {"naive", "math", "flash"})
        EXPECT_EQ(stats[impl].callMs.size(), 2u) << impl;
    EXPECT_TRUE(stats["efficient"].callMs.empty());
    EXPECT_EQ(session.unavailable().count("efficient"), 1u);
    EXPECT_EQ(session.unavailable().size(), 1u);
    EXPECT_EQ(stats["flash"].kernelsPerCall, 1.0);
    EXPECT_GE(stats["naive"].kernelsPerCall, 4.0); // QKᵀ, scale, softmax, PV
    EXPECT_GT(stats["math"].kernelsPerCall, stats["naive"].kernelsPerCall)
        << "the math backend also scales Q and K and guards the softmax";

    // The run as a trace: the analysis sees each implementation's calls, costs from the ops' shapes.
    const auto trace = buildRunTrace(events, Backend::Torch, session.deviceName());
    EXPECT_GT(trace->info().opKernels, 0u);
    const TraceAnalysis a = analyzeTrace(*trace);
    std::map<std::string, int> calls;
    for (const AttentionCall& c : a.calls)
        ++calls[c.impl];
    // The measured calls, as run's table counts them: 2 of each (the warm-up call's kernels keep their roles,
    // outside any call).
    EXPECT_EQ(calls,
              (std::map<std::string, int>{{"naive", 2}, {std::string(kSdpaMathImpl), 2}, {"flash", 2}}));
    // In rounds, one call of each a round, a round's first turning: run one implementation's calls after
    // another, the first to run paid for what the process had not yet warmed and a saving between two
    // was partly their order's.
    ASSERT_EQ(a.calls.size(), 6u);
    for (std::size_t round = 0; round < 2; ++round) {
        std::set<std::string> in;
        for (std::size_t i = 0; i < 3; ++i)
            in.insert(a.calls[3 * round + i].impl);
        EXPECT_EQ(in.size(), 3u) << "round " << round;
    }
    EXPECT_NE(a.calls[0].impl, a.calls[3].impl) << "each round starts with another implementation";
    const double qkFlops = kernelCost(config.shape, KernelRole::QkGemm).flops;
    const double fusedFlops = kernelCost(config.shape, KernelRole::FusedAttention).flops;
    int qk = 0, fused = 0;
    for (const KernelAnalysis& k : a.kernels) {
        if (k.role == KernelRole::QkGemm) {
            ++qk;
            EXPECT_EQ(k.cost, CostSource::Inferred);
            EXPECT_DOUBLE_EQ(k.flops, qkFlops);
        }
        if (k.role == KernelRole::FusedAttention) {
            ++fused;
            EXPECT_DOUBLE_EQ(k.flops, fusedFlops);
        }
    }
    EXPECT_EQ(qk, 6);
    EXPECT_EQ(fused, 3);

    // Findings: hand-written attention on naive (its 2 calls; its places are their score kernels), the
    // math fallback on math (a place per call), nothing of it on flash.
    std::map<std::string, const Finding*> found;
    const std::vector<Finding> all = findFindings({*trace, a});
    for (const Finding& f : all)
        found[f.id] = &f;
    ASSERT_TRUE(found.count("hand_written_attention"));
    EXPECT_NE(found["hand_written_attention"]->title.find(": 2 calls materialize"), std::string::npos)
        << found["hand_written_attention"]->title;
    ASSERT_TRUE(found.count("sdpa_math_fallback"));
    EXPECT_EQ(found["sdpa_math_fallback"]->count, 2u);
}

TEST(TorchBackend, TheSavedRunIsAnOrdinaryKinetoTrace) {
    REQUIRE_TORCH(python);
    const RunConfig config = smallRun(python, {"naive", "flash"});
    RunSession session(config);
    const std::vector<RunEvent> events = runToEnd(session);
    ASSERT_EQ(session.error(), "");
    const auto trace = buildRunTrace(events, Backend::Torch, session.deviceName());
    const TempDir dir;
    writeChromeTrace(*trace, dir.path("run.json"));
    const auto reopened = loadTraceFile(dir.path("run.json"));
    EXPECT_EQ(reopened->info().opKernels, trace->info().opKernels);
    // PyTorch's own events as it recorded them: its ops with their input shapes, no AttnScope args.
    const auto bmm = findEvent(*reopened, "aten::bmm");
    ASSERT_TRUE(bmm);
    EXPECT_NE(reopened->argsJson(*bmm).find("\"Input Dims\":[[2, 128, 32], [2, 32, 128]]"), std::string::npos)
        << reopened->argsJson(*bmm);
    EXPECT_EQ(reopened->argsJson(*bmm).find("\"role\""), std::string::npos);
    EXPECT_EQ(analyzeTrace(*reopened).calls.size(), analyzeTrace(*trace).calls.size());
}

TEST(TorchBackend, StopEndsThePythonProcessAndKeepsWhatArrived) {
    REQUIRE_TORCH(python);
    RunConfig config = smallRun(python, {"flash"});
    config.iters = 10000;
    RunSession session(config);
    session.start();
    std::vector<RunEvent> events;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (events.empty() && std::chrono::steady_clock::now() < deadline) {
        events = session.takeEvents();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_FALSE(events.empty());
    const auto stopAt = std::chrono::steady_clock::now();
    session.stop();
    session.wait();
    EXPECT_LT(std::chrono::steady_clock::now() - stopAt, std::chrono::seconds(10));
    EXPECT_EQ(session.error(), "") << "a stop is not a failure";
    EXPECT_LT(runStats(config, events).front().callMs.size(), 10000u);
}

TEST(TorchBackend, ABadImplementationIsRefusedBeforeAnythingStarts) {
    RunConfig config = smallRun("python3", {"naive", "flashy"});
    EXPECT_EQ(checkRunConfig(config), "unknown implementation 'flashy' (the PyTorch backend has: naive, "
                                      "naive_inplace, math, flash, efficient, cudnn, flash_bf16)");
    std::string notice;
    config.impls = {"naive"};
    EXPECT_EQ(chooseBackend(config, BackendChoice::Torch, notice), "");
    EXPECT_EQ(config.backend, Backend::Torch);
}

TEST(TorchBackend, NoPythonIsOneClearLine) {
    const TempDir dir;
    RunSession session(smallRun(dir.path("no-such-python"), {"naive"}));
    runToEnd(session);
    EXPECT_EQ(session.error().rfind("no Python: '" + dir.path("no-such-python") + "' was not found", 0), 0u)
        << session.error();
}

// With no --python and no ATTNSCOPE_PYTHON, the Python `make test` installed PyTorch into is found beside
// the program (build/attnscope, or build/dev/attnscope: build/torch-venv), not the system's python3 that
// lacks it; a folder without one is not taken, nor a file that is not executable.
TEST(TorchBackend, TheVenvBesideTheProgramIsItsPython) {
    const TempDir dir;
    std::filesystem::create_directories(dir.path("build/dev"));
    EXPECT_EQ(pythonBeside(dir.path("build/dev/attnscope")), "");
    std::filesystem::create_directories(dir.path("build/torch-venv/bin"));
    const std::string python = dir.path("build/torch-venv/bin/python");
    writeFile(python, "#!/bin/sh\n");
    EXPECT_EQ(pythonBeside(dir.path("build/dev/attnscope")), "") << "not executable";
    chmod(python.c_str(), 0755);
    EXPECT_EQ(pythonBeside(dir.path("build/dev/attnscope")), python);
    EXPECT_EQ(pythonBeside(dir.path("build/attnscope")), python);
    EXPECT_EQ(pythonBeside(dir.path("elsewhere/bin/attnscope")), "");
    EXPECT_EQ(pythonToRun("/chosen/python"), "/chosen/python"); // a chosen one always wins
}

TEST(TorchBackend, ATorchThatFailsToImportIsOneClearLine) {
    // A real Python whose torch raises on import (a broken install).
    const TempDir dir;
    std::filesystem::create_directories(dir.path("site/torch"));
    writeFile(dir.path("site/torch/__init__.py"),
              "raise ImportError('libtorch_cpu.so: cannot open shared object')\n");
    const std::string python = fakePython(dir, "PYTHONPATH=" + dir.path("site") + " exec python3 \"$@\"");
    RunSession session(smallRun(python, {"naive"}));
    runToEnd(session);
    EXPECT_NE(
        session.error().find("torch could not be imported: ImportError: libtorch_cpu.so: cannot open shared "
                             "object"),
        std::string::npos)
        << session.error();
}

TEST(TorchBackend, ARunnerThatDiesIsAnErrorAndWhatArrivedStays) {
    REQUIRE_TORCH(python);
    // The real runner up to its first step, then the process is killed as a crash would end it.
    const TempDir dir;
    const std::string wrapper =
        fakePython(dir, "\"" + python +
                            "\" \"$@\" | { while IFS= read -r line; do echo \"$line\"; "
                            "case \"$line\" in *'\"step\"'*) break;; esac; done; "
                            "echo 'Fatal Python error: Segmentation fault' >&2; "
                            "kill -9 $$ $(pgrep -P $$); }");
    RunConfig config = smallRun(wrapper, {"flash"});
    config.iters = 10000;
    RunSession session(config);
    const std::vector<RunEvent> events = runToEnd(session);
    EXPECT_NE(session.error().find("was killed by signal 9 before the run finished: "), std::string::npos)
        << session.error();
    // The last lines it wrote to stderr say why.
    EXPECT_NE(session.error().find("Fatal Python error: Segmentation fault"), std::string::npos)
        << session.error();
    EXPECT_FALSE(events.empty()) << "the step that arrived before the crash stays";
}

// What a PyTorch run on a GPU hands over, without a GPU: a real H100 Kineto trace (PyTorch's SDPA
// flash backend) taken as two steps of a run. Each step's kernels keep their launch links (the
// correlation ids of two files never meet), their streams and the device's roofs.
TEST(TorchBackend, GpuStepsKeepTheirStreamsLaunchLinksAndDevice) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto step = loadTraceFile(path);
    std::size_t kernels = 0, launched = 0;
    for (const Track& t : step->tracks())
        for (std::uint32_t i = 0; i < t.size(); ++i)
            if (isKernelEvent(*step, t, i)) {
                ++kernels;
                if (step->launchOf({TrackId(std::uint32_t(&t - step->tracks().data())), i})) ++launched;
            }
    ASSERT_GT(launched, 1000u);
    std::vector<RunEvent> events = stepEvents(*step, step->startNs(), "flash", 0, false, 0);
    const std::vector<RunEvent> second =
        stepEvents(*step, step->startNs() - 1000000000, "flash", 1, false, 1);
    events.insert(events.end(), second.begin(), second.end());
    const auto run = buildRunTrace(events, Backend::Torch, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(run->info().opKernels, 0u) << "a trace with GPU kernels keeps them as its kernels";
    std::size_t runKernels = 0, runLaunched = 0, sameStep = 0;
    for (std::uint32_t ti = 0; ti < run->tracks().size(); ++ti) {
        const Track& t = run->tracks()[ti];
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (!isKernelEvent(*run, t, i)) continue;
            ++runKernels;
            const auto launch = run->launchOf({TrackId(ti), i});
            if (!launch) continue;
            ++runLaunched;
            // The second step lies a second later: a kernel's launch is in its own step.
            const bool late = t.events.start[i] >= 1000000000;
            const bool launchLate = run->track(launch->track).events.start[launch->index] >= 1000000000;
            sameStep += late == launchLate;
        }
    }
    EXPECT_EQ(runKernels, 2 * kernels);
    EXPECT_EQ(runLaunched, 2 * launched);
    EXPECT_EQ(sameStep, runLaunched);
    // Its GPU as PyTorch numbered it, a track per stream, and the H100's roofs for the roofline.
    bool stream7 = false;
    for (std::uint32_t ti = 0; ti < run->tracks().size(); ++ti)
        stream7 = stream7 || run->trackLabel(TrackId(ti)) == "GPU 0 · stream 7";
    EXPECT_TRUE(stream7);
    const TraceAnalysis a = analyzeTrace(*run);
    ASSERT_TRUE(a.device);
    EXPECT_NE(a.deviceNote.find("H100"), std::string::npos) << a.deviceNote;
    std::size_t flash = 0;
    for (const AttentionCall& c : a.calls)
        flash += c.impl == "flash";
    EXPECT_GT(flash, 0u);
}

// What the runner prints is read defensively: a stray line, a field of the wrong type and a step file
// outside the runner's own folder are ignored — that file is neither read nor removed.
TEST(TorchBackend, TheRunnersLinesAreReadDefensively) {
    const TempDir dir;
    writeFile(dir.path("precious.json"), "{\"traceEvents\":[]}");
    const std::string python =
        fakePython(dir, "echo 'a stray print'\n"
                        "echo '{\"event\":\"step\",\"impl\":\"flash\",\"call\":\"zero\",\"trace\":\"x\"}'\n"
                        "echo '{\"event\":\"step\",\"impl\":\"flash\",\"call\":0,\"trace\":\"" +
                            dir.path("precious.json") +
                            "\"}'\n"
                            "echo '{\"event\":\"finished\",\"stopped\":false}'");
    RunSession session(smallRun(python, {"flash"}));
    const std::vector<RunEvent> events = runToEnd(session);
    EXPECT_EQ(session.error(), "");
    EXPECT_TRUE(events.empty());
    EXPECT_TRUE(std::filesystem::exists(dir.path("precious.json")));
}
