// SPDX-License-Identifier: MIT
// CPU attention benchmark: GFLOP/s of each CPU implementation at B=1, H=8, N=2048, D=64, fp32
// (causal and not), against the machine's peak measured here with a small FMA and bandwidth
// micro-benchmark on the same workers. The last line sums it up:
//   cpu_attention naive_gflops=… flash_gflops=… peak_gflops=… bandwidth_GBs=… flash_vs_naive=…
//
//   attnscope_bench_attention_cpu [--seq N] [--heads H] [--dim D] [--iters I] [--threads T]
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
int main(int argc, char** argv) {
    RunConfig config;
    config.shape = {1, 8, 2048, 64, false, Precision::F32};
    config.warmup = 1;
    config.iters = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "usage: %s [--seq N] [--heads H] [--dim D] [--iters I] [--threads T]\n",
                         argv[0]);
            return 2;
        }
        const int v = std::atoi(argv[++i]);
        if (a == "--seq")
            config.shape.seq = v;
        else if (a == "--heads")
            config.shape.heads = v;
        else if (a == "--dim")
            config.shape.dim = v;
        else if (a == "--iters")
            config.iters = std::max(1, v);
        else if (a == "--threads")
            config.threads = unsigned(std::max(1, v));
        else {
            std::fprintf(stderr, "usage: %s [--seq N] [--heads H] [--dim D] [--iters I] [--threads T]\n",
                         argv[0]);
            return 2;
        }
    }
    if (const std::string problem = checkRunConfig(config); !problem.empty()) {
        std::fprintf(stderr, "%s\n", problem.c_str());
        return 2;
    }
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
