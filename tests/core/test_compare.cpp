// SPDX-License-Identifier: MIT
// Variants side by side (compare.h): a row per implementation with the analysis' own figures, each
// finding on the rows whose calls hold its places, ratios only where both figures exist, and labels
// that tell traces of one file name apart.
#include "support/test_support.h"

#include "core/document/document.h"
#include "core/report/compare.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

TEST(Compare, ARowPerImplementationAndEachFindingOnItsRows) {
    const auto doc = openDocument(DocumentSource::memory(cpuRunTraceText(), "run.json"));
    ASSERT_TRUE(doc->analysis && doc->findings);
    const ComparedTrace t = compareEntry(*doc, "run.json");
    ASSERT_EQ(t.rows.size(), doc->analysis->tables.implCalls.size());
    ASSERT_EQ(t.rows.size(), 2u);
    for (const CompareRow& row : t.rows) {
        const bool naive = row.impl == "naive";
        EXPECT_EQ(row.calls.kernels, naive ? 3u : 1u) << row.impl; // the workers' shares once
        // The call's kernels ran on two workers at once: its kernel time is the time they ran (half of the
        // two workers' shares summed, which the roles add up to).
        EXPECT_EQ(row.roles.total(), 2 * row.calls.kernelNs) << row.impl;
        // Hand-written attention is naive's, not flash's.
        const bool hand =
            std::any_of(row.findings.begin(), row.findings.end(),
                        [](const CompareRow::Brief& f) { return f.id == "hand_written_attention"; });
        EXPECT_EQ(hand, naive) << row.impl;
    }
    EXPECT_EQ(roleMix(t.rows[0]).empty(), false);
}

TEST(Compare, RatiosOnlyWhereBothFiguresExist) {
    Comparison c;
    ComparedTrace base, other, broken;
    base.path = "/x/naive.json";
    CompareRow b;
    b.impl = "naive";
    b.calls.calls = 2;
    b.calls.kernelNs = 2000;
    b.calls.hostCalls = 2;
    b.calls.hostNs = 4000;
    base.rows.push_back(b);
    other.path = "/y/naive.json";
    CompareRow o = b;
    o.calls.kernelNs = 1000;
    o.calls.hostCalls = 0; // no host ranges
    o.calls.hostNs = 0;
    other.rows.push_back(o);
    broken.path = "/z/flash.json";
    broken.error = "cannot open";
    c.traces = {base, other, broken};
    EXPECT_DOUBLE_EQ(*c.kernelRatio(c.traces[1].rows[0]), 0.5);
    EXPECT_FALSE(c.hostRatio(c.traces[1].rows[0]));
    EXPECT_DOUBLE_EQ(*c.hostRatio(c.traces[0].rows[0]), 1.0);
    EXPECT_EQ(traceLabels(c), (std::vector<std::string>{"x/naive.json", "y/naive.json", "flash.json"}));
    // A baseline that could not be read gives no ratios, and says so.
    c.baseline = 2;
    EXPECT_EQ(c.baselineRow(), nullptr);
    EXPECT_FALSE(c.kernelRatio(c.traces[0].rows[0]));
    const std::string text = formatComparison(c, CompareFormat::Text);
    EXPECT_NE(text.find("flash.json  could not be read: cannot open"), std::string::npos) << text;
    EXPECT_NE(text.find("vs base: none (the baseline trace has no attention call)."), std::string::npos)
        << text;
    const CompareTable table = compareTable(c);
    ASSERT_EQ(table.lines.size(), 3u);
    EXPECT_EQ(table.lines[2].row, nullptr);
    EXPECT_EQ(table.lines[1].cells[7], "-"); // vs base
    // Small ratios keep two significant digits.
    c.baseline = 0;
    c.traces[1].rows[0].calls.kernelNs = 100; // 0.05 of the baseline's per call
    EXPECT_EQ(compareTable(c).lines[1].cells[7], "0.05×");
    c.traces[1].rows[0].calls.kernelNs = 24; // 0.012
    EXPECT_EQ(compareTable(c).lines[1].cells[7], "0.012×");
    c.traces[1].rows[0].calls.kernelNs = 1000;
    EXPECT_EQ(compareTable(c).lines[1].cells[7], "0.50×");
}

// A finding whose places are in no call (the H100 trace's idle time, syncs, copies) goes to the trace's
// first row: none is lost.
TEST(Compare, AFindingOutsideTheCallsGoesToTheFirstRow) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(h100));
    const ComparedTrace t = compareEntry(*doc, h100);
    ASSERT_EQ(t.rows.size(), 1u);
    ASSERT_FALSE(doc->findings->empty());
    EXPECT_EQ(t.rows[0].findings.size(), doc->findings->size());
}

// A trace read in part keeps its row, and says so: its reader's warning is on the row in every format.
TEST(Compare, ATruncatedTraceSaysSo) {
    std::string text = cpuRunTraceText();
    text.resize(text.size() * 2 / 3); // cut inside traceEvents
    const auto doc = openDocument(DocumentSource::memory(text, "cut.json"));
    ASSERT_FALSE(doc->trace->info().warnings.empty());
    Comparison c;
    c.traces.push_back(compareEntry(*doc, "cut.json"));
    ASSERT_FALSE(c.traces[0].warnings.empty());
    const std::string out = formatComparison(c, CompareFormat::Text);
    EXPECT_NE(out.find("cut.json: warning: " + c.traces[0].warnings[0]), std::string::npos) << out;
    EXPECT_NE(formatComparison(c, CompareFormat::Markdown).find("**cut.json**: warning: "),
              std::string::npos);
    EXPECT_NE(formatComparison(c, CompareFormat::Json).find("\"warnings\": ["), std::string::npos);
}

// A trace not named yet (a window's entry still opening) has a label too: its empty name, not an exception.
TEST(Compare, ATraceWithoutAPathHasAnEmptyLabel) {
    Comparison c;
    c.traces.resize(2);
    c.traces[1].path = "runs/a.json";
    EXPECT_EQ(traceLabels(c), (std::vector<std::string>{"", "a.json"}));
}

// The roles' shares are the whole: past five, the rest is one part, and the whole percents add up to 100
// (each rounded alone, 33.4 + 33.3 + 33.3 would say 99%; four roles of six said 94%).
TEST(Compare, TheRoleSharesAddUpToTheWhole) {
    CompareRow row;
    const auto set = [&](KernelRole r, TimeNs ns) { row.roles.ns[std::size_t(r)] = ns; };
    set(KernelRole::Elementwise, 370);
    set(KernelRole::Gemm, 270);
    set(KernelRole::Reduction, 220);
    set(KernelRole::Other, 80);
    set(KernelRole::Copy, 40);
    set(KernelRole::Communication, 20);
    EXPECT_EQ(roleMix(row), "elementwise 37%, GEMM 27%, reduction 22%, other 8%, 2 more 6%");
    row.roles.ns[std::size_t(KernelRole::Communication)] = 0; // five: all named
    EXPECT_EQ(roleMix(row), "elementwise 38%, GEMM 28%, reduction 22%, other 8%, copy 4%");
    CompareRow thirds;
    thirds.roles.ns[std::size_t(KernelRole::QkGemm)] = 334;
    thirds.roles.ns[std::size_t(KernelRole::Softmax)] = 333;
    thirds.roles.ns[std::size_t(KernelRole::PvGemm)] = 333;
    EXPECT_EQ(roleMix(thirds), "QKᵀ GEMM 34%, softmax 33%, PV GEMM 33%");
    CompareRow four = thirds; // four roles: all shown
    four.roles.ns[std::size_t(KernelRole::Copy)] = 1;
    EXPECT_EQ(roleMix(four), "QKᵀ GEMM 34%, softmax 33%, PV GEMM 33%, copy <1%"); // there, not "0%"
}

namespace {

// A row of a comparison as compareEntry makes it: calls of one shape taking perCallUs each, and, when
// written by hand, its hand_written_attention finding with the roofs' estimate.
CompareRow compareRow(const std::string& impl, TimeNs perCallNs, bool fused, std::int64_t seq = 1024,
                      Precision precision = Precision::BF16) {
    CompareRow row;
    row.impl = impl;
    row.calls.impl = impl;
    row.calls.calls = 4;
    row.calls.kernelNs = 4 * perCallNs;
    row.roles.ns[std::size_t(fused ? KernelRole::FusedAttention : KernelRole::Softmax)] = 4 * perCallNs;
    CallInputs in;
    in.batch = 1;
    in.heads = 8;
    in.queryLen = in.keyLen = seq;
    in.headDim = 64;
    in.precision = precision;
    row.inputs = in;
    row.shapes = 1;
    if (!fused)
        row.findings.push_back({"hand_written_attention", Severity::Critical,
                                "Attention written by hand: 4 calls materialize the N×N scores", 999});
    return row;
}

ComparedTrace comparedTrace(std::string path, std::string device, CompareRow row) {
    ComparedTrace t;
    t.path = std::move(path);
    t.device = std::move(device);
    t.rows.push_back(std::move(row));
    return t;
}

} // namespace

// The finding learns the answer from a comparison it is in: a fused implementation recorded on the same
// device, on the same shapes and precision, measured what attention by hand costs; its time at stake is
// that saving over the row's calls, and its title says where it was measured. Not from a trace of another
// device, of another shape or precision, nor where either trace does not say its device; a what-if's
// measured saving is kept.
TEST(Compare, AHandWrittenRowLearnsTheSavingOfAFusedRowOfTheSameDeviceAndShape) {
    Comparison c;
    c.traces.push_back(comparedTrace("naive.json", "NVIDIA H100", compareRow("naive", 900000, false)));
    c.traces.push_back(comparedTrace("flash.json", "NVIDIA H100", compareRow("flash", 300000, true)));
    c.traces.push_back(comparedTrace("fa2.json", "NVIDIA H100", compareRow("flash2", 200000, true)));
    learnFromComparison(c);
    const CompareRow::Brief& f = c.traces[0].rows[0].findings.at(0);
    EXPECT_TRUE(f.measured);
    EXPECT_EQ(f.timeNs, 4 * 700000); // against the fastest: 0.9 ms less 0.2 ms, over 4 calls
    EXPECT_EQ(f.title, "Attention written by hand: 4 calls materialize the N×N scores — measured in fa2.json "
                       "(NVIDIA H100): flash2 saves 700.000 µs a call");
    // Learned once: a second pass (the window rebuilds) says it once.
    learnFromComparison(c);
    EXPECT_EQ(c.traces[0].rows[0].findings.at(0).title, f.title);

    auto unlearned = [](Comparison c) {
        learnFromComparison(c);
        const CompareRow::Brief& b = c.traces[0].rows[0].findings.at(0);
        return !b.measured && b.timeNs == 999 && b.title.find("measured") == std::string::npos;
    };
    Comparison other;
    other.traces.push_back(comparedTrace("naive.json", "NVIDIA H100", compareRow("naive", 900000, false)));
    other.traces.push_back(comparedTrace("flash.json", "NVIDIA A100", compareRow("flash", 300000, true)));
    EXPECT_TRUE(unlearned(other)) << "another device";
    other.traces[1].device = "";
    other.traces[0].device = "";
    EXPECT_TRUE(unlearned(other)) << "devices not said";
    other.traces[1] = comparedTrace("flash.json", "NVIDIA H100", compareRow("flash", 300000, true, 2048));
    other.traces[0].device = "NVIDIA H100";
    EXPECT_TRUE(unlearned(other)) << "another shape";
    other.traces[1] =
        comparedTrace("flash.json", "NVIDIA H100", compareRow("flash", 300000, true, 1024, Precision::F32));
    EXPECT_TRUE(unlearned(other)) << "another precision";
    // A saving the trace measured itself (its own naive and flash calls of the shape, as `attnscope run`
    // records them) is kept: one answer, the trace's, in the title and the explanation alike.
    other.traces[1] = comparedTrace("flash.json", "NVIDIA H100", compareRow("flash", 300000, true));
    other.traces[0].rows[0].findings[0].measured = true;
    learnFromComparison(other);
    EXPECT_EQ(other.traces[0].rows[0].findings[0].timeNs, 999) << "measured in the trace itself";
    EXPECT_EQ(other.traces[0].rows[0].findings[0].title.find("measured"), std::string::npos);
    // A what-if's saving, measured here, is kept.
    Comparison whatIf;
    whatIf.traces.push_back(comparedTrace("naive.json", "NVIDIA H100", compareRow("naive", 900000, false)));
    whatIf.traces.push_back(comparedTrace("flash.json", "NVIDIA H100", compareRow("flash", 300000, true)));
    ASSERT_TRUE(learnSaving(whatIf.traces[0].rows[0], "flash", 500000, 4, "here"));
    learnFromComparison(whatIf);
    EXPECT_EQ(whatIf.traces[0].rows[0].findings.at(0).timeNs, 4 * 500000);
    EXPECT_NE(whatIf.traces[0].rows[0].findings.at(0).title.find("— measured here: flash saves 500.000 µs"),
              std::string::npos);
    // No more than the calls took: a saving measured larger than the call is capped, said so.
    CompareRow capped = compareRow("naive", 900000, false);
    ASSERT_TRUE(learnSaving(capped, "flash", 1200000, 4, "here"));
    EXPECT_EQ(capped.findings[0].timeNs, 4 * 900000);
    EXPECT_NE(capped.findings[0].title.find("at most all of it"), std::string::npos);
    // A row of calls of two shapes, one of them measured: the estimate stays (as the trace's own finding).
    CompareRow twoShapes = compareRow("naive", 900000, false);
    twoShapes.shapes = 2;
    EXPECT_FALSE(learnSaving(twoShapes, "flash", 500000, 4, "here"));
    EXPECT_FALSE(twoShapes.findings[0].measured);
    EXPECT_EQ(twoShapes.findings[0].title.find("measured"), std::string::npos);
    // The one formula of a measured time at stake: the saving over the calls, no more than they took; a
    // call's time not known caps nothing; a negative saving is none.
    EXPECT_EQ(measuredStake(500, 900, 4), 2000);
    EXPECT_EQ(measuredStake(1200, 900, 4), 3600);
    EXPECT_EQ(measuredStake(1200, 0, 4), 4800);
    EXPECT_EQ(measuredStake(-5, 900, 4), 0);
}
