// SPDX-License-Identifier: MIT
// The sums a reader does in their head, held for every trace the tests see: every fixture, the traces the
// tests make, and a thousand random ones (random_traces.h). Roles and verdicts add to the kernel time;
// implementations' kernels and time lie within the trace's; a kernel is in at most one call, and every view
// counts the same calls; no time at stake above what contains it, no share above 100%; no kernel placed
// beyond a roof, none latency-bound with work enough to fill the device; a finding's title one line; the
// same trace gives the same answer on any number of threads.
#include "analysis_test_support.h"
#include "random_traces.h"

#include "core/document/document.h"
#include "core/report/compare.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

namespace {

void expectInvariants(const Document& d, const std::string& label) {
    SCOPED_TRACE(label);
    ASSERT_TRUE(d.trace && d.analysis && d.summary && d.findings);
    const Trace& t = *d.trace;
    const TraceAnalysis& a = *d.analysis;
    const TraceSummary& s = *d.summary;
    auto dur = [&](EventRef e) { return t.track(e.track).events.duration[e.index]; };

    // Roles and verdicts add to the kernel time, and both to the summary's.
    const RoleTimes roles = a.tables.allRoleTimes();
    TimeNs verdictNs = 0, allNs = 0;
    std::uint64_t verdictCount = 0, roleCount = 0;
    for (std::size_t v = 0; v < kVerdictCount; ++v) {
        verdictNs += a.tables.verdictNs[v];
        verdictCount += a.tables.verdictCount[v];
    }
    for (std::uint64_t n : roles.count)
        roleCount += n;
    for (const KernelAnalysis& k : a.kernels)
        allNs += dur(k.event);
    EXPECT_EQ(verdictNs, roles.total());
    EXPECT_EQ(verdictCount, roleCount);
    EXPECT_EQ(roles.total(), s.kernelNs);
    EXPECT_EQ(roleCount, s.kernelCount);
    TimeNs summaryVerdicts = 0;
    for (const auto& v : s.verdicts)
        summaryVerdicts += v.totalNs;
    EXPECT_EQ(summaryVerdicts, roles.total());

    // A kernel in at most one call, and the call it says; calls within the trace.
    std::vector<int> callOf(a.kernels.size(), -1);
    for (std::size_t c = 0; c < a.calls.size(); ++c) {
        const AttentionCall& call = a.calls[c];
        EXPECT_FALSE(call.kernels.empty()) << "call " << c;
        EXPECT_LE(call.start, call.end) << "call " << c;
        EXPECT_LE(call.duration(), s.spanNs) << "call " << c;
        EXPECT_LE(call.kernelCount, call.kernels.size()) << "call " << c;
        for (std::uint32_t k : call.kernels) {
            ASSERT_LT(k, a.kernels.size());
            // A call is bounded by what made it: no GEMM that is not its QKᵀ or PV (a model's projections in
            // a range around a whole forward are not attention).
            EXPECT_NE(a.kernels[k].role, KernelRole::Gemm)
                << "call " << c << ": " << nameOf(t, a.kernels[k].event);
            EXPECT_EQ(callOf[k], -1) << "kernel " << k << " in calls " << callOf[k] << " and " << c;
            callOf[k] = int(c);
            EXPECT_EQ(a.kernels[k].call, int(c)) << "kernel " << k;
        }
        if (c > 0) {
            EXPECT_LE(a.calls[c - 1].start, call.start) << "calls by start";
        }
    }
    for (std::size_t k = 0; k < a.kernels.size(); ++k)
        EXPECT_EQ(a.kernels[k].call, callOf[k]) << "kernel " << k;

    // Implementations' calls add to the calls; their kernels and time lie within the trace's.
    std::uint64_t implCalls = 0, implKernels = 0;
    TimeNs implNs = 0;
    for (const ImplCalls& impl : a.tables.implCalls) {
        implCalls += impl.calls;
        implKernels += impl.kernels;
        implNs += impl.kernelNs;
        EXPECT_GT(impl.calls, 0u) << impl.impl;
    }
    EXPECT_EQ(implCalls, a.calls.size());
    EXPECT_EQ(s.attentionCalls, a.calls.size());
    EXPECT_LE(implKernels, a.kernels.size());
    EXPECT_LE(implNs, allNs);
    for (std::size_t i = 1; i < a.tables.implCalls.size(); ++i)
        EXPECT_GE(a.tables.implCalls[i - 1].calls, a.tables.implCalls[i].calls) << "most-called first";
    // compare counts the same calls.
    const ComparedTrace compared = compareEntry(d, label);
    std::uint64_t comparedCalls = 0;
    for (const CompareRow& row : compared.rows)
        comparedCalls += row.impl.empty() ? 0 : row.calls.calls;
    EXPECT_EQ(comparedCalls, a.calls.size());
    // A bar of a row's roles per call is as tall as the row's kernel time per call: one answer.
    for (const CompareRow& row : compared.rows) {
        if (!row.calls.calls || !row.roles.total()) continue;
        double bar = 0;
        for (double part : row.roleNsPerCall())
            bar += part;
        EXPECT_NEAR(bar, double(row.calls.kernelNsPerCall()), 1.0) << row.impl;
    }

    // Verdicts that hold: rates under the roofs they were held to, latency-bound only for small work, beyond
    // a roof named so; the roofline's points no further than their kernels.
    std::uint64_t beyond = 0;
    for (const KernelAnalysis& k : a.kernels) {
        const std::string name = nameOf(t, k.event);
        EXPECT_EQ(k.beyondRoof, k.verdict == Verdict::BeyondRoof) << name;
        const Track& track = t.track(k.event.track);
        beyond += k.beyondRoof && isKernelEvent(t, track, k.event.index); // copies are not the roofline's
        if (k.cost == CostSource::Unknown) {
            EXPECT_EQ(k.verdict, Verdict::Unknown) << name;
        }
        if (k.verdict == Verdict::Unknown || k.verdict == Verdict::BeyondRoof) continue;
        EXPECT_LE(k.computeShare, 1 + 1e-9) << name;
        EXPECT_LE(k.memoryShare, 1 + 1e-9) << name;
        const DeviceSpec* roofs = a.roofsOf(t, k.event);
        ASSERT_NE(roofs, nullptr) << name;
        if (k.verdict == Verdict::LatencyBound) {
            EXPECT_TRUE(tooSmallToFill(k, *roofs)) << name;
            EXPECT_LT(double(track.events.duration[k.event.index]), kLatencyMaxSeconds * 1e9) << name;
        }
    }
    EXPECT_EQ(beyond, a.beyondRoof()); // the header's count is the verdict table's
    for (const RooflinePoint& p : a.tables.roofline) {
        if (!p.costed) continue;
        // A row's rates are of its costed kernels, and so is its verdict: never "unknown" beside rates.
        EXPECT_TRUE(p.verdict == Verdict::MemoryBound || p.verdict == Verdict::ComputeBound ||
                    p.verdict == Verdict::LatencyBound)
            << t.str(p.name);
        EXPECT_LE(p.costedCount, p.count) << t.str(p.name);
        EXPECT_LE(p.computeShare, 1 + 1e-9) << t.str(p.name);
        EXPECT_LE(p.memoryShare, 1 + 1e-9) << t.str(p.name);
        EXPECT_GT(p.bytesPerSec, 0) << t.str(p.name) << ": a costed point has its bandwidth";
        // A reader's division: the rates are the costed kernels' FLOPs and bytes over their time.
        EXPECT_NEAR(p.bytesPerSec, p.bytes / (double(p.costedNs) * 1e-9), 1e-9 * p.bytesPerSec)
            << t.str(p.name);
        EXPECT_LE(p.costedCount, p.count) << t.str(p.name);
        EXPECT_LE(p.costedNs, p.totalNs) << t.str(p.name);
    }

    // Findings: no share above 100%, no time at stake above the span that holds it (one trace), a title of
    // one line, no more places shown than counted.
    for (const Finding& f : *d.findings) {
        EXPECT_GE(f.timeNs, 0) << f.id;
        EXPECT_GE(f.share, 0) << f.id;
        EXPECT_LE(f.share, 1 + 1e-9) << f.id;
        EXPECT_LE(f.timeNs, s.spanNs) << f.id; // a job's: per rank, of the job's span
        EXPECT_EQ(f.title.find('\n'), std::string::npos) << f.id;
        EXPECT_LE(f.title.size(), kFindingTitleMax) << f.id << ": " << f.title;
        EXPECT_LE(f.evidence.size(), std::max<std::uint64_t>(f.count, 1)) << f.id;
    }

    // The same trace, the same answer, on one thread as on many.
    const DeviceSpec* cpu = a.cpuShare && t.info().opKernels ? &*a.cpuShare : nullptr;
    if (!a.cpuShare || cpu) {
        const TraceAnalysis again =
            analyzeTrace(t, cpu, DeviceSpecs::standard(), RoleRules::standard(), nullptr, 1);
        ASSERT_EQ(again.calls.size(), a.calls.size());
        for (std::size_t c = 0; c < a.calls.size(); ++c) {
            EXPECT_EQ(again.calls[c].impl, a.calls[c].impl);
            EXPECT_EQ(again.calls[c].kernels, a.calls[c].kernels);
        }
        ASSERT_EQ(again.kernels.size(), a.kernels.size());
        for (std::size_t k = 0; k < a.kernels.size(); ++k) {
            EXPECT_EQ(again.kernels[k].role, a.kernels[k].role);
            EXPECT_EQ(again.kernels[k].verdict, a.kernels[k].verdict);
        }
    }
}

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
