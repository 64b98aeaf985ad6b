// SPDX-License-Identifier: MIT
// A document that grows by a profiled program's steps: its snapshots say what opening the steps merged
// says — the same kernels, roles, calls, costs, verdicts, findings and summary — while each step is
// analysed alone and joined to the analysis before it.
#include "support/test_support.h"

#include "core/document/growing_document.h"
#include "core/io/trace_merge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <thread>

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

std::string summaryJson(const Document& doc, bool withoutFindings = false) {
    const std::string text = formatSummaries({{"steps", *doc.summary, ""}}, SummaryFormat::Json);
    if (!withoutFindings) return text;
    nlohmann::json json = nlohmann::json::parse(text);
    json["files"][0].erase("findings");
    return json.dump(2);
}

// Step k: the text moved k × `every` µs later, with `renumber` applied to it.
std::vector<std::string> repeated(const std::string& text, std::size_t steps, long long every,
                                  const std::function<std::string(std::string, std::size_t)>& renumber = {}) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < steps; ++k)
        out.push_back(shifted(renumber ? renumber(text, k) : text, every * (long long)k));
    return out;
}

// The two texts equal, or where they first differ.
void expectSameText(const std::string& grown, const std::string& merged) {
    if (grown == merged) return;
    const auto at = std::size_t(
        std::mismatch(grown.begin(), grown.end(), merged.begin(), merged.end()).first - grown.begin());
    const std::size_t from = at > 300 ? at - 300 : 0;
    ADD_FAILURE() << "the summaries differ at " << at << ":\ngrown  …" << grown.substr(from, 400)
                  << "\nmerged …" << merged.substr(from, 400);
}

// A run numbers its calls: step k's are the next numbers after the steps before.
std::string renumberCalls(std::string text, std::size_t k) {
    for (const int call : {1, 0})
        for (std::size_t at = 0;
             (at = text.find("\"call\":" + std::to_string(call), at)) != std::string::npos; at += 8)
            text.replace(at, 8, "\"call\":" + std::to_string(call + 2 * int(k)));
    return text;
}

// The text with its events moved from thread `from` to thread `to`, for each pair.
std::string onThreads(std::string text, const std::vector<std::pair<int, int>>& moves) {
    for (std::size_t at = 0; (at = text.find("\"tid\":", at)) != std::string::npos;) {
        at += 6;
        while (at < text.size() && text[at] == ' ')
            ++at;
        std::size_t end = at;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
            ++end;
        for (const auto& [from, to] : moves)
            if (end > at && text.compare(at, end - at, std::to_string(from)) == 0) {
                text.replace(at, end - at, std::to_string(to));
                break;
            }
    }
    return text;
}

// The events of an analysis' kernels (a grown one numbers them otherwise than a whole one).
std::vector<EventRef> eventsOf(const TraceAnalysis& a, const std::vector<std::uint32_t>& kernels) {
    std::vector<EventRef> events;
    for (std::uint32_t k : kernels)
        events.push_back(a.kernels[k].event);
    return events;
}

// The steps appended one by one: after each, the snapshot says what opening the steps so far merged
// says.
void expectGrownIsMerged(const std::vector<std::string>& texts) {
    GrowingDocument growing("steps");
    std::vector<std::shared_ptr<const Trace>> parts;
    for (std::size_t k = 0; k < texts.size(); ++k) {
        parts.push_back(loadText(texts[k]));
        growing.append("pid 1", std::nullopt, parts.back());
        const auto grown = growing.snapshot(k + 1 == texts.size()); // the last complete
        const auto merged = openDocument(DocumentSource::built(mergeSteps(parts), "steps"));
        SCOPED_TRACE("after step " + std::to_string(k));
        ASSERT_EQ(grown->analysis->kernels.size(), merged->analysis->kernels.size());
        for (std::size_t i = 0; i < merged->analysis->kernels.size(); ++i) {
            const KernelAnalysis &g = grown->analysis->kernelByEvent(i), &m = merged->analysis->kernels[i];
            EXPECT_EQ(g.event, m.event) << i;
            EXPECT_EQ(g.role, m.role) << i;
            EXPECT_EQ(g.call, m.call) << i;
            EXPECT_EQ(g.costOp, m.costOp) << i;
            EXPECT_EQ(g.flops, m.flops) << i;
            EXPECT_EQ(g.verdict, m.verdict) << i;
            EXPECT_EQ(g.unexpected, m.unexpected) << i;
        }
        EXPECT_EQ(grown->analysis->beyondRoof(), merged->analysis->beyondRoof());
        ASSERT_EQ(grown->analysis->calls.size(), merged->analysis->calls.size());
        for (std::size_t c = 0; c < merged->analysis->calls.size(); ++c) {
            const AttentionCall &g = grown->analysis->calls[c], &m = merged->analysis->calls[c];
            const TraceAnalysis &ga = *grown->analysis, &ma = *merged->analysis;
            EXPECT_EQ(g.impl, m.impl) << c;
            EXPECT_EQ(eventsOf(ga, g.kernels), eventsOf(ma, m.kernels)) << c;
            EXPECT_EQ(g.start, m.start) << c;
            EXPECT_EQ(g.scope, m.scope) << c;
            EXPECT_EQ(eventsOf(ga, g.unexpected), eventsOf(ma, m.unexpected)) << c;
            EXPECT_EQ(eventsOf(ga, g.backward), eventsOf(ma, m.backward)) << c;
        }
        // Carried findings are the ones of fewer steps (said so); the rest says what the steps merged say.
        const bool carried = grown->findingsNote.starts_with("Findings of the first");
        expectSameText(summaryJson(*grown, carried), summaryJson(*merged, carried));
        // The kernel table's rows (by name and role), counted step by step: the merged trace's, each
        // naming its kernels in the grown trace.
        const std::vector<KernelStats>&g = grown->summary->kernelsByRole, &m = merged->summary->kernelsByRole;
        ASSERT_EQ(g.size(), m.size());
        for (std::size_t r = 0; r < m.size(); ++r) {
            EXPECT_EQ(g[r].name, m[r].name) << r;
            EXPECT_EQ(grown->trace->str(g[r].nameId), g[r].name) << r;
            EXPECT_EQ(g[r].role, m[r].role) << r;
            EXPECT_EQ(g[r].count, m[r].count) << r;
            EXPECT_EQ(g[r].totalNs, m[r].totalNs) << r;
            EXPECT_EQ(g[r].minNs, m[r].minNs) << r;
            EXPECT_EQ(g[r].maxNs, m[r].maxNs) << r;
            EXPECT_EQ(g[r].meanNs(), m[r].meanNs()) << r;
        }
        for (const KernelStats& k : grown->summary->topKernels)
            EXPECT_EQ(grown->trace->str(k.nameId), k.name);
        EXPECT_EQ(grown->trace->eventCount(), merged->trace->eventCount());
        EXPECT_TRUE(grown->index);
    }
}

TEST(GrowingDocument, AGpuProgramsStepsSayWhatTheStepsMergedSay) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    // Qwen's forward with SDPA's flash calls, run three times a second apart.
    expectGrownIsMerged(repeated(readAllBytes(path), 3, 1'000'000));
}

TEST(GrowingDocument, AttnScopesOwnCpuRunsStepsToo) {
    // Naive and flash calls with the run's exact costs, held to this machine's CPU roofs.
    // A run numbers its calls: the next step's are the next numbers.
    expectGrownIsMerged(repeated(cpuRunTraceText(), 3, 10'000'000, renumberCalls));
}

TEST(GrowingDocument, AStepOnMoreWorkersHoldsEachToItsShareOfTheCpu) {
    // The second step runs on two threads of its own while the first still does: four workers share
    // the CPU's roofs from then on, the first step's kernels' verdicts change too.
    std::vector<std::string> texts = repeated(cpuRunTraceText(), 3, 5'000, renumberCalls);
    texts[1] = onThreads(texts[1], {{1, 3}, {2, 4}});
    texts[2] = shifted(texts[2], 100'000);
    expectGrownIsMerged(texts);
}

TEST(GrowingDocument, AStepOnItsWorkersAndMoreHoldsTheEarlierStepsToTheirNewShare) {
    // The second step runs on the first step's two workers and two more (each kernel's share split four
    // ways): the step alone has as many workers as the whole, the steps before fewer.
    std::vector<std::string> texts = repeated(cpuRunTraceText(), 2, 100'000, renumberCalls);
    const std::string more = onThreads(texts[1], {{1, 3}, {2, 4}});
    const std::size_t open = more.find('[', more.find("\"traceEvents\"")) + 1;
    texts[1].insert(texts[1].find('[', texts[1].find("\"traceEvents\"")) + 1,
                    more.substr(open, more.rfind(']') - open) + ",");
    ASSERT_EQ(loadText(texts[1])->tracks().size(), 4u);
    expectGrownIsMerged(texts);
}

// The join counts a CPU run's workers as the whole trace's analysis does: a step on the same two threads
// adds none, a step on two threads of its own adds two. Each worker of the first step ran one kernel, the
// first event of its track: the search for the track's first kernel among those before finds it there.
TEST(GrowingDocument, AJoinCountsTheWorkersTheWholeTraceHas) {
    nlohmann::json one = nlohmann::json::parse(cpuRunTraceText());
    auto& events = one["traceEvents"];
    events.erase(std::remove_if(events.begin(), events.end(),
                                [](const nlohmann::json& e) {
                                    return e["ph"] == "X" && e["name"] != "naive_qk_gemm";
                                }),
                 events.end());
    std::vector<std::string> texts = repeated(one.dump(), 3, 10'000'000, renumberCalls);
    texts[2] = onThreads(texts[2], {{1, 3}, {2, 4}});
    TraceAppender appender;
    std::optional<TraceAnalysis> joined;
    for (std::uint64_t k = 0; k < texts.size(); ++k) {
        const auto step = loadText(texts[k]);
        const TraceAppender::Placement placed = appender.append(*step, (k + 1) << 32);
        const auto grown = appender.snapshot();
        SCOPED_TRACE("step " + std::to_string(k));
        joined = !joined ? analyzeTrace(*grown)
                         : joinAnalyses(*grown, std::move(*joined), *step, analyzeTrace(*step),
                                        [&placed](EventRef e) { return placed(e); });
        EXPECT_EQ(joined->cpuWorkers, analyzeTrace(*grown).cpuWorkers);
        EXPECT_EQ(joined->cpuWorkers, k < 2 ? 2u : 4u);
    }
}

TEST(GrowingDocument, StepsOverlappingOnOtherStreamsPutTheirCallsInStartOrder) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    // The second step runs 20 ms after the first began, on a stream and a thread of its own: its calls
    // start among the first step's, and the calls are in start order as in the steps merged.
    const std::string text = readAllBytes(path);
    std::string second = onThreads(shifted(text, 20'000), {{7, 8}, {25286, 25287}, {0, 9}});
    // The profiler's own span and marks too (its global marks on the thread of its own).
    const std::string step2 = "\"tid\": \"step 2\"";
    for (const std::string from : {"\"tid\": \"PyTorch Profiler\"", "\"tid\": \"Trace PyTorch Profiler\"",
                                   "\"tid\": \"\"", "\"s\": \"g\""}) {
        const std::string to = from[1] == 's' ? "\"s\": \"t\"" : step2;
        for (std::size_t at = 0; (at = second.find(from, at)) != std::string::npos; at += to.size())
            second.replace(at, from.size(), to);
    }
    expectGrownIsMerged({text, second, shifted(text, 1'000'000)});
}

TEST(GrowingDocument, AStepWithAThreadOfItsOwnAndItsStringsInAnotherOrder) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    std::vector<std::string> texts = repeated(readAllBytes(path), 3, 1'000'000);
    // The second step starts with an annotation on a thread the first did not have: that step's
    // tracks and string ids are in another order than the whole's (kernel names and tables remapped).
    std::string& second = texts[1];
    const std::size_t ts = second.find("\"ts\":") + 5;
    const std::string at = second.substr(ts, second.find_first_of(",}", ts) - ts);
    second.insert(second.find('[', second.find("\"traceEvents\"")) + 1,
                  R"({"ph":"X","cat":"user_annotation","name":"step 1 begins","pid":4242,"tid":4242,"ts":)" +
                      at + R"(,"dur":1},)");
    const auto a = loadText(texts[0]), b = loadText(second);
    const auto kernels = std::find_if(a->tracks().begin(), a->tracks().end(), [](const Track& t) {
        return t.kind == TrackKind::GpuStream && t.size() > 0;
    });
    ASSERT_NE(kernels, a->tracks().end());
    const std::string_view kernel = a->str(kernels->events.name[0]);
    EXPECT_NE(a->strings().find(kernel).value, b->strings().find(kernel).value);
    EXPECT_EQ(b->tracks().size(), a->tracks().size() + 1);
    expectGrownIsMerged(texts);
}

// A PyTorch CPU step of one op that stands for a kernel where there is no GPU kernel.
std::string cpuOpsStep(long long at) {
    return R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":7,"tid":7,"ts":)" +
           std::to_string(at) + R"(,"dur":30,"args":{"Input Dims":[[16],[8,16],[16,16]]}}]})";
}

// A GPU step whose one GEMM reports more than an H100 can do (a 2.2 TFLOP matmul in 10 µs): beyond its
// roof. Each step's such kernel is counted in the grown trace, the first steps' too.
TEST(GrowingDocument, KernelsBeyondTheirRoofInEarlierStepsStayCounted) {
    const std::string step =
        R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)"
        R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":20,)"
        R"("args":{"Input Dims":[[8192,8192],[8192,8192]],"Input type":["c10::BFloat16","c10::BFloat16"]}},)"
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":101,"dur":2,)"
        R"("args":{"correlation":1}},)"
        R"({"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16bf16_bf16f32","pid":0,"tid":7,"ts":110,"dur":10,)"
        R"("args":{"device":0,"stream":7,"correlation":1}}]})";
    ASSERT_EQ(analyzeTrace(*loadText(step)).beyondRoof(), 1u);
    expectGrownIsMerged(repeated(step, 3, 1'000));
}

TEST(GrowingDocument, AGpuProgramsStepWithoutKernelsHasNoCpuOpStandingForOne) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const std::string text = readAllBytes(path);
    const long long start = loadText(text)->startNs() / 1000;
    // GPU steps, then a step of CPU ops only (its addmm is a kernel alone, not beside the GPU's),
    // then GPU steps again; and the other way: CPU op steps, then GPU kernels (the whole rebuilt).
    expectGrownIsMerged({text, cpuOpsStep(start + 900'000), shifted(text, 1'000'000)});
    expectGrownIsMerged({cpuOpsStep(start - 100'000), cpuOpsStep(start - 50'000), text});
}

TEST(GrowingDocument, AJoinSharesTheSnapshotsListsAndLeavesThemAsTheyWere) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const std::string text = readAllBytes(path);
    std::vector<std::shared_ptr<const Trace>> steps;
    TraceAppender appender;
    std::shared_ptr<const TraceAnalysis> shown; // the snapshot on show while the next step is joined
    for (std::uint64_t k = 0; k < 4; ++k) {
        steps.push_back(loadText(shifted(text, TimeNs(k) * 1'000'000)));
        const TraceAppender::Placement placed = appender.append(*steps.back(), (k + 1) << 32);
        const auto grown = appender.snapshot();
        if (!shown) {
            shown = std::make_shared<const TraceAnalysis>(analyzeTrace(*grown));
            continue;
        }
        SCOPED_TRACE("step " + std::to_string(k));
        // What the snapshot holds, element by element, before the join.
        const std::vector<KernelAnalysis> kernels(shown->kernels.begin(), shown->kernels.end());
        const std::vector<AttentionCall> calls(shown->calls.begin(), shown->calls.end());
        const TraceAnalysis joined = joinAnalyses(*grown, *shown, *steps.back(), analyzeTrace(*steps.back()),
                                                  [&placed](EventRef e) { return placed(e); });
        // The snapshot is as it was: the join wrote copies of the chunks it changed.
        ASSERT_EQ(shown->kernels.size(), kernels.size());
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            EXPECT_EQ(shown->kernels[i].event, kernels[i].event) << i;
            EXPECT_EQ(shown->kernels[i].call, kernels[i].call) << i;
        }
        ASSERT_EQ(shown->calls.size(), calls.size());
        for (std::size_t c = 0; c < calls.size(); ++c) {
            EXPECT_EQ(shown->calls[c].start, calls[c].start) << c;
            EXPECT_EQ(shown->calls[c].kernels, calls[c].kernels) << c;
        }
        // The rest of its memory is the join's too: the first step's whole list, and the steps' after
        // it but the chunk each step's calls were merged into.
        EXPECT_GE(joined.kernels.sharedChunks(shown->kernels), shown->kernels.chunks() - 1);
        EXPECT_GE(joined.calls.sharedChunks(shown->calls), 1u);
        // And the join is the whole trace's analysis, its kernels by event.
        const TraceAnalysis whole = analyzeTrace(*grown);
        ASSERT_EQ(joined.kernels.size(), whole.kernels.size());
        for (std::size_t i = 0; i < whole.kernels.size(); ++i) {
            const KernelAnalysis &j = joined.kernelByEvent(i), &w = whole.kernels[i];
            EXPECT_EQ(j.event, w.event) << i;
            EXPECT_EQ(j.role, w.role) << i;
            EXPECT_EQ(j.call, w.call) << i;
            EXPECT_EQ(j.flops, w.flops) << i;
            EXPECT_EQ(j.verdict, w.verdict) << i;
            EXPECT_EQ(joined.find(w.event), &j) << i;
        }
        ASSERT_EQ(joined.calls.size(), whole.calls.size());
        for (std::size_t c = 0; c < whole.calls.size(); ++c) {
            EXPECT_EQ(joined.calls[c].start, whole.calls[c].start) << c;
            EXPECT_EQ(eventsOf(joined, joined.calls[c].kernels), eventsOf(whole, whole.calls[c].kernels))
                << c;
            for (std::uint32_t kernel : joined.calls[c].kernels)
                EXPECT_EQ(joined.kernels[kernel].call, int(c)) << c;
        }
        shown = std::make_shared<const TraceAnalysis>(joined);
    }
}

TEST(GrowingDocument, SnapshotsMayOutliveTheDocumentAndBeLetGoOnOtherThreads) {
    // The window frees the snapshot it replaced on a worker, and may hold the last one after the
    // profile's document is gone: each analysis let go then is freed (under the sanitizers: none leaks,
    // none is freed twice or read after).
    const std::string text = cpuRunTraceText();
    std::vector<std::shared_ptr<const Document>> kept;
    {
        GrowingDocument growing("steps");
        for (std::size_t k = 0; k < 4; ++k) {
            growing.append("pid 1", std::nullopt,
                           loadText(shifted(renumberCalls(text, k), 10'000'000LL * k)));
            kept.push_back(growing.snapshot());
        }
        std::thread([first = std::move(kept.front())]() mutable { first.reset(); }).join();
        kept.erase(kept.begin());
    }
    std::thread([&kept] { kept.front().reset(); }).join();
    ASSERT_EQ(kept.size(), 3u);
    EXPECT_EQ(kept.back()->analysis->calls.size(), 4 * analyzeTrace(*loadText(text)).calls.size());
}

TEST(GrowingDocument, FindingsAreFoundAgainAsTheTraceDoublesAndAtTheEnd) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const std::string text = readAllBytes(path);
    GrowingDocument growing("steps");
    auto step = [&](std::size_t k) {
        growing.append("pid 1", std::nullopt, loadText(shifted(text, 1'000'000LL * (long long)k)));
    };
    const std::string when = " they are found again each time the trace doubles, and when it ends.";
    step(0);
    const auto first = growing.snapshot();
    EXPECT_EQ(first->findingsNote, "Findings of the 1 step so far:" + when);
    step(1); // twice the events: found again
    const auto second = growing.snapshot();
    EXPECT_NE(second->findings, first->findings);
    step(2); // half as many again: carried, and said so
    const auto third = growing.snapshot();
    EXPECT_EQ(third->findings, second->findings);
    EXPECT_EQ(third->findingsNote, "Findings of the first 2 of 3 steps:" + when);
    EXPECT_EQ(third->summary->findings.size(), second->findings->size()); // the summary says the same
    step(3); // twice the events they were found on: found again
    const auto fourth = growing.snapshot();
    EXPECT_NE(fourth->findings, third->findings);
    EXPECT_EQ(fourth->findingsNote, "Findings of the 4 steps so far:" + when);
    // The program's last snapshot: found on every step, as opening the steps merged finds them.
    const auto last = growing.snapshot(true);
    EXPECT_NE(last->findings, fourth->findings);
    EXPECT_EQ(last->findingsNote, "Findings of all 4 steps: the program's profile is complete.");
    std::vector<std::shared_ptr<const Trace>> parts;
    for (std::size_t k = 0; k < 4; ++k)
        parts.push_back(loadText(shifted(text, 1'000'000LL * (long long)k)));
    const auto merged = openDocument(DocumentSource::built(mergeSteps(parts), "steps"));
    ASSERT_EQ(last->findings->size(), merged->findings->size());
    for (std::size_t i = 0; i < merged->findings->size(); ++i) {
        EXPECT_EQ((*last->findings)[i].title, (*merged->findings)[i].title);
        EXPECT_EQ((*last->findings)[i].timeNs, (*merged->findings)[i].timeNs);
    }
    // A step that goes before the others rebuilds the trace: the findings' places moved, so they are
    // found again though the trace did not double.
    growing.append("pid 1", std::nullopt, loadText(shifted(text, -1'000'000)));
    const auto rebuilt = growing.snapshot();
    EXPECT_EQ(rebuilt->findingsNote, "Findings of the 5 steps so far:" + when);
    EXPECT_NE(rebuilt->findings, last->findings);
    // A process started again (its first optimizer step) has its findings found anew.
    growing.restart("pid 1");
    step(4);
    EXPECT_EQ(growing.snapshot()->findingsNote, "Findings of the 1 step so far:" + when);
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

// A torchrun job's processes, their steps coming in turn: each snapshot of the job says what opening
// each rank's steps so far, as the ranks of one job, says — though the ranks' merged trace and each
// rank's trace grew step by step.
TEST(GrowingDocument, AJobGrownStepByStepSaysWhatItsRanksOpenedSay) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    constexpr std::size_t kSteps = 4;
    const std::vector<std::vector<std::shared_ptr<const Trace>>> cut = {
        cutByTime(*loadTraceFile(r0), kSteps), cutByTime(*loadTraceFile(r1), kSteps)};
    // The ranks' steps in the order they come ('0', '1'), and the snapshots ('.'): in turn with a snapshot
    // after each; or several steps between snapshots (of one rank, or of both).
    for (const std::string order : {"10.1.0.1.0.1.0.", "10.11.00.01."}) {
        SCOPED_TRACE(order);
        GrowingDocument growing("job");
        std::vector<std::vector<std::shared_ptr<const Trace>>> sofar(2);
        std::size_t compared = 0, foundAgain = 0, interleaved = 0;
        // The snapshot before, and what its analysis held when it was made: each later join leaves it so.
        std::shared_ptr<const Document> earlier;
        std::vector<std::pair<EventRef, int>> earlierKernels;
        std::vector<std::pair<TimeNs, std::vector<std::uint32_t>>> earlierCalls;
        for (std::size_t at = 0; at < order.size(); ++at) {
            if (order[at] != '.') {
                const std::size_t r = std::size_t(order[at] - '0'), k = sofar[r].size();
                growing.append("rank " + std::to_string(r), std::int64_t(r), cut[r][k]);
                sofar[r].push_back(cut[r][k]);
                continue;
            }
            {
                if (sofar[0].empty()) continue; // one process: not a job yet
                const bool complete = at + 1 == order.size();
                const auto grown = growing.snapshot(complete);
                const auto opened = openDocument(DocumentSource::rankTraces(
                    {{"rank 0", mergeSteps(sofar[0])}, {"rank 1", mergeSteps(sofar[1])}}, "job"));
                SCOPED_TRACE("at " + std::to_string(at));
                ++compared;
                ASSERT_TRUE(grown->ranks && grown->job);
                const RankReport &g = *grown->ranks, &o = *opened->ranks;
                ASSERT_EQ(g.ranks.size(), 2u);
                for (std::size_t i = 0; i < 2; ++i) {
                    EXPECT_EQ(g.ranks[i].rank, o.ranks[i].rank);
                    EXPECT_EQ(g.ranks[i].path, o.ranks[i].path);
                    EXPECT_EQ(g.ranks[i].kernels, o.ranks[i].kernels);
                    EXPECT_EQ(g.ranks[i].kernelNs, o.ranks[i].kernelNs);
                    EXPECT_EQ(g.ranks[i].gpuBusyNs, o.ranks[i].gpuBusyNs);
                    EXPECT_EQ(g.ranks[i].computeBusyNs, o.ranks[i].computeBusyNs);
                    EXPECT_EQ(g.ranks[i].commNs, o.ranks[i].commNs);
                    EXPECT_EQ(g.ranks[i].waitNs, o.ranks[i].waitNs);
                    EXPECT_EQ(g.ranks[i].lastArrivals, o.ranks[i].lastArrivals);
                    EXPECT_EQ(g.ranks[i].spanNs, o.ranks[i].spanNs);
                    EXPECT_EQ(grown->job->records[i].steps, opened->job->records[i].steps);
                }
                EXPECT_EQ(g.collectives, o.collectives);
                EXPECT_EQ(g.stragglerRank, o.stragglerRank);
                EXPECT_EQ(g.waitForStragglerNs, o.waitForStragglerNs);
                EXPECT_EQ(grown->trace->eventCount(), opened->trace->eventCount());
                const TraceAnalysis &ga = *grown->analysis, &oa = *opened->analysis;
                ASSERT_EQ(ga.kernels.size(), oa.kernels.size());
                interleaved += !ga.kernelsByEvent.empty();
                for (std::size_t i = 0; i < oa.kernels.size(); ++i) {
                    EXPECT_EQ(ga.kernelByEvent(i).event, oa.kernels[i].event) << i;
                    EXPECT_EQ(ga.find(oa.kernels[i].event), &ga.kernelByEvent(i)) << i;
                }
                EXPECT_EQ(ga.calls.size(), oa.calls.size());
                if (earlier) {
                    const TraceAnalysis& ea = *earlier->analysis;
                    ASSERT_EQ(ea.kernels.size(), earlierKernels.size());
                    for (std::size_t i = 0; i < earlierKernels.size(); ++i)
                        EXPECT_EQ(std::make_pair(ea.kernels[i].event, ea.kernels[i].call), earlierKernels[i])
                            << i;
                    ASSERT_EQ(ea.calls.size(), earlierCalls.size());
                    for (std::size_t c = 0; c < earlierCalls.size(); ++c)
                        EXPECT_EQ(std::make_pair(ea.calls[c].start, ea.calls[c].kernels), earlierCalls[c])
                            << c;
                }
                earlier = grown;
                earlierKernels.clear();
                for (const KernelAnalysis& k : ga.kernels)
                    earlierKernels.emplace_back(k.event, k.call);
                earlierCalls.clear();
                for (const AttentionCall& c : ga.calls)
                    earlierCalls.emplace_back(c.start, c.kernels);
                EXPECT_EQ(grown->summary->kernelCount, opened->summary->kernelCount);
                EXPECT_EQ(grown->summary->kernelNs, opened->summary->kernelNs);
                // Findings carried from fewer steps say so; found again, they are the opened job's.
                if (grown->findingsNote.starts_with("Findings of the first")) continue;
                ++foundAgain;
                ASSERT_EQ(grown->findings->size(), opened->findings->size());
                for (std::size_t f = 0; f < opened->findings->size(); ++f) {
                    const Finding &gf = (*grown->findings)[f], &of = (*opened->findings)[f];
                    EXPECT_EQ(gf.id, of.id);
                    EXPECT_EQ(gf.title, of.title);
                    EXPECT_EQ(gf.timeNs, of.timeNs);
                    EXPECT_EQ(gf.count, of.count);
                    ASSERT_EQ(gf.evidence.size(), of.evidence.size());
                    for (std::size_t i = 0; i < gf.evidence.size(); ++i) {
                        EXPECT_EQ(gf.evidence[i].startNs, of.evidence[i].startNs);
                        EXPECT_EQ(gf.evidence[i].track, of.evidence[i].track);
                        EXPECT_EQ(gf.evidence[i].name, of.evidence[i].name);
                    }
                }
                if (complete) {
                    EXPECT_EQ(grown->findingsNote, "Findings of all 8 steps of 2 ranks: the program's "
                                                   "profile is complete.");
                }
            }
        }
        EXPECT_EQ(compared, std::size_t(std::count(order.begin(), order.end(), '.')));
        EXPECT_GE(foundAgain, 2u); // the first snapshot and the complete one at least
        EXPECT_GT(interleaved, 0u); // a rank's step put among the other's kernels by event
    }
}

// Two processes that say they are the same rank are not the ranks of one job: refused, as opening their
// traces as ranks is, not drawn on one rank's tracks.
TEST(GrowingDocument, TwoProcessesOfOneRankAreRefused) {
    const std::string text = cpuRunTraceText();
    GrowingDocument growing("job");
    growing.append("pid 1", 0, loadText(text));
    growing.append("pid 2", 0, loadText(shifted(text, 10'000'000)));
    EXPECT_THROW(growing.snapshot(), std::invalid_argument);
    growing.restart("pid 2"); // the other gone, its steps are shown again
    EXPECT_EQ(growing.snapshot()->trace->eventCount(), loadText(text)->eventCount());
}
