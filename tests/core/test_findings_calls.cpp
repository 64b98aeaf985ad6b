// SPDX-License-Identifier: MIT
// The post's lessons about a call's kernels on the post's traces (post_trace.h): the out-of-place copy with no
// range around the call, kernels a call was not expected to run, masks built in the call, and the finding
// that learns a saving measured on its shape.
#include "post_trace.h"

#include <set>

namespace attnscope::test {

// Without a range around each call (most scripts), the masked_fill's copy between the GEMMs is the call's
// all the same: six kernels a call, its time in the call's, and what the call did not expect is that copy,
// as with the range. A copy from the host on the same stream is not attention's work.
TEST(FindingsLessons, TheOutOfPlaceCopyIsTheCallsWithoutARangeAroundIt) {
    auto trace =
        naiveTrace(false, 4, "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", 1, false);
    trace.launch(1009.2, "Memcpy HtoD (Pageable -> Device)", 2012.2, 0.5, "cudaMemcpyAsync", "gpu_memcpy");
    const auto naive = trace.open();
    ASSERT_EQ(naive->analysis->calls.size(), 4u);
    const ImplCalls& impl = naive->analysis->tables.implCalls.at(0);
    EXPECT_EQ(impl.impl, "naive");
    EXPECT_DOUBLE_EQ(impl.kernelsPerCall(), 6.0);
    // The call's kernels in their order: QKᵀ first, the copy after the scale, PV last.
    const AttentionCall& first = naive->analysis->calls.front();
    ASSERT_EQ(first.kernels.size(), 6u);
    EXPECT_EQ(naive->analysis->kernels[first.kernels.front()].role, KernelRole::QkGemm);
    EXPECT_EQ(naive->analysis->kernels[first.kernels[2]].role, KernelRole::Copy);
    EXPECT_EQ(naive->analysis->kernels[first.kernels.back()].role, KernelRole::PvGemm);
    // Its kernel time: the GEMMs' 12 + 12, the scale's 10, the copy's 9, the fill's 10, the softmax's 15.
    EXPECT_EQ(impl.kernelNs, 4 * TimeNs(68000));
    const auto found = findingsOfDoc(*naive);
    const Finding* copy = findingOf(found, "out_of_place_copy");
    const Finding* unexpected = findingOf(found, "unexpected_kernels");
    ASSERT_NE(copy, nullptr);
    ASSERT_NE(unexpected, nullptr);
    EXPECT_EQ(copy->timeNs, 4 * 9000);
    EXPECT_EQ(unexpected->timeNs, copy->timeNs);
    EXPECT_EQ(unexpected->title,
              "naive: 6 kernels per call where 5 are expected: Memcpy DtoD (Device -> Device)");
    // In place: five, no copy.
    const auto inPlace =
        naiveTrace(true, 4, "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", 1, false)
            .open();
    EXPECT_DOUBLE_EQ(inPlace->analysis->tables.implCalls.at(0).kernelsPerCall(), 5.0);
}

// "Guess first, then look" on the post's GPU traces: naive's call expected as QKᵀ, scale, mask,
// softmax, PV runs a sixth kernel, the Memcpy out-of-place masked_fill makes, named with its op and
// outlined (unexpected); in place, flash and cuDNN run what is expected, and so do the math backend's
// own kernels against a shape that names them all.
TEST(FindingsLessons, AKernelACallWasNotExpectedToRunIsNamedWithItsOp) {
    const auto naive = naiveTrace(false).open();
    const auto found = findingsOfDoc(*naive);
    const Finding* f = findingOf(found, "unexpected_kernels");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->title, "naive: 6 kernels per call where 5 are expected: Memcpy DtoD (Device -> Device)");
    EXPECT_NE(f->explanation.find("Memcpy DtoD (Device -> Device) (copy) from aten::masked_fill"),
              std::string::npos)
        << f->explanation;
    EXPECT_EQ(f->count, 4u);
    EXPECT_EQ(f->timeNs, 4 * 9000);
    EXPECT_NE(f->severity, Severity::Critical);
    ASSERT_FALSE(f->evidence.empty());
    EXPECT_EQ(f->evidence[0].name, "Memcpy DtoD (Device -> Device)");
    const ImplCalls& impl = naive->analysis->tables.implCalls.at(0);
    EXPECT_EQ(impl.shapedCalls, 4u);
    EXPECT_EQ(impl.mismatchedCalls, 4u);
    EXPECT_EQ(impl.unexpectedKernels, 4u);
    EXPECT_DOUBLE_EQ(*impl.expectedPerCall(), 5.0);
    std::size_t outlined = 0;
    for (const KernelAnalysis& k : naive->analysis->kernels) {
        outlined += k.unexpected;
        if (k.unexpected) {
            EXPECT_EQ(naive->trace->str(naive->trace->track(k.event.track).events.name[k.event.index]),
                      "Memcpy DtoD (Device -> Device)");
        }
    }
    EXPECT_EQ(outlined, 4u);

    // What an expert calls fine: in place, a fused backend's one kernel.
    for (const auto& doc :
         {naiveTrace(true).open(),
          fusedTrace("aten::_scaled_dot_product_flash_attention",
                     "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>", 138, 146.8)
              .open(),
          fusedTrace("aten::_scaled_dot_product_cudnn_attention", kCudnnKernel, 214, 186.3,
                     "cuLaunchKernelEx")
              .open()}) {
        ASSERT_FALSE(doc->analysis->calls.empty());
        EXPECT_EQ(findingOf(findingsOfDoc(*doc), "unexpected_kernels"), nullptr);
        for (const AttentionCall& call : doc->analysis->calls) {
            EXPECT_FALSE(call.shapeKey.empty());
            EXPECT_TRUE(call.matchesShape()) << call.impl;
        }
    }
}

// The math backend's decomposition on a GPU: what it runs beyond scale, QKᵀ, mask, softmax and PV —
// the casts, the mask built, _safe_softmax's guard — is unexpected; the guard is named by its op.
TEST(FindingsLessons, TheMathBackendRunsMoreThanItsDecomposition) {
    const auto math = mathTrace().open();
    const auto found = findingsOfDoc(*math);
    const Finding* f = findingOf(found, "unexpected_kernels");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->title.rfind("SDPA math: ", 0), 0u) << f->title;
    // The title names the two commonest kernels (the casts, then the where kernels) and how many more;
    // the explanation says which op made each.
    EXPECT_NE(f->title.find("are expected: unrolled_elementwise_kernel, elementwise_kernel and 3 more kinds"),
              std::string::npos)
        << f->title;
    EXPECT_NE(f->explanation.find("unrolled_elementwise_kernel (copy) from aten::to"), std::string::npos)
        << f->explanation;
    for (const char* what :
         {"triu_tril_kernel (elementwise) from aten::tril", "reduce_kernel (reduction) from aten::all",
          "unrolled_elementwise_kernel (copy) from aten::to"})
        EXPECT_NE(f->explanation.find(what), std::string::npos) << what << "\n" << f->explanation;
    // The scale's multiplications are the decomposition's own.
    EXPECT_EQ(f->explanation.find("from aten::mul"), std::string::npos) << f->explanation;
}

// A user's shape, for their own record_function name, comes before the built-in ones: with the copy
// expected, naive's calls match; one that lacks a role says which.
TEST(FindingsLessons, AUsersShapeForTheirOwnRangeComesFirst) {
    std::vector<std::string> problems;
    const CallShapes shapes = CallShapes::parse("attn_fwd = qk_gemm softmax{1,3} copy? pv_gemm\n"
                                                "naive = qk_gemm softmax{1,3} pv_gemm reduction\n",
                                                &problems);
    EXPECT_TRUE(problems.empty());
    const auto doc = naiveTrace(false).open();
    const TraceAnalysis own = analyzeTrace(*doc->trace, nullptr, DeviceSpecs::standard(),
                                           RoleRules::standard(), nullptr, 0, shapes);
    ASSERT_EQ(own.calls.size(), 4u);
    for (const AttentionCall& call : own.calls) {
        EXPECT_EQ(call.shapeKey, "attn_fwd");
        EXPECT_TRUE(call.matchesShape());
        EXPECT_EQ(call.expectedKernels, 6u);
    }
    // Keyed by the implementation, the reduction the shape asks for is missing in every call.
    const CallShapes byImpl = CallShapes::parse("naive = qk_gemm softmax{1,3} pv_gemm reduction copy*\n");
    const TraceAnalysis missing = analyzeTrace(*doc->trace, nullptr, DeviceSpecs::standard(),
                                               RoleRules::standard(), nullptr, 0, byImpl);
    FindingThresholds th = FindingThresholds::standard();
    const auto found = findFindings({*doc->trace, missing, th});
    const Finding* f = findingOf(found, "unexpected_kernels");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->title, "naive: 6 kernels per call where 7 are expected");
    EXPECT_NE(f->explanation.find("Missing: reduction in 4 calls"), std::string::npos) << f->explanation;
    EXPECT_EQ(f->timeNs, 0);
}

// Two out-of-place masked_fills in each of two calls: four copies, and the title counts the calls they
// are in (two), not the copies.
TEST(FindingsLessons, TheCopyTitleCountsCallsNotCopies) {
    const auto doc =
        naiveTrace(false, 2, "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", 2).open();
    ASSERT_EQ(doc->analysis->calls.size(), 2u);
    const std::vector<Finding> found = findingsOfDoc(*doc);
    const Finding* f = findingOf(found, "out_of_place_copy");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 4u);
    EXPECT_NE(f->title.find("in 2 attention calls"), std::string::npos) << f->title;
    EXPECT_NE(f->explanation.find("4 copies"), std::string::npos) << f->explanation;
}

// A mask built in one call only is a mask built, not one built again in each call (the negative case),
// however small a share it would need to be shown.
TEST(FindingsLessons, AMaskBuiltInOneCallIsNoFinding) {
    FindingThresholds all = FindingThresholds::standard();
    all.set("min_share", 0);
    const char* const triu = "void at::native::triu_tril_kernel<c10::BFloat16, int, false, 4, true>";
    const auto one = naiveTrace(true, 1, triu).open();
    ASSERT_EQ(one->analysis->calls.size(), 1u);
    EXPECT_EQ(findingOf(findFindings({*one->trace, *one->analysis, all}), "mask_per_call"), nullptr);
    const auto two = naiveTrace(true, 2, triu).open();
    EXPECT_NE(findingOf(findFindings({*two->trace, *two->analysis, all}), "mask_per_call"), nullptr);
}

// A training script's hand-written attention that builds its causal mask in each call (ones → triu between
// the QKᵀ GEMM and the softmax): the mask's kernels keep their elementwise role (the fill takes the shape's
// one elementwise slot, the triu is unexpected), the mask is found built in each call, and the softmax is
// the call's softmax, expected.
TEST(FindingsLessons, AMaskBuiltInTheCallIsNotItsSoftmax) {
    PostTrace t;
    for (int i = 0; i < 3; ++i) {
        const double h = 1000 + 100 * i, g = 1005 + 100 * i;
        t.range("attn_fwd", h, 70);
        t.op("aten::matmul", h + 1, 8, "[" + kQ + ",[1,8,64,1024]]", "[" + kBf16 + "," + kBf16 + "]");
        t.op("aten::bmm", h + 2, 6, "[[8,1024,64],[8,64,1024]]", "[" + kBf16 + "," + kBf16 + "]");
        t.launch(h + 3, kTensorCoreGemm, g, 12);
        t.op("aten::ones", h + 10, 6, "[[],[],[],[],[]]", "[\"ScalarList\",\"Scalar\",\"Scalar\",\"\",\"\"]");
        t.op("aten::fill_", h + 11, 4, "[[1024,1024],[]]", "[\"bool\",\"Scalar\"]");
        t.launch(h + 12, "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<bool>>",
                 g + 13, 2);
        t.op("aten::triu", h + 17, 5, "[[1024,1024],[]]", "[\"bool\",\"Scalar\"]");
        t.launch(h + 18, "void at::native::triu_tril_kernel<bool, int, true, 4, true>", g + 16, 3);
        t.op("aten::masked_fill_", h + 23, 8, "[" + kS + ",[1024,1024],[]]",
             "[" + kBf16 + ",\"bool\",\"Scalar\"]");
        t.launch(h + 24, "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", g + 20, 10);
        t.op("aten::softmax", h + 33, 8, "[" + kS + ",[],[]]", "[" + kBf16 + ",\"Scalar\",\"\"]");
        t.op("aten::_softmax", h + 34, 6, "[" + kS + ",[],[]]", "[" + kBf16 + ",\"Scalar\",\"Scalar\"]");
        t.launch(h + 35, "void (anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float>", g + 31,
                 15);
        t.op("aten::matmul", h + 45, 8, "[" + kS + "," + kQ + "]", "[" + kBf16 + "," + kBf16 + "]");
        t.op("aten::bmm", h + 46, 6, "[[8,1024,1024],[8,1024,64]]", "[" + kBf16 + "," + kBf16 + "]");
        t.launch(h + 47, kTensorCoreGemm, g + 47, 12);
    }
    const auto doc = t.open();
    const Trace& trace = *doc->trace;
    auto nameOf = [&](const Trace& tr, EventRef e) {
        return std::string(tr.str(tr.track(e.track).events.name[e.index]));
    };
    const TraceAnalysis& a = *doc->analysis;
    ASSERT_EQ(a.calls.size(), 3u);
    for (const AttentionCall& call : a.calls) {
        ASSERT_EQ(call.kernels.size(), 6u);
        std::set<std::string> unexpected;
        for (std::uint32_t k : call.unexpected)
            unexpected.insert(nameOf(trace, a.kernels[k].event));
        EXPECT_EQ(unexpected,
                  (std::set<std::string>{"void at::native::triu_tril_kernel<bool, int, true, 4, true>"}));
        for (std::uint32_t k : call.kernels) {
            const std::string name = nameOf(trace, a.kernels[k].event);
            if (name.find("SoftMax") != std::string::npos || name.find("masked_fill") != std::string::npos) {
                EXPECT_EQ(a.kernels[k].role, KernelRole::Softmax) << name;
            }
            if (name.find("triu") != std::string::npos || name.find("Fill") != std::string::npos) {
                EXPECT_EQ(a.kernels[k].role, KernelRole::Elementwise) << name;
            }
        }
    }
    const std::vector<Finding> found = findingsOfDoc(*doc);
    const Finding* mask = findingOf(found, "mask_per_call");
    ASSERT_NE(mask, nullptr);
    EXPECT_EQ(mask->count, 6u);
}

// "Guess, then measure": a saving a what-if measured on the calls' own shape (flash against the call as it
// was, both run on this machine) becomes hand_written_attention's time at stake, in the findings and the
// summary alike, said so; no more than the calls' kernels ran. Another shape's or implementation's
// saving teaches nothing, and a finding learns once.
TEST(FindingsLessons, HandWrittenAttentionLearnsASavingMeasuredOnItsShape) {
    const auto naive = naiveTrace(false).open();
    const Finding* estimated = findingOf(*naive->findings, "hand_written_attention");
    ASSERT_NE(estimated, nullptr);
    ASSERT_FALSE(estimated->measured);
    const std::optional<CallInputs> shape =
        callInputs(*naive->trace, *naive->analysis, naive->analysis->calls.front());
    ASSERT_TRUE(shape);
    const MeasuredSaving saving{"naive", *shape, "flash", 40000, "this machine's CPU"};
    const auto learned = learnedDocument(*naive, saving);
    ASSERT_NE(learned, nullptr);
    EXPECT_EQ(learned->trace, naive->trace); // the rest shared
    EXPECT_EQ(learned->analysis, naive->analysis);
    const Finding* f = findingOf(*learned->findings, "hand_written_attention");
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->measured);
    EXPECT_EQ(f->timeNs, 4 * 40000);
    EXPECT_DOUBLE_EQ(f->share, double(f->timeNs) / double(naive->trace->endNs() - naive->trace->startNs()));
    EXPECT_NE(f->title.find(" — measured here: flash saves 40.000 µs a call"), std::string::npos) << f->title;
    EXPECT_LE(f->title.size(), kFindingTitleMax);
    EXPECT_NE(f->explanation.find("Since measured on this machine's CPU, by running the call (" + shape->text() +
                                  ") as it was and with flash side by side: flash saved 40.000 µs a call, "
                                  "160.000 µs over the 4 calls: the time at stake, measured"),
              std::string::npos)
        << f->explanation;
    EXPECT_EQ(f->count, estimated->count);
    EXPECT_EQ(f->evidence.size(), estimated->evidence.size());
    // Every view reads the same list: the summary's findings are the document's, most time at stake first.
    ASSERT_EQ(learned->summary->findings.size(), learned->findings->size());
    for (std::size_t i = 0; i < learned->findings->size(); ++i) {
        EXPECT_EQ(learned->summary->findings[i].id, (*learned->findings)[i].id);
        EXPECT_EQ(learned->summary->findings[i].timeNs, (*learned->findings)[i].timeNs);
        if (i) {
            EXPECT_GE((*learned->findings)[i - 1].timeNs, (*learned->findings)[i].timeNs);
        }
    }
    // A saving above what the calls took here is capped at all of it (the calls' kernels, overlaps once).
    MeasuredSaving large = saving;
    large.perCall = 1000000;
    const auto capped = learnedDocument(*naive, large);
    ASSERT_NE(capped, nullptr);
    const Finding* all = findingOf(*capped->findings, "hand_written_attention");
    EXPECT_EQ(all->timeNs, naive->analysis->tables.implCalls.at(0).kernelNs);
    EXPECT_NE(all->explanation.find("more than their kernels ran in the trace (68.000 µs a call)"),
              std::string::npos)
        << all->explanation;
    // Negatives: another shape, another implementation, a finding measured already.
    MeasuredSaving otherShape = saving;
    otherShape.shape.queryLen *= 2;
    EXPECT_EQ(learnedDocument(*naive, otherShape), nullptr);
    MeasuredSaving otherImpl = saving;
    otherImpl.impl = "eager";
    EXPECT_EQ(learnedDocument(*naive, otherImpl), nullptr);
    EXPECT_EQ(learnedDocument(*learned, saving), nullptr);
    // A finding that also counts a call of another implementation (or shape) is refused whole, not learned
    // from the calls that match.
    TraceAnalysis mixed = *naive->analysis;
    mixed.calls[1].impl = "eager";
    std::vector<Finding> kept = *naive->findings;
    EXPECT_FALSE(learnMeasuredSaving(kept, {*naive->trace, mixed}, saving));
    EXPECT_FALSE(findingOf(kept, "hand_written_attention")->measured);
    // A saving smaller than another finding's time at stake moves the finding below it: the list is sorted
    // again, most at stake first.
    MeasuredSaving small = saving;
    small.perCall = 1000;
    const auto below = learnedDocument(*naive, small);
    ASSERT_NE(below, nullptr);
    const std::vector<Finding>& order = *below->findings;
    const auto at = [&](std::string_view id) {
        return std::find_if(order.begin(), order.end(), [&](const Finding& f) { return f.id == id; }) -
               order.begin();
    };
    EXPECT_EQ(findingOf(order, "hand_written_attention")->timeNs, 4000);
    EXPECT_GT(at("hand_written_attention"), at("out_of_place_copy"));
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end(),
                               [](const Finding& a, const Finding& b) { return a.timeNs > b.timeNs; }));
}

} // namespace attnscope::test
