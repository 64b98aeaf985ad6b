// SPDX-License-Identifier: MIT
#pragma once

#include "kernels/attention.h"
#include "kernels/run_hooks.h"

#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace attnscope::kernels {

// The ranges a run's settings may take: one set, for the command line's `run` and the Run panel.
struct RunLimit {
    int lo, hi;
};
namespace limits {
constexpr RunLimit kBatch{1, 4096}, kHeads{1, 4096}, kSeq{1, 1 << 20}, kDim{1, 1024};
constexpr RunLimit kKvHeads{0, 4096}, kKvLen{0, 1 << 24}; // 0: as many as heads, as long as seq
constexpr RunLimit kWarmup{0, 10000}, kIters{1, 10000}, kThreads{1, 1024};
} // namespace limits

// Where a run's kernels run: AttnScope's own on the CPU or a GPU, or PyTorch's own (torch_backend.h).
enum class Backend : std::uint8_t { Cpu, Cuda, Torch };

// What a user asks a run to run on: a backend, or auto (the GPU when there is one, else the CPU).
// One table prints and parses them, for the command line, the Run panel and the window's switches.
enum class BackendChoice : std::uint8_t { Auto, Cpu, Cuda, Torch };
std::string_view backendChoiceName(BackendChoice choice); // "auto", "cpu", "cuda", "torch"
std::optional<BackendChoice> backendChoiceNamed(std::string_view name);
std::string backendChoicesText(); // "cpu, cuda, torch or auto": what a usage message lists

// AttnScope's CPU implementations (naive, flash); the implementations a choice offers (auto: the
// CPU's and CUDA's); every backend's implementations, each once, CPU's then CUDA's then PyTorch's.
const std::vector<std::string>& cpuImpls();
std::vector<std::string> implsOffered(BackendChoice choice);
std::vector<std::string> allImpls();

// A named shape with the implementations to run at it, one of a preset's cases ("prefill", "decode").
struct RunVariant {
    std::string name;
    AttentionShape shape;
    std::vector<std::string> impls;
};

struct RunConfig {
    Backend backend = Backend::Cpu;
    std::vector<std::string> impls = cpuImpls(); // CUDA: cudaImpls(); PyTorch: torchImpls()
    AttentionShape shape;
    // A preset's variants, run one after another instead of impls × shape (the CPU backend).
    std::vector<RunVariant> variants;
    int warmup = 1;
    int iters = 3;
    unsigned threads = 0; // CPU workers; 0: one per core
    bool collect = true;  // CUDA: record kernels with CUPTI (off: time the calls only)
    std::string python;   // PyTorch: the Python to start ("": ATTNSCOPE_PYTHON, else python3 on PATH)
    // PyTorch: each step's trace read once the runner has finished, not as it comes (what-if: reading a
    // step beside the calls on a machine of few cores would slow the calls it is meant to time).
    bool stepsAfter = false;
    // PyTorch: how attention written by hand applies its causal mask, as the call re-created did:
    // "masked_fill" (out of place), "masked_fill_", "where", "add" (an additive float mask).
    std::string maskBy = "masked_fill";
};

// One thing a run recorded. CPU: a worker's share of a kernel (category "kernel", track = worker)
// or one attention call on the thread that drives the run (category "user_annotation", track -1).
// CUDA: GPU work on a device's stream (device ≥ 0), runtime and driver calls and NVTX ranges on
// a host thread (device -1, track 0), attention calls (track -1).
struct RunEvent {
    std::string name;
    std::string category;
    int track = -1;
    int device = -1;
    std::uint32_t stream = 0;
    std::uint32_t thread = 0;
    std::uint64_t correlation = 0; // links a runtime call to the GPU work it launched
    std::int64_t startNs = 0;      // from the run's start
    std::int64_t endNs = 0;
    std::int64_t measuredNs = 0; // attention calls on a GPU: their time by CUDA events (0: end − start)
    std::vector<std::pair<std::string, std::string>> args; // key, value as JSON
    // What the statistics group by.
    std::string impl;
    std::string role; // kernels: "qk_gemm", …; calls: ""
    int call = 0;     // 0-based, warm-up calls first
    bool warmup = false;
};

// PyTorch's implementations (Backend::Torch): naive (written by hand), naive_inplace (the same, its mask
// filled in place: masked_fill_), math, flash, efficient, cudnn (SDPA's backends), flash_bf16 (flash on the
// inputs in bf16: half precision for a call that ran fp32).
const std::vector<std::string>& torchImpls();
// What one of them runs, a phrase: "scaled_dot_product_attention's flash backend", …
std::string torchImplText(const std::string& impl);
// What a PyTorch run runs unless told (run --backend torch, the window's PyTorch run): naive and SDPA's
// backends; naive_inplace and flash_bf16 are a what-if's alternatives to a masked call, to an fp32 one.
std::vector<std::string> torchRunImpls();

// What runs need set in the environment, from main() before any thread starts (setenv is not safe
// while other threads may read the environment): the kernels OpenBLAS will run for naive CPU runs
// (cpu/blas.h; the library itself is opened by the first run that needs it), and for CUDA runs where
// NVTX finds CUPTI (NVTX_INJECTION64_PATH, read at the process's first NVTX call; the library is
// found by its file, not loaded: a run without collection never loads it).
void prepareRuns();

// What a run runs, in order: each implementation at the shape, or each variant's. label names the
// case in the statistics and the trace ("flash", or "flash decode" in a preset).
struct RunCase {
    std::string label;
    std::string impl;
    AttentionShape shape;
};
std::vector<RunCase> runCases(const RunConfig& config);

// The Run panel's presets (and `run --preset`), each a contrast the roofline shows at a glance.
struct RunPreset {
    std::string key;   // "naive-flash", …
    std::string title; // "naive vs flash", …
    std::vector<RunVariant> variants;
};
const std::vector<RunPreset>& runPresets();
const RunPreset* findRunPreset(const std::string& key);

// Says what is wrong with a configuration ("" when it can run): unknown implementations, shapes
// out of range, or more memory than the machine has (CUDA: the device checks its own memory).
std::string checkRunConfig(const RunConfig& config);

// Sets config.backend from what the user asked for and what this machine has, then checks the
// configuration. Auto runs on the GPU when there is one and the
// configuration runs there, else on the CPU, with a notice saying why. Returns the problem that
// stops the run ("" when it can run).
std::string chooseBackend(RunConfig& config, BackendChoice requested, std::string& notice);

// Runs attention workloads on a thread of its own, on the CPU or (Backend::Cuda) on a GPU:
// each implementation, warm-up calls then measured ones. What is recorded is queued and taken in
// batches (takeEvents), so a viewer can show it while the run goes on; stop() ends it after the
// call under way.
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
    // CUDA runs: the GPU's name (for the trace's device and its roofline), once the run started.
    std::string deviceName() const;

    // What was recorded since the last call.
    std::vector<RunEvent> takeEvents();
    std::uint64_t recorded() const { return m_recorded; }
    // Records the collector had to drop (CUPTI's buffers full); always 0 on the CPU.
    std::uint64_t dropped() const { return m_dropped; }
    // Lines about the collection (CUPTI missing, …) since the last call.
    std::vector<std::string> takeNotices();
    // The implementations that could not run there (PyTorch's, on this device or shape): impl → why.
    std::map<std::string, std::string> unavailable() const;

private:
    void run();
    RunHooks hooks();

    RunConfig m_config;
    unsigned m_workers = 1;
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_finished{false};
    std::atomic<std::uint64_t> m_recorded{0};
    std::atomic<std::uint64_t> m_dropped{0};
    std::vector<std::string> m_notices;
    std::map<std::string, std::string> m_unavailable;
    std::string m_deviceName;
    mutable std::mutex m_mutex;
    std::vector<RunEvent> m_queue;
    std::string m_error;
};

// A run's events as a trace: process "CPU run" or "CUDA run" (labels short enough for the track
// column) with a track per worker or host thread and one for the attention calls, and a process
// per GPU with a track per stream; kernels carry role, FLOPs, bytes and the shape in their args,
// runtime calls and GPU work their correlation ids.
// deviceName: the GPU of a CUDA run, recorded as the trace's device 0 so the roofline finds its specs.
std::shared_ptr<const Trace> buildRunTrace(const std::vector<RunEvent>& events,
                                           Backend backend = Backend::Cpu,
                                           const std::string& deviceName = {});
// The same over the batches a live run took, in order (a snapshot shares them with the run).
std::shared_ptr<const Trace>
buildRunTrace(const std::vector<std::shared_ptr<const std::vector<RunEvent>>>& batches, Backend backend,
              const std::string& deviceName);

// Per implementation: the measured calls' times and, per role, the time of its kernels per call.
struct ImplStats {
    std::string impl;
    std::vector<double> callMs;                         // measured calls (warm-up left out)
    std::vector<std::pair<std::string, double>> roleMs; // role → mean wall time per call, in role order
    double flopsPerCall = 0;                            // the attention's useful FLOPs
    double kernelsPerCall = 0; // PyTorch runs: kernels (or, on the CPU, aten:: ops that worked) a call
    bool unavailable = false;  // it could not run there (RunSession::unavailable says why)
    double meanMs() const;
    double gflops() const { return meanMs() > 0 ? flopsPerCall / (meanMs() * 1e6) : 0; }
};
std::vector<ImplStats> runStats(const RunConfig& config, const std::vector<RunEvent>& events);

// What `attnscope run` prints: a line saying what runs, then a table per implementation (mean and
// spread per call, GFLOP/s, time per role) and how the two compare.
std::string runHeadline(const RunConfig& config, unsigned workers);
std::string formatRunStats(const std::vector<ImplStats>& stats);

// The Python AttnScope starts (a PyTorch run, the engine of `job --map`): the one chosen, else
// ATTNSCOPE_PYTHON, else the virtual environment `make test` made beside the program (build/torch-venv,
// with PyTorch, transformers and Dask), else python3 on PATH.
std::string pythonToRun(const std::string& chosen = {});
// The torch-venv's Python in the program's folder or the one above it ("" if there is none).
std::string pythonBeside(const std::filesystem::path& program);

} // namespace attnscope::kernels
