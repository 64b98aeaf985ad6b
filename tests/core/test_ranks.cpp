// SPDX-License-Identifier: MIT
// The ranks of one job: merged without crossing links, busy time, collectives and waits.
#include "analysis_test_support.h"
#include "core/report/format.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

// The issue's check: the two DLRM ranks open as one job with two rank groups, and no link crosses ranks.
// A rank's GPU busy time is the union of its streams' kernels, not their sum. By hand: rank 0 runs
// [0,40) on stream 7 and [30,60) on stream 8 (busy 60 µs, kernel time 70 µs); rank 1 runs [0,20) and
// [100,110) on one stream (busy 30 µs). The slowest rank is rank 0; the spread is (60 − 30) / 45.
TEST(Ranks, BusyTimeIsTheUnionOfTheStreams) {
    auto rank = [](int r, const std::string& kernels) {
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":2},"traceEvents":[)" + kernels + "]}");
    };
    const std::string k = R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":)";
    const auto r0 = rank(0, k + R"(7,"ts":0,"dur":40},)" + k + R"(8,"ts":30,"dur":30})");
    const auto r1 = rank(1, k + R"(7,"ts":0,"dur":20},)" + k + R"(7,"ts":100,"dur":10})");
    const RankReport report = rankReport({{"r0.json", r0}, {"r1.json", r1}});
    ASSERT_EQ(report.ranks.size(), 2u);
    EXPECT_EQ(report.ranks[0].gpuBusyNs, 60'000);
    EXPECT_EQ(report.ranks[0].kernelNs, 70'000);
    EXPECT_EQ(report.ranks[1].gpuBusyNs, 30'000);
    EXPECT_EQ(report.slowestRank, 0);
    EXPECT_EQ(report.meanBusyNs, 45'000);
    EXPECT_DOUBLE_EQ(report.spread(), 30.0 / 45.0);
    // The text marks the slowest rank, and only it: on rank 0's line.
    const std::string text = formatRankReport(report, SummaryFormat::Text);
    const std::size_t mark = text.find("<- slowest");
    ASSERT_NE(mark, std::string::npos) << text;
    EXPECT_EQ(mark, text.rfind("<- slowest")) << text;
    EXPECT_EQ(text.substr(text.rfind('\n', mark) + 1, 7), "     0 ") << text;
}

// Files without a distributedInfo rank are ranks by their position, their processes grouped under
// the file's name (not its folders).
// Two ranks of one program write the same correlation ids: each launch still links to its own rank's
// kernel. Their GPUs are named by device ("GPU 0", "GPU 1"); the collectives are matched in time order
// across streams (a rank's second collective on another stream that comes first in the file); and the
// JSON report carries each measure.
TEST(Ranks, SameCorrelationsStayInTheirRankAndCollectivesMatchInTimeOrder) {
    // Rank 0 writes its SendRecv on the stream listed first, rank 1 its AllReduce: only time orders them.
    auto rank = [](int r, int device, double late) {
        const std::string dev = std::to_string(device);
        const std::string allReduceStream = r == 0 ? "24" : "20", sendRecvStream = r == 0 ? "20" : "24";
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":2},"deviceProperties":[{"id":)" + dev +
                        R"(,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":9,"tid":9,"ts":1,"dur":2,"args":{"correlation":7}},
          {"ph":"X","cat":"kernel","name":"gemm_a","pid":)" +
                        dev + R"(,"tid":7,"ts":10,"dur":100,"args":{"device":)" + dev +
                        R"(,"stream":7,"correlation":7}},
          {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":)" +
                        dev + R"(,"tid":)" + allReduceStream + R"(,"ts":)" + std::to_string(300 + late) +
                        R"(,"dur":50,"args":{"device":)" + dev + R"(,"stream":)" + allReduceStream + R"(}},
          {"ph":"X","cat":"kernel","name":"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t","pid":)" +
                        dev + R"(,"tid":)" + sendRecvStream + R"(,"ts":)" + std::to_string(150 + late) +
                        R"(,"dur":50,"args":{"device":)" + dev + R"(,"stream":)" + sendRecvStream +
                        R"(}}]})");
    };
    // Rank 1 reaches both collectives 30 µs after rank 0.
    const std::vector<RankInput> inputs = {{"r0.json", rank(0, 0, 0)}, {"r1.json", rank(1, 1, 30)}};
    const auto merged = mergeRanks(inputs);
    std::set<std::string> gpus;
    for (const ProcessInfo& p : merged->processes())
        if (p.isGpu) gpus.insert(std::to_string(p.rank) + ":" + p.labels);
    EXPECT_EQ(gpus, (std::set<std::string>{"0:GPU 0", "1:GPU 1"}));
    int linked = 0;
    for (std::uint32_t t = 0; t < merged->tracks().size(); ++t)
        for (std::uint32_t i = 0; i < merged->tracks()[t].size(); ++i)
            if (const auto launch = merged->launchOf({TrackId{t}, i})) {
                ++linked;
                EXPECT_EQ(merged->process(merged->track(launch->track).process).rank,
                          merged->process(merged->tracks()[t].process).rank);
            }
    EXPECT_EQ(linked, 2);
    const RankReport report = rankReport(inputs);
    EXPECT_EQ(report.collectives, 2u); // SendRecv first, then AllReduce, on every rank
    EXPECT_EQ(report.stragglerRank, 1);
    EXPECT_EQ(report.ranks[0].waitNs, 60'000);
    EXPECT_EQ(report.ranks[1].waitNs, 0);
    EXPECT_EQ(report.ranks[0].computeBusyNs, 100'000);
    EXPECT_EQ(report.ranks[0].commNs, 100'000);
    const auto j = nlohmann::json::parse(formatRankReport(report, SummaryFormat::Json));
    EXPECT_EQ(j.at("ranks").at(0).at("compute_busy_ns"), 100'000);
    EXPECT_EQ(j.at("ranks").at(0).at("communication_ns"), 100'000);
    EXPECT_EQ(j.at("ranks").at(0).at("collective_wait_ns"), 60'000);
    EXPECT_EQ(j.at("ranks").at(1).at("last_arrivals"), 2);
    EXPECT_EQ(j.at("compute_busy").at("mean_ns"), 100'000);
    EXPECT_EQ(j.at("compute_busy").at("most_rank"), 0);
    EXPECT_EQ(j.at("collectives").at("matched"), 2);
    EXPECT_EQ(j.at("collectives").at("straggler_rank"), 1);
    EXPECT_EQ(j.at("slowest_rank"), 1);
}

// Collectives are matched by time, whatever stream each rank ran them on: rank 0 runs its first and
// third on one stream and its second on another, rank 1 all three on one.
TEST(Ranks, CollectivesAreMatchedInTimeOrderWhateverTheirStreams) {
    auto kernel = [](const char* name, int stream, int ts) {
        return std::string(R"({"ph":"X","cat":"kernel","name":")") + name + R"(","pid":0,"tid":)" +
               std::to_string(stream) + R"(,"ts":)" + std::to_string(ts) +
               R"(,"dur":20,"args":{"device":0,"stream":)" + std::to_string(stream) + "}}";
    };
    auto rank = [](int r, const std::string& events) {
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":2},"traceEvents":[)" + events + "]}");
    };
    const char* s = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t";
    const char* b = "ncclKernel_Broadcast_RING_LL_Sum_int8_t";
    const char* a = "ncclKernel_AllReduce_RING_LL_Sum_float";
    const auto r0 = rank(0, kernel(s, 20, 100) + "," + kernel(a, 20, 400) + "," + kernel(b, 24, 250));
    const auto r1 = rank(1, kernel(s, 20, 110) + "," + kernel(b, 20, 260) + "," + kernel(a, 20, 410));
    const RankReport report = rankReport({{"r0.json", r0}, {"r1.json", r1}});
    EXPECT_EQ(report.collectives, 3u);
    EXPECT_EQ(report.stragglerRank, 1);
    EXPECT_EQ(report.ranks[0].waitNs, 30'000);
    EXPECT_EQ(report.ranks[1].lastArrivals, 3u);
}

// Three ranks of one program, each with correlation 7: each launch links to its own rank's kernel.
TEST(Ranks, ThreeRanksWithOneCorrelationKeepTheirOwnLinks) {
    std::vector<RankInput> inputs;
    for (int r = 0; r < 3; ++r)
        inputs.push_back({"r" + std::to_string(r) + ".json",
                          loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                                   R"(,"world_size":3},"traceEvents":[
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":9,"tid":9,"ts":1,"dur":2,"args":{"correlation":7}},
          {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":100,"args":{"device":0,"stream":7,"correlation":7}}]})")});
    const auto merged = mergeRanks(inputs);
    int linked = 0;
    for (std::uint32_t t = 0; t < merged->tracks().size(); ++t)
        for (std::uint32_t i = 0; i < merged->tracks()[t].size(); ++i)
            if (const auto launch = merged->launchOf({TrackId{t}, i});
                launch && isKernelCategory(merged->str(merged->tracks()[t].events.category[i]))) {
                ++linked;
                EXPECT_EQ(merged->process(merged->track(launch->track).process).rank,
                          merged->process(merged->tracks()[t].process).rank);
            }
    EXPECT_EQ(linked, 3);
}

TEST(Ranks, FilesWithoutARankAreGroupedByTheirFileName) {
    const auto t =
        loadText(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1}]})");
    const auto merged = mergeRanks({{"/data/run/a.json", t}, {"/data/run/b.json", t}});
    std::set<std::string> names;
    for (const ProcessInfo& p : merged->processes())
        names.insert(p.name.substr(0, p.name.find(" · ")));
    EXPECT_EQ(names, (std::set<std::string>{"a.json", "b.json"}));
}

TEST(Ranks, TwoDlrmRanksMergeWithoutCrossingLinks) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    const std::vector<RankInput> inputs = {{r0, loadTraceFile(r0)}, {r1, loadTraceFile(r1)}};
    const auto merged = mergeRanks(inputs);
    EXPECT_EQ(merged->eventCount(), inputs[0].trace->eventCount() + inputs[1].trace->eventCount());
    std::set<std::int64_t> ranks;
    for (const ProcessInfo& p : merged->processes()) {
        ranks.insert(p.rank);
        EXPECT_EQ(p.name.rfind("rank " + std::to_string(p.rank) + " · ", 0), 0u) << p.name;
    }
    EXPECT_EQ(ranks, (std::set<std::int64_t>{0, 1}));
    auto rankOfEvent = [&](EventRef e) { return merged->process(merged->track(e.track).process).rank; };
    std::size_t links = 0, kernels = 0;
    for (std::uint32_t t = 0; t < merged->tracks().size(); ++t) {
        const Track& track = merged->tracks()[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (!isKernelCategory(merged->str(track.events.category[i]))) continue;
            ++kernels;
            if (const auto launch = merged->launchOf({TrackId{t}, i})) {
                ++links;
                EXPECT_EQ(rankOfEvent(*launch), rankOfEvent({TrackId{t}, i}));
            }
        }
    }
    EXPECT_EQ(kernels, 245u + 310u);
    // Every launch link of each file is kept, each inside its own rank.
    std::size_t linksBefore = 0;
    for (const RankInput& in : inputs)
        for (std::uint32_t t = 0; t < in.trace->tracks().size(); ++t)
            for (std::uint32_t i = 0; i < in.trace->tracks()[t].size(); ++i)
                linksBefore += isKernelCategory(in.trace->str(in.trace->tracks()[t].events.category[i])) &&
                               in.trace->launchOf({TrackId{t}, i});
    EXPECT_EQ(links, linksBefore);
    EXPECT_GT(links, 400u);
    for (const Flow& f : merged->flows())
        EXPECT_EQ(rankOfEvent(f.from), rankOfEvent(f.to));
    EXPECT_EQ(merged->flows().size(), inputs[0].trace->flows().size() + inputs[1].trace->flows().size());

    const RankReport report = rankReport(inputs);
    ASSERT_EQ(report.ranks.size(), 2u);
    EXPECT_EQ(report.ranks[0].kernels, 245u);
    EXPECT_EQ(report.ranks[1].kernels, 310u);
    // Rank 1 has the most GPU busy time, but most of it is waiting inside its collectives: by an
    // independent reading of the files (the n-th NCCL kernel of each rank is one collective, 8 of them,
    // the same names in the same order), rank 1 reaches them 5,585 µs before rank 0 in all, rank 0 40 µs
    // before rank 1. Rank 0 is the straggler; rank 1 computes the most.
    EXPECT_EQ(report.maxBusyNs, report.ranks[1].gpuBusyNs);
    EXPECT_EQ(report.collectives, 8u);
    EXPECT_EQ(report.ranks[0].waitNs, 40'000);
    EXPECT_EQ(report.ranks[1].waitNs, 5'585'000);
    EXPECT_EQ(report.stragglerRank, 0);
    EXPECT_EQ(report.slowestRank, 0);
    EXPECT_EQ(report.othersMeanWaitNs(), 5'585'000);
    EXPECT_EQ(report.mostComputeRank, 1);
    EXPECT_LT(report.ranks[0].computeBusyNs, report.ranks[1].computeBusyNs);
    EXPECT_EQ(report.ranks[0].lastArrivals, 4u); // the fourth collective starts at once on both: nobody's
    EXPECT_EQ(report.ranks[1].lastArrivals, 3u);
    EXPECT_NEAR(report.spread(),
                double(report.maxComputeNs - report.minComputeNs) / double(report.meanComputeNs), 1e-12);
    // The same rank twice is refused.
    EXPECT_THROW(mergeRanks({inputs[0], inputs[0]}), std::invalid_argument);
}

// A rank waits inside its collective kernel, so never longer than the kernel lasts: ranks whose clocks
// disagree (rank 1's a second behind) would otherwise wait a second at each all-reduce of 100 µs, longer
// than they ran.
TEST(Ranks, AWaitIsNeverLongerThanTheCollectiveItIsIn) {
    auto rank = [](int r, long offsetUs) {
        std::string events;
        for (int i = 0; i < 3; ++i) {
            const long t = offsetUs + 1000L * i;
            events +=
                (i ? "," : "") +
                std::string(R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)") +
                std::to_string(t) +
                R"(,"dur":500},{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":9,"ts":)" +
                std::to_string(t + 600) + R"(,"dur":100})";
        }
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":2},"traceEvents":[)" + events + "]}");
    };
    const RankReport report = rankReport({{"r0.json", rank(0, 0)}, {"r1.json", rank(1, 1'000'000)}});
    ASSERT_EQ(report.collectives, 3u);
    EXPECT_EQ(report.stragglerRank, 1);
    EXPECT_EQ(report.ranks[0].waitNs, 3 * 100'000); // at most each all-reduce's 100 µs
    EXPECT_LE(report.ranks[0].waitNs, report.ranks[0].commNs);
    EXPECT_LE(report.ranks[0].waitNs, report.ranks[0].spanNs);
    EXPECT_EQ(report.ranks[1].waitNs, 0);
}

// A rank with no communication kernel (a trace cut short, a rank that takes no part) is left out of the
// collectives and named: the others' waits and straggler stay (it once switched the matching off for all).
TEST(Ranks, ARankWithoutCollectivesIsLeftOutAndNamed) {
    auto rank = [](int r, long lateUs, bool communicates) {
        std::string events;
        for (int i = 0; i < 3; ++i) {
            const long t = 1000L * i;
            events += (i ? "," : "") +
                      std::string(R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)") +
                      std::to_string(t) + R"(,"dur":)" + std::to_string(400 + lateUs) + "}";
            if (communicates)
                events +=
                    R"(,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":9,"ts":)" +
                    std::to_string(t + 450 + lateUs) + R"(,"dur":)" + std::to_string(400 - lateUs) + "}";
        }
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":3},"traceEvents":[)" + events + "]}");
    };
    const RankReport report = rankReport(
        {{"r0.json", rank(0, 0, true)}, {"r1.json", rank(1, 100, true)}, {"r2.json", rank(2, 0, false)}});
    EXPECT_EQ(report.withoutCollectives, std::vector<std::int64_t>{2});
    EXPECT_EQ(report.collectives, 3u);
    EXPECT_EQ(report.stragglerRank, 1);
    EXPECT_EQ(report.ranks[0].waitNs, 3 * 100'000);
    EXPECT_EQ(report.ranks[2].waitNs, 0);
    EXPECT_NE(formatRankReport(report, SummaryFormat::Text).find("left out of the collectives: 2"),
              std::string::npos);
    // Two ranks, one without: nothing to leave it out of, nothing matched, nobody named.
    const RankReport two = rankReport({{"r0.json", rank(0, 0, true)}, {"r2.json", rank(2, 0, false)}});
    EXPECT_EQ(two.collectives, 0u);
    EXPECT_TRUE(two.withoutCollectives.empty());
}

// The straggler's wait is the others' wait for it, at the collectives it reached last: rank 2 arrives
// last at two of three (100 and 300 ns after the others), rank 1 at the third (50 ns): the others wait
// 400 ns each for rank 2, not the 425 of all their waits, rank 1's included.
TEST(Ranks, TheStragglersWaitIsOnlyTheWaitForIt) {
    std::vector<RankStats> stats(3);
    std::vector<RankCollectives> collectives(3);
    const TimeNs starts[3][3] = {{100, 1000, 2000}, {100, 1000, 2050}, {200, 1300, 2000}};
    for (int r = 0; r < 3; ++r) {
        stats[std::size_t(r)].rank = r;
        stats[std::size_t(r)].computeBusyNs = stats[std::size_t(r)].gpuBusyNs = 10'000;
        collectives[std::size_t(r)].names = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL"};
        for (TimeNs at : starts[r])
            collectives[std::size_t(r)].arrivals.push_back({0, at, 10'000});
    }
    const RankReport report = reduceRanks(stats, collectives);
    EXPECT_EQ(report.collectives, 3u);
    EXPECT_EQ(report.stragglerRank, 2);
    EXPECT_EQ(report.find(2)->lastArrivals, 2u);
    EXPECT_EQ(report.find(0)->waitNs, 450);
    EXPECT_EQ(report.find(1)->waitNs, 400);
    EXPECT_EQ(report.othersMeanWaitNs(), 400);
    EXPECT_EQ(report.stragglerSentence(),
              "rank 2 arrives last at 2 of the 3 collectives matched on every rank, and the others wait " +
                  formatDuration(400) + " each for it there");
    // Every view says it in these words.
    EXPECT_NE(formatRankReport(report, SummaryFormat::Text).find(report.stragglerSentence()),
              std::string::npos);
}
