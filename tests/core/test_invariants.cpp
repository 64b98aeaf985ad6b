// SPDX-License-Identifier: MIT
// The sums a reader does in their head, held for every trace the tests see: every fixture, the traces the
// tests make, and a thousand random ones (random_traces.h). Roles and verdicts add to the kernel time;
// implementations' kernels and time lie within the trace's; a kernel is in at most one call, and every view
// counts the same calls; no time at stake above what contains it, no share above 100%; no kernel placed
// beyond a roof, none latency-bound with work enough to fill the device; a finding's title one line; the
// same trace gives the same answer on any number of threads.
#include "analysis_test_support.h"
#include "invariants_support.h"
#include "random_traces.h"

#include "core/document/document.h"
#include "core/report/compare.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

namespace {

std::shared_ptr<const Document> openOffline(DocumentSource source) {
    DocumentOptions options;
    options.cpuRoofs = CpuRoofsChoice::None; // no machine's measured roofs: the same answer anywhere
    return openDocument(source, options);
}

// A trace whose fused kernels are each a call of their own, held to the invariants: `calls` calls of impl,
// one kernel each, and no range around them taken for a call's own.
void expectOneKernelCalls(const Document& doc, const std::string& label, const std::string& impl,
                          std::size_t calls) {
    expectInvariants(doc, label);
    ASSERT_EQ(doc.analysis->calls.size(), calls);
    for (const AttentionCall& call : doc.analysis->calls) {
        EXPECT_EQ(call.impl, impl);
        EXPECT_EQ(call.kernels.size(), 1u);
        EXPECT_FALSE(call.scope) << "the range around the calls is not a call's";
    }
}

} // namespace

TEST(Invariants, EveryFixtureHoldsThem) {
    ATTNSCOPE_REQUIRE_FIXTURE(any, "h100_sdpa_flash_qwen.json.gz");
    const std::filesystem::path dir = std::filesystem::path(any).parent_path();
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        const std::string path = entry.path().string();
        if (!entry.is_regular_file() || path.ends_with(".md")) continue;
        expectInvariants(*openOffline(DocumentSource::file(path)), path);
        ++files;
    }
    EXPECT_GE(files, 13);
    expectInvariants(*openOffline(DocumentSource::ranks(
                         {fixture("dlrm_2ranks/rank0.json"), fixture("dlrm_2ranks/rank1.json")})),
                     "dlrm ranks");
}

// Traces from elsewhere (public ones a check found, a colleague's): every file of the folder named by
// ATTNSCOPE_TEST_EXTRA_TRACES is held to the same invariants.
TEST(Invariants, TracesInAFolderYouNameHoldThem) {
    const char* folder = std::getenv("ATTNSCOPE_TEST_EXTRA_TRACES");
    if (!folder || !*folder) GTEST_SKIP() << "ATTNSCOPE_TEST_EXTRA_TRACES names no folder of traces to check";
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (!entry.is_regular_file()) continue;
        expectInvariants(*openOffline(DocumentSource::file(entry.path().string())), entry.path().string());
        ++files;
    }
    EXPECT_GT(files, 0) << folder;
}

TEST(Invariants, TheTracesTheTestsMakeHoldThem) {
    TempDir dir;
    for (const std::string& path : verdictTraces(dir))
        expectInvariants(*openOffline(DocumentSource::file(path)), path);
    const std::string text = cpuRunTraceText();
    expectInvariants(*openOffline(DocumentSource::memory(text, "own CPU run")), "own CPU run");
}

// A job's findings are one computation: the ranks opened together (the window, `summary --ranks`) give
// those of the job put together from each rank's record (`attnscope job`), on random jobs of three ranks.
TEST(Invariants, RandomJobsGiveOneSetOfFindings) {
    int jobs = 0, straggled = 0;
    for (std::uint32_t seed = 1; seed <= 120; seed += 3) {
        std::vector<RankInput> ranks;
        for (std::uint32_t k = 0; k < 3; ++k) {
            const std::string name = "random " + std::to_string(seed + k);
            ranks.push_back({name, loadTraceBytes(randomTrace(seed + k), name, {})});
        }
        std::shared_ptr<const Document> doc;
        try {
            doc = openOffline(DocumentSource::rankTraces(ranks, "job"));
        } catch (const std::invalid_argument&) {
            continue; // two of them say they are one rank
        }
        const std::string label = "job from seed " + std::to_string(seed);
        expectInvariants(*doc, label);
        std::vector<RankRecord> records;
        for (std::size_t k = 0; k < ranks.size(); ++k) {
            const auto one = openOffline(DocumentSource::built(ranks[k].trace, ranks[k].path));
            records.push_back(rankRecord(ranks[k].trace, *one->summary, ranks[k].path, k));
        }
        const JobReport job = jobReport(std::move(records));
        ASSERT_EQ(job.findings.size(), doc->findings->size()) << label;
        for (std::size_t i = 0; i < job.findings.size(); ++i) {
            const JobFinding& j = job.findings[i];
            const Finding& f = (*doc->findings)[i];
            EXPECT_EQ(j.id, f.id) << label;
            EXPECT_EQ(j.title, f.title) << label;
            EXPECT_EQ(j.meanNs, f.timeNs) << label << " " << j.id;
            EXPECT_EQ(j.severity, f.severity) << label << " " << j.id;
            EXPECT_LE(j.maxNs, j.totalNs) << label << " " << j.id;
            straggled += j.id == "rank_imbalance";
        }
        EXPECT_EQ(doc->ranks->stragglerRank, job.ranks.stragglerRank) << label;
        ++jobs;
        if (HasFailure()) break;
    }
    EXPECT_GT(jobs, 20);
    EXPECT_GT(straggled, 0); // the generator made jobs with a straggler
}

TEST(Invariants, AThousandRandomTracesHoldThem) {
    int calls = 0, withGraphs = 0, cpuTraces = 0;
    for (std::uint32_t seed = 1; seed <= 1000; ++seed) {
        const std::string text = randomTrace(seed);
        const auto doc = openOffline(DocumentSource::memory(text, "random " + std::to_string(seed)));
        expectInvariants(*doc, "seed " + std::to_string(seed));
        calls += int(doc->analysis->calls.size());
        withGraphs += text.find("GraphLaunch") != std::string::npos;
        cpuTraces += doc->trace->info().opKernels > 0;
        if (HasFailure()) break; // the first seed that breaks one is enough to read
    }
    // The generator made what it is for.
    EXPECT_GT(calls, 2000);
    EXPECT_GT(withGraphs, 100);
    EXPECT_GT(cpuTraces, 100);
}

// A compiled graph is a place that holds calls, not a call (a public MI300X FLUX.1 trace: SageAttention in
// `## Call CompiledFxGraph ##`, one hipGraphLaunch asking for the whole graph): each fused kernel is a call
// of its own, the graph's GEMMs belong to none.
TEST(Invariants, ACompiledGraphIsNoCall) {
    std::string events;
    auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",") + e; };
    add(R"({"ph":"X","cat":"user_annotation","name":"## Call CompiledFxGraph fxyz ##","pid":1,"tid":1,"ts":100,"dur":50})");
    add(R"({"ph":"X","cat":"cuda_runtime","name":"hipGraphLaunch","pid":1,"tid":1,"ts":110,"dur":20,"args":{"correlation":5}})");
    double at = 200;
    int gemms = 0;
    for (int i = 0; i < 12; ++i) {
        const bool sage = i % 4 == 1;
        gemms += !sage;
        add(R"({"ph":"X","cat":"kernel","name":")" +
            std::string(sage ? "void qk_int_sv_f8_attn_kernel<128, 64>(int8_t*)"
                             : "Cijk_Alik_Bljk_BBS_BH_MT128x128x32") +
            R"(","pid":0,"tid":7,"ts":)" + std::to_string(int(at)) +
            R"(,"dur":40,"args":{"device":0,"stream":7,"correlation":5}})");
        at += 41;
    }
    const std::string text =
        R"({"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X"}],"traceEvents":[)" + events + "]}";
    const auto doc = openOffline(DocumentSource::memory(text, "graph"));
    expectOneKernelCalls(*doc, "graph", "SageAttention", 3);
    EXPECT_EQ(gemms, 9);
    for (const Finding& f : *doc->findings)
        EXPECT_NE(f.id, "unexpected_kernels") << f.title;
}

// A serving engine's range around a whole forward (a public B200 vLLM trace: one `execute_context_…` range,
// 36 TRT-LLM FMHA calls among the model's GEMMs) holds calls and is none: each fused kernel is a call of its
// own, and the GEMMs belong to none (one call had taken every kernel of the step: 929 kernels in calls of a
// trace of 768).
TEST(Invariants, ARangeAroundAWholeForwardIsNoCall) {
    std::string events;
    int corr = 0;
    auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",") + e; };
    auto launch = [&](const std::string& op, int ts, const std::string& kernel, int gpuTs) {
        ++corr;
        add(R"({"ph":"X","cat":"cpu_op","name":")" + op + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
            R"(,"dur":8})");
        add(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
            std::to_string(ts + 1) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(corr) + "}}");
        add(R"({"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":7,"ts":)" +
            std::to_string(gpuTs) + R"(,"dur":20,"args":{"device":0,"stream":7,"correlation":)" +
            std::to_string(corr) + "}}");
    };
    add(R"x({"ph":"X","cat":"user_annotation","name":"execute_context_1(888_788544)_generation_0(0)","pid":1,"tid":1,"ts":100,"dur":400})x");
    for (int layer = 0; layer < 3; ++layer) {
        const int t = 110 + 100 * layer;
        launch("aten::mm", t, "sm100_xmma_gemm_bf16bf16_bf16f32", 1000 + 100 * layer);
        launch("vllm::unified_attention_with_output", t + 20, "fmhaSm100aKernel_QkvE4m3OBfloat16H128PagedKv",
               1030 + 100 * layer);
        launch("aten::mm", t + 40, "sm100_xmma_gemm_bf16bf16_bf16f32", 1060 + 100 * layer);
    }
    const std::string text =
        R"({"deviceProperties":[{"id":0,"name":"NVIDIA B200"}],"traceEvents":[)" + events + "]}";
    const auto doc = openOffline(DocumentSource::memory(text, "forward"));
    expectOneKernelCalls(*doc, "forward", "TRT-LLM FMHA", 3);
}
