// SPDX-License-Identifier: MIT
// The run session with the CPU backend: what it records, stopping it, bad configurations, and the
// trace and statistics made from a run.
#include "kernels/run_session.h"

#include "core/summary.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

RunConfig smallRun() {
    RunConfig c;
    c.shape = {1, 4, 96, 32, false, DType::F32};
    c.warmup = 1;
    c.iters = 2;
    c.threads = 2;
    return c;
}

std::vector<RunEvent> runToEnd(RunSession& session) {
    session.start();
    std::vector<RunEvent> all;
    // Taken in batches while it runs, as a viewer would.
    while (!session.finished()) {
        auto batch = session.takeEvents();
        all.insert(all.end(), batch.begin(), batch.end());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    session.wait();
    auto rest = session.takeEvents();
    all.insert(all.end(), rest.begin(), rest.end());
    return all;
}

} // namespace

TEST(RunSession, RecordsEveryKernelOfEveryCallPerWorker) {
    RunSession session(smallRun());
    const std::vector<RunEvent> events = runToEnd(session);
    // naive: 3 kernels × 2 workers × 3 calls; flash: 1 × 2 × 3; plus 6 call ranges.
    ASSERT_EQ(events.size(), 18u + 6u + 6u);
    EXPECT_EQ(session.recorded(), events.size());
    std::map<std::string, int> byName;
    for (const RunEvent& e : events) {
        ++byName[e.name];
        EXPECT_LE(e.startNs, e.endNs);
        if (e.category == "kernel") {
            EXPECT_TRUE(e.track == 0 || e.track == 1);
            EXPECT_FALSE(e.role.empty());
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
    c.shape = {64, 64, 65536, 128, false, DType::F32}; // N×N scores alone: 64·64·65536²·4 bytes
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
