// SPDX-License-Identifier: MIT
// Findings on real models: small Hugging Face transformers models built from configs with random weights,
// profiled on the CPU once per test run (tests/models/make_model_traces.py, the ModelTraces.Make fixture).
// Each rule on what real models' attention does holds on the model that does it, and is silent on the one
// an expert calls fine.
#include "invariants_support.h"
#include "support/test_support.h"

#include "core/analysis/call_inputs.h"
#include "core/document/document.h"
#include "core/report/compare.h"
#include "core/report/format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

using namespace attnscope;

namespace {

std::shared_ptr<const Document> model(const std::string& name) {
    const std::string path = std::string(ATTNSCOPE_MODEL_TRACES) + "/" + name + ".json";
    if (!std::filesystem::exists(path)) {
        ADD_FAILURE() << path << " was not made (ModelTraces.Make, with the PyTorch of `make test`)";
        return nullptr;
    }
    return openDocument(DocumentSource::file(path));
}

const Finding* findingOf(const Document& doc, std::string_view id) {
    for (const Finding& f : *doc.findings)
        if (f.id == id) return &f;
    return nullptr;
}

// The negative side of a rule: none of the models an expert calls fine for it has its finding.
void expectNoneOn(std::string_view id, std::initializer_list<const char*> names) {
    for (const char* name : names) {
        SCOPED_TRACE(name);
        const auto fine = model(name);
        ASSERT_TRUE(fine);
        EXPECT_EQ(findingOf(*fine, id), nullptr);
    }
}

// Time at stake there, and no more than the trace's span.
void expectWithinSpan(const Document& doc, const Finding& f) {
    EXPECT_GT(f.timeNs, 0);
    EXPECT_LT(f.timeNs, doc.trace->endNs() - doc.trace->startNs());
}

// Llama with 8 query heads over 2 K/V heads, eager: transformers' repeat_kv copies each K and V head 4
// times before the QKᵀ and PV matmuls, in each of 2 layers of 2 forward passes.
TEST(ModelFindings, EagerGroupedQueryAttentionCopiesItsKvHeads) {
    const auto doc = model("llama_gqa_eager");
    ASSERT_TRUE(doc);
    const Finding* f = findingOf(*doc, "repeated_kv_heads");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->count, 8u); // K and V, 2 layers, 2 passes
    EXPECT_NE(f->title.find("in 4 attention calls"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("each head ×4"), std::string::npos) << f->explanation;
    ASSERT_FALSE(f->evidence.empty());
    // [b, h_kv, s, d] → [b, h, s, d] in fp32: 2·8·384·32·4 bytes written.
    EXPECT_NE(f->evidence.front().note.find("[2, 2, 384, 32] → [2, 8, 384, 32], 786.4 kB written"),
              std::string::npos)
        << f->evidence.front().note;
    EXPECT_EQ(f->evidence.front().name, "aten::reshape");
    // The time at stake is the copies', inside the span and inside the calls' layers.
    expectWithinSpan(*doc, *f);
    EXPECT_NE(f->suggestion.find("enable_gqa=True"), std::string::npos);
}

// SDPA takes grouped K/V as they are (transformers passes enable_gqa=True), and a model with as many K/V
// heads as query heads has nothing to repeat: no finding on either.
TEST(ModelFindings, SdpaWithGroupedKvAndFullHeadAttentionCopyNoHeads) {
    for (const char* name : {"llama_gqa_sdpa", "llama_mha_eager"}) {
        SCOPED_TRACE(name);
        const auto doc = model(name);
        ASSERT_TRUE(doc);
        EXPECT_FALSE(doc->analysis->calls.empty()); // its attention was read
        EXPECT_EQ(findingOf(*doc, "repeated_kv_heads"), nullptr);
    }
}

// Eager attention computes on [b, h, s, d] views of the projections' [b, s, h, d] output: torch.matmul
// copies Q, Kᵀ and V into one contiguous batch before each GEMM, and transpose(1, 2).contiguous() copies the
// output back (read from the ops' recorded strides). With grouped K/V, repeat_kv's copies are already
// contiguous: only Q and the output are copied again. SDPA reads the views as they are: no finding.
TEST(ModelFindings, EagerAttentionCopiesQkvAndItsOutputToAnotherLayout) {
    const auto mha = model("llama_mha_eager");
    ASSERT_TRUE(mha);
    const Finding* f = findingOf(*mha, "layout_copies");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->count, 16u); // Q, Kᵀ, V and the output of 4 calls
    EXPECT_NE(f->explanation.find("(Q ×4, Kᵀ ×4, V ×4, the output ×4)"), std::string::npos) << f->explanation;
    expectWithinSpan(*mha, *f);
    bool output = false;
    for (const Evidence& e : f->evidence)
        output = output ||
                 e.note.find("the output [2, 384, 8, 32], strides [98304, 32, 12288, 1]: 786.4 kB copied") !=
                     std::string::npos;
    EXPECT_TRUE(output);
    EXPECT_NE(f->suggestion.find("scaled_dot_product_attention"), std::string::npos);
    const auto gqa = model("llama_gqa_eager");
    ASSERT_TRUE(gqa);
    const Finding* grouped = findingOf(*gqa, "layout_copies");
    ASSERT_TRUE(grouped);
    EXPECT_NE(grouped->explanation.find("(Q ×4, the output ×4)"), std::string::npos) << grouped->explanation;
    // The K/V repeats stay repeated_kv_heads' alone: no copy is counted by both.
    const Finding* repeats = findingOf(*gqa, "repeated_kv_heads");
    ASSERT_TRUE(repeats);
    for (const Evidence& a : grouped->evidence)
        for (const Evidence& b : repeats->evidence)
            EXPECT_FALSE(a.event == b.event) << a.name;
    expectNoneOn("layout_copies",
                 {"llama_gqa_sdpa", "gpt2_sdpa", "bert_sdpa_padded", "llama_gqa_sdpa_train"});
}

// Eager attention in training with dropout runs the dropout's kernels (on a CPU aten::bernoulli_, div_ and
// mul inside aten::dropout) in every call: expected work, so the calls keep their expected shape and no
// finding calls them unexpected.
TEST(ModelFindings, DropoutInTrainingIsWhatATrainingCallRuns) {
    const auto doc = model("llama_gqa_eager_train");
    ASSERT_TRUE(doc);
    std::size_t naive = 0;
    for (const AttentionCall& call : doc->analysis->calls) {
        if (call.impl != "naive") continue;
        ++naive;
        EXPECT_TRUE(call.unexpected.empty()) << call.kernelCount << " kernels, " << call.shapeText;
        EXPECT_GT(call.kernelCount, 4u); // QKᵀ, softmax, dropout, PV at least
    }
    EXPECT_EQ(naive, 4u); // 2 layers, 2 steps (the backward pass is not a call of its own)
    EXPECT_EQ(findingOf(*doc, "unexpected_kernels"), nullptr);
}

// SDPA in training with dropout leaves the fused CPU kernel for the math backend: the finding that says so
// and the calls every table counts (Attention dock, `compare`, the breakdown) are the same calls, and the
// reason is written as a person writes it (dropout_p 0.1, not 0.10000000000000001).
TEST(ModelFindings, SdpaInTrainingFallsBackOnceInEveryView) {
    const auto doc = model("llama_gqa_sdpa_train");
    ASSERT_TRUE(doc);
    const Finding* f = findingOf(*doc, "sdpa_math_fallback");
    ASSERT_TRUE(f);
    std::uint64_t math = 0;
    for (const ImplCalls& calls : doc->analysis->tables.implCalls)
        if (calls.impl == "SDPA math") math = calls.calls;
    EXPECT_EQ(math, 4u); // 2 layers, 2 steps
    EXPECT_EQ(f->count, math);
    EXPECT_NE(f->title.find("in 4 calls"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("dropout_p 0.1 (training) (4 calls)"), std::string::npos) << f->explanation;
    EXPECT_EQ(f->explanation.find("0.10000"), std::string::npos) << f->explanation;
    // Each math call's GEMMs are its QKᵀ and PV, with _safe_softmax's guard and dropout between them (six
    // kernels after the softmax): none of them an "unexpected" GEMM of a call "missing" its QKᵀ and PV.
    for (const AttentionCall& call : doc->analysis->calls) {
        int qk = 0, pv = 0;
        for (std::uint32_t k : call.kernels) {
            qk += doc->analysis->kernels[k].role == KernelRole::QkGemm;
            pv += doc->analysis->kernels[k].role == KernelRole::PvGemm;
        }
        EXPECT_EQ(qk, 1);
        EXPECT_EQ(pv, 1);
        EXPECT_TRUE(call.missing.empty());
        for (std::uint32_t k : call.unexpected) {
            const KernelRole r = doc->analysis->kernels[k].role;
            EXPECT_TRUE(r != KernelRole::Gemm && r != KernelRole::QkGemm && r != KernelRole::PvGemm);
        }
    }
}

// Eager attention in bf16 takes its softmax in fp32 (softmax(dtype=torch.float32), then .to(bf16)): on a CPU
// the scores are cast up inside the softmax and back after it, two casts a call, found as the calls' own
// time. An fp32 model's softmax casts nothing, and SDPA's fused kernel keeps it inside: no finding on either.
TEST(ModelFindings, EagerHalfPrecisionSoftmaxUpcastIsTwoCastsACall) {
    const auto doc = model("llama_gqa_eager_bf16");
    ASSERT_TRUE(doc);
    const Finding* f = findingOf(*doc, "softmax_upcast");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->count, 8u); // up and back, 2 layers, 2 passes
    EXPECT_NE(f->title.find("in 4 attention calls"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("of bf16 scores in fp32"), std::string::npos) << f->explanation;
    int up = 0, back = 0;
    for (const Evidence& e : f->evidence) {
        EXPECT_EQ(e.name, "aten::copy_");
        up += e.note == "the scores cast up to fp32 for the softmax";
        back += e.note == "the softmax's fp32 output cast back to bf16";
    }
    EXPECT_EQ(up + back, int(f->evidence.size()));
    EXPECT_GT(up, 0);
    EXPECT_GT(back, 0);
    // The casts run between the call's GEMMs: its own kernels (with no range around the call), so what the
    // expected call did not expect is these casts, said to be this finding's time, not time besides it.
    EXPECT_NE(f->explanation.find("8 casts are among the calls' own kernels"), std::string::npos)
        << f->explanation;
    const Finding* unexpected = findingOf(*doc, "unexpected_kernels");
    ASSERT_TRUE(unexpected);
    EXPECT_EQ(unexpected->timeNs, f->timeNs);
    EXPECT_NE(unexpected->explanation.find(formatDuration(f->timeNs) +
                                           " of it is the softmax's casts softmax_upcast names"),
              std::string::npos)
        << unexpected->explanation;
    expectWithinSpan(*doc, *f);
    expectNoneOn("softmax_upcast", {"llama_gqa_eager", "llama_gqa_sdpa"});
}

// Generation with transformers' default cache: each layer's K and V grow by torch.cat at every generated
// token (a copy of the whole past, growing with the length), and the calls are one prefill and a decode
// call a token per layer. A static cache writes each token in place, and a forward pass with no cache
// appends nothing: no finding on either.
TEST(ModelFindings, AKvCacheGrownByConcatenationIsCopiedAtEveryToken) {
    const auto doc = model("llama_gqa_generate");
    ASSERT_TRUE(doc);
    const Finding* f = findingOf(*doc, "kv_cache_concat");
    ASSERT_TRUE(f);
    // 15 appends after the first token (the first fills an empty cache), K and V, 2 layers, 2 generations.
    EXPECT_EQ(f->count, 15u * 2 * 2 * 2);
    EXPECT_NE(f->explanation.find("64 to 78 tokens before the append, 79 at the most"), std::string::npos)
        << f->explanation;
    // Per generation: a prefill call and 15 decode calls per layer (the 16th token needs no attention).
    EXPECT_NE(f->explanation.find("4 prefill (the prompt, many queries a call), 60 decode"),
              std::string::npos)
        << f->explanation;
    ASSERT_FALSE(f->evidence.empty());
    EXPECT_EQ(f->evidence.front().name, "aten::cat");
    EXPECT_NE(f->suggestion.find("cache_implementation=\"static\""), std::string::npos);
    expectWithinSpan(*doc, *f);
    expectNoneOn("kv_cache_concat", {"llama_gqa_generate_static", "llama_gqa_sdpa"});
}

// A model compiled with torch.compile, eager attention: Inductor fuses the softmax into a kernel the CPU
// profiler does not record and leaves the QKᵀ and PV GEMMs as aten::bmm. Each pair is a "compiled" call
// (4: 2 layers, 2 passes), the same 4 in the finding that says where the attention went and in every table,
// whose kernel time per call is said to be the GEMMs' alone. With SDPA the compiled graph keeps its fused op,
// which is an attention call: no finding.
TEST(ModelFindings, AttentionInsideTorchCompileIsNamedNotLeftSilent) {
    const auto doc = model("llama_gqa_eager_compiled");
    ASSERT_TRUE(doc);
    const Finding* f = findingOf(*doc, "compiled_attention");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->count, 4u);
    EXPECT_NE(f->title.find("4 calls keep their N×N scores in memory"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("torch.compile regions took "), std::string::npos) << f->explanation;
    // [16, 256, 256] scores a call (batch 2 × 8 heads, 256 tokens).
    EXPECT_NE(f->explanation.find("4,194,304 scores in all"), std::string::npos) << f->explanation;
    expectWithinSpan(*doc, *f);
    ASSERT_EQ(doc->analysis->calls.size(), 4u);
    ASSERT_EQ(doc->analysis->tables.implCalls.size(), 1u);
    const ImplCalls& compiled = doc->analysis->tables.implCalls[0];
    EXPECT_EQ(compiled.impl, "compiled");
    EXPECT_EQ(compiled.calls, f->count);
    EXPECT_EQ(compiled.kernelsPerCall(), 2.0);
    EXPECT_EQ(compiled.mismatchedCalls, 0u); // its expected shape: the two GEMMs
    for (const AttentionCall& call : doc->analysis->calls) {
        EXPECT_EQ(doc->analysis->kernels[call.kernels[0]].role, KernelRole::QkGemm);
        EXPECT_EQ(doc->analysis->kernels[call.kernels[1]].role, KernelRole::PvGemm);
    }
    // The fused softmax's time is the finding's, between the GEMMs: the calls' span less their kernels'.
    EXPECT_EQ(f->timeNs, compiled.totalNs - compiled.kernelNs);
    Comparison c;
    c.traces = {compareEntry(*doc, "compiled")};
    const std::string text = formatComparison(c, CompareFormat::Text);
    EXPECT_EQ(text.find("(no attention call)"), std::string::npos) << text;
    EXPECT_NE(text.find("its kernel time per call is the GEMMs' (" +
                        formatDuration(compiled.kernelNsPerCall()) + ")"),
              std::string::npos)
        << text;
    const auto sdpa = model("llama_gqa_sdpa_compiled");
    ASSERT_TRUE(sdpa);
    EXPECT_EQ(findingOf(*sdpa, "compiled_attention"), nullptr);
    EXPECT_EQ(sdpa->analysis->calls.size(), 4u);
}

// Training with activation checkpointing: each layer's forward runs again in the backward pass, attention
// included: 8 calls where the model has 2 layers over 2 steps, 4 of them inside autograd's backward. The
// same training without checkpointing runs each call once.
TEST(ModelFindings, CheckpointingRunsAttentionAgainInTheBackwardPass) {
    const auto doc = model("llama_gqa_sdpa_train_checkpointed");
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->analysis->calls.size(), 8u);
    const Finding* f = findingOf(*doc, "recomputed_attention");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->count, 4u);
    EXPECT_NE(f->title.find("4 attention calls run again in the backward pass"), std::string::npos)
        << f->title;
    EXPECT_NE(f->explanation.find("Of the trace's 8 attention calls, 4 ran inside the backward pass"),
              std::string::npos)
        << f->explanation;
    expectWithinSpan(*doc, *f);
    // Attention written by hand, checkpointed: its calls have no host range of their own, and are found
    // run again all the same (the outermost op around its kernels is autograd's evaluation itself).
    const auto eager = model("llama_gqa_eager_train_checkpointed");
    ASSERT_TRUE(eager);
    EXPECT_EQ(eager->analysis->calls.size(), 8u);
    const Finding* again = findingOf(*eager, "recomputed_attention");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->count, 4u);
    // The calls run again copy their layouts as the first ones do: every view counts the 8 (the copies' walk
    // had stopped at autograd's evaluation around the calls run again, counting 4).
    const Finding* copies = findingOf(*eager, "layout_copies");
    ASSERT_TRUE(copies);
    EXPECT_NE(copies->title.find("in 8 attention calls"), std::string::npos) << copies->title;
    expectNoneOn("recomputed_attention", {"llama_gqa_sdpa_train", "llama_gqa_eager_train"});
}

// A training step's backward pass is no call of its own, but its time is the call's: each call's gradient
// kernels (autograd's nodes for its ops: both GEMMs' gradients, two GEMMs each, and the softmax's, or SDPA's
// math backend's) are found by the sequence numbers the profiler records, after the call and in no call,
// and every view shows their time per call beside the forward's. Inference has none; under checkpointing
// the backward is the calls' run again inside it, not the first forward's.
TEST(ModelCalls, ABackwardPassIsItsCallsTimeBesideTheForward) {
    for (const char* name : {"llama_gqa_sdpa_train", "llama_gqa_eager_train"}) {
        SCOPED_TRACE(name);
        const auto doc = model(name);
        ASSERT_TRUE(doc);
        const TraceAnalysis& a = *doc->analysis;
        ASSERT_EQ(a.calls.size(), 4u);
        std::set<std::uint32_t> seen;
        for (const AttentionCall& call : a.calls) {
            std::size_t gemms = 0, softmaxBackward = 0;
            for (std::uint32_t k : call.backward) {
                EXPECT_EQ(a.kernels[k].call, -1);
                EXPECT_TRUE(seen.insert(k).second) << "a kernel in two calls' backward";
                const EventRef e = a.kernels[k].event;
                EXPECT_GE(doc->trace->track(e.track).events.start[e.index], call.end);
                const std::string_view kernel =
                    doc->trace->str(doc->trace->track(e.track).events.name[e.index]);
                gemms += kernel == "aten::bmm";
                softmaxBackward += kernel.find("softmax_backward") != std::string_view::npos;
            }
            EXPECT_EQ(gemms, 4u); // QKᵀ's and PV's gradients, two each
            EXPECT_EQ(softmaxBackward, 1u);
        }
        ASSERT_EQ(a.tables.implCalls.size(), 1u);
        const ImplCalls& row = a.tables.implCalls[0];
        EXPECT_EQ(row.backwardCalls, 4u);
        ASSERT_TRUE(row.backwardNsPerCall());
        EXPECT_GT(*row.backwardNsPerCall(), 0);
        EXPECT_LT(*row.backwardNsPerCall() * 4, doc->trace->endNs() - doc->trace->startNs());
        // One figure in every view: the summary's line, compare's column.
        EXPECT_NE(formatSummaries({{name, *doc->summary, ""}}, SummaryFormat::Text)
                      .find(row.impl + " backward: " + formatDuration(*row.backwardNsPerCall()) +
                            " of kernels a call"),
                  std::string::npos);
        Comparison c;
        c.traces = {compareEntry(*doc, name)};
        const CompareTable table = compareTable(c);
        const auto column = std::find(table.header.begin(), table.header.end(), "backward/call");
        ASSERT_NE(column, table.header.end());
        EXPECT_EQ(table.lines[0].cells[std::size_t(column - table.header.begin())],
                  formatDuration(*row.backwardNsPerCall()));
    }
    const auto checkpointed = model("llama_gqa_eager_train_checkpointed");
    ASSERT_TRUE(checkpointed);
    std::size_t withBackward = 0;
    for (const AttentionCall& call : checkpointed->analysis->calls) {
        withBackward += !call.backward.empty();
        for (std::uint32_t k : call.backward)
            EXPECT_EQ(checkpointed->analysis->kernels[k].call, -1);
    }
    EXPECT_EQ(withBackward, 4u); // the 4 calls run again; the first forward's were not differentiated
    for (const char* name : {"llama_gqa_sdpa", "llama_gqa_eager", "llama_gqa_generate"}) {
        SCOPED_TRACE(name);
        const auto doc = model(name);
        ASSERT_TRUE(doc);
        for (const AttentionCall& call : doc->analysis->calls)
            EXPECT_TRUE(call.backward.empty());
        Comparison c;
        c.traces = {compareEntry(*doc, name)};
        const CompareTable table = compareTable(c);
        EXPECT_EQ(std::find(table.header.begin(), table.header.end(), "backward/call"), table.header.end());
    }
}

// Multi-query attention (one K/V head), eager: repeat_kv's reshape of the expand is a view of stride 0 over
// the heads, and each matmul that reads it copies it ([2, 8, 32, 384] for K transposed, [2, 8, 384, 32] for
// V): those copies are the repeat's, one per K and V per call, never one copy twice.
TEST(ModelFindings, MultiQueryAttentionsRepeatIsCopiedByTheMatmulThatReadsIt) {
    const auto doc = model("llama_mqa_eager");
    ASSERT_TRUE(doc);
    const Finding* f = findingOf(*doc, "repeated_kv_heads");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->count, 8u); // K and V, 2 layers, 2 passes
    EXPECT_NE(f->title.find("multi-query attention in 4 attention calls"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("each head ×8"), std::string::npos) << f->explanation;
    ASSERT_FALSE(f->evidence.empty());
    EXPECT_NE(
        f->evidence.front().note.find("[2, 1, 384, 32] → [2, 8, 384, 32], 786.4 kB written by the matmul "
                                      "that reads it"),
        std::string::npos)
        << f->evidence.front().note;
    EXPECT_GT(f->timeNs, 0);
}

// GPT-2 (its own eager attention, multi-head) and BERT with a padding mask: eager attention is attention
// written by hand, and nothing else is claimed of it (no K/V repeat, no upcast, no cache, no recompute);
// with SDPA both run a fused call each, and the only thing said of BERT's is that SDPA turns its boolean
// padding mask into a float one in every call, with no word of is_causal (a padding mask is not causal)
// and no "unexpected" kernel for that same work.
TEST(ModelFindings, Gpt2AndBertReadAsAnExpertReadsThem) {
    for (const char* name : {"gpt2_eager", "bert_eager_padded"}) {
        SCOPED_TRACE(name);
        const auto doc = model(name);
        ASSERT_TRUE(doc);
        EXPECT_EQ(doc->analysis->calls.size(), 4u); // 2 layers, 2 passes
        EXPECT_TRUE(findingOf(*doc, "hand_written_attention"));
        for (const char* none :
             {"repeated_kv_heads", "softmax_upcast", "kv_cache_concat", "recomputed_attention",
              "compiled_attention", "sdpa_math_fallback", "latency_bound"})
            EXPECT_EQ(findingOf(*doc, none), nullptr) << none;
    }
    const auto gpt2 = model("gpt2_sdpa");
    ASSERT_TRUE(gpt2);
    EXPECT_EQ(gpt2->analysis->calls.size(), 4u);
    EXPECT_TRUE(gpt2->findings->empty()) << gpt2->findings->front().id;
    const auto bert = model("bert_sdpa_padded");
    ASSERT_TRUE(bert);
    EXPECT_EQ(bert->analysis->calls.size(), 4u);
    const Finding* mask = findingOf(*bert, "mask_per_call");
    ASSERT_TRUE(mask);
    EXPECT_NE(mask->title.find("converts its boolean mask again in each of 4 calls"), std::string::npos)
        << mask->title;
    EXPECT_EQ(mask->suggestion.find("is_causal"), std::string::npos) << mask->suggestion;
    EXPECT_EQ(findingOf(*bert, "unexpected_kernels"), nullptr);
    EXPECT_EQ(bert->findings->size(), 1u);
}

// Gemma 2 caps its scores with tanh between QKᵀ and the softmax (scale, division, tanh, multiplication,
// mask: five kernels before the softmax): its calls are found all the same, attention written by hand, and
// the soft cap is part of the call's expected shape, not "unexpected" work.
TEST(ModelFindings, GemmasSoftCappedAttentionIsACall) {
    const auto doc = model("gemma2_eager");
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->analysis->calls.size(), 4u); // 2 layers, 2 passes
    EXPECT_TRUE(findingOf(*doc, "hand_written_attention"));
    EXPECT_TRUE(findingOf(*doc, "repeated_kv_heads"));
    EXPECT_EQ(findingOf(*doc, "unexpected_kernels"), nullptr);
}

// Each call says what it computes, read from the trace: the SDPA op's inputs (shape, GQA heads, causal,
// the mask's dtype, dropout in training), the QKᵀ bmm's of attention written by hand (its batch × heads), a
// generation's prefill and decode calls as many shapes.
TEST(ModelCalls, EachCallSaysWhatItComputes) {
    auto inputsOf = [](const char* name) {
        const auto doc = model(name);
        std::vector<CallInputs> all;
        if (doc)
            for (const AttentionCall& call : doc->analysis->calls)
                if (auto in = callInputs(*doc->trace, *doc->analysis, call)) all.push_back(*in);
        return all;
    };
    const auto sdpa = inputsOf("llama_gqa_sdpa");
    ASSERT_EQ(sdpa.size(), 4u); // every call
    EXPECT_EQ(sdpa[0].text(),
              "batch 2 × 8 heads (2 KV) · 384 queries × 384 keys · head dim 32 · fp32 · causal · enable_gqa");
    const auto eager = inputsOf("llama_gqa_eager");
    ASSERT_EQ(eager.size(), 4u);
    EXPECT_EQ(eager[0].text(), "16 batch × heads · 384 queries × 384 keys · head dim 32 · fp32 · masked");
    EXPECT_TRUE(eager[0].masked); // transformers adds its causal mask to the scores ([B, 1, N, N])
    EXPECT_TRUE(eager[0].sameShape(sdpa[0])); // the same work, written two ways
    const auto train = inputsOf("llama_gqa_sdpa_train");
    ASSERT_FALSE(train.empty());
    EXPECT_DOUBLE_EQ(train[0].dropout, 0.1);
    const auto bert = inputsOf("bert_sdpa_padded");
    ASSERT_FALSE(bert.empty());
    EXPECT_EQ(bert[0].mask, "bool");
    EXPECT_FALSE(bert[0].causal);
    const auto generate = inputsOf("llama_gqa_generate");
    ASSERT_GT(generate.size(), 4u);
    EXPECT_EQ(generate.front().queryLen, generate.front().keyLen); // the prefill
    EXPECT_EQ(generate.back().queryLen, 1);                        // a decode step
    EXPECT_GT(generate.back().keyLen, generate.front().keyLen);
}

// Compare says when the calls it compares are not the same work (their times per call then compare shapes,
// not implementations), and is silent when they are: eager and SDPA Llama on the same inputs.
TEST(ModelCalls, CompareWarnsWhenTheCallsAreNotTheSameWork) {
    const std::string dir = ATTNSCOPE_MODEL_TRACES;
    const Comparison same = compareFiles({dir + "/llama_gqa_eager.json", dir + "/llama_gqa_sdpa.json"}, 0);
    ASSERT_EQ(same.traces.size(), 2u);
    ASSERT_TRUE(same.traces[0].rows.front().inputs && same.traces[1].rows.front().inputs);
    EXPECT_EQ(same.shapeWarning(), "");
    const Comparison other = compareFiles({dir + "/llama_gqa_eager.json", dir + "/gpt2_eager.json"}, 0);
    const std::string warning = other.shapeWarning();
    EXPECT_NE(warning.find("not the same work"), std::string::npos) << warning;
    EXPECT_NE(warning.find("gpt2_eager.json · naive: 16 batch × heads · 256 queries × 256 keys"),
              std::string::npos)
        << warning;
    EXPECT_NE(formatComparison(other, CompareFormat::Text)
                  .find("warning: the calls compared are not the same work"),
              std::string::npos);
}

// A generation's decode calls (one query against the KV cache) are their implementation's "decode" case,
// not averaged with its prefill calls into one row (the Attention dock showed one "flash" row of 64 calls,
// 140 µs each, beside a 4 ms prefill); a call of many queries keeps its name.
TEST(ModelCalls, AGenerationsDecodeCallsAreARowOfTheirOwn) {
    const auto doc = model("llama_gqa_generate");
    ASSERT_TRUE(doc);
    std::map<std::string, std::uint64_t> calls;
    for (const ImplCalls& impl : doc->analysis->tables.implCalls)
        calls[impl.impl] = impl.calls;
    EXPECT_EQ(calls["flash"], 4u);         // the prefill of each of 2 layers, 2 generations
    EXPECT_EQ(calls["flash decode"], 60u); // every token after it
    EXPECT_EQ(calls.size(), 2u);
    const auto sdpa = model("llama_gqa_sdpa");
    ASSERT_TRUE(sdpa);
    ASSERT_EQ(sdpa->analysis->tables.implCalls.size(), 1u);
    EXPECT_EQ(sdpa->analysis->tables.implCalls.front().impl, "flash");
}

} // namespace

// Every model trace holds the invariants every fixture does (test_invariants.cpp): training's backward
// passes, generation's decode calls, compiled regions and checkpointing's calls run again included.
TEST(ModelCalls, EveryModelTraceHoldsTheInvariants) {
    std::size_t traces = 0;
    for (const auto& entry : std::filesystem::directory_iterator(ATTNSCOPE_MODEL_TRACES)) {
        if (entry.path().extension() != ".json") continue;
        DocumentOptions options;
        options.cpuRoofs = CpuRoofsChoice::None; // no machine's measured roofs: the same answer anywhere
        test::expectInvariants(*openDocument(DocumentSource::file(entry.path().string()), options),
                               entry.path().filename().string());
        ++traces;
    }
    EXPECT_GE(traces, 18u); // every entry of make_model_traces.py's MODELS
}
