// SPDX-License-Identifier: MIT
// The run session with the CPU backend: what it records, stopping it, bad configurations, and the
// trace and statistics made from a run (what the analysis and findings make of it: test_run_analysis.cpp).
#include "core/io/trace_append.h"
#include "kernels/run_session.h"

#include "kernels/cuda_backend.h"

#include "core/analysis/analysis.h"
#include "core/io/chrome_writer.h"
#include "support/run_to_end.h"
#include "support/test_support.h"

#include "core/report/summary.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

using namespace attnscope;
using namespace attnscope::kernels;
using attnscope::test::loadText;
using attnscope::test::runToEnd;

namespace {

RunConfig smallRun() {
    RunConfig c;
    c.shape = {1, 4, 96, 32, false, Precision::F32};
    c.warmup = 1;
    c.iters = 2;
    c.threads = 2;
    return c;
}

} // namespace

TEST(RunSession, RecordsEveryKernelOfEveryCallPerWorker) {
    RunSession session(smallRun());
    const std::vector<RunEvent> events = runToEnd(session);
    // naive: 3 kernels × 2 workers × 3 calls; flash: 1 × 2 × 3; 6 call ranges; 3 memory events (the
    // inputs, naive's scores allocated and freed).
    ASSERT_EQ(events.size(), 18u + 6u + 6u + 3u);
    EXPECT_EQ(session.recorded(), events.size());
    std::map<std::string, int> byName;
    for (const RunEvent& e : events) {
        ++byName[e.name];
        EXPECT_LE(e.startNs, e.endNs);
        if (e.category == "kernel") {
            EXPECT_TRUE(e.track == 0 || e.track == 1);
            EXPECT_FALSE(e.role.empty());
        } else if (e.name == "[memory]") {
            EXPECT_EQ(e.category, "cpu_instant_event");
        } else {
            EXPECT_EQ(e.category, "user_annotation");
            EXPECT_EQ(e.track, -1);
        }
    }
    EXPECT_EQ(byName["naive_qk_gemm"], 6);
    EXPECT_EQ(byName["naive_softmax"], 6);
    EXPECT_EQ(byName["naive_pv_gemm"], 6);
    EXPECT_EQ(byName["flash_attention_fwd"], 6);
    EXPECT_EQ(byName["naive attention"], 3);
    EXPECT_EQ(byName["flash attention"], 3);
}

TEST(RunSession, StatsLeaveOutWarmupAndAddUpRoles) {
    const RunConfig config = smallRun();
    RunSession session(config);
    const auto stats = runStats(config, runToEnd(session));
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0].impl, "naive");
    ASSERT_EQ(stats[0].callMs.size(), 2u);
    ASSERT_EQ(stats[0].roleMs.size(), 3u);
    EXPECT_EQ(stats[0].roleMs[0].first, "qk_gemm");
    double roles = 0;
    for (const auto& [role, ms] : stats[0].roleMs)
        roles += ms;
    // The three kernels run one after the other inside the call (how much of the call they fill
    // depends on the machine's load: at this size waking the workers is a good part of it).
    EXPECT_LE(roles, stats[0].meanMs() * 1.001);
    for (const auto& [role, ms] : stats[0].roleMs)
        EXPECT_GT(ms, 0) << role;
    ASSERT_EQ(stats[1].roleMs.size(), 1u);
    EXPECT_EQ(stats[1].roleMs[0].first, "fused_attention");
    EXPECT_DOUBLE_EQ(stats[1].flopsPerCall, 4.0 * 4 * 96 * 96 * 32);
    EXPECT_GT(stats[1].gflops(), 0);
}

// The run's statistics and its trace's analysis count the same calls, warm-up apart, and the same time a
// call: its kernels' wall time, the workers' shares at once counted once (never their sum).
TEST(RunSession, TheTraceCountsTheMeasuredCallsAndTheirWallTime) {
    const RunConfig config = smallRun();
    ASSERT_GT(config.warmup, 0);
    RunSession session(config);
    const auto events = runToEnd(session);
    const auto stats = runStats(config, events);
    const auto trace = buildRunTrace(events);
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_EQ(stats.size(), 2u);
    ASSERT_EQ(a.tables.implCalls.size(), 2u);
    for (const ImplCalls& impl : a.tables.implCalls) {
        const auto st =
            std::find_if(stats.begin(), stats.end(), [&](const auto& s) { return s.impl == impl.impl; });
        ASSERT_NE(st, stats.end()) << impl.impl;
        EXPECT_EQ(impl.calls, st->callMs.size()) << impl.impl;
        // The kernels' time a call is within the call's measured time, as the run's own table says.
        EXPECT_LE(double(impl.kernelNsPerCall()) / 1e6, st->meanMs() * 1.001) << impl.impl;
        TimeNs summed = 0;
        for (TimeNs ns : impl.verdictNs)
            summed += ns;
        EXPECT_LE(impl.kernelNs, summed) << impl.impl; // the workers' shares at once are counted once
    }
}

// A preset's variants run one after another, each case named "impl variant" in the statistics and
// on the trace's calls, with its own shape's FLOPs; what cannot run names its case.
TEST(RunSession, VariantsRunInTurnUnderTheirOwnNames) {
    RunConfig config = smallRun();
    AttentionShape decode = config.shape;
    decode.seq = 1;
    decode.kvLen = 700;
    decode.kvHeads = 1;
    config.variants = {{"prefill", config.shape, {"naive", "flash"}}, {"decode", decode, {"flash"}}};
    ASSERT_EQ(checkRunConfig(config), "");
    RunSession session(config);
    const auto events = runToEnd(session);
    const auto stats = runStats(config, events);
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_EQ(stats[0].impl, "naive prefill");
    EXPECT_EQ(stats[1].impl, "flash prefill");
    EXPECT_EQ(stats[2].impl, "flash decode");
    // 4·H·pairs·D: the prefill's 96² pairs, the decode step's 700 keys for each of its 4 heads.
    EXPECT_DOUBLE_EQ(stats[1].flopsPerCall, 4.0 * 4 * 96 * 96 * 32);
    EXPECT_DOUBLE_EQ(stats[2].flopsPerCall, 4.0 * 4 * 700 * 32);
    std::set<std::string> kernels;
    for (const RunEvent& e : events)
        if (e.category == "kernel" && e.impl == "flash decode") kernels.insert(e.name);
    EXPECT_EQ(kernels, (std::set<std::string>{"flash_decode_fwd"}));
    EXPECT_EQ(stats[2].callMs.size(), 2u);

    config.variants[1].shape.kvHeads = 3;
    EXPECT_EQ(checkRunConfig(config),
              "flash decode: kv-heads (3) must divide heads (4): each K/V head serves the "
              "same number of query heads");
    config.backend = Backend::Cuda;
    EXPECT_EQ(checkRunConfig(config),
              "presets run on AttnScope's CPU backend (choose Custom for the CUDA backend)");
    for (const RunPreset& preset : runPresets()) {
        RunConfig c;
        c.variants = preset.variants;
        EXPECT_EQ(checkRunConfig(c), "") << preset.key;
        EXPECT_EQ(findRunPreset(preset.key), &preset);
    }
}

TEST(RunSession, StopEndsTheRunAfterTheCallUnderWay) {
    RunConfig config = smallRun();
    config.iters = 10000;
    config.warmup = 0;
    config.shape.seq = 256;
    RunSession session(config);
    session.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto asked = std::chrono::steady_clock::now();
    session.stop();
    session.wait();
    EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(1));
    EXPECT_TRUE(session.finished());
    // Some calls ran, nowhere near all of them (10 000 naive calls would record 90 000 events).
    EXPECT_GT(session.recorded(), 0u);
    EXPECT_LT(session.recorded(), 9000u);
}

TEST(RunSession, DestroyingARunningSessionStopsIt) {
    RunConfig config = smallRun();
    config.iters = 10000;
    auto session = std::make_unique<RunSession>(config);
    session->start();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto t0 = std::chrono::steady_clock::now();
    session.reset();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(RunSession, BadConfigurationsSayWhy) {
    RunConfig c = smallRun();
    EXPECT_EQ(checkRunConfig(c), "");
    c.impls = {"naive", "fancy"};
    EXPECT_NE(checkRunConfig(c).find("unknown implementation 'fancy'"), std::string::npos);
    c = smallRun();
    c.shape.dim = 0;
    EXPECT_NE(checkRunConfig(c).find("shape out of range"), std::string::npos);
    c = smallRun();
    c.shape = {64, 64, 65536, 128, false, Precision::F32}; // N×N scores alone: 64·64·65536²·4 bytes
    EXPECT_NE(checkRunConfig(c).find("out of memory at this shape"), std::string::npos) << checkRunConfig(c);
    c = smallRun();
    c.iters = 0;
    EXPECT_NE(checkRunConfig(c).find("iterations"), std::string::npos);
}

TEST(RunSession, ARunIsATraceLikeAnyOther) {
    const RunConfig config = smallRun();
    RunSession session(config);
    const auto events = runToEnd(session);
    const auto trace = buildRunTrace(events);
    const TraceSummary s = summarize(*trace, 0);
    EXPECT_EQ(s.kernelCount, 24u);
    ASSERT_EQ(s.topKernels.size(), 4u);
    // Tracks: the calls and one per worker, named.
    std::vector<std::string> labels;
    for (std::uint32_t t = 0; t < trace->tracks().size(); ++t)
        labels.push_back(trace->trackLabel(TrackId(t)));
    EXPECT_EQ(labels.size(), 3u);
    EXPECT_NE(std::find(labels.begin(), labels.end(), "CPU run · worker 1"), labels.end());
    // A kernel's args carry its role, FLOPs, bytes and the shape.
    for (std::uint32_t t = 0; t < trace->tracks().size(); ++t) {
        const Track& track = trace->tracks()[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (trace->str(track.events.name[i]) != "naive_softmax") continue;
            const std::string args = trace->argsJson({TrackId(t), i});
            EXPECT_NE(args.find("\"role\":\"softmax\""), std::string::npos) << args;
            EXPECT_NE(args.find("\"flops\":"), std::string::npos) << args;
            EXPECT_NE(args.find("\"seq\":96"), std::string::npos) << args;
            return;
        }
    }
    FAIL() << "no softmax kernel in the run's trace";
}

// A live run's snapshots: the records taken at each tick appended to the run's trace so far give the
// trace of all of them built at once.
TEST(RunSession, ARunsRecordsAppendedBatchByBatchAreTheRunsTrace) {
    const RunConfig config = smallRun();
    RunSession session(config);
    const std::vector<RunEvent> events = runToEnd(session);
    ASSERT_GT(events.size(), 8u);
    TraceAppender grown;
    std::size_t rebuilt = 0;
    const std::size_t batches = 4;
    for (std::size_t b = 0; b < batches; ++b) {
        const auto batch = std::make_shared<const std::vector<RunEvent>>(
            events.begin() + std::ptrdiff_t(events.size() * b / batches),
            events.begin() + std::ptrdiff_t(events.size() * (b + 1) / batches));
        rebuilt += grown.append(*buildRunTrace({batch}, Backend::Cpu, ""), 0).rebuilt;
    }
    EXPECT_EQ(rebuilt, 0u) << "a run records each track's events in order: each batch goes after the last";
    const auto whole = buildRunTrace(events);
    attnscope::test::expectSame(attnscope::test::snapshot(*grown.snapshot()),
                                attnscope::test::snapshot(*whole));
    EXPECT_EQ(summarize(*grown.snapshot(), 0).kernelCount, summarize(*whole, 0).kernelCount);
}

// What a run holds is a counter, as PyTorch records it: Q, K, V and O throughout, naive attention's
// N×N scores while naive runs, and nothing more for flash — and a saved run keeps it.
TEST(RunSession, MemoryHeldIsACounterThatShowsTheScores) {
    const RunConfig config = smallRun();
    RunSession session(config);
    const auto trace = buildRunTrace(runToEnd(session));
    const CounterSeries* memory = nullptr;
    for (const CounterSeries& c : trace->counters())
        if (c.name == "CPU memory allocated") memory = &c;
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(memory->unit, "B");
    EXPECT_EQ(trace->process(memory->process).labels, "CPU");
    const double inputs = 4.0 * 1 * 4 * 96 * 32 * 4, scores = 1.0 * 4 * 96 * 96 * 4;
    ASSERT_EQ(memory->value.size(), 3u);
    EXPECT_EQ(memory->value[0], inputs);
    EXPECT_EQ(memory->value[1], inputs + scores);
    EXPECT_EQ(memory->value[2], inputs);
    // The scores are held over every naive call and freed before the first flash call.
    TimeNs naiveStart = INT64_MAX, naiveEnd = 0, flashStart = INT64_MAX;
    for (const Track& track : trace->tracks())
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const std::string_view name = trace->str(track.events.name[i]);
            if (name == "naive attention") naiveStart = std::min(naiveStart, track.events.start[i]);
            if (name == "naive attention") naiveEnd = std::max(naiveEnd, track.end(i));
            if (name == "flash attention") flashStart = std::min(flashStart, track.events.start[i]);
        }
    EXPECT_LE(memory->time[1], naiveStart);
    EXPECT_GE(memory->time[2], naiveEnd);
    EXPECT_LE(memory->time[2], flashStart);
    // Saved and opened again: the same counter, made again from the "[memory]" events, not doubled.
    const auto again = loadText(chromeTraceJson(*trace));
    const CounterSeries* reloaded = nullptr;
    for (const CounterSeries& c : again->counters())
        if (c.name == "CPU memory allocated") reloaded = &c;
    ASSERT_NE(reloaded, nullptr);
    EXPECT_EQ(reloaded->value, memory->value);
    EXPECT_EQ(reloaded->unit, "B");
}

TEST(RunSession, CudaConfigurationsSayWhatRunsWhere) {
    RunConfig c;
    c.backend = Backend::Cuda;
    c.impls = {"naive", "naive_simt", "flash_simt"};
    c.shape = {1, 2, 64, 64, false, Precision::F32};
    EXPECT_EQ(checkRunConfig(c), "");
    c.impls = {"flash"};
    EXPECT_NE(checkRunConfig(c).find("fp16 and bf16"), std::string::npos);
    c.shape.dtype = Precision::BF16;
    EXPECT_EQ(checkRunConfig(c), "");
    c.shape.dim = 96;
    EXPECT_NE(checkRunConfig(c).find("64 and 128"), std::string::npos);
    c.impls = {"naive_simt"};
    EXPECT_NE(checkRunConfig(c).find("fp32 only"), std::string::npos);
    c.impls = {"cutlass"};
    EXPECT_NE(checkRunConfig(c).find("naive_simt"), std::string::npos); // lists what there is
    c.backend = Backend::Cpu;
    c.impls = {"flash_simt"};
    EXPECT_NE(checkRunConfig(c).find("CPU backend has"), std::string::npos);
}

// One table prints and parses what a user may ask a run to run on.
TEST(RunSession, BackendChoicesAreNamedOnce) {
    for (BackendChoice c :
         {BackendChoice::Auto, BackendChoice::Cpu, BackendChoice::Cuda, BackendChoice::Torch})
        EXPECT_EQ(backendChoiceNamed(backendChoiceName(c)), c) << backendChoiceName(c);
    EXPECT_EQ(backendChoiceNamed("tpu"), std::nullopt);
    EXPECT_EQ(backendChoiceNamed("CPU"), std::nullopt);
    EXPECT_EQ(backendChoicesText(), "cpu, cuda, torch or auto");
    EXPECT_EQ(implsOffered(BackendChoice::Cpu), cpuImpls());
    EXPECT_EQ(implsOffered(BackendChoice::Torch), torchImpls());
    EXPECT_EQ(implsOffered(BackendChoice::Auto),
              (std::vector<std::string>{"naive", "flash", "naive_simt", "flash_simt"}));
    EXPECT_EQ(allImpls(),
              (std::vector<std::string>{"naive", "flash", "naive_simt", "flash_simt", "naive_inplace", "math",
                                        "efficient", "cudnn", "flash_bf16"}));
    // What a PyTorch run runs unless told: naive_inplace is a what-if's alternative to a masked call.
    EXPECT_EQ(torchRunImpls(), (std::vector<std::string>{"naive", "math", "flash", "efficient", "cudnn"}));
}

TEST(RunSession, ChoosingTheBackendWithoutAGpu) {
    if (probeCuda().runnable) GTEST_SKIP() << "this machine has a GPU: " << probeCuda().message;
    RunConfig c;
    c.shape.seq = 64;
    std::string notice;
    EXPECT_EQ(chooseBackend(c, BackendChoice::Auto, notice), "");
    EXPECT_EQ(c.backend, Backend::Cpu);
    EXPECT_NE(notice.find("using the CPU backend"), std::string::npos) << notice;
    const std::string problem = chooseBackend(c, BackendChoice::Cuda, notice);
    EXPECT_TRUE(problem.rfind("no CUDA", 0) == 0 || problem.find("CUDA backend") != std::string::npos)
        << problem;
    EXPECT_EQ(chooseBackend(c, BackendChoice::Cpu, notice), "");
    EXPECT_EQ(notice, "");
}

// What a CUDA run reports, as the plugin hands it over: the trace puts GPU work on its device's
// streams, runtime calls on their host thread, and links each kernel to its launch.
TEST(RunSession, ACudaRunIsATraceWithGpuStreamsAndLaunchLinks) {
    std::vector<RunEvent> events;
    RunEvent launch;
    launch.name = "cudaLaunchKernel";
    launch.category = "cuda_runtime";
    launch.track = 0;
    launch.thread = 4242;
    launch.correlation = 17;
    launch.startNs = 100;
    launch.endNs = 900;
    events.push_back(launch);
    RunEvent kernel;
    kernel.name = "attnscope_cuda::flashForwardKernel<__nv_bfloat16, 128>";
    kernel.category = "kernel";
    kernel.device = 0;
    kernel.stream = 13;
    kernel.correlation = 17;
    kernel.startNs = 1000;
    kernel.endNs = 51000;
    kernel.impl = "flash";
    kernel.role = "fused_attention";
    kernel.call = 0;
    // 1 TFLOP on 4 GB in 50 µs: 20 PFLOP/s is far above any roof; what matters is that it is placed.
    kernel.args = {
        {"role", "\"fused_attention\""}, {"flops", "1e12"}, {"bytes", "4e9"}, {"dtype", "\"bf16\""}};
    events.push_back(kernel);
    RunEvent call;
    call.name = "flash attention";
    call.category = "user_annotation";
    call.track = -1;
    call.impl = "flash";
    call.call = 0;
    call.startNs = 50;
    call.endNs = 60000;
    call.measuredNs = 50000;
    events.push_back(call);
    // What the plugin records after a naive implementation's calls, when it frees the scores and
    // holds Q, K, V and O on device 0 (cudaRecords makes it a host record on the calls track).
    RunEvent memory;
    memory.name = "[memory]";
    memory.category = "cpu_instant_event";
    memory.track = -1;
    memory.startNs = memory.endNs = 61000;
    memory.call = -1;
    memory.args = {
        {"Total Allocated", "33554432"}, {"Bytes", "-8388608"}, {"Device Type", "1"}, {"Device Id", "0"}};
    events.push_back(memory);

    const auto trace = buildRunTrace(events, Backend::Cuda, "NVIDIA H200");
    std::map<std::string, std::string> labels; // track label → first event's name
    std::optional<EventRef> kernelRef;
    for (std::uint32_t t = 0; t < trace->tracks().size(); ++t) {
        labels[trace->trackLabel(TrackId{t})] = std::string(trace->str(trace->tracks()[t].events.name[0]));
        if (trace->tracks()[t].kind == TrackKind::GpuStream) kernelRef = EventRef{TrackId{t}, 0};
    }
    EXPECT_EQ(labels["GPU 0 · stream 13"], kernel.name);
    EXPECT_EQ(labels["CUDA run · thread 4242"], "cudaLaunchKernel");
    EXPECT_EQ(labels["CUDA run · attention calls"], "flash attention");
    ASSERT_TRUE(kernelRef);
    const auto launchRef = trace->launchOf(*kernelRef);
    ASSERT_TRUE(launchRef);
    EXPECT_EQ(trace->str(trace->tracks()[launchRef->track.value].events.name[launchRef->index]),
              "cudaLaunchKernel");
    // Live, the launch's record is taken a tick before its kernel's: appended apart, they still link.
    TraceAppender live;
    for (const auto& [from, to] : {std::pair<std::size_t, std::size_t>{0, 1}, {1, events.size()}})
        live.append(
            *buildRunTrace({std::make_shared<const std::vector<RunEvent>>(
                               events.begin() + std::ptrdiff_t(from), events.begin() + std::ptrdiff_t(to))},
                           Backend::Cuda, "NVIDIA H200"),
            0);
    const auto grown = live.snapshot();
    attnscope::test::expectSame(attnscope::test::snapshot(*grown), attnscope::test::snapshot(*trace));
    bool linked = false;
    for (std::uint32_t t = 0; t < grown->tracks().size(); ++t)
        if (grown->tracks()[t].kind == TrackKind::GpuStream)
            linked = grown->launchOf({TrackId{t}, 0}).has_value();
    EXPECT_TRUE(linked);
    // The device memory is a counter under the GPU the kernel ran on.
    ASSERT_EQ(trace->counters().size(), 1u);
    const CounterSeries& held = trace->counters()[0];
    EXPECT_EQ(held.name, "GPU memory allocated");
    EXPECT_EQ(held.process, trace->track(kernelRef->track).process);
    EXPECT_EQ(held.value, std::vector<double>{33554432});

    RunConfig c;
    c.backend = Backend::Cuda;
    c.impls = {"flash"};
    const auto stats = runStats(c, events);
    ASSERT_EQ(stats.size(), 1u);
    ASSERT_EQ(stats[0].callMs.size(), 1u);
    EXPECT_DOUBLE_EQ(stats[0].callMs[0], 0.05); // the CUDA events' time, not the host's
    ASSERT_EQ(stats[0].roleMs.size(), 1u);
    EXPECT_DOUBLE_EQ(stats[0].roleMs[0].second, 0.05);
}
