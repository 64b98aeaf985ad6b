// SPDX-License-Identifier: MIT
// The CUPTI collector against a fake of CUPTI's entry points (fake_cupti.cpp), without a GPU: it stops
// in the order CUPTI needs (disable, forced flush, then drain) and parses every buffer CUPTI hands
// over — records that complete late, while the activity is being disabled, included.
#include "kernels/cuda/cupti_collector.h"
#include "kernels/cuda_backend.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

template <class F> F fake(const char* name) {
    void* library = dlopen(ATTNSCOPE_FAKE_CUPTI, RTLD_NOW);
    return library ? reinterpret_cast<F>(dlsym(library, name)) : nullptr;
}

} // namespace

TEST(CuptiCollector, StopsInCuptisOrderAndParsesEveryBuffer) {
    setenv("ATTNSCOPE_CUPTI_LIBRARY", ATTNSCOPE_FAKE_CUPTI, 1); // read once, at the collector's first start
    const auto emit = fake<void (*)(int)>("fakeCuptiEmit");
    const auto holdBack = fake<void (*)(int)>("fakeCuptiHoldUntilDisabled");
    const auto calls = fake<const char* (*)()>("fakeCuptiCalls");
    const auto reset = fake<void (*)()>("fakeCuptiReset");
    ASSERT_TRUE(emit && holdBack && calls && reset);
    reset();

    attnscope_cuda::CuptiCollector collector;
    int overhead = 0;
    std::int64_t firstStart = -1;
    std::string why;
    ASSERT_TRUE(collector.start(
        {}, 1000,
        [&](const AttnscopeCudaRecord* records, int count) { // on the collector's thread, then at stop
            for (int i = 0; i < count; ++i)
                if (std::string(records[i].category) == "overhead") {
                    if (firstStart < 0) firstStart = records[i].startNs;
                    ++overhead;
                }
        },
        {}, {}, [](std::uint64_t) { return nullptr; }, why))
        << why;
    emit(3);     // in a buffer CUPTI still holds, partly filled
    holdBack(2); // work still running: its records complete only as the activity is disabled
    collector.stop();
    EXPECT_EQ(overhead, 5);             // none lost: each buffer was parsed before it was freed
    EXPECT_EQ(firstStart, 2000 - 1000); // relative to the origin given at start
    const std::string log = calls();
    const std::size_t lastDisable = log.rfind("disable;"), lastFlush = log.rfind("flush forced;");
    ASSERT_NE(lastDisable, std::string::npos);
    ASSERT_NE(lastFlush, std::string::npos);
    EXPECT_LT(lastDisable, lastFlush) << log; // disable, then the forced flush: nothing after it
    EXPECT_EQ(log.find("enable;", lastDisable), std::string::npos) << log;
}

// NVTX is pointed at CUPTI from main, before any thread starts, by the file's path: the variable is
// set and nothing is loaded (a run without collection keeps CUPTI out of the process); one already
// set is left alone.
TEST(CuptiCollector, NvtxIsPointedAtCuptiByItsFileWithoutLoadingIt) {
    char dir[] = "/tmp/attnscope-cupti-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string file = std::string(dir) + "/libcupti.so";
    FILE* f = std::fopen(file.c_str(), "w"); // not a library at all: loading it would fail loudly
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    unsetenv("NVTX_INJECTION64_PATH");
    setenv("ATTNSCOPE_CUPTI_LIBRARY", file.c_str(), 1);
    attnscope::kernels::pointNvtxAtCupti();
    ASSERT_NE(std::getenv("NVTX_INJECTION64_PATH"), nullptr);
    EXPECT_EQ(std::string(std::getenv("NVTX_INJECTION64_PATH")), file);
    EXPECT_EQ(dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD), nullptr); // not loaded
    setenv("ATTNSCOPE_CUPTI_LIBRARY", "/elsewhere/libcupti.so", 1);
    attnscope::kernels::pointNvtxAtCupti();
    EXPECT_EQ(std::string(std::getenv("NVTX_INJECTION64_PATH")), file); // set before: kept
    unsetenv("NVTX_INJECTION64_PATH");
    unsetenv("ATTNSCOPE_CUPTI_LIBRARY");
    std::remove(file.c_str());
    rmdir(dir);
}
