// SPDX-License-Identifier: MIT
#include "core/analysis/machine_roofs.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace attnscope {

namespace {

using Clock = std::chrono::steady_clock;

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

// Runs fn(t) on `threads` threads at once and waits for them.
template <typename Fn> void onThreads(unsigned threads, const Fn& fn) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&fn, t] { fn(t); });
    for (std::thread& th : pool)
        th.join();
}

double peakFlops(unsigned threads) {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
    const std::size_t rounds = 20'000'000;
    std::vector<double> sink(threads);
    double best = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const auto t0 = Clock::now();
        onThreads(threads, [&](unsigned t) { sink[t] = fmaChains(rounds); });
        best = std::max(best, 2.0 * 8 * 10 * double(rounds) * threads / secondsSince(t0));
    }
    if (sink[0] == 12345.0) std::printf(" "); // keeps the chains from being optimized away
    return best;
}

double readBandwidth(unsigned threads) {
    // Each worker sums its part of a buffer far larger than the caches; the best of three passes.
    const std::size_t floats = std::size_t(256) << 20 >> 2;
    std::vector<float> buffer(floats, 1.0f);
    std::vector<double> sums(threads);
    double best = 0;
    for (int pass = 0; pass < 3; ++pass) {
        const auto t0 = Clock::now();
        onThreads(threads, [&](unsigned w) {
            const std::size_t begin = floats * w / threads, end = floats * (w + 1) / threads;
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (std::size_t i = begin; i + 4 <= end; i += 4) {
                s0 += buffer[i];
                s1 += buffer[i + 1];
                s2 += buffer[i + 2];
                s3 += buffer[i + 3];
            }
            sums[w] = s0 + s1 + s2 + s3;
        });
        best = std::max(best, double(floats) * 4 / secondsSince(t0));
    }
    return best;
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

std::string cacheFile() {
    if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
        return std::string(cache) + "/attnscope/cpu_peak.txt";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/attnscope/cpu_peak.txt";
    return {};
}

} // namespace

CpuPeak measureCpuPeak(unsigned threads) {
    threads = std::max(1u, threads);
    return {peakFlops(threads), readBandwidth(threads)};
}

DeviceSpec cpuDeviceSpec() {
    static const DeviceSpec spec = [] {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        const std::string key = cpuModel() + " x" + std::to_string(cores);
        DeviceSpec d;
        d.name = "CPU (measured)";
        d.source = "measured";
        const std::string path = cacheFile();
        // The file: the key on the first line, then FLOP/s and bytes/s.
        if (!path.empty()) {
            std::ifstream in(path);
            std::string first;
            double flops = 0, bytes = 0;
            if (std::getline(in, first) && first == key && (in >> flops >> bytes) && flops > 0 && bytes > 0) {
                d.fp32 = flops;
                d.bandwidth = bytes;
                return d;
            }
        }
        const CpuPeak peak = measureCpuPeak(cores);
        d.fp32 = peak.flops;
        d.bandwidth = peak.bandwidth;
        if (!path.empty() && peak.flops > 0) {
            std::error_code ignored;
            std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
            std::ofstream out(path);
            out << key << '\n' << peak.flops << ' ' << peak.bandwidth << '\n';
        }
        return d;
    }();
    return spec;
}

TraceAnalysis analyzeWithMachineRoofs(const Trace& trace) {
    if (!hasCpuKernels(trace)) return analyzeTrace(trace);
    const DeviceSpec cpu = cpuDeviceSpec();
    return analyzeTrace(trace, cpu.fp32 > 0 ? &cpu : nullptr);
}

} // namespace attnscope
