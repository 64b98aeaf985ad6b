// SPDX-License-Identifier: MIT
// A PyTorch trace of the CPU alone has no GPU kernels: the aten:: ops that did the work stand for
// them, in the analysis, the summary and the findings. The trace below is written as PyTorch 2.x
// writes one (torch.profiler, record_shapes=True, CPU activity only): a hand-written attention call,
// one SDPA call on its math backend, one on the flash backend, each in a record_function range.
#include "support/test_support.h"

#include "core/analysis/analysis.h"
#include "core/analysis/machine_roofs.h"
#include "core/document/document.h"
#include "core/report/findings.h"
#include "core/report/summary.h"

#include "core/report/kernel_explanation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace attnscope;
using namespace attnscope::test;

namespace {

constexpr int B = 1, H = 4, N = 512, D = 64;

struct Op {
    const char* name;
    int ts, dur;             // µs from the trace's start
    const char* dims = "[]"; // nullptr: recorded without shapes
    const char* cat = "cpu_op";
};

std::string cpuTrace(const std::vector<Op>& ops) {
    std::string events = R"({"ph":"M","name":"process_labels","pid":7,"tid":0,"args":{"labels":"CPU"}})";
    for (const Op& o : ops)
        events += std::string(",") + R"({"ph":"X","cat":")" + o.cat + R"(","name":")" + o.name +
                  R"(","pid":7,"tid":7,"ts":)" + std::to_string(5000000 + o.ts) + R"(,"dur":)" +
                  std::to_string(o.dur) + R"(,"args":{)" +
                  (o.dims ? std::string(R"("Input Dims":)") + o.dims + "," : std::string()) +
                  R"("Input type":["float","float","float"]}})";
    return R"({"schemaVersion":1,"deviceProperties":[],"traceEvents":[)" + events + "]}";
}

const char* const qkv = "[[1,4,512,64],[1,4,512,64],[1,4,512,64]]";

std::vector<Op> attentionOps() {
    return {
        // Hand-written: q @ k.transpose(-2, -1) * scale, softmax, @ v.
        {"naive", 0, 1000, "[]", "user_annotation"},
        {"aten::transpose", 1, 3, "[[1,4,512,64],[],[]]"},
        {"aten::as_strided", 2, 1, "[[1,4,512,64],[],[],[]]"},
        {"aten::matmul", 5, 300, "[[1,4,512,64],[1,4,64,512]]"},
        {"aten::expand", 6, 2, "[[1,4,512,64],[],[]]"},
        {"aten::reshape", 9, 2, "[[1,4,512,64],[]]"},
        {"aten::view", 10, 1, "[[1,4,512,64],[]]"},
        {"aten::bmm", 12, 280, "[[4,512,64],[4,64,512]]"},
        {"aten::resolve_conj", 13, 1, "[[4,64,512]]"},
        {"aten::_unsafe_view", 295, 2, "[[4,512,512],[]]"},
        {"aten::mul", 310, 60, "[[1,4,512,512],[]]"},
        // `* scale` makes its Python number a tensor first: a small copy inside the mul.
        {"aten::to", 312, 5, "[[],[],[],[],[]]"},
        {"aten::_to_copy", 313, 3, "[[],[],[],[],[],[],[]]"},
        {"aten::copy_", 314, 1, "[[],[],[]]"},
        {"aten::softmax", 380, 200, "[[1,4,512,512],[],[]]"},
        {"aten::_softmax", 382, 195, "[[1,4,512,512],[],[]]"},
        {"aten::matmul", 590, 300, "[[1,4,512,512],[1,4,512,64]]"},
        {"aten::bmm", 600, 280, "[[4,512,512],[4,512,64]]"},
        // SDPA on its math backend.
        {"math", 2000, 1000, "[]", "user_annotation"},
        {"aten::scaled_dot_product_attention", 2001, 990, qkv},
        {"aten::_scaled_dot_product_attention_math", 2005, 980, qkv},
        {"aten::mul", 2010, 20, "[[1,4,512,64],[]]"},
        {"aten::to", 2032, 2, "[[1,4,512,64],[],[],[],[]]"},
        {"aten::matmul", 2040, 300, "[[1,4,512,64],[1,4,64,512]]"},
        {"aten::bmm", 2045, 280, "[[4,512,64],[4,64,512]]"},
        {"aten::_safe_softmax", 2350, 300, "[[1,4,512,512],[],[]]"},
        {"aten::softmax", 2351, 200, "[[1,4,512,512],[],[]]"},
        {"aten::_softmax", 2352, 195, "[[1,4,512,512],[],[]]"},
        {"aten::isneginf", 2560, 10, "[[1,4,512,512]]"},
        {"aten::all", 2580, 30, "[[1,4,512,512],[],[]]"},
        {"aten::fill_", 2605, 2, "[[1,4,512,1],[]]"}, // all starts its output: all's time is its own
        {"aten::where", 2620, 20, "[[1,4,512,1],[],[1,4,512,512],[1,4,512,512]]"},
        {"aten::matmul", 2660, 300, "[[1,4,512,512],[1,4,512,64]]"},
        {"aten::bmm", 2665, 280, "[[4,512,512],[4,512,64]]"},
        // SDPA's flash backend for the CPU: one op, with only bookkeeping ops inside.
        {"flash", 4000, 500, "[]", "user_annotation"},
        {"aten::scaled_dot_product_attention", 4001, 490, qkv},
        {"aten::_scaled_dot_product_flash_attention_for_cpu", 4002, 480, qkv},
        {"aten::empty_like", 4003, 2, "[[1,4,512,64],[],[],[],[],[]]"},
        {"aten::transpose", 4006, 1, "[[1,4,512,64],[],[]]"},
        {"aten::empty", 4008, 1, "[[],[],[],[],[],[]]"},
    };
}

DeviceSpec testCpu() {
    DeviceSpec cpu;
    cpu.name = "test CPU";
    cpu.fp32 = cpu.tf32 = 100e9;
    cpu.fp16 = 200e9;
    cpu.bandwidth = 20e9;
    return cpu;
}

TimeNs durationOf(const Trace& t, EventRef e) {
    return t.track(e.track).events.duration[e.index];
}

// Which ops are kernels in a trace of one call's ops.
std::multiset<std::string> opKernels(const std::vector<Op>& ops) {
    const auto trace = loadText(cpuTrace(ops));
    std::multiset<std::string> kernels;
    for (const Track& t : trace->tracks())
        for (std::size_t i = 0; i < t.size(); ++i)
            if (isKernelEvent(*trace, t, i)) kernels.insert(std::string(trace->str(t.events.name[i])));
    return kernels;
}

} // namespace

TEST(CpuOpKernels, TheOpsThatDidTheWorkAreTheKernels) {
    const auto trace = loadText(cpuTrace(attentionOps()));
    const std::multiset<std::string> kernels = opKernels(attentionOps());
    // Ops whose time is their own: leaves that work (bmm, _softmax, …), mul around its scalar's copy,
    // all around the small fill_ of its output, the flash op whose inner ops only make views and
    // empty tensors; never a bookkeeping op (view, as_strided, to), nor an op whose time is its
    // inner ops' (matmul, softmax, SDPA).
    const std::multiset<std::string> expected{
        "aten::bmm", "aten::bmm",   "aten::mul",      "aten::_softmax",
        "aten::mul", "aten::bmm",   "aten::_softmax", "aten::isneginf",
        "aten::all", "aten::where", "aten::bmm",      "aten::_scaled_dot_product_flash_attention_for_cpu"};
    EXPECT_EQ(kernels, expected);
    EXPECT_EQ(trace->info().opKernels, expected.size());

    const TraceSummary s = summarize(*trace, 0);
    EXPECT_EQ(s.kernelCount, expected.size());
    EXPECT_NE(s.kernelsNote.find("no GPU kernels"), std::string::npos);
}

TEST(CpuOpKernels, ShapesDecideEvenWhenTheWrapperTookLongAndTimeDecidesWithoutThem) {
    // A busy process: the matmul's own bookkeeping took longer than its bmm (seen on a loaded
    // machine at a small shape). The bmm reads what the matmul reads: it is the kernel all the same.
    const std::multiset<std::string> bmm{"aten::bmm"};
    EXPECT_EQ(opKernels({{"aten::matmul", 0, 72, "[[1,2,128,32],[1,2,32,128]]"},
                         {"aten::reshape", 2, 18, "[[1,2,32,128],[]]"},
                         {"aten::bmm", 25, 35, "[[2,128,32],[2,32,128]]"}}),
              bmm);
    // The fill_ of all's small output took most of the time: all still did the work.
    EXPECT_EQ(
        opKernels({{"aten::all", 0, 10, "[[1,2,128,128],[],[]]"}, {"aten::fill_", 1, 8, "[[1,2,128,1],[]]"}}),
        std::multiset<std::string>{"aten::all"});
    // Recorded without shapes: the op whose time is mostly its own.
    EXPECT_EQ(opKernels({{"aten::matmul", 0, 72, nullptr}, {"aten::bmm", 25, 40, nullptr}}), bmm);
    EXPECT_EQ(opKernels({{"aten::matmul", 0, 72, nullptr}, {"aten::bmm", 25, 30, nullptr}}),
              std::multiset<std::string>{"aten::matmul"});
}

TEST(CpuOpKernels, CallsRolesAndCostsFromTheOpsOwnInputs) {
    const auto trace = loadText(cpuTrace(attentionOps()));
    const DeviceSpec cpu = testCpu();
    const TraceAnalysis a = analyzeTrace(*trace, &cpu);
    std::map<std::string, int> calls;
    for (const AttentionCall& c : a.calls)
        ++calls[c.impl];
    EXPECT_EQ(calls,
              (std::map<std::string, int>{{"naive", 1}, {std::string(kSdpaMathImpl), 1}, {"flash", 1}}));
    // Every GEMM is a QKᵀ or a PV of one of the two chains, with the FLOPs of its own shapes.
    int qk = 0, pv = 0, fused = 0;
    for (const KernelAnalysis& k : a.kernels) {
        if (k.role == KernelRole::QkGemm || k.role == KernelRole::PvGemm) {
            (k.role == KernelRole::QkGemm ? qk : pv)++;
            EXPECT_EQ(k.cost, CostSource::Inferred);
            EXPECT_DOUBLE_EQ(k.flops, 2.0 * B * H * N * N * D);
            EXPECT_NE(k.call, -1);
        }
        if (k.role == KernelRole::FusedAttention) {
            ++fused;
            EXPECT_EQ(k.cost, CostSource::Inferred);
            EXPECT_DOUBLE_EQ(k.flops, 4.0 * B * H * N * N * D);
            // Held to all of the CPU's roofs: PyTorch spreads one op over every core.
            ASSERT_TRUE(a.cpuShare);
            EXPECT_DOUBLE_EQ(k.computeShare, k.flopsPerSec / a.cpuShare->fp32);
            EXPECT_DOUBLE_EQ(k.flopsPerSec, k.flops / (durationOf(*trace, k.event) * 1e-9));
        }
    }
    EXPECT_EQ(qk, 2);
    EXPECT_EQ(pv, 2);
    EXPECT_EQ(fused, 1);
    EXPECT_EQ(a.cpuShare->name, "test CPU");
}

TEST(CpuOpKernels, FindingsNameTheHandWrittenCallAndTheMathFallback) {
    const auto trace = loadText(cpuTrace(attentionOps()));
    const DeviceSpec cpu = testCpu();
    const TraceAnalysis a = analyzeTrace(*trace, &cpu);
    std::map<std::string, const Finding*> byId;
    const std::vector<Finding> found = findFindings({*trace, a});
    for (const Finding& f : found)
        byId[f.id] = &f;
    ASSERT_TRUE(byId.count("hand_written_attention"));
    EXPECT_NE(byId["hand_written_attention"]->title.find(": 1 call materializes"), std::string::npos)
        << "the math chain is not hand-written: " << byId["hand_written_attention"]->title;
    ASSERT_TRUE(byId.count("sdpa_math_fallback"));
    const Finding& math = *byId["sdpa_math_fallback"];
    EXPECT_EQ(math.count, 1u);
    // Its kernels are the seven working ops inside the _math op; fp32 is no reason on the CPU.
    EXPECT_NE(math.explanation.find("7.0 kernels per call"), std::string::npos) << math.explanation;
    EXPECT_EQ(math.explanation.find("fp32"), std::string::npos) << math.explanation;
}

TEST(CpuOpKernels, ATraceWithGpuKernelsKeepsThem) {
    std::vector<Op> ops = attentionOps();
    ops.push_back({"ampere_sgemm_128x64_tn", 6000, 10, "[]", "kernel"});
    const auto trace = loadText(cpuTrace(ops));
    EXPECT_EQ(trace->info().opKernels, 0u);
    const TraceSummary s = summarize(*trace, 0);
    EXPECT_EQ(s.kernelCount, 1u);
    EXPECT_TRUE(s.kernelsNote.empty());
}

// A CPU trace speaks of CPUs: its device is a CPU (never "GPU 7"), its latency-bound ops are not told
// about CUDA graphs, and a trace recorded on another host is not judged against this machine's roofs
// unless the user says it ran on one like it.
TEST(CpuOpKernels, ACpuTraceSpeaksOfCpusAndAnotherHostsTraceHasNoRoofsOfThisMachine) {
    std::string text = cpuTrace(attentionOps());
    text.insert(1, R"("host_name":"colleague-laptop",)");
    const auto trace = loadText(text);
    EXPECT_EQ(trace->info().hostName, "colleague-laptop");
    TraceSummary s = summarize(*trace, 0);
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_TRUE(s.devices[0].cpu);
    const std::string out = formatSummaries({{"cpu.json", s, ""}}, SummaryFormat::Text);
    EXPECT_NE(out.find("CPU · "), std::string::npos) << out;
    EXPECT_NE(formatSummaries({{"cpu.json", s, ""}}, SummaryFormat::Json).find(R"("kind": "cpu")"),
              std::string::npos);
    // Held to roofs far above what its ops reach, they are latency-bound: said in a CPU's words.
    DeviceSpec fast = testCpu();
    fast.fp32 = fast.fp16 = 1e15;
    fast.bandwidth = 1e13;
    const TraceAnalysis a = analyzeTrace(*trace, &fast);
    const std::vector<Finding> found = findFindings({*trace, a});
    const auto latency =
        std::find_if(found.begin(), found.end(), [](const Finding& f) { return f.id == "latency_bound"; });
    ASSERT_NE(latency, found.end());
    for (const std::string* text : {&latency->title, &latency->explanation, &latency->suggestion}) {
        EXPECT_EQ(text->find("CUDA"), std::string::npos) << *text;
        EXPECT_EQ(text->find("GPU"), std::string::npos) << *text;
        EXPECT_EQ(text->find("launch"), std::string::npos) << *text;
    }
    for (const Finding& f : found)
        EXPECT_EQ(f.suggestion.find("CUDA graph"), std::string::npos) << f.id;
    // An op with work enough to fill the CPU (at this CPU's roofs over kLatencyWorkSeconds: the post's
    // first naive call's 9 ms copy of 16 MB takes a millisecond there) is slow for another reason: memory-
    // or compute-bound at the share it reached, never latency-bound, however far below its roof.
    DeviceSpec roomy = testCpu();
    roomy.fp32 = roomy.fp16 = 10e12;
    roomy.bandwidth = 1e12;
    const TraceAnalysis held = analyzeTrace(*trace, &roomy);
    ASSERT_TRUE(held.cpuShare);
    int large = 0, farBelow = 0;
    for (const KernelAnalysis& k : held.kernels) {
        if (k.verdict == Verdict::Unknown || k.verdict == Verdict::BeyondRoof) continue;
        const bool small = tooSmallToFill(k, *held.cpuShare);
        if (k.verdict == Verdict::LatencyBound) {
            EXPECT_TRUE(small);
        }
        if (small) continue;
        ++large;
        EXPECT_NE(k.verdict, Verdict::LatencyBound);
        const double share = k.verdict == Verdict::ComputeBound ? k.computeShare : k.memoryShare;
        if (share >= kLatencyBoundShare) continue;
        ++farBelow;
        EXPECT_NE(rooflineExplanation(*trace, held, k).find("Far below its roof"), std::string::npos)
            << rooflineExplanation(*trace, held, k);
    }
    EXPECT_GT(large, 0);
    EXPECT_GT(farBelow, 0);
    // From another host: no roofs of this machine, so no verdicts, and why.
    std::string why;
    EXPECT_FALSE(cpuRoofsFor(*trace, CpuRoofsChoice::Auto, why));
    EXPECT_NE(why.find("recorded on colleague-laptop"), std::string::npos) << why;
    const TraceAnalysis unknown = analyzeWithCpuRoofs(*trace, std::nullopt, why);
    for (const KernelAnalysis& k : unknown.kernels)
        EXPECT_EQ(k.verdict, Verdict::Unknown);
    EXPECT_EQ(unknown.cpuNote, why);
    for (const Finding& f : findFindings({*trace, unknown}))
        EXPECT_NE(f.id, "latency_bound");
}

// aten::bmm is a hand-written call's QKᵀ and PV GEMM: a row per role in the kernel rows and the
// roofline, each with its own kernels' time (not the name's dominant role for both).
// A comparison of a few thousand elements that took 43 ms (a model's first parallel op, starting the thread
// pool) waited on something besides its own overhead: not latency-bound, and Details says what it may have
// waited on; the same op in 20 µs is latency-bound. The latency_bound finding counts only the short one.
TEST(CpuOpKernels, LittleWorkThatTookMillisecondsWaitedOnSomethingElse) {
    const auto trace =
        loadText(cpuTrace({{"aten::le", 0, 43000, "[[256],[]]"}, {"aten::le", 50000, 20, "[[256],[]]"}}));
    const DeviceSpec cpu = testCpu();
    const TraceAnalysis a = analyzeTrace(*trace, &cpu);
    ASSERT_EQ(a.kernels.size(), 2u);
    const KernelAnalysis& slow = a.kernels[0];
    const KernelAnalysis& quick = a.kernels[1];
    ASSERT_NE(slow.cost, CostSource::Unknown);
    EXPECT_EQ(quick.verdict, Verdict::LatencyBound);
    EXPECT_EQ(slow.verdict, Verdict::MemoryBound);
    const std::string why = rooflineExplanation(*trace, a, slow);
    EXPECT_NE(why.find("with little work, yet it took 43.000 ms"), std::string::npos) << why;
    EXPECT_NE(why.find("waited on something else"), std::string::npos) << why;
}

// A bf16 aten::bmm on a CPU makes one input contiguous inside itself (a clone of half its elements, in
// microseconds of its milliseconds): the bmm does the work and is the kernel, not the clone's copy (which
// had been taken for it, so that bf16 eager attention lost its QKᵀ GEMM and every call).
TEST(CpuOpKernels, AGemmThatCopiesAnInputFirstIsStillTheKernel) {
    const auto trace = loadText(cpuTrace({{"aten::matmul", 0, 500, "[[1,4,128,32],[1,4,32,128]]"},
                                          {"aten::bmm", 10, 480, "[[4,128,32],[4,32,128]]"},
                                          {"aten::contiguous", 12, 5, "[[4,128,32],[]]"},
                                          {"aten::clone", 12, 4, "[[4,128,32],[]]"},
                                          {"aten::copy_", 13, 2, "[[4,128,32],[4,128,32],[]]"}}));
    std::vector<std::string> kernels;
    for (const Track& track : trace->tracks())
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (track.events.flags[i] & kOpKernel) kernels.emplace_back(trace->str(track.events.name[i]));
    EXPECT_EQ(kernels, std::vector<std::string>{"aten::bmm"});
}

TEST(CpuOpKernels, AnOpThatPlaysTwoRolesIsARowPerRole) {
    const auto trace = loadText(cpuTrace(attentionOps()));
    const DeviceSpec cpu = testCpu();
    const TraceAnalysis a = analyzeTrace(*trace, &cpu);
    std::map<std::pair<std::string, std::string>, TimeNs> rows;
    for (const KernelStats& k : kernelStatsByRole(*trace, a))
        rows[{k.name, k.role ? std::string(roleName(*k.role)) : "none"}] = k.totalNs;
    // The naive and the math call each: QKᵀ bmm 280 µs, PV bmm 280 µs.
    EXPECT_EQ((rows[{"aten::bmm", "qk_gemm"}]), 2 * 280'000);
    EXPECT_EQ((rows[{"aten::bmm", "pv_gemm"}]), 2 * 280'000);
    TraceSummary s = summarize(*trace, 0);
    addAnalysis(s, *trace, a);
    ASSERT_TRUE(s.roofline);
    std::set<std::string> bmmRoles;
    for (const RooflineKernel& k : s.roofline->kernels)
        if (k.name == "aten::bmm") bmmRoles.emplace(roleName(k.role));
    EXPECT_EQ(bmmRoles, (std::set<std::string>{"qk_gemm", "pv_gemm"}));
}

// SDPA on the CPU in training with dropout runs its math backend, whose chain dropout's ops break (its
// empty_like, bernoulli_, div_ and mul, and the views and copies around the GEMMs): the SDPA op still bounds
// a call, so the analysis, compare and the sdpa_math_fallback finding count the same three calls, and the
// finding says the dropout as a person writes it.
TEST(CpuOpKernels, SdpaWithDropoutIsACallInEveryView) {
    const char* const q = "[2,4,256,64]";
    std::string events = R"({"ph":"M","name":"process_labels","pid":7,"tid":0,"args":{"labels":"CPU"}})";
    auto op = [&](const std::string& name, int ts, int dur, const std::string& dims = "[]",
                  const std::string& concrete = "") {
        events += R"(,{"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":7,"tid":7,"ts":)" +
                  std::to_string(5'000'000 + ts) + R"(,"dur":)" + std::to_string(dur) +
                  R"(,"args":{"Input Dims":)" + dims + R"(,"Input type":["float","float","float"])" +
                  (concrete.empty() ? "" : R"(,"Concrete Inputs":)" + concrete) + "}}";
    };
    for (int c = 0; c < 3; ++c) {
        const int t = 10'000 * c;
        op("aten::scaled_dot_product_attention", t, 5000,
           std::string("[") + q + "," + q + "," + q + ",[],[],[],[]]",
           R"(["","","","","0.10000000000000001","False",""])");
        op("aten::_scaled_dot_product_attention_math", t + 10, 4900,
           std::string("[") + q + "," + q + "," + q + "]");
        op("aten::mul", t + 20, 100, "[[2,4,256,64],[]]");
        op("aten::expand", t + 130, 5, "[[2,4,256,64],[]]");
        op("aten::clone", t + 140, 60, "[[2,4,64,256],[]]");
        op("aten::bmm", t + 210, 800, "[[8,256,64],[8,64,256]]");
        op("aten::_unsafe_view", t + 1020, 5, "[[8,256,256],[]]");
        op("aten::_softmax", t + 1030, 400, "[[2,4,256,256],[],[]]");
        op("aten::dropout", t + 1440, 700, "[[2,4,256,256],[],[]]");
        op("aten::empty_like", t + 1450, 10, "[[2,4,256,256]]");
        op("aten::bernoulli_", t + 1470, 300, "[[2,4,256,256],[],[]]");
        op("aten::div_", t + 1780, 150, "[[2,4,256,256],[]]");
        op("aten::mul", t + 1940, 150, "[[2,4,256,256],[2,4,256,256]]");
        op("aten::expand", t + 2150, 5, "[[2,4,256,256],[]]");
        op("aten::bmm", t + 2160, 800, "[[8,256,256],[8,256,64]]");
        op("aten::_unsafe_view", t + 2970, 5, "[[8,256,64],[]]");
    }
    DocumentOptions options;
    options.cpuRoofs = CpuRoofsChoice::None;
    const std::string text = R"({"schemaVersion":1,"deviceProperties":[],"traceEvents":[)" + events + "]}";
    const auto doc = openDocument(DocumentSource::memory(text, "dropout.json"), options);
    ASSERT_TRUE(doc->analysis);
    ASSERT_EQ(doc->analysis->calls.size(), 3u);
    for (const AttentionCall& call : doc->analysis->calls) {
        EXPECT_EQ(call.impl, kSdpaMathImpl);
        ASSERT_TRUE(call.scope);
        EXPECT_EQ(doc->trace->str(doc->trace->track(call.scope->track).events.name[call.scope->index]),
                  "aten::scaled_dot_product_attention");
    }
    const ComparedTrace compared = compareEntry(*doc, "dropout.json");
    ASSERT_EQ(compared.rows.size(), 1u);
    EXPECT_EQ(compared.rows[0].impl, kSdpaMathImpl);
    EXPECT_EQ(compared.rows[0].calls.calls, 3u);
    const auto fallback = std::find_if(doc->findings->begin(), doc->findings->end(),
                                       [](const Finding& f) { return f.id == "sdpa_math_fallback"; });
    ASSERT_NE(fallback, doc->findings->end());
    EXPECT_EQ(fallback->count, 3u);
    EXPECT_NE(fallback->explanation.find("dropout_p 0.1 (training)"), std::string::npos)
        << fallback->explanation;
    EXPECT_EQ(fallback->explanation.find("0.10000000000000001"), std::string::npos);
}
