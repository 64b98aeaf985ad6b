// SPDX-License-Identifier: MIT
#include "run_session.h"
#include "core/model/categories.h"
#include "core/model/kineto_args.h"

#include "kernels/cpu/blas.h"
#include "kernels/cpu/cpu_attention.h"
#include "kernels/cuda_backend.h"
#include "kernels/torch_backend.h"

#include "core/analysis/machine_roofs.h"
#include "core/io/trace_builder.h"
#include "core/model/args_codec.h"
#include "core/model/run_args.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unistd.h>

namespace attnscope::kernels {

namespace {

constexpr KernelRole kRoles[] = {KernelRole::QkGemm, KernelRole::Softmax, KernelRole::PvGemm,
                                 KernelRole::FusedAttention};

} // namespace

void prepareRuns() {
    chooseBlasKernels();
    pointNvtxAtCupti();
}

std::vector<RunCase> runCases(const RunConfig& config) {
    std::vector<RunCase> cases;
    if (config.variants.empty())
        for (const std::string& impl : config.impls)
            cases.push_back({impl, impl, config.shape});
    for (const RunVariant& v : config.variants)
        for (const std::string& impl : v.impls)
            cases.push_back({impl + " " + v.name, impl, v.shape});
    return cases;
}

const std::vector<RunPreset>& runPresets() {
    static const std::vector<RunPreset> presets = [] {
        auto shape = [](int heads, int seq, int dim, int kvHeads, int kvLen) {
            AttentionShape s;
            s.heads = heads;
            s.seq = seq;
            s.dim = dim;
            s.kvHeads = kvHeads;
            s.kvLen = kvLen;
            return s;
        };
        const AttentionShape prefill = shape(8, 2048, 64, 0, 0);
        const AttentionShape decode = shape(8, 1, 64, 0, 32768);
        return std::vector<RunPreset>{
            // The window's first run: the N×N scores naive attention writes and reads (its softmax
            // memory-bound), the fused kernel compute-bound, and a decode step bound by reading its KV cache.
            {"first-look",
             "naive vs flash, prefill and decode",
             {{"prefill", prefill, {"naive", "flash"}}, {"decode", decode, {"flash"}}}},
            {"naive-flash", "naive vs flash", {{"prefill", prefill, {"naive", "flash"}}}},
            {"prefill-decode",
             "prefill vs decode",
             {{"prefill", prefill, {"flash"}}, {"decode", decode, {"naive", "flash"}}}},
            // A decode step reads the whole KV cache: sharing K/V heads divides what it reads.
            {"mha-gqa-mqa",
             "MHA vs GQA vs MQA (decode)",
             {{"MHA", shape(32, 1, 128, 0, 16384), {"flash"}},
              {"GQA", shape(32, 1, 128, 8, 16384), {"flash"}},
              {"MQA", shape(32, 1, 128, 1, 16384), {"flash"}}}},
        };
    }();
    return presets;
}

const RunPreset* findRunPreset(const std::string& key) {
    for (const RunPreset& p : runPresets())
        if (p.key == key) return &p;
    return nullptr;
}

namespace {

// What is wrong with one case's shape ("" when it can run).
std::string checkShape(const AttentionShape& s, bool cuda, bool naive, bool flash) {
    if (s.batch < 1 || s.heads < 1 || s.seq < 1 || s.dim < 1 || s.batch > 4096 || s.heads > 4096 ||
        s.seq > (1 << 20) || s.dim > 1024 || s.kvHeads < 0 || s.kvLen < 0 || s.kvLen > (1 << 24))
        return "shape out of range (batch and heads 1–4096, seq 1–1048576, dim 1–1024, kv-len up to "
               "16777216)";
    if (s.heads % s.kvHeadCount() != 0)
        return "kv-heads (" + std::to_string(s.kvHeadCount()) + ") must divide heads (" +
               std::to_string(s.heads) + "): each K/V head serves the same number of query heads";
    if (s.keys() < s.seq)
        return "kv-len (" + std::to_string(s.keys()) + ") is shorter than the queries (" +
               std::to_string(s.seq) + "): the KV cache holds at least the tokens being decoded";
    if (cuda && !flash && (s.kvHeadCount() != s.heads || s.keys() != s.seq))
        return "on CUDA, grouped K/V heads and KV caches run on flash (tensor cores); naive and the SIMT "
               "kernels "
               "need kv-heads = heads and kv-len = seq";
    if (cuda) return {}; // the device checks its own memory
    // Q, K, V, O in fp32, and for naive the seq × keys scores of every head.
    double bytes = 4.0 * 2 * (double(s.elements()) + double(s.kvElements()));
    if (naive) bytes += 4.0 * double(s.scoreElements());
    const double physical = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    if (physical > 0 && bytes > physical * 0.75) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "out of memory at this shape: it needs %.1f GB, the machine has %.1f GB", bytes / 1e9,
                      physical / 1e9);
        return msg;
    }
    return {};
}

} // namespace

std::string checkRunConfig(const RunConfig& c) {
    const bool cuda = c.backend == Backend::Cuda, torch = c.backend == Backend::Torch;
    const std::vector<RunCase> cases = runCases(c);
    if (cases.empty()) return "no implementation to run";
    if ((cuda || torch) && !c.variants.empty())
        return "presets run on AttnScope's CPU backend (choose Custom for the " +
               std::string(torch ? "PyTorch" : "CUDA") + " backend)";
    for (const RunCase& rc : cases) {
        const std::string& impl = rc.impl;
        if (torch) {
            if (std::find(torchImpls().begin(), torchImpls().end(), impl) == torchImpls().end())
                return "unknown implementation '" + impl +
                       "' (the PyTorch backend has: naive, math, flash, efficient, cudnn)";
            // PyTorch picks its device: the memory is checked as for the CPU, by the largest user.
            if (const std::string why = checkShape(rc.shape, false, impl == "naive" || impl == "math", false);
                !why.empty())
                return why;
            continue;
        }
        if (cuda && std::find(cudaImpls().begin(), cudaImpls().end(), impl) == cudaImpls().end())
            return "unknown implementation '" + impl +
                   "' (the CUDA backend has: naive, naive_simt, flash, flash_simt)";
        if (!cuda && impl != "naive" && impl != "flash")
            return "unknown implementation '" + impl + "' (the CPU backend has: naive, flash)";
        const bool fp32 = rc.shape.dtype == Precision::F32;
        if (cuda && impl == "flash" && (fp32 || (rc.shape.dim != 64 && rc.shape.dim != 128)))
            return "flash on CUDA (tensor cores) runs fp16 and bf16 at head dims 64 and 128; flash_simt runs "
                   "fp32";
        if (cuda && (impl == "naive_simt" || impl == "flash_simt") && !fp32) return impl + " runs fp32 only";
        if (cuda && impl == "flash_simt" && rc.shape.dim > 128)
            return "flash_simt handles head dims up to 128";
        if (const std::string why = checkShape(rc.shape, cuda, impl == "naive", impl == "flash");
            !why.empty())
            return c.variants.empty() ? why : rc.label + ": " + why;
        if (!cuda && impl == "naive" && !blas()) return blasProblem();
    }
    if (c.warmup < 0 || c.iters < 1 || c.warmup > 10000 || c.iters > 10000)
        return "warm-up 0–10000 and iterations 1–10000";
    return {};
}

namespace {

constexpr std::pair<BackendChoice, std::string_view> kBackendChoices[] = {{BackendChoice::Cpu, "cpu"},
                                                                          {BackendChoice::Cuda, "cuda"},
                                                                          {BackendChoice::Torch, "torch"},
                                                                          {BackendChoice::Auto, "auto"}};

} // namespace

std::string_view backendChoiceName(BackendChoice choice) {
    for (const auto& [c, name] : kBackendChoices)
        if (c == choice) return name;
    return {};
}

std::optional<BackendChoice> backendChoiceNamed(std::string_view name) {
    for (const auto& [c, n] : kBackendChoices)
        if (n == name) return c;
    return std::nullopt;
}

std::string backendChoicesText() {
    std::string text;
    const std::size_t n = std::size(kBackendChoices);
    for (std::size_t i = 0; i < n; ++i)
        text += std::string(i == 0       ? ""
                            : i + 1 == n ? " or "
                                         : ", ") +
                std::string(kBackendChoices[i].second);
    return text;
}

const std::vector<std::string>& cpuImpls() {
    static const std::vector<std::string> impls{"naive", "flash"};
    return impls;
}

std::vector<std::string> implsOffered(BackendChoice choice) {
    std::vector<std::string> out;
    auto add = [&](const std::vector<std::string>& impls) {
        for (const std::string& impl : impls)
            if (std::find(out.begin(), out.end(), impl) == out.end()) out.push_back(impl);
    };
    if (choice == BackendChoice::Cpu || choice == BackendChoice::Auto) add(cpuImpls());
    if (choice == BackendChoice::Cuda || choice == BackendChoice::Auto) add(cudaImpls());
    if (choice == BackendChoice::Torch) add(torchImpls());
    return out;
}

std::vector<std::string> allImpls() {
    std::vector<std::string> out = implsOffered(BackendChoice::Auto);
    for (const std::string& impl : torchImpls())
        if (std::find(out.begin(), out.end(), impl) == out.end()) out.push_back(impl);
    return out;
}

std::string chooseBackend(RunConfig& config, BackendChoice requested, std::string& notice) {
    notice.clear();
    config.backend = Backend::Cpu;
    if (requested == BackendChoice::Torch) {
        config.backend = Backend::Torch; // PyTorch itself runs on its GPU when it has one
    } else if (requested != BackendChoice::Cpu) {
        const CudaAvailability cuda = probeCuda();
        if (requested == BackendChoice::Cuda) {
            if (!cuda.runnable) return cuda.message;
            config.backend = Backend::Cuda;
        } else if (cuda.runnable) {
            RunConfig onGpu = config;
            onGpu.backend = Backend::Cuda;
            if (const std::string why = checkRunConfig(onGpu); why.empty())
                config.backend = Backend::Cuda;
            else
                notice = "CUDA: " + why + ": using the CPU backend";
        } else {
            notice = cuda.message + ": using the CPU backend";
        }
    }
    return checkRunConfig(config);
}

RunSession::RunSession(RunConfig config) : m_config(std::move(config)) {
    m_workers = m_config.threads ? m_config.threads : std::max(1u, std::thread::hardware_concurrency());
}

RunSession::~RunSession() {
    stop();
    wait();
}

void RunSession::start() {
    if (m_thread.joinable()) return; // one run per session
    m_thread = std::thread([this] {
        try {
            run();
        } catch (const std::exception& e) {
            // Out of memory at the shape, mostly; the viewer and the command line say so.
            std::lock_guard lock(m_mutex);
            m_error = e.what();
        }
        m_finished = true;
    });
}

std::string RunSession::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void RunSession::wait() {
    if (m_thread.joinable()) m_thread.join();
}

void RunSession::push(RunEvent event) {
    std::lock_guard lock(m_mutex);
    m_queue.push_back(std::move(event));
    ++m_recorded;
}

std::string RunSession::deviceName() const {
    std::lock_guard lock(m_mutex);
    return m_deviceName;
}

std::vector<std::string> RunSession::takeNotices() {
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    out.swap(m_notices);
    return out;
}

std::map<std::string, std::string> RunSession::unavailable() const {
    std::lock_guard lock(m_mutex);
    return m_unavailable;
}

std::vector<RunEvent> RunSession::takeEvents() {
    std::lock_guard lock(m_mutex);
    std::vector<RunEvent> out;
    out.swap(m_queue);
    return out;
}

RunHooks RunSession::hooks() {
    RunHooks hooks;
    hooks.events = [this](std::vector<RunEvent>&& batch) {
        std::lock_guard lock(m_mutex);
        m_recorded += batch.size();
        m_queue.insert(m_queue.end(), std::make_move_iterator(batch.begin()),
                       std::make_move_iterator(batch.end()));
    };
    hooks.notice = [this](const std::string& text) {
        std::lock_guard lock(m_mutex);
        m_notices.push_back(text);
    };
    hooks.dropped = [this](std::uint64_t total) { m_dropped = total; };
    hooks.stopRequested = [this] { return m_stop.load(); };
    hooks.unavailable = [this](const std::string& impl, const std::string& reason) {
        std::lock_guard lock(m_mutex);
        m_unavailable[impl] = reason;
        m_notices.push_back(impl + ": not available here: " + reason);
    };
    hooks.device = [this](const std::string& name) {
        std::lock_guard lock(m_mutex);
        m_deviceName = name;
    };
    return hooks;
}

void RunSession::run() {
    if (m_config.backend == Backend::Cpu) return runCpu();
    const RunHooks h = hooks();
    if (m_config.backend == Backend::Cuda) h.device(probeCuda().deviceName);
    const std::string why = m_config.backend == Backend::Cuda ? runCuda(m_config, h) : runTorch(m_config, h);
    if (!why.empty()) {
        std::lock_guard lock(m_mutex);
        m_error = why;
    }
}

void RunSession::runCpu() {
    WorkerPool pool(m_workers);
    const std::int64_t origin = steadyClockNs();
    // What the run holds, as PyTorch's profiler records it ("[memory]" after each allocation or free):
    // Q, K, V and O while a case runs, naive attention's scores too.
    double held = 0;
    auto memory = [&](double bytes) {
        held += bytes;
        RunEvent e;
        e.name = kineto::kMemoryEvent;
        e.category = category::kCpuInstant;
        e.startNs = e.endNs = steadyClockNs() - origin;
        e.args = {{kineto::kTotalAllocated, jsonNumber(held)},
                  {kineto::kBytes, jsonNumber(bytes)},
                  {kineto::kDeviceType, "0"},
                  {kineto::kDeviceId, "-1"}};
        push(std::move(e));
    };
    std::vector<float> q, k, v, o, scores;
    const AttentionShape* inputsOf = nullptr; // the shape q, k and v were made for
    for (const RunCase& rc : runCases(m_config)) {
        if (m_stop) break;
        const AttentionShape& s = rc.shape;
        if (!inputsOf || *inputsOf != s) {
            if (inputsOf) memory(-double(q.size() + k.size() + v.size() + o.size()) * sizeof(float));
            // Uniform in [−1, 1) from a 64-bit mix of each element's index: quick enough that a decode
            // step's large KV cache is made in a blink, not the half second std::mt19937 took.
            std::uint64_t state = 1;
            auto u = [&state] {
                std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
                z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                return float(std::int64_t(z ^ (z >> 31)) >> 40) * 0x1p-23f;
            };
            q.assign(s.elements(), 0.0f);
            k.assign(s.kvElements(), 0.0f);
            v.assign(s.kvElements(), 0.0f);
            o.assign(s.elements(), 0.0f);
            for (auto* t : {&q, &k, &v}) {
                for (float& x : *t)
                    x = u();
                roundToPrecision(*t, s.dtype);
            }
            memory(double(q.size() + k.size() + v.size() + o.size()) * sizeof(float));
            inputsOf = &s;
        }
        const bool naive = rc.impl == "naive";
        if (naive) {
            scores.resize(s.scoreElements());
            memory(double(scores.size()) * sizeof(float));
        }
        const auto shape = shapeArgs(s);
        for (int call = 0; call < m_config.warmup + m_config.iters && !m_stop; ++call) {
            const bool warmup = call < m_config.warmup;
            const SpanSink sink = [&](const CpuKernelSpan& span) {
                RunEvent e;
                e.name = std::string(span.name);
                e.category = category::kKernel;
                e.track = int(span.worker);
                e.startNs = span.startNs - origin;
                e.endNs = span.endNs - origin;
                e.impl = rc.label;
                e.role = std::string(roleName(span.role));
                e.call = call;
                e.warmup = warmup;
                e.args = kernelArgs(span.role, rc.label, call, span.cost);
                e.args.emplace_back(runargs::kWorker, std::to_string(span.worker));
                e.args.insert(e.args.end(), shape.begin(), shape.end());
                push(std::move(e));
            };
            const std::int64_t start = steadyClockNs();
            if (naive)
                cpuNaiveAttention(s, q.data(), k.data(), v.data(), o.data(), scores.data(), pool, sink);
            else
                cpuFlashAttention(s, q.data(), k.data(), v.data(), o.data(), pool, sink);
            RunEvent range;
            range.name = rc.label + " attention";
            range.category = category::kUserAnnotation;
            range.startNs = start - origin;
            range.endNs = steadyClockNs() - origin;
            range.impl = rc.label;
            range.call = call;
            range.warmup = warmup;
            range.args = {{std::string(runargs::kImpl), "\"" + rc.label + "\""},
                          {std::string(runargs::kCall), std::to_string(call)},
                          {"warmup", warmup ? "true" : "false"}};
            range.args.insert(range.args.end(), shape.begin(), shape.end());
            push(std::move(range));
        }
        if (naive) {
            memory(-double(scores.size()) * sizeof(float));
            std::vector<float>().swap(scores);
        }
    }
}

std::shared_ptr<const Trace> buildRunTrace(const std::vector<RunEvent>& events, Backend backend,
                                           const std::string& deviceName) {
    TraceBuilder b;
    StringPool& pool = b.strings();
    // Host threads by their thread id (CUDA, PyTorch), or CPU workers by their index.
    const bool cuda = backend != Backend::Cpu, torch = backend == Backend::Torch;
    const StringId pid = pool.intern(torch ? "attnscope-torch" : cuda ? "attnscope-host" : "attnscope-cpu");
    b.setProcessName(pid, torch ? "PyTorch run" : cuda ? "CUDA run" : "CPU run");
    b.setProcessLabels(pid, std::string(cuda && !torch ? "host" : runargs::kCpuProcessLabel));
    b.info().format = "attnscope-run";
    b.info().hostName = thisHostName(); // the run's CPU is this machine's, wherever it is opened later
    const StringId callsTid = pool.intern("calls");
    b.setThreadName(pid, callsTid, "attention calls");
    b.setThreadSortIndex(pid, callsTid, -1);
    // Keyed by (device, track or stream or thread): device -1 is the host process.
    std::map<std::pair<int, std::int64_t>, TrackId> tracks;
    auto trackOf = [&](const RunEvent& e) {
        const std::int64_t lane = e.device >= 0 ? std::int64_t(e.stream)
                                  : e.track < 0 ? -1
                                  : cuda        ? std::int64_t(e.thread)
                                                : e.track;
        auto it = tracks.find({e.device, lane});
        if (it != tracks.end()) return it->second;
        StringId owner = pid, tid = callsTid;
        if (e.device >= 0) {
            owner = pool.intern(std::to_string(e.device)); // numbered by device, as Kineto numbers GPUs
            const std::string gpu = "GPU " + std::to_string(e.device);
            b.setProcessName(owner, gpu);
            b.setProcessLabels(owner, gpu);
            tid = pool.intern("stream " + std::to_string(e.stream));
            b.setThreadName(owner, tid, "stream " + std::to_string(e.stream));
            b.setThreadSortIndex(owner, tid, lane);
        } else if (lane >= 0) {
            const std::string name =
                cuda ? (e.thread ? "thread " + std::to_string(e.thread) : std::string("driver"))
                     : "worker " + std::to_string(lane);
            tid = pool.intern(name);
            b.setThreadName(pid, tid, name);
            b.setThreadSortIndex(pid, tid, lane);
        }
        return tracks.emplace(std::pair{e.device, lane}, b.track(owner, tid)).first->second;
    };
    ArgsEncoder encoder;
    std::string encoded;
    for (const RunEvent& e : events) {
        encoder.clear();
        for (const auto& [key, value] : e.args)
            encoder.add(key, value);
        encoded.clear();
        encoder.encode(pool, encoded);
        if (e.name == kineto::kMemoryEvent) {
            b.addInstant(trackOf(e), e.startNs, pool.intern(e.name), pool.intern(e.category), encoded);
            std::map<std::string, double> number;
            for (const auto& [key, value] : e.args)
                number[key] = std::atof(value.c_str());
            b.addMemoryTotals(pid, e.startNs, int(number[kineto::kDeviceType]),
                              std::int64_t(number[kineto::kDeviceId]), number[kineto::kTotalAllocated],
                              std::nullopt);
            continue;
        }
        b.addSlice(trackOf(e), e.startNs, std::max<std::int64_t>(0, e.endNs - e.startNs), pool.intern(e.name),
                   pool.intern(e.category), e.correlation, encoded);
    }
    if (!deviceName.empty()) {
        DeviceInfo device;
        device.id = 0;
        device.name = deviceName;
        device.json = "{\"id\":0}";
        b.addDevice(device);
    }
    b.info().eventsRead = events.size();
    return b.finish();
}

double ImplStats::meanMs() const {
    if (callMs.empty()) return 0;
    double sum = 0;
    for (double ms : callMs)
        sum += ms;
    return sum / double(callMs.size());
}

std::vector<ImplStats> runStats(const RunConfig& config, const std::vector<RunEvent>& events) {
    std::vector<ImplStats> out;
    for (const RunCase& rc : runCases(config)) {
        const std::string& impl = rc.label;
        ImplStats st;
        st.impl = impl;
        std::set<int> calls; // PyTorch runs: kernels a measured call
        std::uint64_t kernels = 0;
        st.flopsPerCall = kernelCost(rc.shape, KernelRole::FusedAttention).flops;
        // A kernel's time in a call: from its first worker's start to its last worker's end.
        std::map<std::pair<int, std::string>, std::pair<std::int64_t, std::int64_t>> kernelSpan;
        for (const RunEvent& e : events) {
            if (e.impl != impl || e.warmup) continue;
            if (e.category == category::kUserAnnotation) {
                if (e.call < 0) continue; // an NVTX range
                st.callMs.push_back(double(e.measuredNs > 0 ? e.measuredNs : e.endNs - e.startNs) / 1e6);
            } else if (!e.role.empty()) {
                calls.insert(e.call);
                ++kernels;
                auto [it, added] = kernelSpan.try_emplace({e.call, e.role}, e.startNs, e.endNs);
                if (!added) {
                    it->second.first = std::min(it->second.first, e.startNs);
                    it->second.second = std::max(it->second.second, e.endNs);
                }
            }
        }
        for (KernelRole role : kRoles) {
            double total = 0;
            int calls = 0;
            for (const auto& [key, span] : kernelSpan)
                if (key.second == roleName(role)) {
                    total += double(span.second - span.first) / 1e6;
                    ++calls;
                }
            if (calls) st.roleMs.emplace_back(std::string(roleName(role)), total / calls);
        }
        if (config.backend == Backend::Torch && !calls.empty())
            st.kernelsPerCall = double(kernels) / double(calls.size());
        out.push_back(std::move(st));
    }
    return out;
}

std::string runHeadline(const RunConfig& config, unsigned workers) {
    const AttentionShape& s = config.shape;
    char where[64];
    if (config.backend == Backend::Torch)
        std::snprintf(where, sizeof where, "PyTorch backend (%s)", torchPython(config).c_str());
    else if (config.backend == Backend::Cuda)
        std::snprintf(where, sizeof where, "CUDA backend, device 0%s", config.collect ? "" : ", CUPTI off");
    else
        std::snprintf(where, sizeof where, "CPU backend, %u workers", workers);
    std::string shapes = describeShape(s);
    if (!config.variants.empty()) {
        shapes.clear();
        for (const RunVariant& v : config.variants)
            shapes += (shapes.empty() ? "" : "; ") + v.name + " " + describeShape(v.shape);
    }
    char line[160];
    std::snprintf(line, sizeof line, " · warm-up %d, %d measured calls\n", config.warmup, config.iters);
    return "attnscope run: " + std::string(where) + " · " + shapes + line;
}

std::string formatRunStats(const std::vector<ImplStats>& stats) {
    std::string out;
    char cell[128];
    auto add = [&](const char* format, auto... values) {
        std::snprintf(cell, sizeof cell, format, values...);
        out += cell;
    };
    int width = 10;
    for (const ImplStats& st : stats)
        width = std::max(width, int(st.impl.size()));
    const bool counted =
        std::any_of(stats.begin(), stats.end(), [](const ImplStats& st) { return st.kernelsPerCall > 0; });
    add("\n%-*s %12s %22s %10s", width, "impl", "mean/call", "spread (min - max)", "GFLOP/s");
    if (counted) add(" %14s", "kernels/call");
    for (KernelRole role : kRoles)
        add(" %16s", std::string(roleName(role)).c_str());
    out += '\n';
    for (const ImplStats& st : stats) {
        if (st.callMs.empty()) {
            add("%-*s %12s\n", width, st.impl.c_str(),
                st.unavailable ? "not available here (see above)" : "no measured call");
            continue;
        }
        const auto [lo, hi] = std::minmax_element(st.callMs.begin(), st.callMs.end());
        add("%-*s %9.3f ms %9.3f - %7.3f ms %10.2f", width, st.impl.c_str(), st.meanMs(), *lo, *hi,
            st.gflops());
        if (counted) add(" %14.1f", st.kernelsPerCall);
        for (KernelRole role : kRoles) {
            auto it = std::find_if(st.roleMs.begin(), st.roleMs.end(),
                                   [&](const auto& p) { return p.first == roleName(role); });
            if (it == st.roleMs.end())
                add(" %16s", "-");
            else
                add(" %13.3f ms", it->second);
        }
        out += '\n';
    }
    if (stats.size() == 2 && stats[0].meanMs() > 0 && stats[1].meanMs() > 0)
        add("\n%s / %s time: %.2fx\n", stats[1].impl.c_str(), stats[0].impl.c_str(),
            stats[1].meanMs() / stats[0].meanMs());
    return out;
}

} // namespace attnscope::kernels
