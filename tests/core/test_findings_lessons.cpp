// SPDX-License-Identifier: MIT
// The post's lessons ("Profiling in PyTorch (Part 3): Attention is all you profile") on GPU traces
// written as Kineto writes them, with the kernels the post shows (A100, bf16, seq 4096 is not needed:
// the names, the ops around them and the times are what the rules read): each lesson found where the
// post finds it, and not where the post calls the trace fine.
#include "findings_test_support.h"

#include <set>

namespace attnscope::test {
namespace {

// A GPU trace of attention forwards, as Kineto writes one: each call a record_function("attn_fwd")
// range around cpu_ops that launch kernels (cudaLaunchKernel, or cuLaunchKernelEx for cuDNN) and copies
// (cudaMemcpyAsync → a gpu_memcpy), with the shapes recorded.
class PostTrace {
public:
    // A cpu_op [ts, ts + dur) µs with its inputs.
    void op(const std::string& name, double ts, double dur, const std::string& dims = "[]",
            const std::string& types = "[]", const std::string& concrete = "[]") {
        add(R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":100,"tid":100,"ts":)" + num(ts) +
            R"(,"dur":)" + num(dur) + R"(,"args":{"Input Dims":)" + dims + R"(,"Input type":)" + types +
            R"(,"Concrete Inputs":)" + concrete + "}}");
    }
    void range(const std::string& name, double ts, double dur) {
        add(R"({"ph":"X","cat":"user_annotation","name":")" + name + R"(","pid":100,"tid":100,"ts":)" +
            num(ts) + R"(,"dur":)" + num(dur) + "}");
    }
    // A launch at ts (inside the op that launches it) of GPU work [gpuTs, gpuTs + gpuDur).
    void launch(double ts, const std::string& work, double gpuTs, double gpuDur,
                const std::string& launchName = "cudaLaunchKernel", const std::string& category = "kernel",
                const std::string& extra = "") {
        const int corr = ++m_corr;
        add(R"({"ph":"X","cat":"cuda_runtime","name":")" + launchName + R"(","pid":100,"tid":100,"ts":)" +
            num(ts) + R"(,"dur":1,"args":{"correlation":)" + std::to_string(corr) + "}}");
        add(R"({"ph":"X","cat":")" + category + R"(","name":")" + work + R"(","pid":0,"tid":7,"ts":)" +
            num(gpuTs) + R"(,"dur":)" + num(gpuDur) + R"(,"args":{"device":0,"stream":7,"correlation":)" +
            std::to_string(corr) + extra + "}}");
    }
    std::shared_ptr<const Document> open() const {
        std::string text =
            R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","computeMajor":8,)"
            R"("computeMinor":0,"maxThreadsPerMultiprocessor":2048,"regsPerMultiprocessor":65536,)"
            R"("sharedMemPerMultiprocessor":167936,"warpSize":32,"numSms":108}],"traceEvents":[)";
        for (std::size_t i = 0; i < m_events.size(); ++i)
            text += (i ? ",\n" : "") + m_events[i];
        return openDocument(DocumentSource::memory(text + "]}", "post.json"));
    }

private:
    void add(const std::string& e) { m_events.push_back(e); }
    static std::string num(double v) { return microseconds(v); }
    std::vector<std::string> m_events;
    int m_corr = 0;
};

// The post's shapes: q, k, v [1, 8, 1024, 64] bf16; the scores [1, 8, 1024, 1024].
const std::string kQ = "[1,8,1024,64]", kS = "[1,8,1024,1024]", kBf16 = "\"c10::BFloat16\"";
constexpr const char* kTensorCoreGemm = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn";

// The naive forward of the post (Figure 3): QKᵀ, scale, the out-of-place masked_fill (a clone: a
// Memcpy), softmax, PV; or with masked_fill_ (Figure 7): no copy. Calls 100 µs apart, each ~80 µs.
// copies: out of place, how many masked_fills (each with its clone) a call makes; ranged: each call in a
// record_function range (the post's attn_fwd), else none (most scripts and models).
PostTrace
naiveTrace(bool inPlace, int calls = 4,
           const std::string& maskKernel = "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>",
           int copies = 1, bool ranged = true) {
    PostTrace t;
    for (int i = 0; i < calls; ++i) {
        double h = 1000 + 100 * i, g = 2000 + 100 * i; // host and GPU times of this call
        if (ranged) t.range("attn_fwd", h, 60 + 23 * (copies - 1));
        t.op("aten::matmul", h + 1, 8, "[" + kQ + ",[1,8,64,1024]]", "[" + kBf16 + "," + kBf16 + "]");
        t.op("aten::bmm", h + 2, 6, "[[8,1024,64],[8,64,1024]]", "[" + kBf16 + "," + kBf16 + "]");
        t.launch(h + 3, kTensorCoreGemm, g, 12);
        t.op("aten::mul", h + 10, 6, "[" + kS + ",[]]", "[" + kBf16 + ",\"double\"]");
        t.launch(
            h + 11,
            "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16>>",
            g + 13, 10);
        if (inPlace) {
            t.op("aten::masked_fill_", h + 17, 8, "[" + kS + ",[1024,1024],[]]",
                 "[" + kBf16 + ",\"bool\",\"Scalar\"]");
            t.launch(h + 18, maskKernel, g + 24, 10);
        } else {
            for (int copy = 1; copy < copies; ++copy, h += 23, g += 20) {
                t.op("aten::masked_fill", h + 17, 22, "[" + kS + ",[1024,1024],[]]",
                     "[" + kBf16 + ",\"bool\",\"Scalar\"]");
                t.op("aten::clone", h + 18, 10, "[" + kS + ",[]]", "[" + kBf16 + ",\"Scalar\"]");
                t.op("aten::copy_", h + 19, 8, "[" + kS + "," + kS + ",[]]",
                     "[" + kBf16 + "," + kBf16 + ",\"Scalar\"]");
                t.launch(h + 20, "Memcpy DtoD (Device -> Device)", g + 24, 9, "cudaMemcpyAsync",
                         "gpu_memcpy");
                t.op("aten::masked_fill_", h + 30, 8, "[" + kS + ",[1024,1024],[]]",
                     "[" + kBf16 + ",\"bool\",\"Scalar\"]");
                t.launch(h + 31, "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", g + 34,
                         10);
            }
            t.op("aten::masked_fill", h + 17, 22, "[" + kS + ",[1024,1024],[]]",
                 "[" + kBf16 + ",\"bool\",\"Scalar\"]");
            t.op("aten::clone", h + 18, 10, "[" + kS + ",[]]", "[" + kBf16 + ",\"Scalar\"]");
            t.op("aten::copy_", h + 19, 8, "[" + kS + "," + kS + ",[]]",
                 "[" + kBf16 + "," + kBf16 + ",\"Scalar\"]");
            t.launch(h + 20, "Memcpy DtoD (Device -> Device)", g + 24, 9, "cudaMemcpyAsync", "gpu_memcpy");
            t.op("aten::masked_fill_", h + 30, 8, "[" + kS + ",[1024,1024],[]]",
                 "[" + kBf16 + ",\"bool\",\"Scalar\"]");
            t.launch(h + 31, "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", g + 34, 10);
        }
        t.op("aten::softmax", h + 40, 8, "[" + kS + ",[],[]]", "[" + kBf16 + ",\"Scalar\",\"\"]");
        t.op("aten::_softmax", h + 41, 6, "[" + kS + ",[],[]]", "[" + kBf16 + ",\"Scalar\",\"Scalar\"]");
        t.launch(h + 42, "void (anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float>", g + 45,
                 15);
        t.op("aten::matmul", h + 50, 8, "[" + kS + "," + kQ + "]", "[" + kBf16 + "," + kBf16 + "]");
        t.op("aten::bmm", h + 51, 6, "[[8,1024,1024],[8,1024,64]]", "[" + kBf16 + "," + kBf16 + "]");
        t.launch(h + 52, kTensorCoreGemm, g + 61, 12);
    }
    return t;
}

// SDPA's math backend (Figures 9, 11, 12, 13): bf16 inputs cast to fp32, sgemm kernels, the causal mask
// built (ones → tril: triu_tril_kernel, where), _safe_softmax's isneginf/all/where, the result cast back.
PostTrace mathTrace(int calls = 4) {
    PostTrace t;
    const std::string f32 = "\"float\"";
    for (int i = 0; i < calls; ++i) {
        const double h = 1000 + 300 * i, g = 2000 + 300 * i;
        double gt = g; // the next GPU start
        auto kernel = [&](double at, const std::string& name, double dur,
                          const std::string& launch = "cudaLaunchKernel") {
            t.launch(at, name, gt, dur, launch);
            gt += dur + 1;
        };
        const std::string copyKernel =
            "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>";
        t.range("attn_fwd", h, 250);
        t.op("aten::scaled_dot_product_attention", h + 1, 245,
             "[" + kQ + "," + kQ + "," + kQ + ",[],[],[],[],[]]",
             "[" + kBf16 + "," + kBf16 + "," + kBf16 + ",\"\",\"Scalar\",\"Scalar\",\"\",\"Scalar\"]",
             "[\"\",\"\",\"\",\"\",\"0.\",\"True\",\"\",\"False\"]");
        t.op("aten::_scaled_dot_product_attention_math", h + 2, 243,
             "[" + kQ + "," + kQ + "," + kQ + ",[],[],[],[],[],[]]",
             "[" + kBf16 + "," + kBf16 + "," + kBf16 + ",\"\",\"Scalar\",\"Scalar\",\"\",\"\",\"Scalar\"]");
        double at = h + 3;
        for (int c = 0; c < 3; ++c) { // q, k, v to fp32
            t.op("aten::to", at, 8, "[" + kQ + ",[],[],[],[]]",
                 "[" + kBf16 + ",\"Scalar\",\"Scalar\",\"Scalar\",\"\"]",
                 "[\"\",\"6\",\"False\",\"False\",\"\"]");
            t.op("aten::_to_copy", at + 1, 7, "[" + kQ + ",[],[],[],[],[],[]]",
                 "[" + kBf16 + ",\"Scalar\",\"\",\"\",\"\",\"Scalar\",\"\"]",
                 "[\"\",\"6\",\"\",\"\",\"\",\"False\",\"\"]");
            t.op("aten::copy_", at + 2, 5, "[" + kQ + "," + kQ + ",[]]",
                 "[" + f32 + "," + kBf16 + ",\"Scalar\"]");
            kernel(at + 3, copyKernel, 4);
            at += 10;
        }
        t.op("aten::mul", at, 5, "[" + kQ + ",[]]", "[" + f32 + ",\"Scalar\"]");
        kernel(at + 1,
               "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
               "float, "
               "at::native::binary_internal::MulFunctor<float>>>",
               3);
        at += 6;
        t.op("aten::ones", at, 6, "[[],[],[],[],[]]", "[\"ScalarList\",\"Scalar\",\"Scalar\",\"\",\"\"]");
        t.op("aten::fill_", at + 1, 4, "[[1024,1024],[]]", "[\"bool\",\"Scalar\"]");
        kernel(at + 2, "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<bool>>", 2);
        at += 7;
        t.op("aten::tril", at, 5, "[[1024,1024],[]]", "[\"bool\",\"Scalar\"]");
        kernel(at + 1, "void at::native::triu_tril_kernel<bool, int, false, 4, true>", 3);
        at += 6;
        t.op("aten::where", at, 5, "[[1024,1024],[],[]]", "[\"bool\",\"Scalar\",\"float\"]");
        kernel(at + 1, "void at::native::elementwise_kernel<128, 2, where_kernel_impl<float>>", 3);
        at += 6;
        t.op("aten::matmul", at, 10, "[" + kQ + ",[1,8,64,1024]]", "[" + f32 + "," + f32 + "]");
        t.op("aten::bmm", at + 1, 8, "[[8,1024,64],[8,64,1024]]", "[" + f32 + "," + f32 + "]");
        kernel(at + 2, "ampere_sgemm_128x64_nn", 40);
        at += 11;
        t.op("aten::add_", at, 5, "[" + kS + ",[1024,1024],[]]", "[" + f32 + "," + f32 + ",\"Scalar\"]");
        kernel(at + 1,
               "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", 12);
        at += 6;
        t.op("aten::_safe_softmax", at, 40, "[" + kS + ",[],[]]", "[" + f32 + ",\"Scalar\",\"\"]");
        t.op("aten::softmax", at + 1, 8, "[" + kS + ",[],[]]", "[" + f32 + ",\"Scalar\",\"\"]");
        t.op("aten::_softmax", at + 2, 6, "[" + kS + ",[],[]]", "[" + f32 + ",\"Scalar\",\"Scalar\"]");
        kernel(at + 3, "void (anonymous namespace)::cunn_SoftMaxForward<4, float, float>", 20);
        t.op("aten::isneginf", at + 10, 6, "[" + kS + "]", "[" + f32 + "]");
        kernel(at + 11, "void at::native::vectorized_elementwise_kernel<4, isneginf_kernel<float>>", 10);
        t.op("aten::all", at + 17, 8, "[" + kS + ",[],[]]", "[\"bool\",\"Scalar\",\"Scalar\"]",
             "[\"\",\"-1\",\"True\"]");
        kernel(at + 18, "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool, AndOps>>", 8);
        t.op("aten::where", at + 27, 8, "[[1,8,1024,1]," + std::string("[],") + kS + "," + kS + "]",
             "[\"bool\",\"float\",\"float\",\"float\"]");
        kernel(at + 28, "void at::native::elementwise_kernel<128, 2, where_kernel_impl<float>>", 14);
        at += 41;
        t.op("aten::to", at, 10, "[" + kS + ",[],[],[],[]]",
             "[" + f32 + ",\"Scalar\",\"Scalar\",\"Scalar\",\"\"]", "[\"\",\"15\",\"False\",\"False\",\"\"]");
        t.op("aten::_to_copy", at + 1, 9, "[" + kS + ",[],[],[],[],[],[]]",
             "[" + f32 + ",\"Scalar\",\"\",\"\",\"\",\"Scalar\",\"\"]",
             "[\"\",\"15\",\"\",\"\",\"\",\"False\",\"\"]");
        t.op("aten::copy_", at + 2, 7, "[" + kS + "," + kS + ",[]]",
             "[" + kBf16 + "," + f32 + ",\"Scalar\"]");
        kernel(at + 3, copyKernel, 12);
        at += 11;
        t.op("aten::matmul", at, 10, "[" + kS + "," + kQ + "]", "[" + kBf16 + "," + f32 + "]");
        t.op("aten::bmm", at + 1, 8, "[[8,1024,1024],[8,1024,64]]", "[" + f32 + "," + f32 + "]");
        kernel(at + 2, "ampere_sgemm_64x64_nn", 40);
    }
    return t;
}

// One fused kernel per forward under SDPA (Figures 14, 15, 18): host and GPU time per call as the
// post's table gives them (efficient 117 / 277.9 µs, flash 138 / 146.8, cuDNN 214 / 186.3).
PostTrace fusedTrace(const std::string& implOp, const std::string& kernel, double hostUs, double gpuUs,
                     const std::string& launchName = "cudaLaunchKernel", const std::string& extra = "",
                     int calls = 8, double hostLongerEachCallUs = 0) {
    PostTrace t;
    const double every = std::max(hostUs + hostLongerEachCallUs * calls, gpuUs) + 5;
    for (int i = 0; i < calls; ++i, hostUs += hostLongerEachCallUs) {
        const double h = 1000 + every * i, g = 1000 + hostUs * 0.5 + every * i;
        t.range("attn_fwd", h, hostUs);
        t.op("aten::scaled_dot_product_attention", h + 1, hostUs - 2,
             "[" + kQ + "," + kQ + "," + kQ + ",[],[],[],[],[]]",
             "[" + kBf16 + "," + kBf16 + "," + kBf16 + ",\"\",\"Scalar\",\"Scalar\",\"\",\"Scalar\"]",
             "[\"\",\"\",\"\",\"\",\"0.\",\"True\",\"\",\"False\"]");
        // Most of the host time is the public op's own; the backend's op holds the launch.
        t.op(implOp, h + hostUs * 0.4, hostUs * 0.3, "[" + kQ + "," + kQ + "," + kQ + "]",
             "[" + kBf16 + "," + kBf16 + "," + kBf16 + "]");
        t.launch(h + hostUs * 0.5, kernel, g, gpuUs, launchName, "kernel", extra);
    }
    return t;
}

const std::string kCudnnKernel =
    "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0";

std::vector<Finding> findingsOfDoc(const Document& d) {
    return findFindings({*d.trace, *d.analysis});
}

} // namespace

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

// What a device is called: an MTIA by its process's name or labels, else a GPU.
TEST(Accelerators, AnMtiaIsNamedByItsProcessesNameOrLabels) {
    ProcessInfo p;
    p.name = "MTIA 9";
    EXPECT_EQ(deviceKind(p), "MTIA");
    p.name = "python";
    p.labels = "MTIA 3";
    EXPECT_EQ(deviceKind(p), "MTIA");
    p.labels = "GPU 0";
    EXPECT_EQ(deviceKind(p), "GPU");
}

// A Meta MTIA trace, written as Kineto writes one (the facts of HTA's MTIA test trace): the device's
// events are "mtia_ccp_events" on a process named "MTIA 9", launched from "mtia_runtime" calls linked by
// correlation ids; its "dma_request"s are its copies and "event_record"/"event_wait" its syncs. Its
// kernels are those device events — not the aten:: ops on the host — and the device is called an MTIA.
TEST(Accelerators, AnMtiasDeviceEventsAreItsKernelsAndCopies) {
    std::string events;
    auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
    add(R"({"ph":"M","name":"process_name","pid":9,"tid":0,"args":{"name":"MTIA 9"}})");
    add(R"({"ph":"M","name":"process_labels","pid":9,"tid":0,"args":{"labels":"MTIA 9"}})");
    add(R"({"ph":"M","name":"thread_name","pid":9,"tid":4,"args":{"name":"Stream 1 FW"}})");
    add(R"({"ph":"M","name":"thread_name","pid":9,"tid":801,"args":{"name":"DMA_REQUEST"}})");
    int corr = 0;
    for (int i = 0; i < 3; ++i) { // three ops, each a runtime call launching one kernel, after a DMA
        const int t = 1000 + 200 * i;
        add(R"({"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":100,"tid":100,"ts":)" + std::to_string(t) +
            R"(,"dur":50})");
        add(R"({"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":100,"tid":100,"ts":)" +
            std::to_string(t + 5) + R"(,"dur":30,"args":{"correlation":)" + std::to_string(++corr) + "}}");
        add(R"({"ph":"X","cat":"mtia_ccp_events","name":"dma_request","pid":9,"tid":801,"ts":)" +
            std::to_string(t + 40) + R"(,"dur":8,"args":{"direction":"HOST_TO_DEVICE","size":4096}})");
        add(R"({"ph":"X","cat":"mtia_ccp_events","name":"fc-dtype_Float","pid":9,"tid":4,"ts":)" +
            std::to_string(t + 50) + R"(,"dur":100,"args":{"correlation":)" + std::to_string(corr) +
            R"(,"stream":1}})");
        add(R"({"ph":"X","cat":"mtia_ccp_events","name":"event_record","pid":9,"tid":4,"ts":)" +
            std::to_string(t + 151) + R"(,"dur":1})");
    }
    const auto doc = openDocument(DocumentSource::memory(R"({"traceEvents":[)" + events + "]}", "mtia.json"));
    ASSERT_TRUE(doc->trace && doc->summary && doc->analysis);
    EXPECT_EQ(doc->summary->kernelCount,
              3u); // the fc kernels: not the DMA requests, the syncs or aten::addmm
    EXPECT_EQ(doc->summary->kernelNs, 300000);
    EXPECT_TRUE(doc->summary->kernelsNote.empty()) << doc->summary->kernelsNote; // not "no GPU kernels"
    ASSERT_EQ(doc->summary->devices.size(), 1u);
    EXPECT_EQ(doc->summary->devices[0].name, "MTIA 9");
    EXPECT_EQ(doc->summary->topKernels.at(0).name, "fc-dtype_Float");
    // Its role (fc is its GEMM) and its launch: the runtime call, under the op.
    const KernelAnalysis* fc = nullptr;
    for (const KernelAnalysis& k : doc->analysis->kernels)
        if (doc->trace->str(doc->trace->track(k.event.track).events.name[k.event.index]) == "fc-dtype_Float")
            fc = &k;
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc->role, KernelRole::Gemm);
    const auto launch = doc->trace->launchOf(fc->event);
    ASSERT_TRUE(launch);
    EXPECT_EQ(doc->trace->str(doc->trace->track(launch->track).events.name[launch->index]),
              "runFunction - job_prep_and_submit_for_execution");
    // The device is an MTIA, never called a GPU: its tracks and its idle time say so.
    EXPECT_EQ(doc->trace->trackLabel(fc->event.track).rfind("MTIA 9 · ", 0), 0u)
        << doc->trace->trackLabel(fc->event.track);
    const auto found = findFindings({*doc->trace, *doc->analysis});
    const Finding* idle = findingOf(found, "gpu_idle");
    ASSERT_NE(idle, nullptr);
    EXPECT_EQ(idle->title.rfind("The MTIA idles", 0), 0u) << idle->title;
    // Its syncs are not work: the gaps run from each fc kernel's end to the next DMA (90 µs, twice).
    EXPECT_EQ(idle->timeNs, 180000);
    EXPECT_EQ(idle->suggestion.find("CUDA"), std::string::npos) << idle->suggestion;
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
    mixed.calls.at(1).impl = "eager";
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
