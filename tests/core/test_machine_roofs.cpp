// SPDX-License-Identifier: MIT
// This machine's CPU roofs: measured per core and over all cores, cached with what they depend on.
#include "core/analysis/machine_roofs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace attnscope;

namespace {
// The cache's record (key, date and numbers: three lines) for this ISA: the cache holds one per ISA, and
// another test of this process (shuffled, repeated) may have left others beside it.
std::string recordOf(const std::string& path, const std::string& isa) {
    std::ifstream in(path);
    std::string key, date, numbers;
    while (std::getline(in, key) && std::getline(in, date) && std::getline(in, numbers))
        if (key.find(" | " + isa + " | ") != std::string::npos)
            return key + "\n" + date + "\n" + numbers + "\n";
    return {};
}
} // namespace

// The roofs are measured with the widest vectors the CPU has, on one core and on all, and cached with
// what they depend on: a cache from another CPU, ISA or version is measured again.
TEST(CpuRoofs, MeasuredPerCoreAndCachedWithWhatTheyDependOn) {
    const CpuRoofs r = cpuRoofs();
    EXPECT_EQ(r.isa, cpuIsa());
    EXPECT_GT(r.fp32Core, 0);
    // All cores at once do at least what one does, even when measured while other work ran.
    EXPECT_GE(r.fp32All, r.fp32Core);
    EXPECT_GE(r.bandwidthAll, r.bandwidthCore);
    EXPECT_GT(r.bandwidthCore, 0);
    if (__builtin_cpu_supports("avx512bf16")) {
        EXPECT_GT(r.bf16Core, 0); // measured where the CPU has bf16 dot products
    }
    const std::string path = std::string(std::getenv("XDG_CACHE_HOME")) + "/attnscope/cpu_roofs.txt";
    const std::string record = recordOf(path, r.isa);
    ASSERT_FALSE(record.empty()) << path;
    const std::string key = record.substr(0, record.find('\n'));
    EXPECT_NE(key.find(std::to_string(r.cores) + " cores"), std::string::npos) << key;
    EXPECT_NE(key.find("AttnScope "), std::string::npos) << key;
    const DeviceSpec core = r.coreSpec();
    EXPECT_EQ(core.fp32, r.fp32Core);
    EXPECT_NE(core.source.find("measured on " + r.date), std::string::npos) << core.source;

    // Another process (a new version, a removed cache) measures again and rewrites the cache: this
    // process holds traces to the new roofs from its next analysis, so both give the same verdicts.
    std::ifstream again(path);
    std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
    const std::string oldCore = [&] {
        std::ostringstream s;
        s.precision(17);
        s << r.bandwidthCore;
        return s.str();
    }();
    const std::size_t at = text.find(oldCore);
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, oldCore.size(), "123456789012");
    {
        std::ofstream out(path + ".new");
        out << text;
    }
    std::filesystem::rename(path + ".new", path);
    std::filesystem::last_write_time(path,
                                     std::filesystem::file_time_type::clock::now() + std::chrono::seconds(5));
    EXPECT_DOUBLE_EQ(cpuRoofs().bandwidthCore, 123456789012.0);
}

namespace {
std::string cacheText(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void writeNewer(const std::string& path, const std::string& text) {
    {
        std::ofstream out(path + ".new");
        out << text;
    }
    std::filesystem::rename(path + ".new", path);
    std::filesystem::last_write_time(path,
                                     std::filesystem::file_time_type::clock::now() + std::chrono::seconds(9));
}
} // namespace

// The cache keeps a record per ISA: what the CPU measured through an emulator that hides its AVX-512
// (valgrind reports AVX2) sits beside the native record and never replaces it. And a measurement far
// below what this CPU measured before is not taken as its roofs: the earlier ones are, and they say why.
TEST(CpuRoofs, AnEmulatedOrFarLowerMeasurementNeverReplacesTheMachinesRoofs) {
    const CpuRoofs native = cpuRoofs();
    const std::string path = std::string(std::getenv("XDG_CACHE_HOME")) + "/attnscope/cpu_roofs.txt";
    const std::string record = recordOf(path, native.isa);
    ASSERT_FALSE(record.empty()) << cacheText(path);
    const std::string key = record.substr(0, record.find('\n'));
    ASSERT_NE(key.find(" | " + native.isa + " | "), std::string::npos) << key;
    auto withIsa = [&](const std::string& isa) {
        std::string k = key;
        k.replace(k.find(" | " + native.isa + " | "), native.isa.size() + 6, " | " + isa + " | ");
        return k;
    };
    // An emulated record first, the native one after it: the native one is this CPU's.
    writeNewer(path, withIsa("AVX2-EMULATED") + "\nmeasured 2026-01-01\n1 1 0 0 1 1\n" + record);
    EXPECT_DOUBLE_EQ(cpuRoofs().fp32All, native.fp32All);

    // Only a record of this CPU a thousand times faster (under another ISA): measured now, far below it.
    std::ostringstream fast;
    fast.precision(17);
    fast << withIsa("AVX-9000") << "\nmeasured 2026-01-02\n"
         << native.fp32Core * 1000 << ' ' << native.fp32All * 1000 << " 0 0 " << native.bandwidthCore * 1000
         << ' ' << native.bandwidthAll * 1000 << '\n';
    writeNewer(path, fast.str());
    const CpuRoofs kept = cpuRoofs();
    EXPECT_TRUE(kept.measuredNow);
    EXPECT_EQ(kept.isa, "AVX-9000");
    EXPECT_DOUBLE_EQ(kept.fp32All, native.fp32All * 1000);
    EXPECT_EQ(kept.date, "2026-01-02");
    EXPECT_NE(kept.note.find("of the fp32 roof"), std::string::npos) << kept.note;
    EXPECT_NE(kept.note.find("measured on 2026-01-02"), std::string::npos) << kept.note;
    EXPECT_NE(kept.note.find("those roofs are kept"), std::string::npos) << kept.note;
    EXPECT_NE(kept.allCoresSpec().source.find(kept.note), std::string::npos) << kept.allCoresSpec().source;
    EXPECT_EQ(cacheText(path), fast.str()); // the low measurement was not written

    // No earlier record of this CPU: the measurement is the roofs, and it is cached beside nothing else.
    writeNewer(path, withIsa("AVX2-EMULATED") + "\nmeasured 2026-01-01\n1 1 0 0 1 1\n");
    const CpuRoofs again = cpuRoofs();
    EXPECT_TRUE(again.measuredNow);
    // The emulated record is far *below* it, not above: nothing kept instead (a busy machine, as beside
    // other tests, is said of the measurement itself).
    EXPECT_TRUE(again.note.empty() || again.note.starts_with("measured while the machine was busy"))
        << again.note;
    EXPECT_EQ(again.isa, native.isa);
    const std::string both = cacheText(path);
    EXPECT_NE(both.find("AVX2-EMULATED"), std::string::npos);
    EXPECT_NE(both.find(key), std::string::npos) << both;
    writeNewer(path, record); // as it was: the native record alone, for the tests after this one
    EXPECT_DOUBLE_EQ(cpuRoofs().fp32All, native.fp32All);
}

// Roofs measured while other work held the cores are kept (every process holds kernels to the same roofs),
// and so is what was wrong then: read back, they still say so, in the roofline's source.
TEST(CpuRoofs, ABusyMeasurementSaysSoWhereverItIsRead) {
    const CpuRoofs native = cpuRoofs();
    const std::string path = std::string(std::getenv("XDG_CACHE_HOME")) + "/attnscope/cpu_roofs.txt";
    const std::string record = recordOf(path, native.isa);
    ASSERT_FALSE(record.empty()) << cacheText(path);
    const std::string key = record.substr(0, record.find('\n'));
    const std::string busy =
        "measured while the machine was busy (2 cores did 1.01× one core's fp32 work; delete "
        "the cache file to measure again)";
    writeNewer(path, key + "\nmeasured 2026-01-03; " + busy + "\n" +
                         record.substr(record.find('\n', key.size() + 1) + 1));
    const CpuRoofs read = cpuRoofs();
    EXPECT_FALSE(read.measuredNow);
    EXPECT_EQ(read.date, "2026-01-03");
    EXPECT_EQ(read.note, busy);
    EXPECT_NE(read.allCoresSpec().source.find(busy), std::string::npos) << read.allCoresSpec().source;
    // Once the cache has stood 10 minutes, the next start measures again: a quiet (or higher) measurement
    // takes the busy one's place, else the busy one stays; either way the cache is written again, and the
    // start after reads it without measuring.
    std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() -
                                               std::chrono::minutes(11));
    const CpuRoofs retried = cpuRoofs();
    EXPECT_TRUE(retried.measuredNow);
    if (retried.date == "2026-01-03") // busy again, and no higher: the busy roofs stay
        EXPECT_EQ(retried.note, busy);
    else // a quiet measurement, or a busy one above the busy roofs
        EXPECT_TRUE(retried.note.empty() || retried.fp32All > read.fp32All) << retried.note;
    const CpuRoofs after = cpuRoofs();
    EXPECT_FALSE(after.measuredNow);
    EXPECT_DOUBLE_EQ(after.fp32All, retried.fp32All);
    writeNewer(path, record);
}
