// SPDX-License-Identifier: MIT
// The post's lessons ("Profiling in PyTorch (Part 3): Attention is all you profile") on GPU traces
// written as Kineto writes them, with the kernels the post shows (A100, bf16, seq 4096 is not needed:
// the names, the ops around them and the times are what the rules read): each lesson found where the
// post finds it, and not where the post calls the trace fine.
#include "post_trace.h"

#include <set>

namespace attnscope::test {

// The naive trace's lesson: the out-of-place masked_fill's clone is a Memcpy in every call, named with
// the op that made it and the bytes (the scores, bf16: 16 MiB); masked_fill_ makes none.
TEST(FindingsLessons, TheOutOfPlaceMaskedFillsCopyIsNamedAndTheInPlaceOneHasNone) {
    const auto naive = naiveTrace(false).open();
    ASSERT_TRUE(naive->analysis);
    ASSERT_EQ(naive->analysis->calls.size(), 4u);
    const auto found = findingsOfDoc(*naive);
    const Finding* f = findingOf(found, "out_of_place_copy");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 4u);
    EXPECT_EQ(f->timeNs, 4 * 9000); // the four Memcpy's 9 µs
    EXPECT_NE(f->title.find("masked_fill"), std::string::npos) << f->title;
    ASSERT_FALSE(f->evidence.empty());
    EXPECT_EQ(f->evidence[0].name, "Memcpy DtoD (Device -> Device)");
    EXPECT_NE(f->evidence[0].note.find("aten::masked_fill → aten::clone: 33.55 MB read and written"),
              std::string::npos)
        << f->evidence[0].note;
    EXPECT_NE(f->suggestion.find("masked_fill_"), std::string::npos);
    EXPECT_NE(f->suggestion.find("no_grad"), std::string::npos);
    // Six kernels per forward, the Memcpy among them (Figure 3); five in place (Figure 7).
    ASSERT_EQ(naive->analysis->tables.implCalls.size(), 1u);
    EXPECT_EQ(naive->analysis->tables.implCalls[0].impl, "naive");
    EXPECT_DOUBLE_EQ(naive->analysis->tables.implCalls[0].kernelsPerCall(), 6.0);

    const auto inPlace = naiveTrace(true).open();
    EXPECT_EQ(findingOf(findingsOfDoc(*inPlace), "out_of_place_copy"), nullptr);
    EXPECT_NE(findingOf(findingsOfDoc(*inPlace), "hand_written_attention"), nullptr);
    ASSERT_EQ(inPlace->analysis->tables.implCalls.size(), 1u);
    EXPECT_DOUBLE_EQ(inPlace->analysis->tables.implCalls[0].kernelsPerCall(), 5.0);
}

// SDPA math (Figures 9–13): the fp32 GEMMs (sgemm: the tensor cores left vacant) and casts, the mask
// built in every call (triu_tril_kernel, where), _safe_softmax's three extra kernels.
TEST(FindingsLessons, TheMathBackendsUpcastMaskAndSafeSoftmaxAreFound) {
    const auto math = mathTrace().open();
    ASSERT_TRUE(math->analysis);
    ASSERT_EQ(math->analysis->calls.size(), 4u);
    EXPECT_EQ(math->analysis->calls[0].impl, kSdpaMathImpl);
    const auto found = findingsOfDoc(*math);
    const Finding* upcast = findingOf(found, "math_upcast");
    ASSERT_NE(upcast, nullptr);
    EXPECT_EQ(upcast->count, 4u * (2 + 4)); // 2 sgemm and 4 casts per call
    EXPECT_NE(upcast->explanation.find("8 fp32 GEMMs"), std::string::npos) << upcast->explanation;
    EXPECT_NE(upcast->explanation.find("tensor cores are left vacant"), std::string::npos);
    EXPECT_NE(upcast->explanation.find("16 casts"), std::string::npos);
    EXPECT_EQ(upcast->evidence[0].name.rfind("ampere_sgemm", 0), 0u);
    // At stake: the casts (3 × 4 + 12 µs a call) and the GEMMs' time beyond the bf16 roof's (A100:
    // fp32 19.5 of bf16 312 TFLOP/s): 80 µs × (1 − 19.5/312) a call.
    EXPECT_NEAR(double(upcast->timeNs), 4 * (24e3 + 80e3 * (1 - 19.5 / 312)), 4.0);
    // The casts are the upcast's: casts_and_copies does not count them again.
    EXPECT_EQ(findingOf(found, "casts_and_copies"), nullptr);

    const Finding* mask = findingOf(found, "mask_per_call");
    ASSERT_NE(mask, nullptr);
    EXPECT_EQ(mask->count, 4u * 3); // fill_ (ones), tril, where
    EXPECT_EQ(mask->timeNs, 4 * (2 + 3 + 3) * 1000);
    EXPECT_NE(mask->explanation.find("is_causal=True"), std::string::npos);
    EXPECT_NE(mask->suggestion.find("build it once"), std::string::npos);

    const Finding* safe = findingOf(found, "safe_softmax");
    ASSERT_NE(safe, nullptr);
    EXPECT_EQ(safe->count, 4u * 3);
    EXPECT_EQ(safe->timeNs, 4 * (10 + 8 + 14) * 1000);
    EXPECT_NE(safe->explanation.find("aten::isneginf ×4"), std::string::npos) << safe->explanation;
    EXPECT_NE(safe->explanation.find("NaN"), std::string::npos);
}

// A mask kernel named triu_tril in each call, launched from no op that builds masks (a trace whose names
// hold no ones, tril, where…): still a mask built on every call.
TEST(FindingsLessons, ATriuTrilKernelInEachCallIsAMaskBuiltWithoutAMakerOp) {
    const auto doc =
        naiveTrace(true, 4, "void at::native::triu_tril_kernel<c10::BFloat16, int, false, 4, true>").open();
    ASSERT_EQ(doc->analysis->calls.size(), 4u);
    const auto found = findingsOfDoc(*doc);
    const Finding* mask = findingOf(found, "mask_per_call");
    ASSERT_NE(mask, nullptr);
    EXPECT_EQ(mask->count, 4u);
    EXPECT_EQ(mask->timeNs, 4 * 10 * 1000);
    // Named by the kernel, no op having built the mask.
    EXPECT_NE(mask->explanation.find("triu_tril_kernel<c10::BFloat16, int, false, 4, true> ×4"),
              std::string::npos)
        << mask->explanation;
    EXPECT_EQ(mask->evidence.front().note,
              "builds the mask (void at::native::triu_tril_kernel<c10::BFloat16, int, false, 4, true>)");
}

// More calls than a finding shows, each a microsecond longer on the host than the one before: the
// longest are shown, longest first, each with its host and kernel time.
TEST(FindingsLessons, HostBoundEvidenceIsTheLongestCallsWithTheirTimes) {
    const auto doc = fusedTrace("aten::_scaled_dot_product_cudnn_attention", kCudnnKernel, 214, 186.3,
                                "cuLaunchKernelEx", launchArgs(240, 0, 0), 30, 1)
                         .open();
    const auto found = findingsOfDoc(*doc);
    const Finding* f = findingOf(found, "host_bound_attention");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 30u);
    ASSERT_EQ(f->evidence.size(), 20u); // max_evidence
    EXPECT_EQ(f->evidence.front().note, "host 243.000 µs, kernels 186.300 µs");
    EXPECT_EQ(f->evidence.back().note, "host 224.000 µs, kernels 186.300 µs");
    for (std::size_t i = 1; i < f->evidence.size(); ++i)
        EXPECT_GT(f->evidence[i - 1].durNs, f->evidence[i].durNs) << i;
}

// The naive versions build their mask once, outside the calls, and run bf16 GEMMs on the tensor cores
// with a plain softmax: none of the math backend's lessons applies.
TEST(FindingsLessons, NaiveAttentionHasNoneOfTheMathBackendsLessons) {
    for (bool inPlace : {false, true}) {
        const auto found = findingsOfDoc(*naiveTrace(inPlace).open());
        EXPECT_EQ(findingOf(found, "math_upcast"), nullptr);
        EXPECT_EQ(findingOf(found, "mask_per_call"), nullptr);
        EXPECT_EQ(findingOf(found, "safe_softmax"), nullptr);
        EXPECT_EQ(findingOf(found, "host_bound_attention"), nullptr);
    }
}

// The cuDNN lesson (its table): 214 µs of host per call against 186.3 µs of GPU — host-bound, the time
// in the public op's own time; flash (138 against 146.8) and efficient (117 against 277.9) are not.
TEST(FindingsLessons, CudnnsHostTimeAboveItsGpuTimeIsFoundAndFlashsIsNot) {
    const auto cudnn = fusedTrace("aten::_scaled_dot_product_cudnn_attention", kCudnnKernel, 214, 186.3,
                                  "cuLaunchKernelEx", launchArgs(240, 0, 0))
                           .open();
    ASSERT_TRUE(cudnn->analysis);
    ASSERT_EQ(cudnn->analysis->tables.implCalls.size(), 1u);
    const ImplCalls& impl = cudnn->analysis->tables.implCalls[0];
    EXPECT_EQ(impl.impl, "cuDNN SDPA");
    EXPECT_EQ(impl.calls, 8u);
    EXPECT_EQ(impl.hostNsPerCall(), 214000); // the attn_fwd range: the outermost around one call
    EXPECT_EQ(impl.kernelNsPerCall(), 186300);
    const auto found = findingsOfDoc(*cudnn);
    const Finding* f = findingOf(found, "host_bound_attention");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 8 * (214000 - 186300));
    EXPECT_NE(f->title.find("214.000 µs on the host per call against 186.300 µs of kernels"),
              std::string::npos)
        << f->title;
    // Where the host's time sits: each op's own time per call, the public op's first (212 µs less its
    // backend op's 64.2), then the backend op's (less its 1 µs launch), then the range's own 2 µs.
    EXPECT_NE(f->explanation.find("sits in aten::scaled_dot_product_attention 147.800 µs of its own, "
                                  "aten::_scaled_dot_product_cudnn_attention 63.200 µs of its own, attn_fwd "
                                  "2.000 µs of its own."),
              std::string::npos)
        << f->explanation;
    EXPECT_EQ(f->evidence[0].name, "attn_fwd");
    EXPECT_EQ(f->evidence[0].note, "host 214.000 µs, kernels 186.300 µs");
    // Its 0% occupancy is CUPTI's gap for cuLaunchKernelEx, not a finding (the post, Figure 23).
    EXPECT_EQ(findingOf(found, "low_occupancy"), nullptr);

    for (const auto& [op, kernel, host, gpu] :
         {std::tuple{"aten::_scaled_dot_product_flash_attention",
                     "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>", 138.0,
                     146.8},
          std::tuple{"aten::_scaled_dot_product_efficient_attention",
                     "fmha_cutlassF_bf16_aligned_64x64_rf_sm80", 117.0, 277.9}}) {
        const auto doc =
            fusedTrace(op, kernel, host, gpu, "cudaLaunchKernel", launchArgs(255, 49152, 13)).open();
        const auto all = findingsOfDoc(*doc);
        EXPECT_EQ(findingOf(all, "host_bound_attention"), nullptr) << kernel;
        EXPECT_EQ(findingOf(all, "low_occupancy"), nullptr) << kernel; // flash's 13%: by design
        for (std::string_view id : {"out_of_place_copy", "math_upcast", "mask_per_call", "safe_softmax"})
            EXPECT_EQ(findingOf(all, id), nullptr) << kernel << " " << id;
        ASSERT_EQ(doc->analysis->tables.implCalls.size(), 1u);
        EXPECT_DOUBLE_EQ(doc->analysis->tables.implCalls[0].kernelsPerCall(), 1.0);
    }
}

// A copy no out-of-place op made — .contiguous() of a transposed tensor, a clone with no in-place twin
// after it — is not the masked_fill lesson (casts_and_copies' domain), though it is the call's kernel.
TEST(FindingsLessons, ACopyWithoutAnInPlaceTwinIsNotAnOutOfPlaceCopy) {
    PostTrace t = naiveTrace(true);
    for (int i = 0; i < 4; ++i) {
        const double h = 1000 + 100 * i, g = 2000 + 100 * i;
        t.op("aten::contiguous", h + 27, 10, "[" + kS + ",[]]", "[" + kBf16 + ",\"Scalar\"]");
        t.op("aten::clone", h + 28, 8, "[" + kS + ",[]]", "[" + kBf16 + ",\"Scalar\"]");
        t.op("aten::copy_", h + 29, 6, "[" + kS + "," + kS + ",[]]",
             "[" + kBf16 + "," + kBf16 + ",\"Scalar\"]");
        t.launch(h + 30, "Memcpy DtoD (Device -> Device)", g + 35, 8, "cudaMemcpyAsync", "gpu_memcpy");
    }
    const auto doc = t.open();
    ASSERT_EQ(doc->analysis->tables.implCalls.size(), 1u);
    EXPECT_DOUBLE_EQ(doc->analysis->tables.implCalls[0].kernelsPerCall(), 6.0); // the copy is the call's
    EXPECT_EQ(findingOf(findingsOfDoc(*doc), "out_of_place_copy"), nullptr);
}

// A call's host range is its own: inside a model's range that holds every call, each call's is its
// attn_fwd, and the host time per call is attn_fwd's.
TEST(FindingsLessons, ACallsHostRangeIsTheOutermostThatHoldsNoOtherCall) {
    PostTrace t = naiveTrace(false);
    t.range("model_fwd", 900, 600);
    const auto doc = t.open();
    ASSERT_EQ(doc->analysis->calls.size(), 4u);
    for (const AttentionCall& call : doc->analysis->calls) {
        ASSERT_TRUE(call.scope);
        EXPECT_EQ(doc->trace->str(doc->trace->track(call.scope->track).events.name[call.scope->index]),
                  "attn_fwd");
    }
    EXPECT_EQ(doc->analysis->tables.implCalls[0].hostNsPerCall(), 60000);
}

// One call of the math backend builds its mask once: not a mask built again.
TEST(FindingsLessons, OneCallsMaskIsNotAMaskBuiltAgain) {
    const auto found = findingsOfDoc(*mathTrace(1).open());
    EXPECT_EQ(findingOf(found, "mask_per_call"), nullptr);
    EXPECT_NE(findingOf(found, "math_upcast"), nullptr);
    EXPECT_NE(findingOf(found, "safe_softmax"), nullptr);
}

} // namespace attnscope::test
