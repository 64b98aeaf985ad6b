// SPDX-License-Identifier: MIT
// Findings as a whole: thresholds as data, severity, the minimum share, the JSON they are written as.
#include "findings_test_support.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace attnscope;
using namespace attnscope::test;

TEST(Findings, ThresholdsAreDataWithTheirProblemsSaid) {
    std::vector<std::string> problems;
    const FindingThresholds t = FindingThresholds::parse("min_share 0.5 # a comment\n\n  max_evidence\t3\n"
                                                         "casts_window_us ten\nlow_occupancy -1\n",
                                                         &problems);
    EXPECT_DOUBLE_EQ(t["min_share"], 0.5);
    EXPECT_DOUBLE_EQ(t["max_evidence"], 3);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_NE(problems[0].find("line 4"), std::string::npos);
    EXPECT_NE(problems[1].find("line 5"), std::string::npos);
    EXPECT_THROW(t["casts_window_us"], std::logic_error); // unreadable lines set nothing
    // The built-in file and the rules' table agree: each threshold a rule declares is in the file, with a
    // value, and the file has none that no rule reads (standard() throws otherwise).
    const FindingThresholds& standard = FindingThresholds::standard();
    std::set<std::string> declared;
    for (std::string_view key : generalThresholds())
        declared.insert(std::string(key));
    std::set<std::string_view> ids;
    for (const FindingRule& rule : findingRules()) {
        EXPECT_TRUE(ids.insert(rule.id).second) << "one entry per rule: " << rule.id;
        EXPECT_EQ(findingRules()[findingRuleOrder(rule.id)].id, rule.id);
        for (std::string_view key : rule.thresholds)
            declared.insert(std::string(key));
    }
    EXPECT_EQ(findingRuleOrder("no_such_rule"), findingRules().size());
    for (const std::string& key : declared)
        EXPECT_GT(standard[key], 0) << key;
    const std::vector<std::string> names = standard.names();
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), declared);
    EXPECT_GE(declared.size(), 15u);
}

// Severity from the share at stake, at the built-in thresholds: critical from 20%, warning from 5%.
TEST(Findings, SeverityFollowsTheShareAtTheBuiltInThresholds) {
    const auto trace = loadText(
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":100}]})");
    const TraceAnalysis a = analyzeTrace(*trace);
    const findings::Context c({*trace, a});
    for (const auto& [share, severity] :
         {std::pair{0.049, Severity::Info}, std::pair{0.05, Severity::Warning},
          std::pair{0.199, Severity::Warning}, std::pair{0.2, Severity::Critical},
          std::pair{1.5, Severity::Critical}}) {
        Finding f;
        c.severityFromShare(f, share);
        EXPECT_EQ(f.severity, severity) << share;
    }
}

TEST(Findings, MinShareHidesSmallFindingsAndSeverityFollowsTheShare) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = open(path);
    FindingThresholds strict = FindingThresholds::standard();
    strict.set("min_share", 0.5);
    strict.set("critical_share", 0.9);
    const auto all = findFindings({*doc->trace, *doc->analysis, strict});
    for (const Finding& f : all) {
        const bool always = f.id == "hand_written_attention" || f.id == "sdpa_math_fallback" ||
                            f.id == "synchronization" || f.id == "pageable_memcpy";
        if (!always) {
            EXPECT_GE(f.share, 0.5) << f.id;
        }
        const Severity ofTheSpan = f.share >= 0.9    ? Severity::Critical
                                   : f.share >= 0.05 ? Severity::Warning
                                                     : Severity::Info;
        // GPU idle's severity is from its share of the GPU's own window (within the span): never lower;
        // exposed communication's from its share of each communicating GPU's span.
        if (f.id == "gpu_idle") {
            EXPECT_GE(f.severity, ofTheSpan) << f.id;
        } else if (f.id != "exposed_communication") {
            EXPECT_EQ(f.severity, ofTheSpan) << f.id;
        }
    }
    EXPECT_LT(all.size(), doc->findings->size());
    // Most time at stake first.
    for (std::size_t i = 1; i < doc->findings->size(); ++i)
        EXPECT_GE((*doc->findings)[i - 1].timeNs, (*doc->findings)[i].timeNs);
}

TEST(Findings, SummaryJsonCarriesThemAsDocumented) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = open(path);
    const std::vector<SummaryResult> results = {{path, *doc->summary, {}}};
    const auto j = nlohmann::json::parse(formatSummaries(results, SummaryFormat::Json));
    const auto& findings = j["files"][0]["findings"];
    ASSERT_EQ(findings.size(), doc->findings->size());
    for (std::size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = (*doc->findings)[i];
        EXPECT_EQ(findings[i]["id"], f.id);
        EXPECT_EQ(findings[i]["severity"], std::string(severityName(f.severity)));
        EXPECT_EQ(findings[i]["time_ns"], f.timeNs);
        EXPECT_EQ(findings[i]["count"], f.count);
        // One count: the places, of which the evidence lists the first.
        EXPECT_FALSE(findings[i].contains("evidence_total"));
        EXPECT_LE(findings[i]["evidence"].size(), std::size_t(FindingThresholds::standard()["max_evidence"]));
        EXPECT_EQ(findings[i]["evidence"].size(),
                  std::min<std::size_t>(f.count, std::size_t(FindingThresholds::standard()["max_evidence"])));
        for (const char* key : {"title", "share", "explanation", "suggestion"})
            EXPECT_TRUE(findings[i].contains(key)) << key;
        for (const auto& e : findings[i]["evidence"])
            for (const char* key : {"track", "start_ns", "dur_ns", "name"})
                EXPECT_TRUE(e.contains(key)) << key;
    }
    // The findings-only CSV: one row per finding under its header.
    const std::string csv = formatFindings(results, SummaryFormat::Csv);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), std::ptrdiff_t(doc->findings->size() + 1));
    EXPECT_EQ(csv.rfind("file,id,severity,title,time_ns,share,count,explanation,suggestion\n", 0), 0u);
}
