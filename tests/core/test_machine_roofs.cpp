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
    std::ifstream in(path);
    std::string key;
    ASSERT_TRUE(std::getline(in, key)) << path;
    EXPECT_NE(key.find(r.isa), std::string::npos) << key;
    EXPECT_NE(key.find(std::to_string(r.cores) + " cores"), std::string::npos) << key;
    EXPECT_NE(key.find("AttnScope "), std::string::npos) << key;
    const DeviceSpec core = r.coreSpec();
    EXPECT_EQ(core.fp32, r.fp32Core);
    EXPECT_NE(core.source.find("measured on " + r.date), std::string::npos) << core.source;

    // Another process (a new version, a removed cache) measures again and rewrites the cache: this
    // process holds traces to the new roofs from its next analysis, so both give the same verdicts.
    in.close();
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
