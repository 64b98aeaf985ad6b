// SPDX-License-Identifier: MIT
// A job's ranks as records (map) and the report put together from them (reduce): the same per-rank
// times, waits and straggler as summary --ranks, a rank that failed listed, two records of one rank
// refused, slow ranks by a robust statistic.
#include "analysis_test_support.h"

#include "core/document/document.h"
#include "core/report/job_report.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

namespace {

RankRecord recordOf(const std::string& path, std::size_t position) {
    DocumentOptions options;
    options.parts = SummaryPart | AnalysisPart;
    options.cpuRoofs = CpuRoofsChoice::None;
    const auto doc = openDocument(DocumentSource::file(path), options);
    return rankRecord(doc->trace, *doc->summary, path, position);
}

// A record of a rank that computed `computeNs` and nothing else.
RankRecord computed(std::int64_t rank, TimeNs computeNs) {
    RankRecord r;
    r.path = "rank" + std::to_string(rank) + ".json";
    r.stats.rank = rank;
    r.stats.path = r.path;
    r.stats.kernels = 1;
    r.stats.kernelNs = r.stats.gpuBusyNs = r.stats.computeBusyNs = computeNs;
    r.stats.spanNs = computeNs;
    return r;
}

} // namespace

TEST(RankRecord, TheJobFromRecordsIsWhatSummaryRanksSays) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    const auto merged = openDocument(DocumentSource::ranks({r0, r1}), {});
    ASSERT_TRUE(merged->ranks);
    const RankReport& whole = *merged->ranks;
    // Each record through its JSON line, as the map writes it and the reduce reads it.
    std::vector<RankRecord> records;
    for (const auto& [path, position] : {std::pair{r0, 0}, std::pair{r1, 1}}) {
        const std::string line = rankRecordJson(recordOf(path, std::size_t(position)));
        EXPECT_LT(line.size(), 64u * 1024) << "a record is kilobytes";
        EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
        records.push_back(parseRankRecord(line, path + ".record"));
    }
    EXPECT_EQ(records[0].worldSize, 8);
    EXPECT_EQ(records[1].steps, std::vector<std::int64_t>{10});
    EXPECT_FALSE(records[0].findings.empty());
    EXPECT_FALSE(records[0].topKernels.empty());
    const JobReport job = jobReport(std::move(records));
    ASSERT_EQ(job.records.size(), 2u);
    EXPECT_TRUE(job.failed.empty());
    EXPECT_EQ(job.ranks.collectives, whole.collectives);
    EXPECT_EQ(job.ranks.collectives, 8u);
    EXPECT_EQ(job.ranks.stragglerRank, whole.stragglerRank);
    EXPECT_EQ(job.ranks.slowestRank, whole.slowestRank);
    for (std::size_t k = 0; k < 2; ++k) {
        const RankStats& a = job.records[k].stats;
        const RankStats& b = whole.ranks[k];
        EXPECT_EQ(a.rank, b.rank);
        EXPECT_EQ(a.kernels, b.kernels);
        EXPECT_EQ(a.kernelNs, b.kernelNs);
        EXPECT_EQ(a.gpuBusyNs, b.gpuBusyNs);
        EXPECT_EQ(a.computeBusyNs, b.computeBusyNs);
        EXPECT_EQ(a.commNs, b.commNs);
        EXPECT_EQ(a.waitNs, b.waitNs);
        EXPECT_EQ(a.lastArrivals, b.lastArrivals);
        EXPECT_EQ(a.spanNs, b.spanNs);
    }
    EXPECT_EQ(job.records[1].stats.waitNs, 5'585'000);
    // Each rank's findings, gathered by rule across the ranks: exposed communication on both, and its
    // time at stake the ranks' sum, each rank's waits for the straggler left out.
    const JobFinding* exposed = nullptr;
    for (const JobFinding& f : job.findings)
        if (f.id == "exposed_communication") exposed = &f;
    ASSERT_NE(exposed, nullptr);
    EXPECT_EQ(exposed->ranks, (std::vector<std::int64_t>{0, 1}));
    TimeNs sum = 0;
    for (const RankRecord& r : job.records)
        for (const RecordFinding& f : r.findings)
            if (f.id == "exposed_communication") sum += f.timeNs - std::min(f.timeNs, r.stats.waitNs);
    EXPECT_EQ(exposed->totalNs, sum);
    EXPECT_GE(exposed->totalNs, exposed->maxNs);
    // The report in each format says the same ranks.
    const auto json = nlohmann::json::parse(formatJobReport(job, JobFormat::Json));
    EXPECT_EQ(json.at("ranks").size(), 2u);
    EXPECT_EQ(json.at("slowest_rank"), whole.slowestRank);
    EXPECT_EQ(json.at("ranks").at(1).at("collective_wait_ns"), 5'585'000);
    const std::string csv = formatJobReport(job, JobFormat::Csv);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
    EXPECT_NE(formatJobReport(job, JobFormat::Markdown).find("| rank | GPU busy |"), std::string::npos);
}

TEST(RankRecord, ARankThatFailedIsListedAndTheJobGoesOn) {
    std::vector<RankRecord> records = {computed(0, 100), computed(2, 110),
                                       failedRankRecord("rank1.json", "truncated at byte 12", 1)};
    const std::string line = rankRecordJson(records[2]);
    const RankRecord back = parseRankRecord(line, "r1.record");
    EXPECT_EQ(back.error, "truncated at byte 12");
    EXPECT_EQ(back.stats.rank, 1);
    records[2] = back;
    const JobReport job = jobReport(std::move(records));
    ASSERT_EQ(job.records.size(), 2u);
    ASSERT_EQ(job.failed.size(), 1u);
    EXPECT_EQ(job.failed[0].path, "rank1.json");
    const std::string text = formatJobReport(job, JobFormat::Text);
    EXPECT_NE(text.find("could not be read: truncated at byte 12"), std::string::npos) << text;
    EXPECT_NE(text.find("2 ranks read, 1 could not be"), std::string::npos) << text;
    const auto json = nlohmann::json::parse(formatJobReport(job, JobFormat::Json));
    EXPECT_EQ(json.at("failed").at(0).at("error"), "truncated at byte 12");
}

TEST(RankRecord, TwoRecordsOfOneRankAreRefusedNamingBoth) {
    std::vector<RankRecord> records = {computed(0, 100), computed(1, 100), computed(1, 120)};
    records[1].source = "a/rank1.json";
    records[2].source = "b/rank1.json";
    try {
        jobReport(std::move(records));
        FAIL() << "two records of rank 1 were taken";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("a/rank1.json"), std::string::npos) << what;
        EXPECT_NE(what.find("b/rank1.json"), std::string::npos) << what;
    }
}

TEST(RankRecord, WhatIsNotARecordOfThisVersionSaysSo) {
    auto error = [](const std::string& text) {
        try {
            parseRankRecord(text, "x.json");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(error(R"({"traceEvents":[]})").find("x.json: not a rank record"), std::string::npos);
    EXPECT_NE(error("{").find("not a rank record"), std::string::npos);
    EXPECT_NE(error(R"({"attnscope_rank_record":99})").find("version 99"), std::string::npos);
    std::string line = rankRecordJson(computed(3, 10));
    EXPECT_EQ(error(line), "");
    line.replace(line.find("\"kernels\""), 9, "\"kernelz\"");
    EXPECT_NE(error(line).find("x.json: a broken rank record"), std::string::npos) << error(line);
    // A collective that names a kernel the record does not list.
    RankRecord r = computed(4, 10);
    r.collectives.names = {"ncclAllReduce"};
    r.collectives.arrivals = {{0, 5, 2}};
    std::string bad = rankRecordJson(r);
    bad.replace(bad.find("[[0,5,2]]"), 9, "[[3,5,2]]");
    EXPECT_NE(error(bad).find("a broken rank record"), std::string::npos) << error(bad);
}

// A slow rank stands out from the median by its deviations, whatever the others' spread; ranks that
// differ by a few percent, as ranks do, are none (the negative case).
TEST(RankRecord, SlowRanksStandOutFromTheMedianNotFromAMean) {
    std::vector<RankRecord> even, oneSlow;
    for (std::int64_t r = 0; r < 16; ++r) {
        even.push_back(computed(r, 1'000'000 + 10'000 * (r % 3)));
        oneSlow.push_back(computed(r, r == 11 ? 1'600'000 : 1'000'000 + 10'000 * (r % 3)));
    }
    EXPECT_TRUE(jobReport(even).slowRanks.empty());
    const JobReport job = jobReport(oneSlow);
    ASSERT_EQ(job.slowRanks.size(), 1u);
    EXPECT_EQ(job.slowRanks[0].rank, 11);
    EXPECT_NEAR(job.slowRanks[0].overMedian, 1.6 / 1.01, 0.02);
    const Spread& compute = job.spread("compute_busy");
    EXPECT_EQ(compute.maxRank, 11);
    EXPECT_DOUBLE_EQ(compute.max, 1'600'000);
    EXPECT_DOUBLE_EQ(compute.median, 1'010'000);
    EXPECT_LE(compute.median, compute.p90);
    EXPECT_LE(compute.p90, compute.max);
}

// A trace read with warnings (cut short) keeps them in its record, and the job names the rank: in a job of
// a thousand ranks a truncated trace must not pass for a quiet rank.
TEST(RankRecord, ATraceReadWithWarningsSaysSoInTheJob) {
    TempDir dir;
    const std::string cut = dir.path("cut.json");
    writeFile(
        cut,
        R"({"distributedInfo":{"rank":3},"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":5},)");
    RankRecord r = parseRankRecord(rankRecordJson(recordOf(cut, 0)), "cut.record");
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings.front().find("truncated"), std::string::npos) << r.warnings.front();
    const JobReport job = jobReport({computed(0, 10), computed(1, 10), r});
    EXPECT_EQ(job.warned, std::vector<std::int64_t>{3});
    const std::string text = formatJobReport(job, JobFormat::Text);
    EXPECT_NE(text.find("read with warnings: 3"), std::string::npos) << text;
    EXPECT_NE(text.find("truncated"), std::string::npos) << text;
    // A finding's time at stake is per rank of the job on average, its severity from that share of the
    // job's span, and its title the words of the rank with most at stake, with where it holds.
    RankRecord a = computed(5, 10), b = computed(6, 10);
    a.stats.spanNs = b.stats.spanNs = 1000;
    a.findings = {{"gpu_idle", Severity::Warning, "The GPU idles 40% of the time", 400, 0.4}};
    b.findings = {{"gpu_idle", Severity::Critical, "The GPU idles 60% of the time", 600, 0.6}};
    const JobReport idle = jobReport({a, b});
    ASSERT_EQ(idle.findings.size(), 1u);
    EXPECT_EQ(idle.findings[0].meanNs, 500);
    EXPECT_DOUBLE_EQ(idle.findings[0].share, 0.5);
    EXPECT_EQ(idle.findings[0].severity, Severity::Critical);
    EXPECT_EQ(idle.findings[0].titleRank, 6);
    EXPECT_EQ(idle.findings[0].title, "The GPU idles 60% of the time (rank 6; on 2 of 2 ranks)");
    const std::string idleText = formatJobReport(idle, JobFormat::Text);
    EXPECT_NE(idleText.find("The GPU idles 60% of the time (rank 6"), std::string::npos);
    // Two figures on one line (the mean 500 ns, the title's rank 6's own): the columns say which is which.
    EXPECT_NE(idleText.find("per rank"), std::string::npos) << idleText;
    EXPECT_LT(idleText.find("per rank"), idleText.find("500 ns")) << idleText;
    // On two ranks of three: the mean is of the job's three ranks, not of the two that have it.
    const JobReport one = jobReport({a, b, computed(7, 10)});
    EXPECT_EQ(one.findings[0].meanNs, 1000 / 3);
    // A severity every rank gives (GPU idle's, of each GPU's own window) is the job's too, though the mean
    // time is a smaller share of the job's span: two critical ranks, a critical job (HTA's sampled ranks
    // were critical each and a warning together). One rank of three critical is not enough.
    a.findings[0].severity = b.findings[0].severity = Severity::Critical;
    a.findings[0].timeNs = b.findings[0].timeNs = 150; // 15% of the span: a warning by share
    EXPECT_EQ(jobReport({a, b}).findings[0].severity, Severity::Critical);
    b.findings[0].severity = Severity::Warning;
    EXPECT_EQ(jobReport({a, b, computed(7, 10)}).findings[0].severity, Severity::Warning);
}

// The job's median and p90 are read at their ranks' places among the sorted values (interpolated between
// two), not at the next one up: of two ranks the median is between them, not the slower one.
TEST(RankRecord, MedianAndP90AreTheValuesAtTheirPlaces) {
    const JobReport pair = jobReport({computed(0, 100), computed(1, 300)});
    EXPECT_DOUBLE_EQ(pair.spread("compute_busy").median, 200);
    EXPECT_DOUBLE_EQ(pair.spread("compute_busy").p90, 280);
    EXPECT_DOUBLE_EQ(pair.spread("compute_busy").max, 300);
    const JobReport four = jobReport({computed(3, 40), computed(0, 10), computed(2, 30), computed(1, 20)});
    EXPECT_DOUBLE_EQ(four.spread("compute_busy").median, 25);
    EXPECT_DOUBLE_EQ(four.spread("compute_busy").p90, 37);
    EXPECT_EQ(four.spread("compute_busy").maxRank, 3);
}

// Three ranks are enough to have a median to stand out from: one twice as slow as the other two is slow.
TEST(RankRecord, ASlowRankAmongThreeIsFound) {
    const JobReport job = jobReport({computed(0, 1'000'000), computed(1, 2'000'000), computed(2, 1'010'000)});
    ASSERT_EQ(job.slowRanks.size(), 1u);
    EXPECT_EQ(job.slowRanks[0].rank, 1);
    EXPECT_TRUE(jobReport({computed(0, 1'000'000), computed(1, 1'020'000), computed(2, 1'010'000)})
                    .slowRanks.empty());
    EXPECT_TRUE(
        jobReport({computed(0, 1'000'000), computed(1, 2'000'000)}).slowRanks.empty()); // no median of two
}
