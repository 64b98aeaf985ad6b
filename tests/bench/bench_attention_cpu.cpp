// SPDX-License-Identifier: MIT
// CPU attention benchmark: GFLOP/s of each CPU implementation at B=1, H=8, N=2048, D=64, fp32
// (causal and not), against the machine's peak measured here with a small FMA and bandwidth
// micro-benchmark on the same workers. The last line sums it up:
//   cpu_attention naive_gflops=… flash_gflops=… peak_gflops=… bandwidth_GBs=… flash_vs_naive=…
//
//   attnscope_bench_attention_cpu [--seq N] [--heads H] [--dim D] [--iters I] [--threads T]
#include "kernels/cpu/cpu_attention.h"
#include "kernels/run_session.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace attnscope::kernels;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Ten independent chains of 8-wide fused multiply-adds: the most a core does per cycle with AVX2.
__attribute__((target("avx2,fma"))) double fmaChains(std::size_t rounds) {
    __m256 acc[10];
    for (int i = 0; i < 10; ++i)
        acc[i] = _mm256_set1_ps(float(i));
    const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
    for (std::size_t r = 0; r < rounds; ++r)
        for (int i = 0; i < 10; ++i)
            acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    __m256 sum = acc[0];
    for (int i = 1; i < 10; ++i)
        sum = _mm256_add_ps(sum, acc[i]);
    float out[8];
    _mm256_storeu_ps(out, sum);
    return double(out[0]);
}

double peakGflops(WorkerPool& pool) {
    const std::size_t rounds = 50'000'000;
    std::vector<double> sink(pool.size());
    const auto t0 = Clock::now();
    pool.run(pool.size(), [&](unsigned w, std::size_t, std::size_t) { sink[w] = fmaChains(rounds); });
    const double s = secondsSince(t0);
    if (sink[0] == 12345.0) std::printf(" "); // keeps the chains from being optimized away
    return 2.0 * 8 * 10 * double(rounds) * pool.size() / s / 1e9;
}

double bandwidthGBs(WorkerPool& pool) {
    // Each worker sums its part of a buffer far larger than the caches, twice; the second pass counts.
    const std::size_t floats = std::size_t(256) << 20 >> 2;
    std::vector<float> buffer(floats, 1.0f);
    std::vector<double> sums(pool.size());
    double best = 0;
    for (int pass = 0; pass < 3; ++pass) {
        const auto t0 = Clock::now();
        pool.run(floats, [&](unsigned w, std::size_t begin, std::size_t end) {
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (std::size_t i = begin; i + 4 <= end; i += 4) {
                s0 += buffer[i];
                s1 += buffer[i + 1];
                s2 += buffer[i + 2];
                s3 += buffer[i + 3];
            }
            sums[w] = s0 + s1 + s2 + s3;
        });
        best = std::max(best, double(floats) * 4 / secondsSince(t0) / 1e9);
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    RunConfig config;
    config.shape = {1, 8, 2048, 64, false, DType::F32};
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
    const double peak = peakGflops(pool);
    const double bandwidth = bandwidthGBs(pool);
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
