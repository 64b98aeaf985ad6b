// SPDX-License-Identifier: MIT
// The attention findings: hand-written attention, casts before SDPA, the math fallback, on made and real
// traces.
#include "findings_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

TEST(Findings, HandWrittenAttentionOnANaiveRunWithTheFusedKernelsEstimate) {
    const auto trace = loadText(cpuRunTraceText());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "hand_written_attention");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.find(": 1 call materializes"), std::string::npos) << f->title; // its two workers'
    // Its kernels' time, by hand: QKᵀ 9 ms, softmax 3 ms and PV 9 ms on each of two workers.
    EXPECT_NE(f->explanation.find("of their kernels' time (42.000 ms"), std::string::npos) << f->explanation;
    // Evidence: the softmax kernels of both workers, not the GEMMs nor flash; the count is theirs.
    EXPECT_EQ(f->count, 2u);
    ASSERT_EQ(f->evidence.size(), 2u);
    for (const Evidence& e : f->evidence)
        EXPECT_EQ(e.name, "naive_softmax");
    // The call took 21 ms (0 to 21 ms). Per worker a fused kernel needs max(0.2 GFLOP / 150 GFLOP/s,
    // (17.8 − 33.6 MB → 0) / 7.5 GB/s) = 1.333 ms of its 21 ms: the rest, 19.667 ms, is at stake.
    // (Each of two workers is held to half the CPU's roofs.)
    EXPECT_NEAR(double(f->timeNs), 21e6 * (1 - 1.3333e6 / 21e6), 2e4);
    EXPECT_LE(f->share, 1.0);
    EXPECT_NE(f->explanation.find("moved 67.2 MB of scores"), std::string::npos)
        << f->explanation; // 2 × 33.6 MB
}

TEST(Findings, FlashOnAnH100IsNotHandWrittenAndItsOccupancyIsComputed) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = open(path);
    const auto& all = *doc->findings;
    EXPECT_EQ(findingOf(all, "hand_written_attention"), nullptr);
    EXPECT_EQ(findingOf(all, "sdpa_math_fallback"), nullptr);
    EXPECT_EQ(findingOf(all, "pageable_memcpy"), nullptr); // its one copy is to pinned memory
    EXPECT_EQ(findingOf(all, "exposed_communication"), nullptr);
    // The flash kernel: 255 registers × 128 threads leave 2 blocks of 4 warps: 12.5%.
    const auto flash = std::find_if(
        doc->analysis->kernels.begin(), doc->analysis->kernels.end(), [&](const KernelAnalysis& k) {
            return doc->trace->str(doc->trace->track(k.event.track).events.name[k.event.index])
                       .find("flash_fwd_kernel") != std::string_view::npos;
        });
    ASSERT_NE(flash, doc->analysis->kernels.end());
    ASSERT_TRUE(kernelOccupancy(*doc->trace, flash->event));
    EXPECT_DOUBLE_EQ(*kernelOccupancy(*doc->trace, flash->event), 0.125);
    // The post's lesson: flash's occupancy is low by design (its registers hold its tiles), and the
    // cuBLAS GEMM at 18.8% runs at 61% of the bf16 peak. Neither is a finding; each says why.
    EXPECT_EQ(findingOf(all, "low_occupancy"), nullptr);
    EXPECT_NE(lowOccupancyByDesign(*doc->trace, *flash, 0.5)
                  .find("low by design: a fused attention kernel whose "
                        "registers"),
              std::string::npos)
        << lowOccupancyByDesign(*doc->trace, *flash, 0.5);
    const auto gemm = std::find_if(
        doc->analysis->kernels.begin(), doc->analysis->kernels.end(), [&](const KernelAnalysis& k) {
            return doc->trace->str(doc->trace->track(k.event.track).events.name[k.event.index])
                           .find("sm90_xmma_gemm") != std::string_view::npos &&
                   k.verdict == Verdict::ComputeBound && k.computeShare > 0.5;
        });
    ASSERT_NE(gemm, doc->analysis->kernels.end());
    EXPECT_NEAR(*kernelOccupancy(*doc->trace, gemm->event), 0.1875, 1e-9);
    EXPECT_NE(lowOccupancyByDesign(*doc->trace, *gemm, 0.5).find("of its roof"), std::string::npos);
}

TEST(Findings, CastsRightBeforeSdpaOnTheH100) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = open(path);
    const Finding* f = findingOf(*doc->findings, "casts_and_copies");
    ASSERT_NE(f, nullptr);
    // Independently: aten::contiguous ops ending at most 100 µs before an SDPA op on the same thread.
    const nlohmann::json j = nlohmann::json::parse(readAllBytes(path));
    std::vector<std::pair<double, double>> sdpa, casts;
    for (const auto& e : j["traceEvents"]) {
        if (e.value("cat", "") != "cpu_op") continue;
        const std::string n = e["name"];
        const double ts = e["ts"], dur = e["dur"];
        if (n == "aten::scaled_dot_product_attention") sdpa.emplace_back(ts, ts + dur);
        if (n == "aten::contiguous") casts.emplace_back(ts, ts + dur);
    }
    std::size_t before = 0;
    for (const auto& [s, e] : casts)
        for (const auto& [as, ae] : sdpa)
            if (e <= as && as - e <= 100) {
                ++before;
                break;
            }
    EXPECT_EQ(f->count, before);
    EXPECT_GT(before, 0u);
    EXPECT_NE(f->explanation.find("aten::contiguous ×" + std::to_string(before)), std::string::npos);
}

// A contiguous copy at copyAt µs (30 µs long), then SDPA at 1030 µs: whether a cast or copy is found.
static bool castFoundBeforeSdpaAt1030(GpuTrace t, double copyAt) {
    t.launch("aten::contiguous", "[[16,16,559,64]]", R"(["c10::BFloat16"])", copyAt, 30, "copy_kernel",
             copyAt + 10, 20);
    t.launch("aten::scaled_dot_product_attention", "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[]]",
             R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16",""])", 1030, 50, "flash_fwd_kernel", 1040,
             100);
    return findingOf(findingsOf(*loadText(t.text())), "casts_and_copies") != nullptr;
}

TEST(Findings, NoCastsFarFromAttention) {
    // The attention op starts 1 ms after the copy: not "right before".
    EXPECT_FALSE(castFoundBeforeSdpaAt1030(GpuTrace(), 0));
}

// With with_stack, Python's own frames carry the attention function's name: the Python frame around
// the copy is not an attention op, so the copy is neither inside one nor right before one.
TEST(Findings, APythonFrameNamedForAttentionIsNotAnAttentionOp) {
    GpuTrace t;
    t.add(R"({"ph":"X","cat":"python_function","name":"torch/nn/functional.py(5290): )"
          R"(scaled_dot_product_attention","pid":100,"tid":100,"ts":0.000,"dur":2000.000})");
    EXPECT_FALSE(castFoundBeforeSdpaAt1030(t, 10));
}

TEST(Findings, SdpaMathFallbackWithTheReasonsItsInputsGive) {
    GpuTrace t;
    for (int call = 0; call < 3; ++call) {
        const double at = call * 1000;
        // The public op around its _math op; fp32 inputs, an explicit mask, dropout 0.1.
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":100,"tid":100,"ts":)" +
            std::to_string(at) +
            R"(,"dur":500,"args":{"Input Dims":[[2,8,1024,64],[2,8,1024,64],[2,8,1024,64],[2,1,1024,1024],[],[]],)"
            R"("Input type":["float","float","float","float","Scalar","Scalar"],"Concrete Inputs":["","","","","0.1","False"]}})");
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_attention_math","pid":100,"tid":100,"ts":)" +
            std::to_string(at + 1) + R"(,"dur":498})");
        for (int k = 0; k < 10; ++k)
            t.launch("aten::bmm", "[[16,1024,64],[16,64,1024]]", R"(["float","float"])", at + 2 + k * 40, 30,
                     "kernel_" + std::to_string(k), at + 10 + k * 40, 20);
    }
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "sdpa_math_fallback");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 3u);
    EXPECT_EQ(f->timeNs, 3 * 10 * 20'000); // the kernels' time
    EXPECT_NE(f->explanation.find("10.0 kernels per call"), std::string::npos) << f->explanation;
    EXPECT_NE(f->explanation.find("fp32 inputs"), std::string::npos);
    EXPECT_NE(f->explanation.find("explicit attn_mask"), std::string::npos);
    EXPECT_NE(f->explanation.find("dropout_p 0.1"), std::string::npos);
    ASSERT_EQ(f->evidence.size(), 3u);
    EXPECT_EQ(f->evidence[0].name, "aten::_scaled_dot_product_attention_math");
    // The math backend's chain is this finding's, not hand-written attention's.
    EXPECT_EQ(findingOf(all, "hand_written_attention"), nullptr);
}

// One cast right before an attention op is a finding of one place; SDPA's math backend at inference
// (dropout_p 0) is not said to drop out.
TEST(Findings, OneCastBeforeAttentionAndNoDropoutReasonAtInference) {
    GpuTrace t;
    t.launch("aten::contiguous", "[[16,16,559,64]]", R"(["c10::BFloat16"])", 0, 30, "copy_kernel", 10, 20);
    t.launch("aten::scaled_dot_product_attention", "[[16,16,559,64],[16,16,559,64],[16,16,559,64],[]]",
             R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16",""])", 40, 50, "flash_fwd_kernel", 60, 100);
    const auto casts = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(casts, "casts_and_copies");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u);

    GpuTrace m;
    m.add(
        R"({"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":100,"tid":100,"ts":0,)"
        R"("dur":500,"args":{"Input Dims":[[2,8,1024,64],[2,8,1024,64],[2,8,1024,64],[],[],[]],)"
        R"("Input type":["float","float","float","","Scalar","Scalar"],"Concrete Inputs":["","","","","0.","True"]}})");
    m.add(
        R"({"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_attention_math","pid":100,"tid":100,"ts":1,"dur":498})");
    for (int k = 0; k < 10; ++k)
        m.launch("aten::bmm", "[[16,1024,64],[16,64,1024]]", R"(["float","float"])", 2 + k * 40, 30,
                 "kernel_" + std::to_string(k), 10 + k * 40, 20);
    const auto math = findingsOf(*loadText(m.text()));
    const Finding* s = findingOf(math, "sdpa_math_fallback");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->explanation.find("dropout"), std::string::npos) << s->explanation;
    EXPECT_NE(s->explanation.find("fp32 inputs"), std::string::npos);
}

// A decode step of grouped-query attention with a static cache: transformers packs the 4 query heads of each
// K/V head as 4 "queries" of one token against a mask of one query row. The call is one query of 8 heads
// (2 KV), a decode call; a prefill of 4 tokens (a causal mask of 4 rows) stays 4 queries, and a padding mask
// of one row over an encoder's queries (no cache: as many keys as queries) is left as it is.
TEST(CallInputs, ATokensGroupedQueryHeadsPackedAsQueriesAreOneQuery) {
    auto callOf = [](const std::string& dims) {
        GpuTrace t;
        t.add(R"({"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":100,"tid":100,)"
              R"("ts":0,"dur":500,"args":{"Input Dims":)" +
              dims +
              R"(,"Input type":["float","float","float","c10::BFloat16","Scalar","Scalar"],)"
              R"("Concrete Inputs":["","","","","0.","False"]}})");
        t.add(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":100,)"
              R"("dur":2,"args":{"correlation":1}})");
        t.add(R"({"ph":"X","cat":"kernel","name":"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_)"
              R"(traits<64, 128, 128, 4>>","pid":0,"tid":7,"ts":110,"dur":20,)"
              R"("args":{"device":0,"stream":7,"correlation":1}})");
        const auto trace = loadText(t.text());
        const TraceAnalysis a = analyzeTrace(*trace);
        EXPECT_EQ(a.calls.size(), 1u);
        return a.calls.empty() ? std::pair<std::string, std::optional<CallInputs>>{}
                               : std::pair{a.calls[0].impl, callInputs(*trace, a, a.calls[0])};
    };
    const auto [decode, packed] = callOf("[[1,2,4,16],[1,2,135,16],[1,2,135,16],[1,1,1,135],[],[]]");
    ASSERT_TRUE(packed);
    EXPECT_EQ(packed->text(), "batch 1 × 8 heads (2 KV) · 1 query × 135 keys · head dim 16 · fp32 · "
                              "c10::BFloat16 mask");
    EXPECT_EQ(decode, "flash decode");
    const auto [prefill, four] = callOf("[[1,2,4,16],[1,2,135,16],[1,2,135,16],[1,1,4,135],[],[]]");
    ASSERT_TRUE(four);
    EXPECT_EQ(four->queryLen, 4);
    EXPECT_EQ(prefill, "flash");
    const auto [encoder, padded] = callOf("[[2,8,128,16],[2,8,128,16],[2,8,128,16],[2,1,1,128],[],[]]");
    ASSERT_TRUE(padded);
    EXPECT_EQ(padded->queryLen, 128);
    EXPECT_EQ(padded->heads, 8);
}

// What SDPA's inputs say of its math fallback, by hand: a head dim of 320 is over flash's 256, one of
// 256 is not; bf16 inputs with no mask and no dropout on a GPU give no reason at all (and no CPU's);
// a trace without shapes says it does not know.
TEST(Findings, TheMathFallbacksReasonsFromItsInputsEdgeByEdge) {
    auto math = [](const std::string& dims, const std::string& types, const std::string& concrete) {
        GpuTrace t;
        std::string args = dims.empty() ? std::string("{}")
                                        : R"({"Input Dims":)" + dims + R"(,"Input type":)" + types +
                                              R"(,"Concrete Inputs":)" + concrete + "}";
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":100,"tid":100,"ts":0,)"
            R"("dur":500,"args":)" +
            args + "}");
        t.add(
            R"({"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_attention_math","pid":100,"tid":100,"ts":1,"dur":498})");
        for (int k = 0; k < 10; ++k)
            t.launch("aten::bmm", "[[16,1024,64],[16,64,1024]]", R"(["c10::BFloat16","c10::BFloat16"])",
                     2 + k * 40, 30, "kernel_" + std::to_string(k), 10 + k * 40, 20);
        const auto all = findingsOf(*loadText(t.text()));
        const Finding* f = findingOf(all, "sdpa_math_fallback");
        return f ? f->explanation : std::string("no finding");
    };
    const std::string bf16 = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar"])";
    const std::string none = R"(["","","","","0.","True"])";
    EXPECT_NE(
        math("[[2,8,1024,320],[2,8,1024,320],[2,8,1024,320],[],[],[]]", bf16, none).find("head dim 320"),
        std::string::npos);
    const std::string d256 = math("[[2,8,1024,256],[2,8,1024,256],[2,8,1024,256],[],[],[]]", bf16, none);
    EXPECT_EQ(d256.find("head dim"), std::string::npos) << d256;
    EXPECT_EQ(d256.find("What the inputs show"), std::string::npos) << d256;
    EXPECT_EQ(d256.find("CPU"), std::string::npos) << d256;
    EXPECT_NE(math("", "", "").find("does not record the op's inputs"), std::string::npos);
}

// On the CPU a cast counts when it copied: aten::to whose aten::copy_ ran right before SDPA's op.
TEST(Findings, ACpuCastThatCopiedIsAFinding) {
    const auto trace = loadText(R"({"deviceProperties":[],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::to","pid":7,"tid":7,"ts":0,"dur":40,"args":{"Input Dims":[[1,8,1024,64],[],[],[],[]],"Input type":["c10::BFloat16","","","",""]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_to_copy","pid":7,"tid":7,"ts":1,"dur":38,"args":{"Input Dims":[[1,8,1024,64]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":7,"tid":7,"ts":5,"dur":30,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":7,"tid":7,"ts":60,"dur":900,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":7,"tid":7,"ts":62,"dur":890,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}}]})");
    FindingThresholds all = FindingThresholds::standard();
    all.set("min_share", 0);
    const auto found = findingsOf(*trace, all);
    const Finding* f = findingOf(found, "casts_and_copies");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u);
    // A cast of a scalar (empty shapes: no op of it is a kernel) counts by the copy_ that ran inside it.
    const auto scalar = findingsOf(*loadText(R"({"deviceProperties":[],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::to","pid":7,"tid":7,"ts":0,"dur":40,"args":{"Input Dims":[[],[],[],[],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_to_copy","pid":7,"tid":7,"ts":1,"dur":38,"args":{"Input Dims":[[],[],[],[],[],[],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":7,"tid":7,"ts":5,"dur":30,"args":{"Input Dims":[[],[],[]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":7,"tid":7,"ts":62,"dur":890,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}}]})"),
                                   all);
    const Finding* s = findingOf(scalar, "casts_and_copies");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->count, 1u);
    // Nothing cast: no finding, even when none is too small to show.
    const auto flash = findingsOf(*loadText(R"({"deviceProperties":[],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_for_cpu","pid":7,"tid":7,"ts":62,"dur":890,"args":{"Input Dims":[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64]]}}]})"),
                                  all);
    EXPECT_EQ(findingOf(flash, "casts_and_copies"), nullptr);
}

// K/V heads repeated for grouped-query attention right before SDPA (transformers' repeat_kv where SDPA is
// not given enable_gqa): the copy under a reshape of an expand is the call's, named once; the same reshape
// after anything but an expand is not a repeat of heads.
static std::vector<Finding> repeatBeforeSdpa(const char* before) {
    GpuTrace t;
    t.add(
        std::string(R"({"ph":"X","cat":"cpu_op","name":")") + before +
        R"(","pid":100,"tid":100,"ts":1000,"dur":2,"args":{"Input Dims":[[2,2,1,128,16],[],[]],"Input type":["float","",""]}})");
    // reshape → clone → copy_, which launches the copy (as PyTorch runs a reshape that cannot be a view).
    t.add(
        R"({"ph":"X","cat":"cpu_op","name":"aten::reshape","pid":100,"tid":100,"ts":1003,"dur":20,"args":{"Input Dims":[[2,2,4,128,16],[]],"Input type":["float",""]}})");
    t.add(
        R"({"ph":"X","cat":"cpu_op","name":"aten::clone","pid":100,"tid":100,"ts":1004,"dur":18,"args":{"Input Dims":[[2,2,4,128,16],[]],"Input type":["float",""]}})");
    t.launch("aten::copy_", "[[2,2,4,128,16],[2,2,4,128,16],[]]", R"(["float","float",""])", 1005, 16,
             "direct_copy_kernel", 1007, 15);
    t.launch("aten::scaled_dot_product_attention", "[[2,8,128,16],[2,8,128,16],[2,8,128,16],[]]",
             R"(["float","float","float",""])", 1030, 50, "flash_fwd_kernel", 1040, 100);
    return findingsOf(*loadText(t.text()));
}

TEST(Findings, KvHeadsRepeatedBeforeAttentionAreNamedOnce) {
    const std::vector<Finding> all = repeatBeforeSdpa("aten::expand");
    const Finding* f = findingOf(all, "repeated_kv_heads");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u);
    EXPECT_EQ(f->timeNs, 15'000); // the copy kernel's time
    EXPECT_NE(f->evidence.at(0).note.find("[2, 2, 128, 16] → [2, 8, 128, 16], 131.1 kB written"),
              std::string::npos)
        << f->evidence.at(0).note;
    // Its copy is not a cast or copy besides: one finding claims its time.
    if (const Finding* c = findingOf(all, "casts_and_copies")) {
        EXPECT_EQ(c->timeNs, 0) << c->explanation;
    }
    EXPECT_EQ(findingOf(repeatBeforeSdpa("aten::view"), "repeated_kv_heads"), nullptr);
}
