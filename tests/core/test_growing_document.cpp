// SPDX-License-Identifier: MIT
// A document that grows by a profiled program's steps: its snapshots say what opening the steps merged
// says — the same kernels, roles, calls, costs, verdicts, findings and summary — while each step is
// analysed alone and joined to the analysis before it.
#include "support/test_support.h"

#include "core/document/growing_document.h"
#include "core/io/trace_merge.h"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>

using namespace attnscope;
using namespace attnscope::test;

namespace {

// The trace text with every "ts" moved later by `us` microseconds: the same work run again later, as a
// program's next step is.
std::string shifted(const std::string& text, long long us) {
    std::string out;
    out.reserve(text.size() + text.size() / 50);
    std::size_t at = 0;
    for (std::size_t hit; (hit = text.find("\"ts\":", at)) != std::string::npos;) {
        std::size_t p = hit + 5;
        while (p < text.size() && text[p] == ' ')
            ++p;
        std::size_t digits = p;
        while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
            ++digits;
        out.append(text, at, p - at);
        out += digits > p ? std::to_string(std::stoll(text.substr(p, digits - p)) + us) : std::string();
        at = digits;
    }
    out.append(text, at, std::string::npos);
    return out;
}

std::string summaryJson(const Document& doc) {
    return formatSummaries({{"steps", *doc.summary, ""}}, SummaryFormat::Json);
}

// Step k: the text moved k × `every` µs later, with `renumber` applied to it.
void expectGrownIsMerged(const std::string& text, std::size_t steps, long long every,
                         const std::function<std::string(std::string, std::size_t)>& renumber = {}) {
    GrowingDocument growing("steps");
    std::vector<std::shared_ptr<const Trace>> parts;
    for (std::size_t k = 0; k < steps; ++k) {
        parts.push_back(loadText(shifted(renumber ? renumber(text, k) : text, every * (long long)k)));
        growing.append("pid 1", std::nullopt, parts.back());
        const auto grown = growing.snapshot();
        const auto merged = openDocument(DocumentSource::built(mergeSteps(parts), "steps"));
        SCOPED_TRACE("after step " + std::to_string(k));
        ASSERT_EQ(grown->analysis->kernels.size(), merged->analysis->kernels.size());
        for (std::size_t i = 0; i < merged->analysis->kernels.size(); ++i) {
            const KernelAnalysis &g = grown->analysis->kernels[i], &m = merged->analysis->kernels[i];
            EXPECT_EQ(g.event, m.event) << i;
            EXPECT_EQ(g.role, m.role) << i;
            EXPECT_EQ(g.call, m.call) << i;
            EXPECT_EQ(g.costOp, m.costOp) << i;
            EXPECT_EQ(g.flops, m.flops) << i;
            EXPECT_EQ(g.verdict, m.verdict) << i;
            EXPECT_EQ(g.unexpected, m.unexpected) << i;
        }
        ASSERT_EQ(grown->analysis->calls.size(), merged->analysis->calls.size());
        for (std::size_t c = 0; c < merged->analysis->calls.size(); ++c) {
            const AttentionCall &g = grown->analysis->calls[c], &m = merged->analysis->calls[c];
            EXPECT_EQ(g.impl, m.impl) << c;
            EXPECT_EQ(g.kernels, m.kernels) << c;
            EXPECT_EQ(g.start, m.start) << c;
            EXPECT_EQ(g.scope, m.scope) << c;
            EXPECT_EQ(g.unexpected, m.unexpected) << c;
        }
        EXPECT_EQ(summaryJson(*grown), summaryJson(*merged));
        EXPECT_EQ(grown->trace->eventCount(), merged->trace->eventCount());
        EXPECT_TRUE(grown->index);
        // Each step after the one before, not over it.
        EXPECT_GE(grown->trace->endNs() - grown->trace->startNs(), every * 1000 * (long long)k);
    }
}

TEST(GrowingDocument, AGpuProgramsStepsSayWhatTheStepsMergedSay) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    // Qwen's forward with SDPA's flash calls, run three times a second apart.
    expectGrownIsMerged(readAllBytes(path), 3, 1'000'000);
}

TEST(GrowingDocument, AttnScopesOwnCpuRunsStepsToo) {
    // Naive and flash calls with the run's exact costs, held to this machine's CPU roofs.
    // A run numbers its calls: the next step's are the next numbers.
    expectGrownIsMerged(cpuRunTraceText(), 3, 10'000'000, [](std::string text, std::size_t k) {
        for (const int call : {1, 0})
            for (std::size_t at = 0;
                 (at = text.find("\"call\":" + std::to_string(call), at)) != std::string::npos; at += 8)
                text.replace(at, 8, "\"call\":" + std::to_string(call + 2 * int(k)));
        return text;
    });
}

TEST(GrowingDocument, FindingsAreFoundAgainAsTheTraceGrowsByHalfAndAtTheEnd) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const std::string text = readAllBytes(path);
    GrowingDocument growing("steps");
    auto step = [&](std::size_t k) {
        growing.append("pid 1", std::nullopt, loadText(shifted(text, 1'000'000LL * (long long)k)));
    };
    step(0);
    const auto first = growing.snapshot();
    EXPECT_TRUE(first->findingsNote.empty());
    step(1); // twice the events: found again
    const auto second = growing.snapshot();
    EXPECT_NE(second->findings, first->findings);
    step(2); // half as many again: found again
    const auto third = growing.snapshot();
    EXPECT_NE(third->findings, second->findings);
    EXPECT_TRUE(third->findingsNote.empty());
    step(3); // a third more: carried, and said so
    const auto fourth = growing.snapshot();
    EXPECT_EQ(fourth->findings, third->findings);
    EXPECT_EQ(fourth->findingsNote, "Findings of the first 3 of 4 steps: they are found again as the trace "
                                    "grows by half, and when it ends.");
    EXPECT_EQ(fourth->summary->findings.size(), third->findings->size()); // the summary says the same
    // The program's last snapshot: found on every step, as opening the steps merged finds them.
    const auto last = growing.snapshot(true);
    EXPECT_NE(last->findings, third->findings);
    EXPECT_TRUE(last->findingsNote.empty());
    std::vector<std::shared_ptr<const Trace>> parts;
    for (std::size_t k = 0; k < 4; ++k)
        parts.push_back(loadText(shifted(text, 1'000'000LL * (long long)k)));
    const auto merged = openDocument(DocumentSource::built(mergeSteps(parts), "steps"));
    ASSERT_EQ(last->findings->size(), merged->findings->size());
    for (std::size_t i = 0; i < merged->findings->size(); ++i) {
        EXPECT_EQ((*last->findings)[i].title, (*merged->findings)[i].title);
        EXPECT_EQ((*last->findings)[i].timeNs, (*merged->findings)[i].timeNs);
    }
    // A process started again (its first optimizer step) has its findings found anew.
    growing.restart("pid 1");
    step(4);
    EXPECT_TRUE(growing.snapshot()->findingsNote.empty());
    EXPECT_EQ(growing.steps(), 1u);
}

TEST(GrowingDocument, SeveralProcessesAreTheRanksOfOneJobInRankOrder) {
    const std::string text = cpuRunTraceText();
    GrowingDocument growing("job");
    growing.append("rank 1", 1, loadText(text));
    growing.append("rank 0", 0, loadText(text));
    growing.append("rank 1", 1, loadText(shifted(text, 10'000'000)));
    EXPECT_EQ(growing.steps(), 3u);
    const auto doc = growing.snapshot();
    ASSERT_TRUE(doc->ranks);
    ASSERT_EQ(doc->ranks->ranks.size(), 2u);
    EXPECT_EQ(doc->trace->eventCount(), 3 * loadText(text)->eventCount());
    EXPECT_TRUE(doc->analysis);
}

} // namespace
