// SPDX-License-Identifier: MIT
#pragma once
// The post's traces, written as Kineto writes them (test_findings_lessons.cpp, test_findings_calls.cpp): naive, SDPA math and fused
// attention forwards with the kernels, ops and shapes the post shows.
#include "findings_test_support.h"

#include <string>
#include <vector>

namespace attnscope::test {

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
inline const std::string kQ = "[1,8,1024,64]", kS = "[1,8,1024,1024]", kBf16 = "\"c10::BFloat16\"";
inline constexpr const char* kTensorCoreGemm = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn";

// The naive forward of the post (Figure 3): QKᵀ, scale, the out-of-place masked_fill (a clone: a
// Memcpy), softmax, PV; or with masked_fill_ (Figure 7): no copy. Calls 100 µs apart, each ~80 µs.
// copies: out of place, how many masked_fills (each with its clone) a call makes; ranged: each call in a
// record_function range (the post's attn_fwd), else none (most scripts and models).
inline PostTrace
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
inline PostTrace mathTrace(int calls = 4) {
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
inline PostTrace fusedTrace(const std::string& implOp, const std::string& kernel, double hostUs, double gpuUs,
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

inline const std::string kCudnnKernel =
    "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_6_128x64x64_4x1x1_cga1x1x1_kernel0_0";

inline std::vector<Finding> findingsOfDoc(const Document& d) {
    return findFindings({*d.trace, *d.analysis});
}

} // namespace attnscope::test
