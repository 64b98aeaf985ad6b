// SPDX-License-Identifier: MIT
// AttnScope's CPU backend: naive and flash attention on a pool of workers, each worker's share of a
// kernel recorded as it runs, behind RunHooks like the CUDA and PyTorch backends.
#include "kernels/cpu_backend.h"

#include "kernels/cpu/cpu_attention.h"

#include "core/model/categories.h"
#include "core/model/kineto_args.h"
#include "core/model/run_args.h"

#include <mutex>
#include <vector>

namespace attnscope::kernels {

std::string runCpu(const RunConfig& config, unsigned workers, const RunHooks& hooks) {
    WorkerPool pool(workers);
    auto push = [&hooks](RunEvent e) {
        std::vector<RunEvent> one;
        one.push_back(std::move(e));
        hooks.events(std::move(one));
    };
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
    for (const RunCase& rc : runCases(config)) {
        if (hooks.stopRequested()) break;
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
        for (int call = 0; call < config.warmup + config.iters && !hooks.stopRequested(); ++call) {
            const bool warmup = call < config.warmup;
            // A call's kernels and its range go out together when it ends: a live view that read the
            // kernels before their range arrived had them as plain GEMMs of no call until the run ended.
            std::vector<RunEvent> callEvents;
            std::mutex callMutex; // the workers record their shares at once
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
                const std::lock_guard lock(callMutex);
                callEvents.push_back(std::move(e));
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
                          {std::string(runargs::kWarmup), warmup ? "true" : "false"}};
            range.args.insert(range.args.end(), shape.begin(), shape.end());
            callEvents.push_back(std::move(range));
            hooks.events(std::move(callEvents));
        }
        if (naive) {
            memory(-double(scores.size()) * sizeof(float));
            std::vector<float>().swap(scores);
        }
    }
    return {};
}

} // namespace attnscope::kernels
