// SPDX-License-Identifier: MIT
// The timeline's queries: lanes per depth, hit tests, find by name, kernels inside a range, and
// the names and roles shown on boxes.
#include "support/test_support.h"

#include "core/analysis/kernel_role.h"
#include "core/io/trace_loader.h"
#include "core/model/demangle.h"
#include "core/model/text_match.h"
#include "core/model/timeline_index.h"
#include "core/report/summary.h"

#include <gtest/gtest.h>

#include <tuple>

#include <map>
#include <random>
#include <set>

using namespace attnscope;
using namespace attnscope::test;

namespace {

// One CPU thread with nesting and a partial overlap, one GPU stream.
constexpr const char* kNested = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "inner A", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 5, "args": {"correlation": 9}},
  {"ph": "X", "cat": "cpu_op", "name": "inner B", "pid": 1, "tid": 1, "ts": 40, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "straddles", "pid": 1, "tid": 1, "ts": 90, "dur": 30},
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 20, "dur": 10, "args": {"correlation": 9}},
  {"ph": "X", "cat": "kernel", "name": "softmax_kernel", "pid": 0, "tid": 7, "ts": 35, "dur": 10},
  {"ph": "i", "cat": "kernel", "name": "marker", "pid": 0, "tid": 7, "ts": 50, "s": "t"}]})";

std::vector<std::string> laneNames(const Trace& t, const TimelineIndex& index, TrackId track,
                                   std::uint16_t depth) {
    std::vector<std::string> out;
    const auto lane = index.lane(track, depth);
    for (std::size_t k = 0; k < lane.size(); ++k)
        out.emplace_back(t.str(t.track(track).events.name[lane[k]]));
    return out;
}

} // namespace

TEST(TimelineIndex, LanesHoldEachDepthInStartOrder) {
    const auto t = loadText(kNested);
    const TimelineIndex index(*t);
    const EventRef outer = *findEvent(*t, "outer");
    const TrackId cpu = outer.track;
    ASSERT_EQ(index.laneCount(cpu), 3u);
    EXPECT_EQ(laneNames(*t, index, cpu, 0), (std::vector<std::string>{"outer"}));
    EXPECT_EQ(laneNames(*t, index, cpu, 1), (std::vector<std::string>{"inner A", "inner B", "straddles"}));
    EXPECT_EQ(laneNames(*t, index, cpu, 2), (std::vector<std::string>{"cudaLaunchKernel"}));
    EXPECT_EQ(index.lane(cpu, 3).size(), 0u);
    // A one-depth track is its own lane.
    const TrackId gpu = findEvent(*t, "gemm_kernel")->track;
    EXPECT_EQ(laneNames(*t, index, gpu, 0),
              (std::vector<std::string>{"gemm_kernel", "softmax_kernel", "marker"}));
}

TEST(TimelineIndex, LaneSearchesFindTheVisibleWindow) {
    const auto t = loadText(kNested);
    const TimelineIndex index(*t);
    const auto lane = index.lane(findEvent(*t, "outer")->track, 1); // [10,30) [40,60) [90,120)
    EXPECT_EQ(lane.firstEndingAfter(0), 0u);
    EXPECT_EQ(lane.firstEndingAfter(30'000), 1u); // ends exactly at 30 µs: not after it
    EXPECT_EQ(lane.firstEndingAfter(59'999), 1u);
    EXPECT_EQ(lane.firstEndingAfter(200'000), 3u);
    EXPECT_EQ(lane.firstStartingFrom(0, 40'000), 1u);
    EXPECT_EQ(lane.firstStartingFrom(0, 40'001), 2u);
    EXPECT_EQ(lane.firstStartingFrom(2, 0), 2u);
    EXPECT_EQ(lane.firstStartingFrom(0, 1'000'000), 3u);
}

TEST(TimelineIndex, FirstStartingFromAgreesWithALinearScan) {
    // Many tiny events: the galloping search must land where a scan does, from any start.
    std::string json = R"({"traceEvents": [)";
    std::mt19937 rng(7);
    long ts = 0;
    for (int i = 0; i < 2000; ++i) {
        ts += 1 + long(rng() % 50);
        json += (i ? "," : "") + std::string(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":)") +
                std::to_string(ts) + R"(,"dur":1})";
    }
    const auto t = loadText(json + "]}");
    const TimelineIndex index(*t);
    const auto lane = index.lane(TrackId(0), 0);
    ASSERT_EQ(lane.size(), 2000u);
    for (int probe = 0; probe < 500; ++probe) {
        const std::size_t from = rng() % lane.size();
        const TimeNs when = TimeNs(rng() % std::uint64_t(ts + 100)) * 1000;
        std::size_t expected = from;
        while (expected < lane.size() && lane.start(expected) < when)
            ++expected;
        ASSERT_EQ(lane.firstStartingFrom(from, when), expected) << from << " " << when;
    }
}

TEST(TimelineIndex, EventAtPrefersTheEventUnderThePoint) {
    const auto t = loadText(kNested);
    const TimelineIndex index(*t);
    const TrackId gpu = findEvent(*t, "gemm_kernel")->track;
    auto nameAt = [&](TimeNs when, TimeNs slack) -> std::string {
        const auto i = index.eventAt(gpu, 0, when, slack);
        return i ? std::string(t->str(t->track(gpu).events.name[*i])) : "";
    };
    EXPECT_EQ(nameAt(25'000, 0), "gemm_kernel");
    EXPECT_EQ(nameAt(32'000, 0), "");                   // the gap between the kernels
    EXPECT_EQ(nameAt(33'000, 4'000), "softmax_kernel"); // nearer of the two within the slack
    EXPECT_EQ(nameAt(31'000, 4'000), "gemm_kernel");
    EXPECT_EQ(nameAt(50'500, 1'000), "marker"); // instants are hit within the slack
    EXPECT_EQ(nameAt(1'000'000, 1'000), "");
    EXPECT_FALSE(index.eventAt(gpu, 1, 25'000, 0)); // no such lane
}

TEST(TimelineIndex, FindIgnoresCaseAndOrdersByStart) {
    const auto t = loadText(kNested);
    const auto found = findEvents(*t, "INNER");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(t->str(t->track(found[0].track).events.name[found[0].index]), "inner A");
    EXPECT_EQ(t->str(t->track(found[1].track).events.name[found[1].index]), "inner B");
    // Across tracks: by start time.
    const auto kernels = findEvents(*t, "_kernel");
    ASSERT_EQ(kernels.size(), 2u);
    const auto all = findEvents(*t, "e");
    for (std::size_t i = 1; i < all.size(); ++i)
        EXPECT_LE(t->track(all[i - 1].track).events.start[all[i - 1].index],
                  t->track(all[i].track).events.start[all[i].index]);
    EXPECT_TRUE(findEvents(*t, "no such name").empty());
    EXPECT_TRUE(findEvents(*t, "").empty());
    const auto mask = namesContaining(*t, "Kernel");
    EXPECT_TRUE(mask[t->strings().find("gemm_kernel").value]);
    EXPECT_TRUE(mask[t->strings().find("cudaLaunchKernel").value]);
    EXPECT_FALSE(mask[t->strings().find("outer").value]);
}

namespace {

// The oracle: every kernel event of the trace, clipped to the range, added up by name.
// Per kernel name: count, time inside the range, and min / max / summed whole durations.
using RangeRow = std::tuple<std::uint64_t, TimeNs, TimeNs, TimeNs, TimeNs>;

std::map<std::string, RangeRow> bruteForceRange(const Trace& t, TimeNs from, TimeNs to) {
    std::map<std::string, RangeRow> out;
    for (const Track& track : t.tracks())
        for (std::size_t i = 0; i < track.size(); ++i) {
            const TimeNs s = std::max(track.events.start[i], from), e = std::min(track.end(i), to);
            if (e <= s || !isKernelCategory(t.str(track.events.category[i]))) continue;
            const TimeNs d = track.events.duration[i];
            auto [it, first] = out.try_emplace(std::string(t.str(track.events.name[i])), 0, 0, d, d, 0);
            auto& [count, total, lo, hi, whole] = it->second;
            ++count;
            total += e - s;
            lo = std::min(lo, d);
            hi = std::max(hi, d);
            whole += d;
        }
    return out;
}

std::map<std::string, RangeRow> asMap(const std::vector<KernelStats>& rows) {
    std::map<std::string, RangeRow> out;
    for (const KernelStats& k : rows)
        out[k.name] = {k.count, k.totalNs, k.minNs, k.maxNs, k.wholeNs};
    return out;
}

} // namespace

TEST(TimelineIndex, FindMergesEveryTracksMatchesInTimeOrder) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto t = loadTraceFile(path);
    for (const char* needle : {"a", "KERNEL", "aten::", "ProfilerStep"}) {
        const auto found = findEvents(*t, needle);
        std::size_t expected = 0;
        std::set<std::uint32_t> tracks;
        for (std::uint32_t ti = 0; ti < t->tracks().size(); ++ti)
            for (std::uint32_t i = 0; i < t->tracks()[ti].size(); ++i)
                if (asciiLower(t->str(t->tracks()[ti].events.name[i])).find(asciiLower(needle)) !=
                    std::string::npos)
                    ++expected;
        ASSERT_EQ(found.size(), expected) << needle;
        for (std::size_t i = 1; i < found.size(); ++i)
            ASSERT_LE(t->track(found[i - 1].track).events.start[found[i - 1].index],
                      t->track(found[i].track).events.start[found[i].index])
                << needle << " at " << i;
        for (const EventRef& e : found)
            tracks.insert(e.track.value);
        if (std::string(needle) == "a") {
            EXPECT_GE(tracks.size(), 3u) << "matches from several tracks are merged";
        }
    }
}

TEST(KernelStatsInRange, CountsOverlapsAndClipsTheirTime) {
    const auto t = loadText(kNested);
    const TimelineIndex index(*t);
    const TimeNs base = t->startNs();
    // gemm [20,30) µs, softmax [35,45) µs. Range [25, 40) µs: half of each is inside.
    auto rows = kernelStatsInRange(*t, index, base + 25'000, base + 40'000);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].name, "gemm_kernel"); // 5 µs, then softmax's 5 µs, by name
    EXPECT_EQ(rows[0].totalNs, 5'000);
    EXPECT_EQ(rows[1].name, "softmax_kernel");
    EXPECT_EQ(rows[1].totalNs, 5'000);
    EXPECT_EQ(rows[1].count, 1u);
    // Min, mean and max are the whole kernels' (10 µs), not their clipped parts.
    EXPECT_EQ(rows[1].minNs, 10'000);
    EXPECT_EQ(rows[1].maxNs, 10'000);
    EXPECT_EQ(rows[1].meanNs(), 10'000);
    EXPECT_EQ(rows[0].nameId, t->strings().find("gemm_kernel"));
    // A range over nothing, and one over the whole trace that equals the summary.
    EXPECT_TRUE(kernelStatsInRange(*t, index, base + 60'000, base + 80'000).empty());
    const auto whole = kernelStatsInRange(*t, index, t->startNs(), t->endNs());
    const auto summary = summarize(*t, 0);
    ASSERT_EQ(whole.size(), summary.topKernels.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
        EXPECT_EQ(whole[i].name, summary.topKernels[i].name);
        EXPECT_EQ(whole[i].totalNs, summary.topKernels[i].totalNs);
    }
}

TEST(KernelStatsInRange, AgreesWithEveryEventClippedOnRealTraces) {
    for (const char* name :
         {"h100_sdpa_flash_qwen.json.gz", "mi250_rocm_small.json.gz", "v100_ns_decimals.json.gz"}) {
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        const auto t = loadTraceFile(path);
        const TimelineIndex index(*t);
        std::mt19937 rng(3);
        const TimeNs span = t->endNs() - t->startNs();
        for (int probe = 0; probe < 20; ++probe) {
            const TimeNs a = t->startNs() + TimeNs(rng() % std::uint64_t(span));
            const TimeNs b = a + TimeNs(rng() % std::uint64_t(span / (1 + probe % 5)));
            EXPECT_EQ(asMap(kernelStatsInRange(*t, index, a, b)), bruteForceRange(*t, a, b))
                << name << " " << probe;
        }
        // Two parts of the trace hold all its kernel time between them, split exactly at the cut.
        const TimeNs mid = t->startNs() + span / 3;
        TimeNs left = 0, right = 0, whole = 0;
        for (const auto& k : kernelStatsInRange(*t, index, t->startNs(), mid))
            left += k.totalNs;
        for (const auto& k : kernelStatsInRange(*t, index, mid, t->endNs()))
            right += k.totalNs;
        for (const auto& k : summarize(*t, 0).topKernels)
            whole += k.totalNs;
        EXPECT_GT(left + right, 0) << name;
        EXPECT_EQ(left + right, whole) << name;
    }
}

TEST(KernelCsv, OneRowPerKernelWithShares) {
    std::vector<KernelStats> rows(2);
    rows[0].name = "gemm, \"big\"";
    rows[0].count = 2;
    rows[0].totalNs = rows[0].wholeNs = 300;
    rows[0].minNs = 100;
    rows[0].maxNs = 200;
    rows[1].name = "softmax";
    rows[1].count = 1;
    rows[1].totalNs = rows[1].wholeNs = 100;
    rows[1].minNs = rows[1].maxNs = 100;
    rows[1].role = KernelRole::Softmax;
    EXPECT_EQ(formatKernelCsv(rows, 400), "kernel,role,count,total_ns,mean_ns,min_ns,max_ns,share_percent\n"
                                          "\"gemm, \"\"big\"\"\",,2,300,150,100,200,75.00\n"
                                          "softmax,softmax,1,100,100,100,100,25.00\n");
}

TEST(Demangle, MangledNamesReadAsCppAndOthersStay) {
    EXPECT_EQ(demangle("_Z10add_kernelPfS_i"), "add_kernel(float*, float*, int)");
    EXPECT_EQ(demangle("sm90_xmma_gemm"), "sm90_xmma_gemm");
    EXPECT_EQ(demangle("_Znot valid"), "_Znot valid");
    EXPECT_EQ(shortKernelName("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>, "
                              "false>(pytorch_flash::Flash_fwd_params)"),
              "flash_fwd_kernel");
    EXPECT_EQ(
        shortKernelName("void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, float>(float*, int)"),
        "cunn_SoftMaxForward");
    EXPECT_EQ(shortKernelName("aten::matmul"), "aten::matmul");
    EXPECT_EQ(shortKernelName("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)");
    EXPECT_EQ(shortKernelName("add_kernel(float*, float*, int)"), "add_kernel(float*, float*, int)");
    EXPECT_EQ(shortKernelName("ProfilerStep#6"), "ProfilerStep#6");
    EXPECT_EQ(shortKernelName(""), "");
    // From its own name on, for a column cut at its end: what tells a template's instances apart stays.
    EXPECT_EQ(
        kernelNameFromOwn("void at::native::vectorized_elementwise_kernel<4, at::native::sqrt_kernel_cuda("
                          "at::TensorIteratorBase&)>(int)"),
        "vectorized_elementwise_kernel<4, at::native::sqrt_kernel_cuda(at::TensorIteratorBase&)>(int)");
    EXPECT_EQ(kernelNameFromOwn("aten::matmul"), "aten::matmul");
    EXPECT_EQ(kernelNameFromOwn(""), "");
    // A template's instances told apart by the op they run.
    EXPECT_EQ(
        tellingKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::sqrt_kernel_cuda("
                          "at::TensorIteratorBase&)::{lambda()#2}, at::detail::Array<char*, 2> >(int)"),
        "vectorized_elementwise_kernel<\u2026 sqrt_kernel_cuda \u2026>");
    EXPECT_EQ(tellingKernelName(
                  "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, "
                  "float, float, at::native::binary_internal::MulFunctor<float> >, "
                  "at::detail::Array<char*, 3> >(int)"),
              "vectorized_elementwise_kernel<\u2026 MulFunctor, float \u2026>");
    EXPECT_EQ(tellingKernelName(
                  "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
                  "pow_tensor_scalar_kernel(at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}, "
                  "at::detail::Array<char*, 2> >(int)"),
              "vectorized_elementwise_kernel<\u2026 pow_tensor_scalar_kernel, BFloat16 \u2026>");
    EXPECT_EQ(
        tellingKernelName("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>, false>(int)"),
        "flash_fwd_kernel<Flash_fwd_kernel_traits<128>, false>(int)");
    EXPECT_EQ(tellingKernelName("aten::mm"), "aten::mm");
}
