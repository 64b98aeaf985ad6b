// SPDX-License-Identifier: MIT
// The findings of a job of ranks: copies, exposed communication, the straggler.
#include "findings_test_support.h"

#include "core/report/job_findings.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

TEST(Findings, DlrmRankHasPageableCopiesSyncsAndExposedCommunication) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = open(path);
    const auto& all = *doc->findings;
    // Independently from the file: the pageable copies, their bytes, and the synchronizing calls.
    const nlohmann::json j = nlohmann::json::parse(readAllBytes(path));
    std::uint64_t pageable = 0, syncs = 0;
    double bytes = 0, blocked = 0;
    for (const auto& e : j["traceEvents"]) {
        const std::string n = e.value("name", "");
        if (e.value("cat", "") == "gpu_memcpy" && n.find("Pageable") != std::string::npos) {
            ++pageable;
            bytes += e["args"]["bytes"].get<double>();
        }
        if (e.value("cat", "") == "cuda_runtime" && n.find("Synchronize") != std::string::npos) {
            ++syncs;
            blocked += e["dur"].get<double>();
        }
    }
    const Finding* p = findingOf(all, "pageable_memcpy");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->count, pageable);
    EXPECT_NE(p->explanation.find(formatRate(bytes, "B")), std::string::npos) << p->explanation;
    const Finding* s = findingOf(all, "synchronization");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->count, syncs);
    EXPECT_NE(s->explanation.find("the host blocked " + formatDuration(TimeNs(blocked * 1000))),
              std::string::npos)
        << s->explanation;
    const Finding* c = findingOf(all, "exposed_communication");
    ASSERT_NE(c, nullptr);
    EXPECT_GT(c->timeNs, 0);
    EXPECT_LE(c->share, 1.0);
    EXPECT_NE(findingOf(all, "gpu_idle"), nullptr);
    // Every piece of evidence is a real event of the trace, with its own start and duration.
    for (const Finding& f : all)
        for (const Evidence& e : f.evidence) {
            const Track& track = doc->trace->track(e.event.track);
            EXPECT_EQ(track.events.start[e.event.index], e.startNs);
            EXPECT_EQ(track.events.duration[e.event.index], e.durNs);
            EXPECT_EQ(doc->trace->str(track.events.name[e.event.index]), e.name);
        }
}

TEST(Findings, CommunicationIsHiddenByComputeOnAnyStream) {
    // Compute on two streams, interleaved in time: stream 7 [100, 200) and [400, 500) µs, stream 8
    // [150, 350); an all-reduce on stream 20 [300, 600) is covered for [300, 350) and [400, 500): 150 µs
    // of its 300 exposed. (Joining the streams' kernels in stream order instead of time order would lose
    // stream 8's and say 200.)
    GpuTrace t;
    auto kernel = [&](const std::string& name, int stream, int ts, int dur) {
        t.add(R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":)" + std::to_string(stream) +
              R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
              R"(,"args":{"device":0,"stream":)" + std::to_string(stream) + "}}");
    };
    kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 7, 100, 100);
    kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 7, 400, 100);
    kernel("sm90_xmma_gemm_bf16bf16_bf16f32", 8, 150, 200);
    kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 20, 300, 300);
    const std::vector<Finding> all = findingsOf(*loadText(t.text()));
    const Finding* c = findingOf(all, "exposed_communication");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->timeNs, 150000);
    EXPECT_EQ(c->count, 1u);
    ASSERT_EQ(c->evidence.size(), 1u);
    EXPECT_EQ(c->evidence[0].note, formatDuration(150000) + " of " + formatDuration(300000) + " exposed");
}

// The DLRM ranks: rank 1 has 87% more GPU busy time than rank 0, but it is rank 1 that waits — 5,585 µs
// in all from its arrival at each of the 8 collectives to rank 0's (an independent reading of the files
// in test_analysis.cpp). The finding names rank 0, the straggler, with the wait per rank as the time at
// stake, and says the compute busy times too; the job's other findings are each rank's own put together,
// the time at stake their mean per rank of the job, of the one span.
TEST(Findings, TheStragglerIsWhoTheOthersWaitForAndJobFiguresArePerRank) {
    ATTNSCOPE_REQUIRE_FIXTURE(rank0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(rank1, "dlrm_2ranks/rank1.json");
    const auto doc = openDocument(DocumentSource::ranks({rank0, rank1}));
    ASSERT_NE(doc->job, nullptr);
    EXPECT_EQ(doc->ranks.get(), &doc->job->ranks); // the rank table is the job's
    const Finding* f = findingOf(*doc->findings, "rank_imbalance");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 5'585'000);
    EXPECT_NE(f->title.find("Rank 0 is the straggler"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("compute busy time"), std::string::npos) << f->explanation;
    const TimeNs span = doc->trace->endNs() - doc->trace->startNs();
    EXPECT_EQ(jobSpanNs(doc->job->records), span);
    EXPECT_DOUBLE_EQ(f->share, 5'585'000.0 / double(span));
    EXPECT_EQ(f->count, 8u); // rank 0's collectives
    // The job's finding is paid by the rank that waits: rank 1, the most on it (the Job window says "on 1
    // rank, most 5.585 ms on rank 1", not of the straggler, whose own wait is 40 µs).
    const auto paid = std::find_if(doc->job->findings.begin(), doc->job->findings.end(),
                                   [](const JobFinding& j) { return j.id == "rank_imbalance"; });
    ASSERT_NE(paid, doc->job->findings.end());
    EXPECT_EQ(paid->ranks, std::vector<std::int64_t>{1});
    EXPECT_EQ(paid->maxRank, 1);
    EXPECT_EQ(paid->titleRank, 0);
    ASSERT_EQ(f->evidence.size(), 8u);
    for (const Evidence& e : f->evidence) {
        EXPECT_EQ(doc->trace->process(doc->trace->track(e.event.track).process).rank, 0);
        EXPECT_EQ(doc->trace->track(e.event.track).events.start[e.event.index],
                  e.startNs); // found in the merged trace
        EXPECT_NE(e.track.find("rank 0"), std::string::npos) << e.track;
    }
    for (std::size_t i = 1; i < f->evidence.size(); ++i) // in the order the job reached them
        EXPECT_LT(f->evidence[i - 1].startNs, f->evidence[i].startNs);
    EXPECT_NE(f->explanation.find("Of 8 collectives matched on all 2 ranks"), std::string::npos)
        << f->explanation;
    EXPECT_NE(f->explanation.find("GPU busy time (6.571 ms to 12.302 ms)"), std::string::npos)
        << f->explanation;
    // Each rank's GPU idles on its own: the finding is a rank's ("The GPU idles", one GPU), not the two
    // GPUs' union, whose idle time is only when both idle.
    const Finding* idle = findingOf(*doc->findings, "gpu_idle");
    ASSERT_NE(idle, nullptr);
    EXPECT_EQ(idle->title.rfind("The GPU idles", 0), 0u) << idle->title;
    EXPECT_NE(idle->title.find("(rank 0; on 2 of 2 ranks)"), std::string::npos) << idle->title;
    for (const Finding& g : *doc->findings) {
        EXPECT_LE(g.timeNs, span) << g.id;
        EXPECT_LE(g.title.size(), kFindingTitleMax) << g.title;
        EXPECT_NEAR(g.share, double(g.timeNs) / double(span), 1e-9) << g.id; // one denominator
        // From the share, or what at least half the ranks say where that is more (each rank's own span
        // is shorter than the job's).
        EXPECT_GE(g.severity, severityOfShare(g.share, FindingThresholds::standard())) << g.id;
        if (g.id != "rank_imbalance") {
            EXPECT_NE(g.title.find(" of 2 ranks)"), std::string::npos) << g.title;
            EXPECT_NE(g.explanation.find("per rank of the job"), std::string::npos) << g.explanation;
            EXPECT_FALSE(g.evidence.empty()) << g.id;
        }
    }
    // Exposed communication leaves out the waits at the collectives (the straggler's, not the network's):
    // rank 0 5.537 ms exposed less its 40 µs of waits, rank 1 11.056 ms less 5.585 ms; 10.968 ms in all,
    // 5.484 ms per rank.
    const Finding* comm = findingOf(*doc->findings, "exposed_communication");
    ASSERT_NE(comm, nullptr);
    EXPECT_NE(comm->explanation.find("5.625 ms is ranks waiting at collectives"), std::string::npos)
        << comm->explanation;
    EXPECT_NE(comm->explanation.find("10.968 ms at stake in all"), std::string::npos) << comm->explanation;
    EXPECT_EQ(comm->timeNs, 5'484'000);
    EXPECT_NE(comm->title.find("waits at collectives aside: 5.497 ms (rank 0; on 2 of 2 ranks)"),
              std::string::npos)
        << comm->title;
    ASSERT_GE(comm->evidence.size(), 2u);

    // The threshold is rank_imbalance_excess, of the mean compute busy time (1.140 ms): the wait of
    // 5.585 ms is 4.9 times it.
    const JobReport& job = *doc->job;
    FindingThresholds high = FindingThresholds::standard();
    high.set("rank_imbalance_excess", 5.0);
    auto jobFinding = [](const std::vector<JobFinding>& found, std::string_view id) -> const JobFinding* {
        for (const JobFinding& j : found)
            if (j.id == id) return &j;
        return nullptr;
    };
    EXPECT_EQ(jobFinding(jobFindings(job.records, job.ranks, high), "rank_imbalance"), nullptr);
    high.set("rank_imbalance_excess", 4.8);
    EXPECT_NE(jobFinding(jobFindings(job.records, job.ranks, high), "rank_imbalance"), nullptr);
    // Even ranks: no straggler's wait and compute within 5% of the mean: silent.
    RankReport even = job.ranks;
    for (RankStats& s : even.ranks) {
        s.waitNs = 0;
        s.computeBusyNs = even.meanComputeNs;
    }
    even.waitForStragglerNs = 0;
    even.maxComputeNs = even.minComputeNs = even.meanComputeNs;
    EXPECT_EQ(jobFinding(jobFindings(job.records, even), "rank_imbalance"), nullptr);
    // Without matched collectives, the rank that computes most, at its excess over the mean (106 µs:
    // shown when no share is too small).
    RankReport unmatched = job.ranks;
    unmatched.stragglerRank = -1;
    unmatched.collectives = 0;
    FindingThresholds all = FindingThresholds::standard();
    all.set("min_share", 0);
    const std::vector<JobFinding> found = jobFindings(job.records, unmatched, all);
    const JobFinding* compute = jobFinding(found, "rank_imbalance");
    ASSERT_NE(compute, nullptr);
    EXPECT_NE(compute->title.find("Rank 1 computes the most"), std::string::npos) << compute->title;
    EXPECT_EQ(compute->meanNs, unmatched.maxComputeNs - unmatched.meanComputeNs);
}

// One set of job rules: the ranks opened together (the window, `summary --ranks`) and their records put
// together (`attnscope job`) give the same findings — ids, titles, severities, time at stake and share —
// where before the merged trace's rules gave the GPU idle of both GPUs' union, no straggler in the job's
// and its waits counted as exposed communication.
TEST(Findings, RanksOpenedTogetherAndTheirRecordsGiveOneSetOfFindings) {
    ATTNSCOPE_REQUIRE_FIXTURE(rank0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(rank1, "dlrm_2ranks/rank1.json");
    const auto doc = openDocument(DocumentSource::ranks({rank0, rank1}));
    std::vector<RankRecord> records;
    std::size_t position = 0;
    for (const std::string& path : {rank0, rank1}) {
        DocumentOptions options;
        options.parts = SummaryPart | AnalysisPart;
        const auto one = openDocument(DocumentSource::file(path), options);
        records.push_back(rankRecord(one->trace, *one->summary, path, position++));
    }
    const JobReport job = jobReport(std::move(records));
    ASSERT_EQ(job.findings.size(), doc->findings->size());
    for (std::size_t i = 0; i < job.findings.size(); ++i) {
        const JobFinding& j = job.findings[i];
        const Finding& f = (*doc->findings)[i];
        EXPECT_EQ(j.id, f.id);
        EXPECT_EQ(j.title, f.title);
        EXPECT_EQ(j.meanNs, f.timeNs) << j.id;
        EXPECT_DOUBLE_EQ(j.share, f.share) << j.id;
        EXPECT_EQ(j.severity, f.severity) << j.id;
    }
    for (const char* id : {"rank_imbalance", "exposed_communication", "gpu_idle"}) {
        bool found = false;
        for (const JobFinding& j : job.findings)
            found = found || j.id == id;
        EXPECT_TRUE(found) << id;
    }
    // The parts add to their whole: a rule's time in all is its ranks' own, and its mean per rank of the job.
    for (const JobFinding& j : job.findings) {
        if (j.id == "rank_imbalance") continue;
        TimeNs sum = 0;
        for (const RankRecord& r : job.records)
            for (const RecordFinding& g : r.findings)
                if (g.id == j.id)
                    sum +=
                        g.timeNs - (j.id == "exposed_communication" ? std::min(g.timeNs, r.stats.waitNs) : 0);
        EXPECT_EQ(j.totalNs, sum) << j.id;
        EXPECT_EQ(j.meanNs, j.totalNs / TimeNs(job.records.size())) << j.id;
        EXPECT_LE(j.maxNs, j.totalNs) << j.id;
    }
}
