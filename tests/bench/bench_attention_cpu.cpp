// SPDX-License-Identifier: MIT
// CPU attention benchmark: GFLOP/s of each CPU implementation at B=1, H=8, N=2048, D=64, fp32
// (causal and not), against the machine's peak measured here with a small FMA and bandwidth
// micro-benchmark on the same workers. The last line sums it up:
//   cpu_attention naive_gflops=… flash_gflops=… peak_gflops=… bandwidth_GBs=… flash_vs_naive=…
//
//   attnscope_bench_attention_cpu [--seq N] [--heads H] [--dim D] [--iters I] [--threads T] …
// With --row it prints only the best call of each implementation at one shape (see kUsage).
#include "kernels/cpu/cpu_attention.h"
#include "core/analysis/machine_roofs.h"
#include "kernels/run_session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace attnscope;
using namespace attnscope::kernels;
namespace {

const char* const kUsage = "usage: %s [--seq N] [--heads H] [--dim D] [--kv-heads K] [--kv-len L] [--dtype "
                           "fp32|fp16|bf16] [--causal] [--impl naive,flash] [--iters I] [--threads T] [--row]\n";

// --row: one line, the best call of each implementation at the shape ("row naive_ms=… flash_ms=…"),
// for a driver that puts them beside another library's (tests/bench/torch_compare.py).
int row(RunConfig config) {
    RunSession session(config);
    session.start();
    session.wait();
    if (const std::string error = session.error(); !error.empty()) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    std::printf("row");
    for (const ImplStats& st : runStats(config, session.takeEvents()))
        std::printf(" %s_ms=%.4f", st.impl.c_str(), *std::min_element(st.callMs.begin(), st.callMs.end()));
    std::printf("\n");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    prepareRuns();
    RunConfig config;
    config.shape = {1, 8, 2048, 64, false, Precision::F32};
    config.warmup = 1;
    config.iters = 3;
    bool rowOnly = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--causal") {
            config.shape.causal = true;
            continue;
        }
        if (a == "--row") {
            rowOnly = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, kUsage, argv[0]);
            return 2;
        }
        const std::string value = argv[++i];
        const int v = std::atoi(value.c_str());
        if (a == "--seq")
            config.shape.seq = v;
        else if (a == "--heads")
            config.shape.heads = v;
        else if (a == "--dim")
            config.shape.dim = v;
        else if (a == "--kv-heads")
            config.shape.kvHeads = v;
        else if (a == "--kv-len")
            config.shape.kvLen = v;
        else if (a == "--dtype" && (value == "fp32" || value == "fp16" || value == "bf16"))
            config.shape.dtype = value == "fp32" ? Precision::F32 : value == "fp16" ? Precision::F16 : Precision::BF16;
        else if (a == "--impl") {
            config.impls.clear();
            for (std::size_t at = 0; at <= value.size();) {
                const std::size_t comma = std::min(value.find(',', at), value.size());
                config.impls.push_back(value.substr(at, comma - at));
                at = comma + 1;
            }
        } else if (a == "--iters")
            config.iters = std::max(1, v);
        else if (a == "--threads")
            config.threads = unsigned(std::max(1, v));
        else {
            std::fprintf(stderr, kUsage, argv[0]);
            return 2;
        }
    }
    if (const std::string problem = checkRunConfig(config); !problem.empty()) {
        std::fprintf(stderr, "%s\n", problem.c_str());
        return 2;
    }
    if (rowOnly) return row(config);
    const unsigned threads =
        config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
    WorkerPool pool(threads);
    const CpuPeak measured = measureCpuPeak(pool.size());
    const double peak = measured.flops / 1e9, bandwidth = measured.bandwidth / 1e9;
    std::printf("machine: %u workers, measured peak %.1f GFLOP/s fp32 (AVX2 FMA), %.1f GB/s read bandwidth\n",
                threads, peak, bandwidth);

    double naiveGflops = 0, flashGflops = 0, ratio = 0;
    for (bool causal : {false, true}) {
        config.shape.causal = causal;
        RunSession session(config);
        session.start();
        session.wait();
        const auto stats = runStats(config, session.takeEvents());
        std::printf("B=%d H=%d N=%d D=%d fp32 %s:\n", config.shape.batch, config.shape.heads,
                    config.shape.seq, config.shape.dim, causal ? "causal" : "non-causal");
        for (const ImplStats& st : stats) {
            std::printf("  %-6s %9.2f ms/call  %7.2f GFLOP/s  (%.1f%% of peak)", st.impl.c_str(), st.meanMs(),
                        st.gflops(), 100 * st.gflops() / peak);
            for (const auto& [role, ms] : st.roleMs)
                std::printf("  %s %.2f ms", role.c_str(), ms);
            std::printf("\n");
        }
        const double r = stats[0].meanMs() / stats[1].meanMs();
        std::printf("  flash is %.2fx the speed of naive\n", r);
        if (!causal) {
            naiveGflops = stats[0].gflops();
            flashGflops = stats[1].gflops();
            ratio = r;
        }
    }
    std::printf("cpu_attention naive_gflops=%.2f flash_gflops=%.2f peak_gflops=%.1f bandwidth_GBs=%.1f "
                "flash_vs_naive=%.2f (non-causal)\n",
                naiveGflops, flashGflops, peak, bandwidth, ratio);
    return 0;
}
