// SPDX-License-Identifier: MIT
#pragma once

#include "kernels/attention.h"

#include "core/trace.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace attnscope::kernels {

struct RunConfig {
    std::vector<std::string> impls{"naive", "flash"}; // "naive", "flash"
    AttentionShape shape;
    int warmup = 1;
    int iters = 3;
    unsigned threads = 0; // CPU workers; 0: one per core
};

// One thing a run recorded: a worker's share of a kernel (category "kernel", track = worker) or
// one attention call on the thread that drives the run (category "user_annotation", track -1).
struct RunEvent {
    std::string name;
    std::string category;
    int track = -1;
    std::int64_t startNs = 0; // from the run's start
    std::int64_t endNs = 0;
    std::vector<std::pair<std::string, std::string>> args; // key, value as JSON
    // What the statistics group by.
    std::string impl;
    std::string role; // kernels: "qk_gemm", …; calls: ""
    int call = 0;     // 0-based, warm-up calls first
    bool warmup = false;
};

// Says what is wrong with a configuration ("" when it can run): unknown implementations, shapes
// out of range, or more memory than the machine has.
std::string checkRunConfig(const RunConfig& config);

// Runs attention workloads on the CPU on a thread of its own: each implementation, warm-up calls
// then measured ones. What is recorded is queued and taken in batches (takeEvents), so a viewer
// can show it while the run goes on; stop() ends it after the call under way.
class RunSession {
public:
    explicit RunSession(RunConfig config);
    ~RunSession(); // stops and waits

    void start();
    void stop() { m_stop = true; }
    void wait();
    bool finished() const { return m_finished; }
    bool stopped() const { return m_stop; }
    const RunConfig& config() const { return m_config; }
    // Why the run ended early ("" when it did not fail).
    std::string error() const;
    unsigned workers() const { return m_workers; }

    // What was recorded since the last call.
    std::vector<RunEvent> takeEvents();
    std::uint64_t recorded() const { return m_recorded; }

private:
    void run();
    void push(RunEvent event);

    RunConfig m_config;
    unsigned m_workers = 1;
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_finished{false};
    std::atomic<std::uint64_t> m_recorded{0};
    mutable std::mutex m_mutex;
    std::vector<RunEvent> m_queue;
    std::string m_error;
};

// A run's events as a trace: process "CPU run" (labels short enough for the track column), a track per worker and one for the
// attention calls; kernels carry role, FLOPs, bytes and the shape in their args.
std::shared_ptr<const Trace> buildRunTrace(const std::vector<RunEvent>& events);

// Per implementation: the measured calls' times and, per role, the time of its kernels per call.
struct ImplStats {
    std::string impl;
    std::vector<double> callMs;                         // measured calls (warm-up left out)
    std::vector<std::pair<std::string, double>> roleMs; // role → mean wall time per call, in role order
    double flopsPerCall = 0;                            // the attention's useful FLOPs
    double meanMs() const;
    double gflops() const { return meanMs() > 0 ? flopsPerCall / (meanMs() * 1e6) : 0; }
};
std::vector<ImplStats> runStats(const RunConfig& config, const std::vector<RunEvent>& events);

// What `attnscope run` prints: a line saying what runs, then a table per implementation (mean and
// spread per call, GFLOP/s, time per role) and how the two compare.
std::string runHeadline(const RunConfig& config, unsigned workers);
std::string formatRunStats(const std::vector<ImplStats>& stats);

} // namespace attnscope::kernels
