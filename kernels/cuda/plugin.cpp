// SPDX-License-Identifier: MIT
// The CUDA backend plugin: the probe, one attention call from host arrays (what the tests check
// against the CPU reference), and whole runs with CUPTI collection. cudart is linked statically
// and finds the driver (libcuda) at run time, so without a driver the probe answers with the
// reason instead of failing to load; cuBLAS and CUPTI are loaded with dlopen when first needed.
#include "cublas_gemm.h"
#include "cupti_collector.h"
#include "device_attention.h"
#include "plugin_api.h"

#include "core/model/categories.h"
#include "core/model/kineto_args.h"
#include "kernels/attention.h"

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#define ATTNSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using attnscope::KernelRole;
using attnscope::kernels::AttentionShape;
using attnscope_cuda::Problem;

void say(char* message, int size, const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(message, std::size_t(size), format, args);
    va_end(args);
}

std::string cudaWhy(cudaError_t e, const char* what) {
    return std::string(what) + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
}

std::vector<std::string> splitCommas(const char* text) {
    std::vector<std::string> out;
    std::string current;
    for (const char* c = text; c && *c; ++c) {
        if (*c == ',') {
            if (!current.empty()) out.push_back(current);
            current.clear();
        } else {
            current += *c;
        }
    }
    if (!current.empty()) out.push_back(current);
    return out;
}

AttentionShape shapeOf(const Problem& p) {
    AttentionShape s;
    s.batch = p.batch;
    s.heads = p.heads;
    s.seq = p.seq;
    s.dim = p.dim;
    s.causal = p.causal;
    s.dtype = precisionOfAbi(p.dtype);
    return s;
}

bool isNaive(const std::string& impl) {
    return impl == "naive" || impl == "naive_simt";
}

// Q, K, V, O and (for the naive implementations) the scores on the device.
struct DeviceArrays {
    void* q = nullptr;
    void* k = nullptr;
    void* v = nullptr;
    void* o = nullptr;
    void* scores = nullptr;
    ~DeviceArrays() {
        for (void* p : {q, k, v, o, scores})
            cudaFree(p);
    }
    // Checks that Q, K, V, O and (naive) the scores fit, allocates the four, and the scores too unless
    // the caller allocates them when the naive calls start (scoresNow false).
    std::string allocate(const Problem& p, bool naive, bool scoresNow = true) {
        const std::size_t bytes = p.elements() * std::size_t(p.elementBytes());
        const std::size_t kvBytes = p.kvElements() * std::size_t(p.elementBytes());
        std::size_t freeBytes = 0, totalBytes = 0;
        cudaMemGetInfo(&freeBytes, &totalBytes);
        const double need =
            double(inputBytes(p)) + (naive ? double(p.scoreElements()) * p.elementBytes() : 0.0);
        if (freeBytes && need > double(freeBytes)) {
            char text[200];
            std::snprintf(text, sizeof text,
                          "out of memory at this shape: it needs %.1f GB, the GPU has %.1f GB free",
                          need / 1e9, double(freeBytes) / 1e9);
            return text;
        }
        for (void** target : {&q, &k, &v, &o})
            if (const cudaError_t e = cudaMalloc(target, target == &k || target == &v ? kvBytes : bytes))
                return cudaWhy(e, "out of memory at this shape");
        return naive && scoresNow ? allocateScores(p) : std::string();
    }
    std::string allocateScores(const Problem& p) {
        if (!scores)
            if (const cudaError_t e = cudaMalloc(&scores, scoreBytes(p)))
                return cudaWhy(e, "out of memory at this shape (the N×N scores)");
        return {};
    }
    void freeScores() {
        cudaFree(scores);
        scores = nullptr;
    }
    static std::size_t inputBytes(const Problem& p) { // Q, K, V and O
        return (2 * p.elements() + 2 * p.kvElements()) * std::size_t(p.elementBytes());
    }
    static std::size_t scoreBytes(const Problem& p) {
        return p.scoreElements() * std::size_t(p.elementBytes());
    }
};

// The kernels of one attention call. before/after wrap each kernel (or cuBLAS call) of a role.
template <class Around>
std::string launchCall(const std::string& impl, const Problem& p, DeviceArrays& a,
                       attnscope_cuda::Cublas* cublas, Around around) {
    std::string why;
    auto check = [&](cudaError_t e, const char* what) {
        if (e != cudaSuccess && why.empty()) why = cudaWhy(e, what);
    };
    if (impl == "naive") {
        around(KernelRole::QkGemm, [&] { why = cublas->qk(p, a.q, a.k, a.scores); });
        if (why.empty())
            around(KernelRole::Softmax,
                   [&] { check(attnscope_cuda::launchSoftmax(p, a.scores), "softmax"); });
        if (why.empty()) around(KernelRole::PvGemm, [&] { why = cublas->pv(p, a.scores, a.v, a.o); });
    } else if (impl == "naive_simt") {
        const auto s = static_cast<float*>(a.scores);
        around(KernelRole::QkGemm, [&] {
            check(attnscope_cuda::launchQkSimt(p, static_cast<float*>(a.q), static_cast<float*>(a.k), s),
                  "QK");
        });
        around(KernelRole::Softmax, [&] { check(attnscope_cuda::launchSoftmax(p, s), "softmax"); });
        around(KernelRole::PvGemm, [&] {
            check(attnscope_cuda::launchPvSimt(p, s, static_cast<float*>(a.v), static_cast<float*>(a.o)),
                  "PV");
        });
    } else if (impl == "flash") {
        around(KernelRole::FusedAttention,
               [&] { check(attnscope_cuda::launchFlashMma(p, a.q, a.k, a.v, a.o), "flash"); });
    } else {
        around(KernelRole::FusedAttention, [&] {
            check(attnscope_cuda::launchFlashSimt(p, static_cast<float*>(a.q), static_cast<float*>(a.k),
                                                  static_cast<float*>(a.v), static_cast<float*>(a.o)),
                  "flash_simt");
        });
    }
    return why;
}

Problem problemOf(int dtype, int batch, int heads, int seq, int dim, int kvHeads, int kvLen, int causal) {
    Problem p;
    p.batch = batch;
    p.heads = heads;
    p.seq = seq;
    p.dim = dim;
    p.kvHeads = kvHeads;
    p.kvLen = kvLen;
    p.causal = causal != 0;
    p.dtype = dtype;
    return p;
}

// Checks every implementation against the problem and the device; "" when all can run.
std::string checkImpls(const std::vector<std::string>& impls, const Problem& p) {
    if (impls.empty()) return "no implementation to run";
    for (const std::string& impl : impls)
        if (const char* why = attnscope_cuda::unsupported(impl.c_str(), p)) return impl + ": " + why;
    if (p.heads_total() * std::size_t((p.seq + 63) / 64) > 0x7fffffffu)
        return "too many heads × rows for one grid";
    return {};
}

using Args = attnscope::kernels::RunArgs;
using attnscope::kernels::jsonNumber;

std::string quoted(const std::string& s) {
    return "\"" + s + "\""; // names of our own: nothing to escape
}

} // namespace

ATTNSCOPE_EXPORT int attnscope_cuda_probe(char* message, int size) {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        say(message, size, "no CUDA device: %s (%s, %d)", cudaGetErrorString(error), cudaGetErrorName(error),
            int(error));
        return 0;
    }
    if (count == 0) {
        say(message, size, "no CUDA device: the driver reports none");
        return 0;
    }
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    say(message, size, "%d CUDA device%s; device 0: %s, compute capability %d.%d, %d SMs", count,
        count == 1 ? "" : "s", p.name, p.major, p.minor, p.multiProcessorCount);
    return count;
}

ATTNSCOPE_EXPORT int attnscope_cuda_attention(const char* impl, int dtype, int batch, int heads, int seq,
                                              int dim, int kvHeads, int kvLen, int causal, const float* q,
                                              const float* k, const float* v, float* o, char* message,
                                              int size) {
    const Problem p = problemOf(dtype, batch, heads, seq, dim, kvHeads, kvLen, causal);
    if (const std::string why = checkImpls({impl}, p); !why.empty()) {
        say(message, size, "%s", why.c_str());
        return 1;
    }
    const std::string name = impl;
    DeviceArrays a;
    if (std::string why = a.allocate(p, isNaive(name)); !why.empty()) {
        say(message, size, "%s", why.c_str());
        return 1;
    }
    const std::size_t n = p.elements(), bytes = n * sizeof(float), kvN = p.kvElements();
    float* staging = nullptr;
    std::string why;
    if (const cudaError_t e = cudaMalloc(&staging, std::max(n, kvN) * sizeof(float)))
        why = cudaWhy(e, "cudaMalloc");
    for (auto [host, device, count] :
         {std::tuple{q, a.q, n}, std::tuple{k, a.k, kvN}, std::tuple{v, a.v, kvN}}) {
        if (!why.empty()) break;
        if (const cudaError_t e = cudaMemcpy(staging, host, count * sizeof(float), cudaMemcpyHostToDevice))
            why = cudaWhy(e, "copy to the device");
        else if (const cudaError_t e2 = attnscope_cuda::launchFromFloat(p, staging, device, count))
            why = cudaWhy(e2, "convert");
    }
    std::unique_ptr<attnscope_cuda::Cublas> cublas;
    if (why.empty() && name == "naive") {
        cublas = std::make_unique<attnscope_cuda::Cublas>();
        if (!cublas->open(nullptr, why)) cublas.reset();
    }
    if (why.empty()) why = launchCall(name, p, a, cublas.get(), [](KernelRole, auto launch) { launch(); });
    if (why.empty())
        if (const cudaError_t e = cudaDeviceSynchronize()) why = cudaWhy(e, "run");
    if (why.empty())
        if (const cudaError_t e = attnscope_cuda::launchToFloat(p, a.o, staging, n))
            why = cudaWhy(e, "convert");
    if (why.empty())
        if (const cudaError_t e = cudaMemcpy(o, staging, bytes, cudaMemcpyDeviceToHost))
            why = cudaWhy(e, "copy from the device");
    cudaFree(staging);
    if (why.empty()) return 0;
    say(message, size, "%s", why.c_str());
    return 1;
}

// Long on purpose: the run on the device as one sequence (set up, every call of every implementation,
// the records, tear down) with its error paths, readable against the CUDA calls it makes.
ATTNSCOPE_EXPORT int attnscope_cuda_run(const AttnscopeCudaRunRequest* request, char* message, int size) {
    const AttnscopeCudaRunRequest& r = *request;
    auto notice = [&](const std::string& text) {
        if (r.notice) r.notice(r.user, text.c_str());
    };
    // NVTX finds CUPTI through NVTX_INJECTION64_PATH, which the program set at its start (setenv is not
    // safe here, on a worker thread). A run without collection makes no NVTX call and never loads
    // CUPTI: the baseline the collection's overhead is measured against has no CUPTI in it.
    Problem p = problemOf(r.dtype, r.batch, r.heads, r.seq, r.dim, r.kvHeads, r.kvLen, r.causal);
    const std::vector<std::string> impls = splitCommas(r.impls);
    if (std::string why = checkImpls(impls, p); !why.empty()) {
        say(message, size, "%s", why.c_str());
        return 1;
    }
    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
        say(message, size, "no CUDA device: %s", e ? cudaGetErrorString(e) : "the driver reports none");
        return 1;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    attnscope::DeviceLimits limits = attnscope::deviceLimitsFor(
        prop.major, prop.minor, prop.maxThreadsPerMultiProcessor, prop.regsPerMultiprocessor,
        int(prop.sharedMemPerMultiprocessor), prop.warpSize);
    limits.maxBlocksPerSm = prop.maxBlocksPerMultiProcessor;
    limits.reservedSharedPerBlock = int(prop.reservedSharedMemPerBlock);

    // Launch tags: what the collector needs to give each kernel its role and cost.
    std::mutex tagMutex;
    std::map<std::uint64_t, attnscope_cuda::LaunchTag> tags;
    tags[1] = {}; // setup: filling the inputs
    std::uint64_t nextTag = 2;

    attnscope_cuda::CuptiCollector collector;
    bool collecting = false;
    const auto steadyNs = [] {
        return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
    };
    // The run's origin, on the clock its times come from: CUPTI's when it collects.
    std::uint64_t origin = 0;
    if (r.collect) {
        std::string why;
        origin = attnscope_cuda::CuptiCollector::now();
        collecting = collector.start(
            limits, origin,
            [&](const AttnscopeCudaRecord* records, int count) { r.records(r.user, records, count); }, notice,
            [&](std::uint64_t total) {
                if (r.dropped) r.dropped(r.user, total);
            },
            [&](std::uint64_t id) -> const attnscope_cuda::LaunchTag* {
                std::lock_guard lock(tagMutex);
                auto it = tags.find(id);
                return it == tags.end() ? nullptr : &it->second;
            },
            why);
        if (!collecting)
            notice(why +
                   (why.find("only the calls") == std::string::npos ? ": only the calls are timed" : ""));
    }
    const auto now = [&] { return collecting ? attnscope_cuda::CuptiCollector::now() : steadyNs(); };
    if (!collecting) origin = steadyNs();

    std::string why;
    cudaStream_t stream = nullptr;
    cudaEvent_t begin = nullptr, end = nullptr;
    if (const cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking))
        why = cudaWhy(e, "stream");
    if (why.empty() && (cudaEventCreate(&begin) != cudaSuccess || cudaEventCreate(&end) != cudaSuccess))
        why = "cudaEventCreate failed";
    p.stream = stream;
    DeviceArrays arrays;
    bool naiveWanted = false;
    for (const std::string& impl : impls)
        naiveWanted = naiveWanted || isNaive(impl);
    // What the run holds on the device, as PyTorch's profiler records it ("[memory]" after each
    // allocation or free): Q, K, V and O throughout, the N×N scores while naive calls run.
    int device = 0;
    cudaGetDevice(&device);
    double held = 0;
    const auto memory = [&](double bytes) {
        held += bytes;
        const std::string total = jsonNumber(held), delta = jsonNumber(bytes), id = std::to_string(device);
        const char* args[] = {
            attnscope::kineto::kTotalAllocated, total.c_str(), attnscope::kineto::kBytes,    delta.c_str(),
            attnscope::kineto::kDeviceType,     "1",           attnscope::kineto::kDeviceId, id.c_str()};
        AttnscopeCudaRecord record{};
        record.kind = ATTNSCOPE_RECORD_CALL;
        record.name = attnscope::kineto::kMemoryEvent;
        record.category = attnscope::category::kCpuInstant.data();
        record.startNs = record.endNs = std::int64_t(now() - origin);
        record.device = -1;
        record.args = args;
        record.argCount = 4;
        record.impl = "";
        record.role = "";
        record.call = -1;
        r.records(r.user, &record, 1);
    };
    if (why.empty()) why = arrays.allocate(p, naiveWanted, false);
    if (why.empty()) memory(double(DeviceArrays::inputBytes(p)));
    if (why.empty()) {
        if (collecting) collector.push(1);
        std::uint32_t seed = 1;
        for (void* t : {arrays.q, arrays.k, arrays.v})
            if (const cudaError_t e =
                    attnscope_cuda::launchFill(p, t, t == arrays.q ? p.elements() : p.kvElements(), seed++))
                why = cudaWhy(e, "fill");
        if (collecting) collector.pop();
    }
    std::unique_ptr<attnscope_cuda::Cublas> cublas;
    for (const std::string& impl : impls)
        if (why.empty() && impl == "naive" && !cublas) {
            cublas = std::make_unique<attnscope_cuda::Cublas>();
            if (!cublas->open(stream, why)) cublas.reset();
        }

    const AttentionShape shape = shapeOf(p);
    const Args shapeArgList = attnscope::kernels::shapeArgs(shapeOf(p));
    for (const std::string& impl : impls) {
        if (!why.empty()) break;
        if (isNaive(impl)) {
            why = arrays.allocateScores(p);
            if (!why.empty()) break;
            memory(double(DeviceArrays::scoreBytes(p)));
        }
        const std::string range = impl + ": " + std::to_string(r.warmup) + " warm-up + " +
                                  std::to_string(r.iters) + " measured calls";
        if (collecting) nvtxRangePushA(range.c_str());
        for (int call = 0; call < r.warmup + r.iters && why.empty() && !r.stopRequested(r.user); ++call) {
            const bool warmup = call < r.warmup;
            const std::string callName = impl + " attention";
            if (collecting) nvtxRangePushA((callName + " " + std::to_string(call)).c_str());
            const std::uint64_t hostStart = now();
            cudaEventRecord(begin, stream);
            why = launchCall(impl, p, arrays, cublas.get(), [&](KernelRole role, auto launch) {
                if (!collecting) return launch();
                attnscope_cuda::LaunchTag tag;
                tag.impl = impl;
                tag.role = std::string(attnscope::roleName(role));
                tag.call = call;
                tag.warmup = warmup;
                const auto cost = attnscope::kernels::kernelCost(shape, role, p.elementBytes());
                tag.args = attnscope::kernels::kernelArgs(role, impl, call, cost);
                tag.args.insert(tag.args.end(), shapeArgList.begin(), shapeArgList.end());
                std::uint64_t id;
                {
                    std::lock_guard lock(tagMutex);
                    id = nextTag++;
                    tags[id] = std::move(tag);
                }
                collector.push(id);
                launch();
                collector.pop();
            });
            cudaEventRecord(end, stream);
            if (const cudaError_t e = cudaEventSynchronize(end); e && why.empty()) why = cudaWhy(e, "run");
            const std::uint64_t hostEnd = now();
            if (collecting) nvtxRangePop();
            if (!why.empty()) break;
            float ms = 0;
            cudaEventElapsedTime(&ms, begin, end);
            Args args = {{"impl", quoted(impl)},
                         {"call", std::to_string(call)},
                         {"warmup", warmup ? "true" : "false"},
                         {"gpu_ms", jsonNumber(ms)}};
            args.insert(args.end(), shapeArgList.begin(), shapeArgList.end());
            std::vector<const char*> flat;
            for (const auto& [key, value] : args) {
                flat.push_back(key.c_str());
                flat.push_back(value.c_str());
            }
            AttnscopeCudaRecord record{};
            record.kind = ATTNSCOPE_RECORD_CALL;
            record.name = callName.c_str();
            record.category = attnscope::category::kUserAnnotation.data();
            record.startNs = std::int64_t(hostStart - origin);
            record.endNs = std::int64_t(hostEnd - origin);
            record.device = -1;
            record.args = flat.data();
            record.argCount = int(args.size());
            record.impl = impl.c_str();
            record.role = "";
            record.call = call;
            record.warmup = warmup ? 1 : 0;
            record.gpuNs = std::int64_t(double(ms) * 1e6);
            r.records(r.user, &record, 1);
        }
        if (collecting) nvtxRangePop();
        if (isNaive(impl) && arrays.scores) {
            if (stream) cudaStreamSynchronize(stream);
            arrays.freeScores();
            memory(-double(DeviceArrays::scoreBytes(p)));
        }
    }
    if (stream) cudaStreamSynchronize(stream);
    collector.stop(); // the last records arrive before the run returns
    cublas.reset();
    if (begin) cudaEventDestroy(begin);
    if (end) cudaEventDestroy(end);
    if (stream) cudaStreamDestroy(stream);
    if (why.empty()) return 0;
    say(message, size, "%s", why.c_str());
    return 1;
}
