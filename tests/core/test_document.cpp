// SPDX-License-Identifier: MIT
// openDocument: the one way a trace is opened computes the parts asked for and no more, completes
// the others into a new document that shares what it had, and opens every kind of source.
#include "core/document/document.h"
#include "support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <map>

using namespace attnscope;
using namespace attnscope::test;

namespace {

// The CPU run's kernels need this machine's roofs: measured into the test process's own cache
// (isolated_main.cpp).
class OpenDocument : public ::testing::Test {
protected:
    TempDir dir;
};

} // namespace

TEST_F(OpenDocument, ComputesOnlyThePartsAskedAndCompletesTheRestIntoANewDocument) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    DocumentOptions options;
    options.parts = SummaryPart;
    options.summaryTop = 3;
    const auto doc = openDocument(DocumentSource::file(path), options);
    ASSERT_NE(doc->trace, nullptr);
    EXPECT_EQ(doc->name, "h100_sdpa_flash_qwen.json.gz");
    EXPECT_EQ(doc->index, nullptr);
    EXPECT_EQ(doc->analysis, nullptr);
    ASSERT_NE(doc->summary, nullptr);
    EXPECT_FALSE(doc->summary->analyzed);
    EXPECT_EQ(doc->summary->topKernels.size(), 3u);
    EXPECT_EQ(doc->summary->kernelCount, 1465u);
    EXPECT_EQ(doc->parts(), unsigned(SummaryPart));

    const auto full = completeDocument(doc, AllParts);
    EXPECT_NE(full, doc);
    EXPECT_EQ(full->trace, doc->trace); // shared, not read again
    ASSERT_NE(full->index, nullptr);
    ASSERT_NE(full->analysis, nullptr);
    EXPECT_TRUE(full->summary->analyzed);
    EXPECT_EQ(full->summary->kernelCount, doc->summary->kernelCount);
    // The first document is unchanged: documents are immutable.
    EXPECT_EQ(doc->analysis, nullptr);
    EXPECT_FALSE(doc->summary->analyzed);
    // Nothing left to compute: the same document comes back.
    EXPECT_EQ(completeDocument(full, AllParts), full);

    // The summary's verdicts are the analysis' verdicts, kernel time by verdict.
    std::map<std::string, TimeNs> byVerdict;
    for (const KernelAnalysis& k : full->analysis->kernels) {
        const Track& t = full->trace->track(k.event.track);
        if (full->trace->str(t.events.category[k.event.index]) != "kernel") continue;
        byVerdict[std::string(verdictName(k.verdict))] += t.events.duration[k.event.index];
    }
    ASSERT_EQ(full->summary->verdicts.size(), byVerdict.size());
    for (const VerdictStats& v : full->summary->verdicts)
        EXPECT_EQ(v.totalNs, byVerdict[v.verdict]) << v.verdict;
}

TEST_F(OpenDocument, OpensRanksWithTheirReportAndNamesTheFileThatFails) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    DocumentOptions options;
    options.parts = TimelinePart;
    const auto doc = openDocument(DocumentSource::ranks({r0, r1}), options);
    ASSERT_NE(doc->ranks, nullptr);
    ASSERT_EQ(doc->ranks->ranks.size(), 2u);
    EXPECT_EQ(doc->ranks->ranks[1].kernels, 310u);
    EXPECT_EQ(doc->name, "2 ranks: rank0.json, …");
    ASSERT_NE(doc->index, nullptr);
    EXPECT_EQ(doc->summary, nullptr);

    const std::string bad = dir.path("rank1.json");
    writeFile(bad, "not a trace at all");
    try {
        openDocument(DocumentSource::ranks({r0, bad}), options);
        FAIL() << "a broken rank opened";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
    // One file opened as ranks is still a job of one rank.
    EXPECT_EQ(openDocument(DocumentSource::ranks({r0}), options)->ranks->ranks.size(), 1u);
}

TEST_F(OpenDocument, OpensBytesInMemoryAndTracesAlreadyBuilt) {
    const std::string json = cpuRunTraceText();
    const auto fromBytes = openDocument(DocumentSource::memory(json, "sample.json"));
    EXPECT_EQ(fromBytes->name, "sample.json");
    ASSERT_NE(fromBytes->analysis, nullptr);
    EXPECT_GT(fromBytes->summary->kernelCount, 0u);
    // Every kernel of AttnScope's own CPU run has its exact cost, hence a verdict, unless it beat this
    // machine's measured roof (then it says so, and the roof stays).
    for (const KernelAnalysis& k : fromBytes->analysis->kernels)
        EXPECT_TRUE(k.verdict != Verdict::Unknown || k.beyondRoof);

    const auto built = openDocument(DocumentSource::built(fromBytes->trace, "CPU run"));
    EXPECT_EQ(built->trace, fromBytes->trace);
    EXPECT_EQ(built->name, "CPU run");
    EXPECT_EQ(built->summary->kernelCount, fromBytes->summary->kernelCount);
    EXPECT_EQ(built->analysis->kernels.size(), fromBytes->analysis->kernels.size());
}

// The progress of an open goes on after the bytes are read: reading ends at 85%, the built trace is
// 92%, and 100% comes only with the parts computed — never 100% while the model is still being built.
TEST_F(OpenDocument, ProgressReachesItsEndOnlyWhenTheDocumentIsDone) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    std::vector<double> seen;
    DocumentOptions options;
    options.load.progress = [&](std::uint64_t done, std::uint64_t total) {
        seen.push_back(double(done) / double(total));
    };
    openDocument(DocumentSource::file(path), options);
    ASSERT_GE(seen.size(), 3u);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    EXPECT_DOUBLE_EQ(seen[seen.size() - 2], 0.92);
    EXPECT_LE(seen[seen.size() - 3], 0.85 + 1e-9); // the reading's last report
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1.0), 1);
}
