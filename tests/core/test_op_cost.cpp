// SPDX-License-Identifier: MIT
// The cost model: FLOPs and bytes of PyTorch ops from their input shapes.
#include "analysis_test_support.h"
#include "findings_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

// A 2021-format trace (legacy categories Operator / Runtime / Kernel / Memcpy, string tids,
// absolute integer µs, External id == correlation), written following the Kineto format notes: its
// GEMM gets the cost inferred from the Operator's Input Dims, as a modern trace's would.
TEST(Analysis, LegacyOperatorsFeedTheCostModel) {
    auto trace =
        loadText(R"json({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-40GB"}],
"traceEvents":[
{"ph":"X","cat":"Operator","name":"aten::mm","pid":3001,"tid":"3001","ts":1620000000000100,"dur":80,
 "args":{"Input Dims":[[4096,4096],[4096,4096]],"Input type":["float","float"]}},
{"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":3001,"tid":"3001","ts":1620000000000110,"dur":10,
 "args":{"correlation":77,"external id":77}},
{"ph":"X","cat":"Kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":"stream 7","ts":1620000000000130,"dur":9000,
 "args":{"correlation":77,"external id":77,"device":0,"stream":7}},
{"ph":"X","cat":"Memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":"stream 7","ts":1620000000009200,"dur":40,
 "args":{"correlation":78,"bytes":67108864}}
]})json");
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_EQ(a.kernels.size(), 2u) << "the legacy Memcpy is analysed as GPU work too";
    const KernelAnalysis* gemm = nullptr;
    for (const KernelAnalysis& k : a.kernels)
        if (k.role == KernelRole::Gemm) gemm = &k;
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->cost, CostSource::Inferred);
    EXPECT_DOUBLE_EQ(gemm->flops, 2.0 * 4096 * 4096 * 4096);
    EXPECT_EQ(gemm->precision, Precision::F32);
    EXPECT_NE(gemm->verdict, Verdict::Unknown) << a.deviceNote;
}

// Each op kind from a small shape worked out by hand.
TEST(CostModel, OpsFromTheirInputShapes) {
    // mm: [4,8]·[8,16]: 2·4·16·8 = 1024 FLOPs; (32 + 128 + 64) bf16 elements = 448 bytes.
    auto c = opCost("aten::mm", "[[4, 8], [8, 16]]", R"(["c10::BFloat16", "c10::BFloat16"])", "");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 1024);
    EXPECT_DOUBLE_EQ(c->bytes, 448);
    EXPECT_EQ(c->precision, Precision::BF16);
    EXPECT_EQ(c->role, KernelRole::Gemm);
    // addmm: bias [16], then the mm above in fp32: 1024 FLOPs; (32 + 128 + 64 + 16)·4 = 960 bytes.
    c = opCost("aten::addmm", "[[16], [4, 8], [8, 16], [], []]",
               R"(["float", "float", "float", "Scalar", "Scalar"])", R"(["", "", "", "1", "1"])");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 1024);
    EXPECT_DOUBLE_EQ(c->bytes, 960);
    // bmm: 3 × [2,5]·[5,7]: 2·3·2·7·5 = 420 FLOPs; 3·(10 + 35 + 14)·2 = 354 bytes (fp16).
    c = opCost("aten::bmm", "[[3, 2, 5], [3, 5, 7]]", R"(["c10::Half", "c10::Half"])", "");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 420);
    EXPECT_DOUBLE_EQ(c->bytes, 354);
    // baddbmm reads its input too: 3·(10 + 35 + 2·14)·2 = 438 bytes.
    c = opCost("aten::baddbmm", "[[3, 2, 7], [3, 2, 5], [3, 5, 7], [], []]",
               R"(["c10::Half", "c10::Half", "c10::Half"])", "");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 420);
    EXPECT_DOUBLE_EQ(c->bytes, 438);
    // linear: [2,3,8] · [16,8]ᵀ + [16]: M = 6, 2·6·16·8 = 1536 FLOPs; (48 + 128 + 96 + 16)·4 = 1152 bytes.
    c = opCost("aten::linear", "[[2, 3, 8], [16, 8], [16]]", R"(["float", "float", "float"])", "");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 1536);
    EXPECT_DOUBLE_EQ(c->bytes, 1152);
    // matmul, batched: [2,4,8]·[8,3]: 2·2·4·3·8 = 384 FLOPs.
    c = opCost("aten::matmul", "[[2, 4, 8], [8, 3]]", R"(["float", "float"])", "");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 384);
    // softmax over [2,3,10]: 5·60 = 300 FLOPs, 2·60·4 = 480 bytes.
    c = opCost("aten::_softmax", "[[2, 3, 10], [], []]", R"(["float", "Scalar", "Scalar"])", "");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 300);
    EXPECT_DOUBLE_EQ(c->bytes, 480);
    EXPECT_EQ(c->role, KernelRole::Softmax);
    // SDPA [B=2,H=4,N=8,D=16], not causal: 2·2·4·8·8·(16+16) = 32768 FLOPs; 4·(2·4·8·16)·2 = 8192 bytes.
    c = opCost(
        "aten::_scaled_dot_product_flash_attention",
        "[[2, 4, 8, 16], [2, 4, 8, 16], [2, 4, 8, 16], [], [], [], []]",
        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"])",
        R"(["", "", "", "0.", "False", "False", "0.25"])");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 32768);
    EXPECT_DOUBLE_EQ(c->bytes, 8192);
    EXPECT_EQ(c->role, KernelRole::FusedAttention);
    // _flash_attention_forward is [B, N, H, D] and causal at Concrete Inputs 8: half the FLOPs.
    c = opCost(
        "aten::_flash_attention_forward",
        "[[2, 8, 4, 16], [2, 8, 4, 16], [2, 8, 4, 16], [], [], [], [], [], []]",
        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "", "Scalar", "Scalar", "Scalar", "Scalar"])",
        R"(["", "", "", "", "", "8", "8", "0.", "True"])");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 16384);
    EXPECT_DOUBLE_EQ(c->bytes, 8192);
    // _efficient_attention_forward is [B, N, H, D] and causal when its custom_mask_type (Concrete
    // Inputs 9) is not 0: 1 is causal (half of 16384 · 2 = 32768 FLOPs), 0 or an empty or missing
    // value is not.
    auto efficient = [](const char* maskType) {
        return opCost("aten::_efficient_attention_forward",
                      "[[2, 8, 4, 16], [2, 8, 4, 16], [2, 8, 4, 16], [], [], [], [], [], [], []]",
                      R"(["float", "float", "float"])",
                      std::string(R"(["", "", "", "", "", "", "", "0.", "False", )") + maskType + "]");
    };
    ASSERT_TRUE(efficient(R"("1")"));
    EXPECT_DOUBLE_EQ(efficient(R"("1")")->flops, 16384);
    EXPECT_DOUBLE_EQ(efficient(R"("0")")->flops, 32768);
    EXPECT_DOUBLE_EQ(efficient(R"("")")->flops, 32768);
    const auto noMaskType =
        opCost("aten::_efficient_attention_forward", "[[2, 8, 4, 16], [2, 8, 4, 16], [2, 8, 4, 16]]",
               R"(["float"])", R"(["", ""])");
    ASSERT_TRUE(noMaskType);
    EXPECT_DOUBLE_EQ(noMaskType->flops, 32768);
    // Unknown ops, mismatched or missing shapes: no guess.
    EXPECT_FALSE(opCost("aten::linear", "[[], [16, 8]]", "", ""));
    EXPECT_FALSE(opCost("aten::convolution", "[[2, 3], [16, 3]]", "", "")); // no spatial dimension
    EXPECT_FALSE(opCost("aten::layer_norm", "[[1, 3, 8, 8], [8], [8], [8]]", "", ""));
    EXPECT_FALSE(opCost("aten::mm", "[[4, 8], [9, 16]]", "", ""));
    EXPECT_FALSE(opCost("aten::mm", "", "", ""));
    EXPECT_FALSE(opCost("aten::mm", "[[4, 8], [8", "", ""));
}

// Convolutions, worked by hand: the GEMM-and-conv traces users also open are not mostly "unknown".
TEST(CostModel, ConvolutionsFromTheirInputShapes) {
    // aten::convolution, input [2, 3, 32, 32], weight [16, 3, 3, 3], stride 1, padding 1, dilation 1:
    // output [2, 16, 32, 32]; 2·2·16·3·9·1024 = 1,769,472 FLOPs; (6144 + 432 + 32768)·4 = 157,376 bytes.
    auto c = opCost(
        "aten::convolution", "[[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []]",
        R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
        R"(["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 1769472);
    EXPECT_DOUBLE_EQ(c->bytes, 157376);
    EXPECT_EQ(c->role, KernelRole::Gemm);
    EXPECT_EQ(c->precision, Precision::F32);
    // Stride 2, no padding, bf16: output 15×15 (⌊(32 − 3) / 2⌋ + 1); 2·2·16·3·9·225 = 388,800 FLOPs;
    // (6144 + 432 + 2·16·225)·2 = 27,552 bytes.
    c = opCost(
        "aten::_convolution", "[[2, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], [], [], [], [], [], [], []]",
        R"(["c10::BFloat16", "c10::BFloat16"])",
        R"(["", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1", "False", "False", "True", "True"])");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 388800);
    EXPECT_DOUBLE_EQ(c->bytes, 27552);
    EXPECT_EQ(c->precision, Precision::BF16);
    // cudnn_convolution keeps padding before stride: padding 1, stride 2 → output 16×16.
    c = opCost("aten::cudnn_convolution", "[[1, 8, 32, 32], [8, 8, 3, 3], [], [], [], [], [], [], []]",
               R"(["c10::Half", "c10::Half"])",
               R"(["", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False", "True"])");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 2.0 * 1 * 8 * 8 * 9 * 256);
    // A grouped (depthwise) convolution: weight [8, 1, 3, 3] counts one channel per output channel.
    c = opCost("aten::conv2d", "[[1, 8, 32, 32], [8, 1, 3, 3], [], [], [], [], []]", R"(["float", "float"])",
               R"(["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "8"])");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 2.0 * 1 * 8 * 1 * 9 * 1024);
    // Shapes that do not make a convolution are not guessed at.
    EXPECT_FALSE(opCost("aten::convolution", "[[2, 3], [16, 3, 3, 3]]", "", ""));
    EXPECT_FALSE(opCost("aten::convolution", "[[2, 3, 2, 2], [16, 3, 5, 5]]", R"(["float"])", ""));
    EXPECT_TRUE(opCostModels("aten::cudnn_convolution"));
    // And cuDNN's convolution kernels take the op's cost: they are GEMMs to the role rules.
    EXPECT_EQ(RoleRules::standard().classify("sm80_xmma_fprop_implicit_gemm_indexed_f16f16", "kernel"),
              KernelRole::Gemm);
    EXPECT_EQ(RoleRules::standard().classify("implicit_convolve_sgemm", "kernel"), KernelRole::Gemm);
    EXPECT_EQ(RoleRules::standard().classify("cudnn::winograd_nonfused::winogradForwardData4x4", "kernel"),
              KernelRole::Gemm);
    // The V100 fixture's cuDNN convolution by its tile: a GEMM whose registers hold the tile, so its
    // 18.8% occupancy is by design, not a finding.
    EXPECT_EQ(
        RoleRules::standard().classify("cudnn_infer_volta_scudnn_128x64_stridedB_interior_nn_v1", "kernel"),
        KernelRole::Gemm);
}

// The ops that move memory, each from a small shape worked out by hand: what they must read and write
// at least, and their arithmetic where they do any.
TEST(CostModel, MemoryBoundOpsFromTheirInputShapes) {
    auto cost = [](const char* op, const char* dims, const char* types, const char* concrete = "[]") {
        auto c = opCost(op, dims, types, concrete);
        EXPECT_TRUE(c) << op;
        return c ? *c : OpCost{};
    };
    // A cast of 32 bf16 elements to fp32 (ScalarType 6): 32·2 read, 32·4 written; no arithmetic.
    OpCost c =
        cost("aten::_to_copy", "[[4,8],[],[],[],[],[],[]]", R"(["c10::BFloat16","Scalar"])", R"(["","6"])");
    EXPECT_DOUBLE_EQ(c.bytes, 192);
    EXPECT_DOUBLE_EQ(c.flops, 0);
    EXPECT_EQ(c.role, KernelRole::Copy);
    // copy_(dst fp32, src bf16): the source read, the destination written.
    c = cost("aten::copy_", "[[4,8],[4,8],[]]", R"(["float","c10::BFloat16","Scalar"])");
    EXPECT_DOUBLE_EQ(c.bytes, 32 * 4 + 32 * 2);
    EXPECT_EQ(c.precision, Precision::BF16);
    // A comparison writes one byte an element: two fp32 inputs read, a bool written.
    c = cost("aten::eq", "[[4,8],[4,8]]", R"(["float","float"])");
    EXPECT_DOUBLE_EQ(c.bytes, 2 * 32 * 4 + 32);
    EXPECT_DOUBLE_EQ(c.flops, 32);
    // Broadcast, out of place: bf16 [4,8] · fp32 [8] is an fp32 [4,8]: 64 + 32 read, 128 written.
    c = cost("aten::mul", "[[4,8],[8]]", R"(["c10::BFloat16","float"])");
    EXPECT_DOUBLE_EQ(c.bytes, 64 + 32 + 128);
    EXPECT_EQ(c.role, KernelRole::Elementwise);
    // In place, the first input is written back at its own size: 64 + 32 read, 64 written.
    c = cost("aten::mul_", "[[4,8],[8]]", R"(["c10::BFloat16","float"])");
    EXPECT_DOUBLE_EQ(c.bytes, 64 + 32 + 64);
    EXPECT_DOUBLE_EQ(c.flops, 32);
    // A Python number wrapped as a 0-dim double does not widen bf16 scores: 2 bytes read and 2 written
    // an element (scores * scale).
    c = cost("aten::mul", "[[1,8,1024,1024],[]]", R"(["c10::BFloat16","double"])");
    EXPECT_DOUBLE_EQ(c.bytes, 8.0 * 1024 * 1024 * (2 + 2));
    // where(bool mask, 0., a 0-dim fp32 tensor): the mask read, an fp32 of its shape written.
    c = cost("aten::where", "[[1024,1024],[],[]]", R"(["bool","Scalar","float"])");
    EXPECT_DOUBLE_EQ(c.bytes, 1024.0 * 1024 * (1 + 4));
    // A fill writes only.
    c = cost("aten::fill_", "[[4,8],[]]", R"(["float","Scalar"])");
    EXPECT_DOUBLE_EQ(c.bytes, 128);
    EXPECT_DOUBLE_EQ(c.flops, 0);
    // Reductions over the dims given (negative from the end): sum of [2,3,4] over -1 keeps 6 of 24.
    c = cost("aten::sum", "[[2,3,4],[],[]]", R"(["float","ScalarList","Scalar"])", R"(["","[-1]","False"])");
    EXPECT_DOUBLE_EQ(c.bytes, 24 * 4 + 6 * 4);
    EXPECT_DOUBLE_EQ(c.flops, 24);
    EXPECT_EQ(c.role, KernelRole::Reduction);
    c = cost("aten::sum", "[[2,3,4],[],[]]", R"(["float","ScalarList","Scalar"])",
             R"(["","[0, -1]","False"])");
    EXPECT_DOUBLE_EQ(c.bytes, 24 * 4 + 3 * 4);
    c = cost("aten::all", "[[2,3,4],[],[]]", R"(["bool","Scalar","Scalar"])", R"(["","-1","True"])");
    EXPECT_DOUBLE_EQ(c.bytes, 24 + 6);
    c = cost("aten::sum", "[[2,3,4]]", R"(["float"])"); // no dims: all reduced to one element
    EXPECT_DOUBLE_EQ(c.bytes, 24 * 4 + 4);
    EXPECT_FALSE(opCost("aten::sum", "[[2,3,4],[],[]]", R"(["float"])", R"(["","[3]","False"])")); // no dim 3
    // A normalization reads its input and writes as much; its backward reads two and writes one.
    c = cost("aten::native_layer_norm", "[[8,1024],[],[1024],[1024],[]]", R"(["c10::BFloat16"])");
    EXPECT_DOUBLE_EQ(c.bytes, 2 * 8192 * 2);
    EXPECT_DOUBLE_EQ(c.flops, 8 * 8192);
    c = cost("aten::native_layer_norm_backward", "[[8,1024],[8,1024]]", R"(["float","float"])");
    EXPECT_DOUBLE_EQ(c.bytes, 3 * 8192 * 4);
    // A scalar's op moves nothing worth a roof: no cost.
    EXPECT_FALSE(opCost("aten::copy_", "[[],[],[]]", R"(["float","double","Scalar"])", "[]"));
    EXPECT_TRUE(opCostModels("aten::masked_fill_"));
    EXPECT_TRUE(opCostModels("aten::clone"));
    EXPECT_FALSE(opCostModels("aten::view"));
    EXPECT_FALSE(opCostModels("aten::masked_fill__"));
}

// A convolution's backward is two GEMMs of the forward's FLOPs: the input's gradient (cuDNN's dgrad)
// and the weight's (wgrad), each the part its kernel's name says.
TEST(CostModel, AConvolutionsBackwardIsItsDgradAndWgrad) {
    // grad_output [2,4,5,5], input [2,3,7,7], weight [4,3,3,3] fp32: each GEMM 2·(2·4·25)·3·9 = 10,800
    // FLOPs; grad_output 800 B, input 1,176 B, weight 432 B.
    const auto c =
        opCost("aten::convolution_backward", "[[2,4,5,5],[2,3,7,7],[4,3,3,3],[],[],[],[],[],[],[],[]]",
               R"(["float","float","float"])", "[]");
    ASSERT_TRUE(c);
    EXPECT_DOUBLE_EQ(c->flops, 2 * 10800);
    EXPECT_DOUBLE_EQ(c->bytes, 2 * (800 + 1176 + 432));
    ASSERT_EQ(c->parts.size(), 2u);
    EXPECT_EQ(c->parts[0].word, "dgrad");
    EXPECT_DOUBLE_EQ(c->parts[0].flops, 10800);
    EXPECT_DOUBLE_EQ(c->parts[0].bytes, 800 + 432 + 1176);
    EXPECT_EQ(c->parts[1].word, "wgrad");

    // In a trace: the op launches cuDNN's dgrad and wgrad kernels; each takes its part. Two kernels of
    // one part leave that part unknown (which is which cannot be told).
    for (const bool twoDgrads : {false, true}) {
        GpuTrace t;
        t.launch("aten::convolution_backward", "[[2,4,5,5],[2,3,7,7],[4,3,3,3]]",
                 R"(["float","float","float"])", 100, 50,
                 "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>", 200, 10);
        t.add(
            R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":120,"dur":2,"args":{"correlation":900}})");
        t.add(std::string(R"({"ph":"X","cat":"kernel","name":")") +
              (twoDgrads ? "void cudnn::detail::dgrad2d_alg1_1<float>"
                         : "void wgrad_alg0_engine<float, 128, 6, 7>") +
              R"(","pid":0,"tid":7,"ts":220,"dur":10,"args":{"device":0,"stream":7,"correlation":900}})");
        const auto trace = loadText(t.text());
        const TraceAnalysis a = analyzeTrace(*trace);
        ASSERT_EQ(a.kernels.size(), 2u);
        for (const KernelAnalysis& k : a.kernels) {
            EXPECT_EQ(k.role, KernelRole::Gemm);
            EXPECT_EQ(k.cost, twoDgrads ? CostSource::Unknown : CostSource::Inferred) << twoDgrads;
            if (!twoDgrads) {
                EXPECT_DOUBLE_EQ(k.flops, 10800);
            }
        }
    }
}

// PyTorch's CPU ops are their own kernels: an op's cost is its own whatever role its name gives it
// (aten::all reads as elementwise to the role rules, a reduction to the cost model).
TEST(CostModel, AnOpStandingForAKernelTakesItsOwnCost) {
    const auto trace = loadText(
        R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::all","pid":1,"tid":1,"ts":10,"dur":100,)"
        R"("args":{"Input Dims":[[2,3,4],[],[]],"Input type":["bool","Scalar","Scalar"],"Concrete Inputs":["","-1","True"]}}]})");
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_EQ(a.kernels.size(), 1u);
    EXPECT_EQ(a.kernels[0].cost, CostSource::Inferred);
    EXPECT_DOUBLE_EQ(a.kernels[0].bytes, 30);
}
