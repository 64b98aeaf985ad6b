// SPDX-License-Identifier: MIT
// CUPTI activity records, built from CUPTI's own structs, converted to events without a GPU:
// kernels (launch configuration and computed occupancy), copies, memsets, API calls, syncs,
// markers, overhead, and kinds that are not shown.
#include "kernels/cuda/cupti_records.h"
#include "kernels/cuda/record_assembler.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

using namespace attnscope::kernels;

namespace {

std::map<std::string, std::string> argsOf(const GpuRecord& r) {
    return {r.args.begin(), r.args.end()};
}

// An H200's limits (compute capability 9.0).
DeviceLimits h200() {
    return {};
}

template <class Record> const CUpti_Activity* asActivity(const Record& r) {
    return reinterpret_cast<const CUpti_Activity*>(&r);
}

} // namespace

TEST(CuptiRecords, KernelCarriesItsLaunchAndOccupancy) {
    CUpti_ActivityKernel10 k;
    std::memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "flash_fwd_kernel";
    k.start = 1000;
    k.end = 235191;
    k.deviceId = 0;
    k.streamId = 7;
    k.correlationId = 4;
    k.gridX = 16;
    k.gridY = 16;
    k.gridZ = 4;
    k.blockX = 384;
    k.blockY = 1;
    k.blockZ = 1;
    k.registersPerThread = 168;
    k.staticSharedMemory = 0;
    k.dynamicSharedMemory = 98304;
    GpuRecord r;
    ASSERT_TRUE(convertActivity(asActivity(k), h200(), {}, r));
    EXPECT_EQ(r.kind, GpuRecord::Kind::Kernel);
    EXPECT_EQ(r.category, "kernel");
    EXPECT_EQ(r.name, "flash_fwd_kernel");
    EXPECT_EQ(r.endNs - r.startNs, 234191u);
    EXPECT_EQ(r.stream, 7u);
    EXPECT_EQ(r.correlation, 4u);
    const auto a = argsOf(r);
    EXPECT_EQ(a.at("grid"), "[16,16,4]");
    EXPECT_EQ(a.at("block"), "[384,1,1]");
    EXPECT_EQ(a.at("registers per thread"), "168");
    EXPECT_EQ(a.at("shared memory"), "98304");
    // 12 warps a block; 168 registers leave room for one block, so 12 of 64 warps.
    EXPECT_EQ(a.at("theoretical occupancy %"), "18.75");
}

TEST(CuptiRecords, OccupancyIsLimitedByWhatRunsOutFirst) {
    const DeviceLimits l = h200();
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(l, 256, 32, 0), 1.0);    // nothing limits: 8 blocks, 64 warps
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(l, 128, 255, 0), 0.125); // registers: 255·32 → 8192 a warp, 8 warps
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(l, 128, 32, 100 * 1024),
                     0.125);                                      // shared memory: 2 blocks of 4 warps
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(l, 32, 16, 0), 0.5);    // 32 blocks at most: 32 of 64 warps
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(l, 1024, 64, 0), 0.5);  // registers: one block of 32 warps
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(l, 1024, 255, 0), 0.0); // too many registers: it cannot launch
    EXPECT_DOUBLE_EQ(theoreticalOccupancy(l, 0, 32, 0), 0.0);
}

TEST(CuptiRecords, CopiesAndMemsetsNamedAsKinetoNamesThem) {
    CUpti_ActivityMemcpy6 m;
    std::memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.bytes = 1 << 20;
    m.start = 10;
    m.end = 20;
    m.streamId = 3;
    GpuRecord r;
    ASSERT_TRUE(convertActivity(asActivity(m), h200(), {}, r));
    EXPECT_EQ(r.name, "Memcpy HtoD (Pageable -> Device)");
    EXPECT_EQ(r.category, "gpu_memcpy");
    EXPECT_EQ(argsOf(r).at("bytes"), "1048576");

    CUpti_ActivityMemset4 s;
    std::memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    s.bytes = 4096;
    ASSERT_TRUE(convertActivity(asActivity(s), h200(), {}, r));
    EXPECT_EQ(r.name, "Memset (Device)");
    EXPECT_EQ(r.category, "gpu_memset");
}

TEST(CuptiRecords, ApiCallsAreNamedByTheirCallbackId) {
    CUpti_ActivityAPI a;
    std::memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = 211;
    a.correlationId = 4;
    a.threadId = 4242;
    a.start = 5;
    a.end = 12;
    const CallbackNames names = [](bool driver, std::uint32_t cbid) {
        return !driver && cbid == 211 ? std::string("cudaLaunchKernel") : std::string();
    };
    GpuRecord r;
    ASSERT_TRUE(convertActivity(asActivity(a), h200(), names, r));
    EXPECT_EQ(r.name, "cudaLaunchKernel");
    EXPECT_EQ(r.category, "cuda_runtime");
    EXPECT_EQ(r.correlation, 4u);
    EXPECT_EQ(r.threadId, 4242u);
    a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    a.cbid = 307;
    ASSERT_TRUE(convertActivity(asActivity(a), h200(), names, r));
    EXPECT_EQ(r.name, "driver API 307"); // no name known: still shown, by id
    EXPECT_EQ(r.category, "cuda_driver");
}

TEST(CuptiRecords, SyncsMarkersAndOverhead) {
    CUpti_ActivitySynchronization2 s;
    std::memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    GpuRecord r;
    ASSERT_TRUE(convertActivity(asActivity(s), h200(), {}, r));
    EXPECT_EQ(r.name, "Stream Sync");

    CUpti_ActivityMarker2 m;
    std::memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    m.id = 9;
    m.timestamp = 77;
    m.name = "flash attention #0";
    m.domain = "attnscope";
    ASSERT_TRUE(convertActivity(asActivity(m), h200(), {}, r));
    EXPECT_TRUE(r.markerStart);
    EXPECT_FALSE(r.markerEnd);
    EXPECT_EQ(r.markerId, 9u);
    EXPECT_EQ(r.name, "flash attention #0");
    EXPECT_EQ(argsOf(r).at("domain"), "\"attnscope\"");

    CUpti_ActivityOverhead3 o;
    std::memset(&o, 0, sizeof o);
    o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    o.start = 1;
    o.end = 3;
    ASSERT_TRUE(convertActivity(asActivity(o), h200(), {}, r));
    EXPECT_EQ(r.category, "overhead");

    CUpti_Activity other;
    other.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    r.name = "untouched";
    EXPECT_FALSE(convertActivity(&other, h200(), {}, r));
    EXPECT_EQ(r.name, "untouched");
}

namespace {

GpuRecord kernelRecord(std::uint32_t correlation, std::uint64_t start) {
    GpuRecord g;
    g.kind = GpuRecord::Kind::Kernel;
    g.name = "k" + std::to_string(correlation);
    g.category = "kernel";
    g.correlation = correlation;
    g.startNs = start;
    g.endNs = start + 10;
    g.args = {{"correlation", std::to_string(correlation)}};
    return g;
}

GpuRecord marker(std::uint32_t id, bool start, std::uint64_t at, const char* name) {
    GpuRecord g;
    g.kind = GpuRecord::Kind::Marker;
    g.category = "user_annotation";
    g.name = name;
    g.markerId = id;
    g.markerStart = start;
    g.markerEnd = !start;
    g.startNs = g.endNs = at;
    return g;
}

} // namespace

// The collector's bookkeeping on records as CUPTI delivers them, in any order, without a GPU.
TEST(RecordAssembler, KernelsGetTheirLaunchTagEvenWhenItArrivesLater) {
    LaunchTag qk{"naive", "qk_gemm", 3, false, {{"role", "\"qk_gemm\""}, {"flops", "2048"}}};
    RecordAssembler a([&](std::uint64_t id) { return id == 42 ? &qk : nullptr; });
    a.externalCorrelation(7, 42);
    a.add(kernelRecord(7, 100), 0); // its tag is known
    a.add(kernelRecord(8, 200), 0); // its tag comes in the next batch
    GpuRecord api;
    api.kind = GpuRecord::Kind::Runtime;
    api.name = "cudaLaunchKernel";
    api.correlation = 8;
    a.add(api, 1234);
    auto first = a.take(false);
    ASSERT_EQ(first.size(), 2u); // k7 and the runtime call; k8 waits
    EXPECT_EQ(first[0].record.name, "k7");
    ASSERT_EQ(first[0].tag, &qk);
    EXPECT_EQ(first[0].record.args.back(), (std::pair<std::string, std::string>{"flops", "2048"}));
    EXPECT_EQ(first[1].record.name, "cudaLaunchKernel");
    EXPECT_EQ(first[1].thread, 1234u);
    a.externalCorrelation(8, 42);
    auto second = a.take(false);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].record.name, "k8");
    EXPECT_EQ(second[0].tag, &qk);
}

TEST(RecordAssembler, UntaggedKernelsWaitAFewBatchesThenGoOn) {
    RecordAssembler a([](std::uint64_t) -> const LaunchTag* { return nullptr; });
    a.add(kernelRecord(9, 100), 0);
    for (int batch = 0; batch < RecordAssembler::kTagPatience; ++batch)
        EXPECT_TRUE(a.take(false).empty()) << batch;
    const auto out = a.take(false);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].tag, nullptr);
    // At the end everything goes, waiting or not.
    a.add(kernelRecord(10, 300), 0);
    EXPECT_EQ(a.take(true).size(), 1u);
}

TEST(RecordAssembler, NvtxStartAndEndBecomeOneRangeOnTheStartsThread) {
    RecordAssembler a(nullptr);
    a.add(marker(5, true, 1000, "naive attention 0"), 77);
    a.add(marker(6, true, 1100, "inner"), 77);
    a.add(marker(6, false, 1500, ""), 0);
    a.add(marker(99, false, 1600, ""), 0); // an end without its start: dropped
    auto out = a.take(false);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].record.name, "inner");
    EXPECT_EQ(out[0].record.startNs, 1100u);
    EXPECT_EQ(out[0].record.endNs, 1500u);
    EXPECT_EQ(out[0].thread, 77u);
    a.add(marker(5, false, 2000, ""), 0);
    out = a.take(false);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].record.name, "naive attention 0");
    EXPECT_EQ(out[0].record.endNs, 2000u);
}
