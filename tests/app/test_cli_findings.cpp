// SPDX-License-Identifier: MIT
// The findings on the command line: verdicts as the analysis has them, --findings-only and --fail-on, the
// user's thresholds and call shapes first.
#include "cli_test_support.h"

#include "core/document/document.h"
#include "core/document/notes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

using namespace attnscope;
using namespace attnscope::test;

// The command line's verdicts are the window's: one document pipeline (openDocument) with roofs
// chosen in one place, on a GPU trace and on AttnScope's own CPU run, whose kernels
// are held to this machine's measured roofs (the command line once left them without a verdict).
TEST(Cli, SummaryVerdictsAreTheAnalysisVerdicts) {
    TempDir dir;
    // The CPU's roofs are measured into the test process's own cache (isolated_main.cpp), which the
    // process it starts inherits.
    const std::vector<std::string> files = verdictTraces(dir);
    for (const std::string& path : files) {
        SCOPED_TRACE(path);
        const attnscope::TraceSummary expected =
            *attnscope::openDocument(attnscope::DocumentSource::file(path))->summary;
        ASSERT_FALSE(expected.verdicts.empty());
        const CliRun r = run("summary --format json " + path);
        ASSERT_EQ(r.exitCode, 0);
        const auto summary = nlohmann::json::parse(r.out);
        const auto& file = summary.at("files").at(0);
        const auto& verdicts = file.at("verdicts");
        ASSERT_EQ(verdicts.size(), expected.verdicts.size()) << verdicts.dump();
        for (std::size_t i = 0; i < verdicts.size(); ++i) {
            EXPECT_EQ(verdicts[i].at("verdict"), expected.verdicts[i].verdict);
            EXPECT_EQ(verdicts[i].at("count"), expected.verdicts[i].count);
            EXPECT_EQ(verdicts[i].at("total_ns"), expected.verdicts[i].totalNs);
        }
        if (path == files.front()) {
            // Every kernel of a CPU run has its exact cost and roofs: never unknown; beyond-roof exactly the
            // kernels the roofline counts beyond a roof (none when no kernel passed a measured roof).
            std::uint64_t unknown = 0, beyond = 0;
            for (const auto& v : verdicts) {
                if (v.at("verdict") == "unknown") unknown = v.at("count").get<std::uint64_t>();
                if (v.at("verdict") == "beyond-roof") beyond = v.at("count").get<std::uint64_t>();
            }
            EXPECT_EQ(unknown, 0u);
            EXPECT_EQ(beyond, file.at("roofline").at("beyond_roof").get<std::uint64_t>());
        }
    }
}

// The findings headless, as a CI job uses them: the findings-only report in each format, the same
// findings as the library's, and --fail-on's exit status.
TEST(Cli, FindingsOnlyAndFailOn) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = attnscope::openDocument(attnscope::DocumentSource::file(path));
    const CliRun json = run("summary --findings-only --format json " + path);
    ASSERT_EQ(json.exitCode, 0) << json.out;
    const auto j = nlohmann::json::parse(json.out);
    const auto& findings = j.at("files").at(0).at("findings");
    ASSERT_EQ(findings.size(), doc->findings->size());
    ASSERT_FALSE(findings.empty());
    for (std::size_t i = 0; i < findings.size(); ++i) {
        EXPECT_EQ(findings[i].at("id"), (*doc->findings)[i].id);
        EXPECT_EQ(findings[i].at("time_ns"), (*doc->findings)[i].timeNs);
    }
    EXPECT_FALSE(j.at("files").at(0).contains("top_kernels")); // only the findings
    const CliRun text = run("summary --findings-only " + path);
    EXPECT_NE(text.out.find("[pageable_memcpy]"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("try: "), std::string::npos);
    const CliRun csv = run("summary --findings-only --format csv " + path);
    EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), std::ptrdiff_t(findings.size() + 1));
    // The whole summary carries them too.
    const auto whole = nlohmann::json::parse(run("summary --format json " + path).out);
    EXPECT_EQ(whole.at("files").at(0).at("findings").size(), findings.size());
    // --fail-on: 3 when a finding is that severe, 0 when none is; a bad severity is bad usage.
    bool critical = false;
    for (const auto& f : *doc->findings)
        critical = critical || f.severity == attnscope::Severity::Critical;
    ASSERT_TRUE(critical); // the GPU idles half of this rank's span
    EXPECT_EQ(run("summary --findings-only --fail-on critical " + path).exitCode, 3);
    EXPECT_EQ(run("summary --fail-on info " + path).exitCode, 3);
    EXPECT_EQ(run("summary --fail-on severe " + path).exitCode, 2);
    ATTNSCOPE_REQUIRE_FIXTURE(quiet, "kineto_newest_schema.json");
    EXPECT_EQ(run("summary --fail-on info " + quiet).exitCode, 0);
}

// The thresholds are data with a user override: the user's findings.txt (here through
// ATTNSCOPE_FINDINGS) changes what is shown, and its unreadable lines change nothing.
TEST(Cli, YourFindingsThresholdsOverrideTheBuiltInOnes) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    TempDir dir;
    writeFile(dir.path("findings.txt"), "# only what holds half the span\nmin_share 0.5\nnot a line\n");
    const auto before = nlohmann::json::parse(run("summary --findings-only --format json " + path).out);
    const auto after = nlohmann::json::parse(run("summary --findings-only --format json " + path, false,
                                                 "ATTNSCOPE_FINDINGS=" + dir.path("findings.txt"))
                                                 .out);
    const auto& all = before.at("files").at(0).at("findings");
    const auto& kept = after.at("files").at(0).at("findings");
    EXPECT_LT(kept.size(), all.size());
    for (const auto& f : kept) {
        const std::string id = f.at("id");
        const bool always = id == "synchronization" || id == "pageable_memcpy";
        if (!always) {
            EXPECT_GE(f.at("share").get<double>(), 0.5) << id;
        }
    }
}

// The shapes expected of a call are data with a user override: the user's call_shapes.txt (here through
// ATTNSCOPE_CALL_SHAPES) comes before the built-in shapes, for an implementation or a range name.
TEST(Cli, YourCallShapesComeFirst) {
    TempDir dir;
    const std::string run0 = verdictTraces(dir).front();
    auto naiveRow = [&](const std::string& environment) {
        const auto j = nlohmann::json::parse(run("compare --format json " + run0, false, environment).out);
        for (const auto& row : j.at("traces").at(0).at("rows"))
            if (row.at("implementation") == "naive") return row;
        return nlohmann::json();
    };
    EXPECT_EQ(naiveRow("").at("mismatched_calls"), 0);
    writeFile(dir.path("shapes.txt"), "# no softmax of its own\nnaive = qk_gemm pv_gemm\nnot a shape\n");
    const auto mine = naiveRow("ATTNSCOPE_CALL_SHAPES=" + dir.path("shapes.txt"));
    EXPECT_EQ(mine.at("mismatched_calls"), 1);
    EXPECT_EQ(mine.at("unexpected_kernels"), 1);          // the softmax, once
    EXPECT_EQ(mine.at("unexpected_ns"), 2 * 3000 * 1000); // both workers' shares of its 3 ms
    EXPECT_EQ(mine.at("expected_kernels_per_call"), 2.0);
    bool named = false;
    for (const auto& f : mine.at("findings"))
        named = named || (f.at("id") == "unexpected_kernels" &&
                          f.at("title") == "naive: 3 kernels per call where 2 are expected: naive_softmax");
    EXPECT_TRUE(named) << mine.dump();
}
