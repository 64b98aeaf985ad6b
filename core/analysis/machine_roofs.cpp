// SPDX-License-Identifier: MIT
#include "core/analysis/machine_roofs.h"

#include <cpuid.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h> // whether the roofs are measured under its emulation
#else
#define RUNNING_ON_VALGRIND 0
#endif
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>
#include <vector>

namespace attnscope {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Independent chains of fused multiply-adds, enough to cover the FMA units' latency: the most a core
// does per cycle. Each returns the FLOPs it did (2 per multiply-add, or per bf16 product-and-add).
// The chains must stay in registers: the loops over them are unrolled, or the compiler keeps the
// accumulators in memory and the chains measure store-to-load latency instead (a quarter of the peak).
constexpr int kChains = 12;

__attribute__((target("avx512f"))) double fmaChainsAvx512(std::size_t rounds, float* sink) {
    __m512 acc[kChains];
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i)
        acc[i] = _mm512_set1_ps(float(i));
    const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
    for (std::size_t r = 0; r < rounds; ++r)
#pragma GCC unroll 12
        for (int i = 0; i < kChains; ++i)
            acc[i] = _mm512_fmadd_ps(acc[i], a, b);
#pragma GCC unroll 12
    for (int i = 1; i < kChains; ++i)
        acc[0] = _mm512_add_ps(acc[0], acc[i]);
    float out[16];
    _mm512_storeu_ps(out, acc[0]);
    *sink += out[0];
    return 2.0 * 16 * kChains * double(rounds);
}

__attribute__((target("avx512f,avx512bf16"))) double bf16DotChains(std::size_t rounds, float* sink) {
    __m512 acc[kChains];
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i)
        acc[i] = _mm512_set1_ps(float(i));
    const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
    for (std::size_t r = 0; r < rounds; ++r)
#pragma GCC unroll 12
        for (int i = 0; i < kChains; ++i)
            acc[i] = _mm512_dpbf16_ps(acc[i], a, a); // 32 products summed pairwise into 16 lanes
#pragma GCC unroll 12
    for (int i = 1; i < kChains; ++i)
        acc[0] = _mm512_add_ps(acc[0], acc[i]);
    float out[16];
    _mm512_storeu_ps(out, acc[0]);
    *sink += out[0];
    return 2.0 * 32 * kChains * double(rounds);
}

// AMX: four independent tile products (16×16 fp32 += 16×32 · 32×16 bf16, 8192 multiply-adds each)
// over the same operands, as the bf16 kernel's inner loops do. Only called where amxBf16Usable().
__attribute__((target("amx-tile,amx-bf16"))) double amxBf16Tiles(std::size_t rounds, float* sink) {
    struct alignas(64) Config {
        std::uint8_t palette = 1, startRow = 0, reserved[14] = {};
        std::uint16_t colsb[16] = {};
        std::uint8_t rows[16] = {};
    } config;
    for (int t = 0; t < 6; ++t) {
        config.rows[t] = 16;
        config.colsb[t] = 64;
    }
    alignas(64) static thread_local std::uint16_t operand[512];
    alignas(64) static thread_local float out[256];
    for (int i = 0; i < 512; ++i)
        operand[i] = 0x3F00; // 0.5 in bf16
    _tile_loadconfig(&config);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, operand, 64);
    _tile_loadd(5, operand, 64);
    for (std::size_t r = 0; r < rounds; ++r) {
        _tile_dpbf16ps(0, 4, 5);
        _tile_dpbf16ps(1, 4, 5);
        _tile_dpbf16ps(2, 4, 5);
        _tile_dpbf16ps(3, 4, 5);
    }
    _tile_stored(0, out, 64);
    _tile_release();
    *sink += out[0];
    return 2.0 * 16 * 16 * 32 * 4 * double(rounds);
}

__attribute__((target("avx2,fma"))) double fmaChainsAvx2(std::size_t rounds, float* sink) {
    __m256 acc[kChains];
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i)
        acc[i] = _mm256_set1_ps(float(i));
    const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
    for (std::size_t r = 0; r < rounds; ++r)
#pragma GCC unroll 12
        for (int i = 0; i < kChains; ++i)
            acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    float out[8];
#pragma GCC unroll 12
    for (int i = 1; i < kChains; ++i)
        acc[0] = _mm256_add_ps(acc[0], acc[i]);
    _mm256_storeu_ps(out, acc[0]);
    *sink += out[0];
    return 2.0 * 8 * kChains * double(rounds);
}

double scalarChains(std::size_t rounds, float* sink) {
    float acc[kChains];
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i)
        acc[i] = float(i);
    for (std::size_t r = 0; r < rounds; ++r)
#pragma GCC unroll 12
        for (int i = 0; i < kChains; ++i)
            acc[i] = acc[i] * 0.999f + 0.001f;
#pragma GCC unroll 12
    for (int i = 1; i < kChains; ++i)
        acc[0] += acc[i];
    *sink += acc[0];
    return 2.0 * kChains * double(rounds);
}

using Chains = double (*)(std::size_t, float*);

// The fp32 chains for an ISA as cpuIsa() names it.
Chains fp32Chains(const std::string& isa) {
    return isa.rfind("AVX-512", 0) == 0 ? fmaChainsAvx512 : isa == "AVX2" ? fmaChainsAvx2 : scalarChains;
}

// Runs fn(t) on `threads` threads at once and waits for them.
template <typename Fn> void onThreads(unsigned threads, const Fn& fn) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&fn, t] { fn(t); });
    for (std::thread& th : pool)
        th.join();
}

// The best of several short trials (a busy moment on the machine only lowers a trial, never raises
// it), on `threads` threads at once: FLOP/s.
double peakOf(Chains chains, unsigned threads, std::size_t rounds) {
    constexpr int kTrials = 7;
    std::vector<float> sinks(threads * 16);
    double best = 0;
    for (int trial = 0; trial < kTrials; ++trial) {
        std::vector<double> flops(threads);
        const auto t0 = Clock::now();
        onThreads(threads, [&](unsigned t) { flops[t] = chains(rounds, &sinks[t * 16]); });
        const double seconds = secondsSince(t0);
        double total = 0;
        for (double f : flops)
            total += f;
        best = std::max(best, total / seconds);
    }
    if (sinks[0] == 12345.0f) std::printf(" "); // keeps the chains from being optimized away
    return best;
}

// Sums of 64-bit words in [begin, end), in vector registers where the CPU has them: the loads, not the adds,
// must be the limit (a scalar loop of float sums measured half of what this machine's memory delivers).
__attribute__((target("avx512f"))) std::uint64_t sumWordsAvx512(const std::uint64_t* p, std::size_t n) {
    __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a = _mm512_add_epi64(a, _mm512_loadu_si512(p + i));
        b = _mm512_add_epi64(b, _mm512_loadu_si512(p + i + 8));
        c = _mm512_add_epi64(c, _mm512_loadu_si512(p + i + 16));
        d = _mm512_add_epi64(d, _mm512_loadu_si512(p + i + 24));
    }
    alignas(64) std::uint64_t lanes[8];
    _mm512_store_si512(lanes, _mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d)));
    std::uint64_t s = 0;
    for (std::uint64_t lane : lanes)
        s += lane;
    for (; i < n; ++i)
        s += p[i];
    return s;
}

__attribute__((target("avx2"))) std::uint64_t sumWordsAvx2(const std::uint64_t* p, std::size_t n) {
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        a = _mm256_add_epi64(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
        b = _mm256_add_epi64(b, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 4)));
        c = _mm256_add_epi64(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 8)));
        d = _mm256_add_epi64(d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 12)));
    }
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes),
                       _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)));
    std::uint64_t s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; i < n; ++i)
        s += p[i];
    return s;
}

std::uint64_t sumWords(const std::uint64_t* p, std::size_t n) {
    if (__builtin_cpu_supports("avx512f")) return sumWordsAvx512(p, n);
    if (__builtin_cpu_supports("avx2")) return sumWordsAvx2(p, n);
    std::uint64_t s[4] = {};
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; ++k)
            s[k] += p[i + k];
    for (; i < n; ++i)
        s[0] += p[i];
    return s[0] + s[1] + s[2] + s[3];
}

// Read bandwidth: each thread sums its part of a buffer far larger than the caches; best of trials.
double readBandwidth(unsigned threads) {
    const std::size_t words = std::size_t(256) << 20 >> 3;
    std::vector<std::uint64_t> buffer(words, 1);
    std::vector<std::uint64_t> sums(threads);
    double best = 0;
    for (int trial = 0; trial < 4; ++trial) {
        const auto t0 = Clock::now();
        onThreads(threads, [&](unsigned w) {
            const std::size_t begin = words * w / threads, end = words * (w + 1) / threads;
            sums[w] = sumWords(buffer.data() + begin, end - begin);
        });
        best = std::max(best, double(words) * 8 / secondsSince(t0));
    }
    // Every word is 1: a sum short of the count means the reads were not all made.
    if (std::accumulate(sums.begin(), sums.end(), std::uint64_t(0)) != words) return 0;
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
        return std::string(cache) + "/attnscope/cpu_roofs.txt";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/attnscope/cpu_roofs.txt";
    return {};
}

std::string today() {
    const std::time_t now = std::time(nullptr);
    char text[16];
    std::strftime(text, sizeof text, "%Y-%m-%d", std::localtime(&now));
    return text;
}

// What the cache is keyed by: it is measured again when any of these change.
std::string cacheKey(const CpuRoofs& r) {
    // "roofs 2": caches before it could hold roofs a trace had raised; "roofs 3": their bandwidth was
    // measured by float sums that waited on the adds (half the memory's rate). Either is measured again.
    return r.model + " | " + std::to_string(r.cores) + " cores | " + r.isa + " | AttnScope " +
           ATTNSCOPE_VERSION + " | roofs 3";
}

// Two or more cores at once do at least this many times one core's fp32 work, when nothing else runs.
constexpr double kAllCoresAtLeast = 1.5;

// All the cores do at least what one does: a measurement of all of them taken while something else
// ran on some (a build, another program) can say less; such a roof is taken as one core's.
void keepAllAtLeastOneCore(CpuRoofs& r) {
    // (measureCpuRoofs measures again first, when all the cores together do less than kAllCoresAtLeast×.)
    r.fp32All = std::max(r.fp32All, r.fp32Core);
    r.bf16All = std::max(r.bf16All, r.bf16Core);
    r.bandwidthAll = std::max(r.bandwidthAll, r.bandwidthCore);
}

// The cache file: a record per CPU, ISA and version (a CPU seen through an emulator reports another ISA and
// does not replace the native record): the key, then "measured DATE" (and "; NOTE" when the machine was
// busy), then the six numbers.
struct CacheRecord {
    std::string key;
    CpuRoofs roofs;
};

std::vector<CacheRecord> readCache(const std::string& path) {
    std::vector<CacheRecord> records;
    std::ifstream in(path);
    std::string key, measured, numbers;
    while (std::getline(in, key) && std::getline(in, measured) && std::getline(in, numbers)) {
        if (measured.rfind("measured ", 0) != 0) break; // not a cache this version wrote
        CacheRecord record{key, {}};
        CpuRoofs& r = record.roofs;
        // "MODEL | N cores | ISA | AttnScope V | roofs 3"
        if (const std::size_t cores = key.find(" cores | "); cores != std::string::npos) {
            r.isa = key.substr(cores + 9);
            r.isa.resize(std::min(r.isa.size(), r.isa.find(" | ")));
        }
        r.date = measured.substr(9); // "DATE", or "DATE; what was wrong then" (a busy machine)
        if (const std::size_t semicolon = r.date.find("; "); semicolon != std::string::npos) {
            r.note = r.date.substr(semicolon + 2);
            r.date.resize(semicolon);
        }
        std::istringstream six(numbers);
        if (!(six >> r.fp32Core >> r.fp32All >> r.bf16Core >> r.bf16All >> r.bandwidthCore >>
              r.bandwidthAll) ||
            r.fp32Core <= 0 || r.fp32All <= 0 || r.bandwidthCore <= 0 || r.bandwidthAll <= 0)
            continue;
        keepAllAtLeastOneCore(r);
        records.push_back(std::move(record));
    }
    return records;
}

void writeCache(const std::string& path, std::vector<CacheRecord> records, const CpuRoofs& r) {
    if (path.empty()) return;
    const std::string key = cacheKey(r);
    std::erase_if(records, [&](const CacheRecord& c) { return c.key == key; });
    records.push_back({key, r});
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out.precision(17); // read back exactly: every process then holds kernels to the same roofs
        for (const CacheRecord& c : records)
            out << c.key << "\nmeasured " << c.roofs.date << (c.roofs.note.empty() ? "" : "; " + c.roofs.note)
                << '\n'
                << c.roofs.fp32Core << ' ' << c.roofs.fp32All << ' ' << c.roofs.bf16Core << ' '
                << c.roofs.bf16All << ' ' << c.roofs.bandwidthCore << ' ' << c.roofs.bandwidthAll << '\n';
        if (!out) return;
    }
    std::filesystem::rename(tmp, path, ignored);
}

// The same CPU (model and cores) measured before, natively: the record with the highest fp32 roof.
const CacheRecord* sameCpuBefore(const std::vector<CacheRecord>& records, const CpuRoofs& now) {
    const std::string cpu = now.model + " | " + std::to_string(now.cores) + " cores | ";
    const CacheRecord* best = nullptr;
    for (const CacheRecord& c : records)
        if (c.key.rfind(cpu, 0) == 0 && (!best || c.roofs.fp32All > best->roofs.fp32All)) best = &c;
    return best;
}

// A measurement far below what this CPU measured before (under an emulator, or beside a build) is not
// this machine's roofs: the earlier ones stay, and the roofs say so. Half of either roof is "far".
constexpr double kFarBelow = 0.5;
// How a busy measurement's note starts, and how long its cache stands before it is measured again.
constexpr std::string_view kBusyNote = "measured while the machine was busy";
constexpr auto kRetryBusyAfter = std::chrono::minutes(10);

std::mutex g_mutex; // the roofs are shared by every analysis in the process
std::optional<CpuRoofs> g_roofs;
// The cache file as g_roofs last saw it: another process may measure again and rewrite it (a new
// version, the cache removed), and then this one reads it again, so both hold a trace to the same roofs.
std::filesystem::file_time_type g_cacheTime;

std::filesystem::file_time_type modified(const std::string& path) {
    std::error_code ignored;
    return std::filesystem::last_write_time(path, ignored);
}

} // namespace

bool amxBf16Usable() {
    static const bool usable = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
        const bool tiles = (d >> 24) & 1u, bf16 = (d >> 22) & 1u;
        if (!tiles || !bf16 || !__builtin_cpu_supports("avx512f")) return false;
        unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
        if (!__get_cpuid_count(7, 1, &a1, &b1, &c1, &d1) || !((a1 >> 5) & 1u)) return false; // AVX512_BF16
        constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
        return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
    }();
    return usable;
}

std::string cpuIsa() {
    if (__builtin_cpu_supports("avx512f")) {
        if (amxBf16Usable()) return "AVX-512+AMX";
        return __builtin_cpu_supports("avx512bf16") ? "AVX-512+BF16" : "AVX-512";
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "AVX2";
    return "scalar";
}

CpuRoofs measureCpuRoofs() {
    CpuRoofs r;
    r.model = cpuModel();
    r.cores = std::max(1u, std::thread::hardware_concurrency());
    r.isa = cpuIsa();
    r.date = today();
    const Chains fp32 = fp32Chains(r.isa);
    // Rounds sized for trials of a few milliseconds each.
    const std::size_t rounds = r.isa == "scalar" ? 400'000 : 1'000'000;
    r.fp32Core = peakOf(fp32, 1, rounds);
    r.fp32All = peakOf(fp32, r.cores, rounds);
    if (r.isa == "AVX-512+BF16") {
        r.bf16Core = peakOf(bf16DotChains, 1, rounds);
        r.bf16All = peakOf(bf16DotChains, r.cores, rounds);
    } else if (r.isa == "AVX-512+AMX") {
        r.bf16Core = peakOf(amxBf16Tiles, 1, rounds / 16);
        r.bf16All = peakOf(amxBf16Tiles, r.cores, rounds / 16);
    }
    r.bandwidthCore = readBandwidth(1);
    r.bandwidthAll = readBandwidth(r.cores);
    // Several cores at once doing little more than one: other work held some of them (a build, a test
    // beside). Measure them again a few times, a moment apart, keeping the best; a measurement still short
    // is kept (every process then holds kernels to the same roofs) with a note that says so, and how to
    // measure again.
    auto busy = [&] { return r.cores >= 2 && r.fp32All < kAllCoresAtLeast * r.fp32Core; };
    for (int again = 0; again < 3 && busy(); ++again) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        r.fp32All = std::max(r.fp32All, peakOf(fp32, r.cores, rounds));
        if (r.isa == "AVX-512+BF16") r.bf16All = std::max(r.bf16All, peakOf(bf16DotChains, r.cores, rounds));
        if (r.isa == "AVX-512+AMX")
            r.bf16All = std::max(r.bf16All, peakOf(amxBf16Tiles, r.cores, rounds / 16));
        r.bandwidthAll = std::max(r.bandwidthAll, readBandwidth(r.cores));
    }
    if (busy()) {
        char said[200];
        std::snprintf(said, sizeof said,
                      "%s (%u cores did %.2f× one core's fp32 work; measured again when AttnScope starts "
                      "10 minutes on)",
                      std::string(kBusyNote).c_str(), r.cores, r.fp32All / r.fp32Core);
        r.note = said;
    }
    keepAllAtLeastOneCore(r);
    return r;
}

CpuPeak measureCpuPeak(unsigned threads) {
    threads = std::max(1u, threads);
    return {peakOf(fp32Chains(cpuIsa()), threads, 1'000'000), readBandwidth(threads)};
}

CpuRoofs cpuRoofs() {
    std::lock_guard lock(g_mutex);
    const std::string path = cacheFile();
    if (g_roofs && (path.empty() || modified(path) == g_cacheTime)) return *g_roofs;
    CpuRoofs want;
    want.model = cpuModel();
    want.cores = std::max(1u, std::thread::hardware_concurrency());
    want.isa = cpuIsa();
    const std::vector<CacheRecord> records = path.empty() ? std::vector<CacheRecord>{} : readCache(path);
    const auto cached = std::find_if(records.begin(), records.end(),
                                     [&](const CacheRecord& c) { return c.key == cacheKey(want); });
    // Roofs measured while the machine was busy are measured again once the cache has stood a while
    // (not by every process of a busy moment): a quiet measurement, or a higher one, takes their place;
    // else they stay, and the cache is written again so the next try waits as long.
    const bool retryBusy = cached != records.end() && cached->roofs.note.starts_with(kBusyNote) &&
                           !RUNNING_ON_VALGRIND &&
                           std::filesystem::file_time_type::clock::now() - modified(path) > kRetryBusyAfter;
    if (retryBusy) {
        CpuRoofs now = measureCpuRoofs();
        if (!now.note.empty() && now.fp32All <= cached->roofs.fp32All) {
            CpuRoofs kept = cached->roofs;
            kept.model = now.model;
            kept.cores = now.cores;
            now = kept;
        }
        writeCache(path, records, now);
        g_roofs = now;
        g_cacheTime = modified(path);
        CpuRoofs said = now;
        said.measuredNow = true;
        return said;
    }
    if (cached != records.end()) {
        CpuRoofs r = cached->roofs;
        r.model = want.model;
        r.cores = want.cores;
        g_roofs = r;
    } else { // nothing cached for this CPU, ISA and version (or the cache was removed): measured
        CpuRoofs now = measureCpuRoofs();
        const CacheRecord* before = sameCpuBefore(records, now);
        const bool emulated = RUNNING_ON_VALGRIND;
        if (before && (now.fp32All < kFarBelow * before->roofs.fp32All ||
                       now.bandwidthAll < kFarBelow * before->roofs.bandwidthAll)) {
            char said[256];
            std::snprintf(
                said, sizeof said,
                "a measurement now gave %.0f%% of the fp32 roof and %.0f%% of the bandwidth this CPU "
                "measured on %s (%s): those roofs are kept",
                100 * now.fp32All / before->roofs.fp32All,
                100 * now.bandwidthAll / before->roofs.bandwidthAll, before->roofs.date.c_str(),
                emulated ? "under valgrind" : "a busy machine or an emulator");
            CpuRoofs kept = before->roofs;
            kept.model = now.model;
            kept.cores = now.cores;
            kept.note = said;
            g_roofs = kept;
        } else {
            if (emulated)
                now.note = "measured under valgrind, whose slow emulation they reflect: not cached";
            else
                writeCache(path, records, now);
            g_roofs = now;
        }
        if (!path.empty()) g_cacheTime = modified(path);
        CpuRoofs said = *g_roofs;
        said.measuredNow = true;
        return said;
    }
    if (!path.empty()) g_cacheTime = modified(path);
    return *g_roofs;
}

DeviceSpec CpuRoofs::coreSpec() const {
    DeviceSpec d;
    d.name = "CPU core (" + isa + ")";
    d.source =
        "measured on " + date + ", one core of " + std::to_string(cores) + (note.empty() ? "" : "; " + note);
    d.fp32 = fp32Core;
    // 16-bit work runs on the faster of the bf16 dot products and the fp32 path.
    d.fp16 = std::max(bf16Core, fp32Core);
    d.bandwidth = bandwidthCore;
    return d;
}

DeviceSpec CpuRoofs::allCoresSpec() const {
    DeviceSpec d = coreSpec();
    d.name = "CPU, " + std::to_string(cores) + " cores (" + isa + ")";
    d.source = "measured on " + date + ", all " + std::to_string(cores) + " cores at once" +
               (note.empty() ? "" : "; " + note);
    d.fp32 = fp32All;
    d.fp16 = std::max(bf16All, fp32All);
    d.bandwidth = bandwidthAll;
    return d;
}

std::string thisHostName() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return {};
    return name;
}

std::optional<CpuRoofsChoice> parseCpuRoofsChoice(std::string_view text) {
    if (text == "auto") return CpuRoofsChoice::Auto;
    if (text == "this-machine") return CpuRoofsChoice::ThisMachine;
    if (text == "none") return CpuRoofsChoice::None;
    return std::nullopt;
}

std::optional<CpuRoofs> cpuRoofsFor(const Trace& trace, CpuRoofsChoice choice, std::string& why) {
    why.clear();
    if (!hasCpuKernels(trace)) return std::nullopt;
    if (choice == CpuRoofsChoice::None) {
        why = "CPU roofs not asked for";
        return std::nullopt;
    }
    if (choice == CpuRoofsChoice::Auto) {
        const std::string& host = trace.info().hostName;
        if (host.empty() || host != thisHostName()) {
            why = "the trace was recorded on " +
                  (host.empty() ? std::string("a host it does not name") : host) +
                  ", whose CPU's roofs are unknown (--cpu-roofs this-machine holds it to this machine's)";
            return std::nullopt;
        }
    }
    return cpuRoofs();
}

TraceAnalysis analyzeWithCpuRoofs(const Trace& trace, const std::optional<CpuRoofs>& cpu,
                                  const std::string& why) {
    const DeviceSpec all = cpu ? cpu->allCoresSpec() : DeviceSpec{},
                     core = cpu ? cpu->coreSpec() : DeviceSpec{};
    TraceAnalysis a = analyzeTrace(trace, all.fp32 > 0 ? &all : nullptr, DeviceSpecs::standard(),
                                   RoleRules::standard(), core.fp32 > 0 ? &core : nullptr);
    if (!a.cpuShare && hasCpuKernels(trace)) a.cpuNote = why.empty() ? "no CPU roofs" : why;
    return a;
}

} // namespace attnscope
