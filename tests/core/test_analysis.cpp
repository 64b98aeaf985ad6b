// SPDX-License-Identifier: MIT
// Roles, attention calls, the cost model and the roofline, on real kernel names and real traces.
#include "support/test_support.h"

#include "core/analysis/analysis.h"
#include "core/analysis/resources.h"
#include "core/io/trace_loader.h"
#include "core/report/diff.h"
#include "core/report/findings.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

using namespace attnscope;
using namespace attnscope::test;

namespace {

std::string nameOf(const Trace& t, EventRef e) {
    return std::string(t.str(t.track(e.track).events.name[e.index]));
}

TimeNs durationOf(const Trace& t, EventRef e) {
    return t.track(e.track).events.duration[e.index];
}

// Kernels one after another on an A100 (name, stream, µs), 1 µs apart.
std::shared_ptr<const Trace> a100Kernels(const std::vector<std::tuple<const char*, int, int>>& kernels) {
    std::string events;
    int t = 1000;
    for (const auto& [name, stream, dur] : kernels) {
        events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"kernel","name":")" + name +
                  R"(","pid":0,"tid":)" + std::to_string(stream) + R"(,"ts":)" + std::to_string(t) +
                  R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"device":0,"stream":)" +
                  std::to_string(stream) + "}}";
        t += dur + 1;
    }
    return loadText(R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[)" +
                    events + "]}");
}

const char* const gemm = "ampere_sgemm_128x64_tn";
const char* const softmax = "void at::native::cunn_SoftMaxForward<4, float>";
const char* const dropout = "void at::native::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4>";
const char* const scale = "void at::native::vectorized_elementwise_kernel<4, MulFunctor<float>>";

} // namespace

// Kernel names from the fixtures (AMD, NVIDIA, Triton traces) and from public traces and code.
TEST(KernelRoles, RealNamesFromNvidiaAmdAndTritonLandInTheirRoles) {
    struct Case {
        const char* name;
        const char* category;
        KernelRole role;
    };
    const Case cases[] = {
        // h100_sdpa_flash_qwen.json.gz
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_"
         "off_"
         "kernel__5x_cublas",
         "kernel", KernelRole::Gemm},
        {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, "
         "false, false, "
         "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, "
         "false, "
         "true, false, false, true, true, false>(pytorch_flash::Flash_fwd_params)",
         "kernel", KernelRole::FusedAttention},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
         "float, "
         "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, "
         "float, "
         "float, float>, unsigned int, float, 4>)",
         "kernel", KernelRole::Reduction},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
         "namespace)::OpaqueType<2u>, "
         "unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::OpaqueType<2u>*, "
         "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous "
         "namespace)::OpaqueType<2u>, unsigned int, 64, 64>, at::native::(anonymous "
         "namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
         "kernel", KernelRole::Copy},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
         "namespace)::silu_kernel(at::"
         "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
         "const::{lambda(c10::"
         "BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
         "namespace)::silu_kernel(at::"
         "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
         "const::{lambda(c10::"
         "BFloat16)#1}, at::detail::Array<char*, 2>)",
         "kernel", KernelRole::Elementwise},
        // mi250_rocm_small.json.gz (Tensile)
        {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_"
         "CADS0_"
         "EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_LPB0_LPM0_LRVW2_LWPMn1_MIAV0_"
         "MIWT1_"
         "1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS0_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_"
         "SSO0_"
         "SVW2_SK0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA2_VWB1_WSGRA0_WSGRB0_WS64_WG16_16_1_"
         "WGM8",
         "kernel", KernelRole::Gemm},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
         "at::detail::Array<char*, "
         "1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
         "kernel", KernelRole::Elementwise},
        // triton_single_kernel.json.gz, v100_ns_decimals.json.gz, dlrm_2ranks
        {"triton_poi_fused_add_cos_sin_0", "kernel", KernelRole::Elementwise},
        {"volta_sgemm_64x64_nt", "kernel", KernelRole::Gemm},
        {"void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)",
         "kernel", KernelRole::Reduction},
        {"void cub::DeviceScanKernel<cub::DeviceScanPolicy<int>::Policy600, int*, int*, "
         "cub::ScanTileState<int, "
         "true>, cub::Sum, cub::NullType, int>(int*, int*, cub::ScanTileState<int, true>, int, cub::Sum, "
         "cub::NullType, int)",
         "kernel", KernelRole::Reduction},
        {"Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", KernelRole::Copy},
        {"Memset (Device)", "gpu_memset", KernelRole::Copy},
        // Public traces: cuDNN SDPA, xformers / PyTorch mem-efficient, Triton, CK-tile, FlashAttention 4,
        // NCCL, PyTorch's softmax, Ampere cuBLAS.
        {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_0",
         "kernel", KernelRole::FusedAttention},
        {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80", "kernel", KernelRole::FusedAttention},
        {"_attn_fwd", "kernel", KernelRole::FusedAttention},
        {"void ck_tile::kentry<256, 2, ck_tile::FmhaFwdKernel<...>>", "kernel", KernelRole::FusedAttention},
        {"flash::FlashAttentionForwardSm100", "kernel", KernelRole::FusedAttention},
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "kernel",
         KernelRole::Communication},
        {"ncclDevKernel_SendRecv", "kernel", KernelRole::Communication},
        {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, float, float, float, "
         "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
         "kernel", KernelRole::Softmax},
        {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", "kernel", KernelRole::Gemm},
        {"nvjet_sm100_tss_128x256_64x6_2x1_2cta_v_bz_TNT", "kernel", KernelRole::Gemm}, // cuBLAS on B200
        {"void ck_tile::kentry<256, 1, ck_tile::UniversalGemmKernel<...>>", "kernel", KernelRole::Gemm},
        {"cudaDeviceSynchronize", "cuda_runtime", KernelRole::Other},
    };
    for (const Case& c : cases)
        EXPECT_EQ(roleName(classifyKernel(c.name, c.category)), roleName(c.role)) << c.name;
}

// The attention kernel families users run today, each by a kernel name seen in public traces and
// profiles: fused attention, of the family the name tells. An unknown family is "fused", never a
// wrong name; a name that is no attention stays what it is.
TEST(KernelRoles, AttentionFamiliesAreNamedByTheirRealKernelNames) {
    const RoleRules rules = RoleRules::parse(builtinKernelRoles());
    struct Case {
        const char* name;
        const char* impl;
    };
    const Case cases[] = {
        {"sage_fwd", "SageAttention"}, // Triton SageAttention (the FLUX.1 trace: 228 calls)
        {"void qk_int_sv_f8_attn_kernel<128u, 64u, 32u, 64u, 128u, (DataType)1>", "SageAttention"},
        {"void sageattention_sm89::qk_int_sv_f8_attn_kernel<128u, 64u, 32u, 64u, 128u>", "SageAttention"},
        {"qk_int8_sv_f8_attn_kernel", "SageAttention"},
        {"fmhaSm100aKernel_QkvE4m3OBfloat16H128PagedKvDenseP32VarSeqQ128Kv128PersistentContext",
         "TRT-LLM FMHA"},
        {"fmhaSm100aKernel_QE4m3KvE2m1OE4m3H128PagedKvDenseP16VarSeqQ8Kv128PersistentSwapsAbForGen",
         "TRT-LLM FMHA"},
        {"fmha_v2_flash_attention_fp16_64_128_S_128_sm80_kernel_nl", "TRT-LLM FMHA"},
        {"void "
         "flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::MaskMode)1>>",
         "FlashInfer"},
        {"flashinfer::BatchPrefillWithRaggedKVCacheKernel", "FlashInfer"},
        {"BatchDecodeWithPagedKVCacheKernel", "FlashInfer"},
        {"void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128>",
         "vLLM paged attention"},
        {"vllm::paged_attention_v1_kernel", "vLLM paged attention"},
        {"_ZN5aiter32fmha_fwd_hd192_hd128_bf16_causalE", "aiter FMHA"},
        {"void ck_tile::kentry<256, 2, ck_tile::FmhaFwdKernel<...>>", "CK FMHA"},
        {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_0",
         "cuDNN SDPA"},
        {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
         "CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >>>>>",
         "FlashAttention 3"},
        {"flash::FlashAttnFwdCombine", "FlashAttention 3"},
        {"flash::FlashAttentionForwardSm100", "FlashAttention 4"},
        {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4>>",
         "flash"},
        {"void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>", "flash"},
        // FlashAttention 2's backward pass (flash-attn's csrc/flash_attn/src/flash_bwd_kernel.h).
        {"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, "
         "2, "
         "false, false, cutlass::bfloat16_t>, true, false, false, false, false, true, "
         "false>(Flash_bwd_params)",
         "flash"},
        {"void pytorch_flash::flash_bwd_dot_do_o_kernel<true, pytorch_flash::Flash_bwd_kernel_traits<64, "
         "128, "
         "128, 8, 2, 4, 4, true, false, cutlass::half_t>>(pytorch_flash::Flash_bwd_params)",
         "flash"},
        {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80", "mem-efficient"},
        {"fmha_cutlassB_f16_aligned_64x64_k64_sm80", "mem-efficient"},
        {"_attn_fwd", "Triton"},
        // Fused attention of a family AttnScope does not name.
        {"my_custom_fmha_kernel", ""},
        {"flash_attention_v7_kernel", ""},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(roleName(rules.classify(c.name, "kernel")), "fused_attention") << c.name;
        EXPECT_EQ(rules.implementation(c.name), c.impl) << c.name;
    }
    // Not attention, and no implementation: GEMMs and norms of the same libraries, a cuDNN batch norm.
    for (const char* name :
         {"_ZN5aiter42fp8gemm_bf16_blockscale_BpreShuffle_32x128E",
          "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bEEv", "flashinfer::norm::RMSNormKernel",
          "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>",
          "nvjet_sm100_tss_128x256_64x6_2x1_2cta", "some_kernel_nobody_knows"}) {
        EXPECT_NE(roleName(rules.classify(name, "kernel")), "fused_attention") << name;
        EXPECT_EQ(rules.implementation(name), "") << name;
    }
    std::vector<std::string> problems;
    RoleRules::parse("gemm  my_gemm = Wrong\nfused_attention  mine = Mine\n", &problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("only fused_attention rules name an implementation"), std::string::npos);
}

// A trace whose process saw its GPUs renumbered: deviceProperties lists device 0 only, the kernels
// run on device 2 (real MI300X traces). The one model listed is the GPU's, with a warning; its
// kernels are held to that model's roofs. Two models and no match: no model is assumed.
TEST(DeviceMapping, KernelsOnAnUnlistedDeviceTakeTheOnlyModelListed) {
    auto trace = loadText(R"({"deviceProperties":[{"id":0,"name":"AMD Instinct MI300X"}],
"traceEvents":[
{"ph":"M","name":"process_name","pid":2,"args":{"name":"python3"}},
{"ph":"M","name":"process_labels","pid":5,"args":{"labels":"GPU 5"}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":9,"tid":9,"ts":0,"dur":50,
 "args":{"External id":1,"Input Dims":[[4096,4096],[4096,4096]],"Input type":["c10::BFloat16","c10::BFloat16"]}},
{"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":9,"tid":9,"ts":10,"dur":5,"args":{"correlation":5,"External id":1}},
{"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk_BBS_BH_MT256x256x64","pid":2,"tid":3,"ts":20,"dur":400,"args":{"correlation":5,"External id":1}}
]})");
    const ProcessInfo* gpu = nullptr;
    for (const ProcessInfo& p : trace->processes()) {
        if (p.isGpu && p.deviceIndex == 2) gpu = &p;
        // A GPU the trace labels but that ran nothing is not named after a guess, nor warned about.
        if (p.isGpu && p.deviceIndex == 5) {
            EXPECT_EQ(p.deviceModel, "");
        }
    }
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->deviceModel, "AMD Instinct MI300X");
    ASSERT_EQ(trace->info().warnings.size(), 1u);
    EXPECT_EQ(trace->info().warnings[0],
              "kernels run on GPU 2 but the trace lists properties only for device 0; taken as AMD Instinct "
              "MI300X, the only model it lists");
    const TraceSummary s = summarize(*trace, 10);
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_EQ(s.devices[0].name, "AMD Instinct MI300X");
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_TRUE(a.device);
    EXPECT_EQ(a.device->name, "MI300X");
    ASSERT_EQ(a.kernels.size(), 1u);
    EXPECT_NE(a.kernels[0].verdict, Verdict::Unknown) << a.deviceNote;

    // Two models listed (ids 0 and 1), one kernel on the given pid; the GPUs' models as matched.
    auto twoModels = [](int pid) {
        return loadText(R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"},)"
                        R"({"id":1,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[{"ph":"X","cat":"kernel",)"
                        R"("name":"k","pid":)" +
                        std::to_string(pid) + R"(,"tid":7,"ts":0,"dur":1}]})");
    };
    auto gpuModels = [](const Trace& t) {
        std::vector<std::string> models;
        for (const ProcessInfo& p : t.processes())
            if (p.isGpu) models.push_back(p.deviceModel);
        return models;
    };
    const auto mixed = twoModels(5);
    EXPECT_EQ(gpuModels(*mixed), std::vector<std::string>{""});
    ASSERT_EQ(mixed->info().warnings.size(), 1u);
    EXPECT_NE(mixed->info().warnings[0].find("the models differ, so no model is assumed"), std::string::npos);
    // A listed device keeps its own name and no warning is given.
    const auto listed = twoModels(1);
    EXPECT_EQ(gpuModels(*listed), std::vector<std::string>{"NVIDIA A100-SXM4-80GB"});
    EXPECT_TRUE(listed->info().warnings.empty());

    // Kineto lists every GPU it saw as a process ("GPU 1" … "GPU 15" on the H100 trace) while the
    // kernels run on the one listed: no warning.
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    const auto h100Trace = loadTraceFile(h100); // held while its warnings are read
    for (const std::string& w : h100Trace->info().warnings)
        EXPECT_EQ(w.find("properties only for device"), std::string::npos) << w;
}

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

TEST(KernelRoles, RulesAreDataAndUserRulesComeFirst) {
    std::vector<std::string> problems;
    const RoleRules user =
        RoleRules::parse("# mine\nfused_attention  my_attention_kernel\ngem  typo\nsoftmax\n", &problems);
    EXPECT_EQ(user.size(), 1u);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0], "line 3: unknown role 'gem'");
    EXPECT_EQ(problems[1], "line 4: no pattern");
    EXPECT_EQ(user.classify("MY_ATTENTION_KERNEL_v2", "kernel"), KernelRole::FusedAttention);
    EXPECT_EQ(user.classify("something_else", "kernel"), KernelRole::Other);
    // A rule that names an implementation where only fused attention may is kept without it, and the
    // lines after it are read; "@" matches the event's category, not its name.
    problems.clear();
    const RoleRules more =
        RoleRules::parse("gemm  my_gemm = cutlass\nsoftmax  @my_category\nreduction  my_reduce\n", &problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0], "line 1: only fused_attention rules name an implementation");
    EXPECT_EQ(more.size(), 3u);
    EXPECT_EQ(more.classify("my_gemm_128x64", "kernel"), KernelRole::Gemm);
    EXPECT_EQ(more.classify("anything", "my_category"), KernelRole::Softmax);
    EXPECT_EQ(more.classify("my_category_kernel", "kernel"), KernelRole::Other);
    EXPECT_EQ(more.classify("my_reduce_sum", "kernel"), KernelRole::Reduction);
    // The standard rules: copies by their category, whatever their name.
    EXPECT_EQ(RoleRules::standard().classify("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy"),
              KernelRole::Copy);
    EXPECT_GT(RoleRules::standard().size(), 40u);
    for (int r = 0; r < int(KernelRole::Count); ++r)
        EXPECT_EQ(roleNamed(roleName(KernelRole(r))), KernelRole(r));
}

TEST(DeviceSpecs, TheLongestMatchingNameWinsAndBadLinesAreReported) {
    const DeviceSpecs& specs = DeviceSpecs::standard();
    const auto h100 = specs.match("NVIDIA H100 80GB HBM3");
    ASSERT_TRUE(h100);
    EXPECT_EQ(h100->name, "H100 80GB HBM3");
    EXPECT_DOUBLE_EQ(h100->peak(Precision::BF16), 989.4e12);
    EXPECT_DOUBLE_EQ(h100->bandwidth, 3.35e12);
    EXPECT_EQ(specs.match("NVIDIA A100-SXM4-80GB")->name, "A100-SXM4-80GB");
    EXPECT_EQ(specs.match("NVIDIA A100-PG509-200")->name, "A100");
    const auto v100 = specs.match("Tesla V100-SXM2-32GB");
    ASSERT_TRUE(v100);
    EXPECT_DOUBLE_EQ(v100->peak(Precision::TF32), v100->fp32); // no TF32 path: fp32
    EXPECT_DOUBLE_EQ(v100->peak(Precision::F8), 125e12);       // no fp8 path: fp16
    EXPECT_FALSE(specs.match("AMD Radeon Graphics"));
    for (const char* name : {"H200", "H100 PCIe", "H800", "A100", "L40S", "L4", "RTX 4090", "RTX 4060 Ti",
                             "V100", "B200", "MI300X", "MI250", "MI210"})
        EXPECT_TRUE(specs.match(std::string("Some ") + name + " board")) << name;
    std::vector<std::string> problems;
    const DeviceSpecs mine =
        DeviceSpecs::parse("My GPU | 10 | 20 | 40 | 0 | 1\nBroken | x | 1 | 1 | 1 | 1\n", &problems);
    EXPECT_EQ(mine.size(), 1u);
    EXPECT_EQ(problems.size(), 1u);
    EXPECT_DOUBLE_EQ(mine.match("my gpu rev 2")->peak(Precision::F16), 40e12);
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

// Kernels on both sides of the ridge point, and one well under both roofs.
// Each line tested on both sides, with numbers worked by hand (ridge at 100 FLOP/byte; the latency
// line at a tenth of the roof that limits a kernel): just either side of the ridge, and 9.9% and
// 10.1% of each roof.
TEST(Roofline, JustEitherSideOfTheRidgeAndTheLatencyLine) {
    DeviceSpec spec;
    spec.fp32 = 100e12;
    spec.bandwidth = 1e12;
    KernelAnalysis k;
    k.cost = CostSource::Exact;
    k.precision = Precision::F32;
    auto verdictOf = [&](double flops, double bytes, TimeNs ns) {
        k.flops = flops;
        k.bytes = bytes;
        placeOnRoofline(k, ns, spec);
        return k.verdict;
    };
    // AI 99 and 101 at full speed on the roof that limits each: memory-, then compute-bound.
    EXPECT_EQ(verdictOf(99e9, 1e9, 1'000'000), Verdict::MemoryBound);   // 1 GB in 1 ms: 100%
    EXPECT_EQ(verdictOf(101e9, 1e9, 1'010'000), Verdict::ComputeBound); // 101 GFLOP in 1.01 ms: 100%
    // Memory side, AI 10: 1 GB at 101 GB/s (10.1%) and at 99 GB/s (9.9%).
    EXPECT_EQ(verdictOf(10e9, 1e9, TimeNs(1e9 / 101e9 * 1e9)), Verdict::MemoryBound);
    EXPECT_EQ(verdictOf(10e9, 1e9, TimeNs(1e9 / 99e9 * 1e9)), Verdict::LatencyBound);
    // Compute side, AI 1000: 1 TFLOP at 10.1 and at 9.9 TFLOP/s.
    EXPECT_EQ(verdictOf(1e12, 1e9, TimeNs(1e12 / 10.1e12 * 1e9)), Verdict::ComputeBound);
    EXPECT_EQ(verdictOf(1e12, 1e9, TimeNs(1e12 / 9.9e12 * 1e9)), Verdict::LatencyBound);
}

TEST(Roofline, VerdictsOnEitherSideOfTheRidge) {
    DeviceSpec spec; // ridge at 100 FLOP/byte
    spec.fp32 = 100e12;
    spec.bandwidth = 1e12;
    KernelAnalysis k;
    k.cost = CostSource::Exact;
    k.precision = Precision::F32;
    // AI 10: memory side; 1 GB in 1.25 ms is 800 GB/s, 80% of the memory roof.
    k.flops = 10e9;
    k.bytes = 1e9;
    placeOnRoofline(k, 1'250'000, spec);
    EXPECT_EQ(k.verdict, Verdict::MemoryBound);
    EXPECT_DOUBLE_EQ(k.intensity, 10);
    EXPECT_NEAR(k.memoryShare, 0.8, 1e-12);
    EXPECT_NEAR(k.computeShare, 0.08, 1e-12);
    // AI 1000: compute side; 1 PFLOP... 1e12 FLOPs in 20 ms is 50 TFLOP/s, 50% of the compute roof.
    k.flops = 1e12;
    k.bytes = 1e9;
    placeOnRoofline(k, 20'000'000, spec);
    EXPECT_EQ(k.verdict, Verdict::ComputeBound);
    EXPECT_NEAR(k.computeShare, 0.5, 1e-12);
    // The same kernel taking 10× longer is at 5% of the roof that limits it: latency-bound.
    placeOnRoofline(k, 200'000'000, spec);
    EXPECT_EQ(k.verdict, Verdict::LatencyBound);
    // No cost, no verdict.
    k.cost = CostSource::Unknown;
    placeOnRoofline(k, 1000, spec);
    EXPECT_EQ(k.verdict, Verdict::Unknown);
}

// The checks the issue asks for on a real H100 trace of Qwen with SDPA's flash backend.
TEST(Analysis, H100FlashTraceRolesCostsAndVerdicts) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto trace = loadTraceFile(path);
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_TRUE(a.device);
    EXPECT_EQ(a.device->name, "H100 80GB HBM3");
    int flash = 0, flashCosted = 0, gemms = 0, gemmsCosted = 0;
    const KernelAnalysis* handFlash = nullptr;
    const KernelAnalysis* handGemm = nullptr;
    for (const KernelAnalysis& k : a.kernels) {
        const std::string name = nameOf(*trace, k.event);
        if (name.find("pytorch_flash::flash_fwd_kernel") != std::string::npos) {
            ++flash;
            EXPECT_EQ(k.role, KernelRole::FusedAttention);
            EXPECT_GE(k.call, 0);
            if (k.cost == CostSource::Inferred) {
                ++flashCosted;
                if (!handFlash && durationOf(*trace, k.event) == 115711) handFlash = &k;
            }
        }
        if (name.rfind("sm90_xmma_gemm", 0) == 0) {
            ++gemms;
            EXPECT_EQ(k.role, KernelRole::Gemm); // no naive attention here: plain GEMMs
            if (k.cost == CostSource::Inferred) {
                ++gemmsCosted;
                if (!handGemm && durationOf(*trace, k.event) == 85727 &&
                    costBasis(*trace, k).rfind("aten::mm [[8944,1024],[1024,2816]]", 0) == 0)
                    handGemm = &k;
            }
        }
    }
    EXPECT_EQ(flash, 34);
    EXPECT_EQ(gemms, 241);
    // 10 flash kernels and 73 GEMMs have no runtime call with their correlation id in the file (they
    // were launched before the profiler's window): no op, so no cost. Every other one is costed.
    EXPECT_EQ(flashCosted, 24);
    EXPECT_EQ(gemmsCosted, 168);
    int fusedCalls = 0;
    for (const AttentionCall& c : a.calls)
        fusedCalls += c.impl == "flash";
    EXPECT_EQ(fusedCalls, 34);

    // By hand, the flash kernel of 115.711 µs under aten::_flash_attention_forward
    // [[16, 559, 16, 64] ×3] bf16, causal (Concrete Inputs[8] = True), layout [B, N, H, D]:
    //   FLOPs = 2·B·H·N·S·(D + Dv) / 2 = 2·16·16·559·559·128 / 2 = 10,239,377,408
    //   bytes = (Q + K + V + O) = 4 · 16·559·16·64 · 2 B = 73,269,248
    //   intensity = 139.75 FLOP/B < ridge 989.4 T / 3.35 T = 295.3 → memory side;
    //   73,269,248 B / 115.711 µs = 633.2 GB/s = 18.9% of 3.35 TB/s ≥ 10% → memory-bound
    //   (88.5 TFLOP/s, 8.9% of the bf16 peak).
    ASSERT_NE(handFlash, nullptr);
    EXPECT_DOUBLE_EQ(handFlash->flops, 10239377408.0);
    EXPECT_DOUBLE_EQ(handFlash->bytes, 73269248.0);
    EXPECT_EQ(handFlash->precision, Precision::BF16);
    EXPECT_NEAR(handFlash->intensity, 139.75, 1e-9);
    EXPECT_NEAR(handFlash->memoryShare, 0.18902, 1e-4);
    EXPECT_NEAR(handFlash->computeShare, 0.08944, 1e-4);
    EXPECT_EQ(handFlash->verdict, Verdict::MemoryBound);
    // By hand, the GEMM of 85.727 µs under aten::mm [[8944, 1024], [1024, 2816]] bf16:
    //   FLOPs = 2·8944·1024·2816 = 51,581,550,592
    //   bytes = (8944·1024 + 1024·2816 + 8944·2816) · 2 B = 74,457,088
    //   intensity = 692.8 FLOP/B > 295.3 → compute side;
    //   51,581,550,592 / 85.727 µs = 601.7 TFLOP/s = 60.8% of 989.4 → compute-bound.
    ASSERT_NE(handGemm, nullptr);
    EXPECT_DOUBLE_EQ(handGemm->flops, 51581550592.0);
    EXPECT_DOUBLE_EQ(handGemm->bytes, 74457088.0);
    EXPECT_NEAR(handGemm->computeShare, 0.60814, 1e-4);
    EXPECT_EQ(handGemm->verdict, Verdict::ComputeBound);
}

// Naive attention as PyTorch eager runs it: bmm → div (scale) → masked_fill → softmax → bmm on one stream.
TEST(Analysis, NaiveChainsBecomeCallsWithQkAndPvGemms) {
    std::string events;
    TimeNs t = 1000;
    int correlation = 1;
    auto kernel = [&](const char* name, int dur) {
        events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"kernel","name":")" + name +
                  R"(","pid":0,"tid":7,"ts":)" + std::to_string(t) + R"(,"dur":)" + std::to_string(dur) +
                  R"(,"args":{"device":0,"stream":7,"correlation":)" + std::to_string(correlation++) + "}}";
        t += dur + 1;
    };
    for (int layer = 0; layer < 2; ++layer) {
        kernel("ampere_sgemm_128x64_tn", 50);                                                   // QKᵀ
        kernel("void at::native::vectorized_elementwise_kernel<4, at::native::DivFunctor>", 5); // scale
        kernel("void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", 5);           // mask
        kernel("void at::native::cunn_SoftMaxForward<4, float>", 20);                           // softmax
        kernel("ampere_sgemm_128x64_nn", 50);                                                   // PV
        kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor>", 5); // residual
        kernel("ampere_sgemm_64x64_nn", 40);                                                    // an MLP GEMM
    }
    const auto trace = loadText(
        R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[)" + events + "]}");
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_EQ(a.calls.size(), 2u);
    for (const AttentionCall& call : a.calls) {
        EXPECT_EQ(call.impl, "naive");
        ASSERT_EQ(call.kernels.size(), 5u);
        const KernelRole expected[] = {KernelRole::QkGemm, KernelRole::Softmax, KernelRole::Softmax,
                                       KernelRole::Softmax, KernelRole::PvGemm};
        for (std::size_t i = 0; i < 5; ++i)
            EXPECT_EQ(a.kernels[call.kernels[i]].role, expected[i]) << i;
        EXPECT_EQ(call.duration(), (50 + 1 + 5 + 1 + 5 + 1 + 20 + 1 + 50) * 1000); // µs in the file
    }
    int plainGemms = 0;
    for (const KernelAnalysis& k : a.kernels)
        plainGemms += k.role == KernelRole::Gemm;
    EXPECT_EQ(plainGemms, 2); // the MLP GEMMs stay GEMMs
    // No op shapes in this trace: nothing is guessed.
    for (const KernelAnalysis& k : a.kernels) {
        EXPECT_EQ(k.cost, CostSource::Unknown);
        EXPECT_EQ(k.verdict, Verdict::Unknown);
    }
}

// A call is what runs inside its range: the out-of-place masked_fill's copy inside record_function
// ("attn_fwd") belongs to the hand-written call (as a copy, not as its softmax), while a kernel launched
// outside the range — inside the profiler's step range only — stays outside attention.
TEST(Analysis, ACallIsEverythingLaunchedInsideItsRange) {
    std::string events;
    int corr = 0;
    auto launch = [&](double ts, const char* kernel, double kernelTs, double dur) {
        ++corr;
        events += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
                  std::to_string(ts) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(corr) + "}}";
        events += R"(,{"ph":"X","cat":"kernel","name":")" + std::string(kernel) +
                  R"(","pid":0,"tid":7,"ts":)" + std::to_string(kernelTs) + R"(,"dur":)" +
                  std::to_string(dur) + R"(,"args":{"device":0,"stream":7,"correlation":)" +
                  std::to_string(corr) + "}}";
    };
    events +=
        R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":500})";
    events += R"(,{"ph":"X","cat":"user_annotation","name":"attn_fwd","pid":1,"tid":1,"ts":10,"dur":100})";
    launch(12, "ampere_bf16_s16816gemm_bf16_128x64_tn", 200, 50);                                 // QKᵀ
    launch(20, "void at::native::unrolled_elementwise_kernel<direct_copy_kernel_cuda>", 251, 30); // the copy
    launch(30, "void at::native::elementwise_kernel<128, 4, masked_fill_kernel>", 282, 5);        // mask
    launch(40, "void at::native::cunn_SoftMaxForward<4, float>", 288, 20);                        // softmax
    launch(50, "ampere_bf16_s16816gemm_bf16_128x64_nn", 309, 50);                                 // PV
    launch(200, "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor>", 400,
           5); // outside
    const auto trace = loadText(
        R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[)" + events + "]}");
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_EQ(a.calls.size(), 1u);
    EXPECT_EQ(a.calls[0].impl, "naive");
    EXPECT_EQ(a.calls[0].kernels.size(), 5u); // the chain's four and the copy
    for (const KernelAnalysis& k : a.kernels) {
        const std::string_view name = trace->str(trace->track(k.event.track).events.name[k.event.index]);
        if (name.find("direct_copy") != std::string_view::npos) {
            EXPECT_EQ(k.call, 0);
            EXPECT_EQ(k.role, KernelRole::Copy);
        } else if (name.find("AddFunctor") != std::string_view::npos) {
            EXPECT_EQ(k.call, -1) << "the profiler's step range is no call's range";
        } else {
            EXPECT_EQ(k.call, 0) << name;
        }
    }
}

// Large traces are read on several threads and joined in order: the same analysis as one thread,
// also where the two kernels of one op fall to different threads (op 16,666 on three threads: its cost
// goes to its one GEMM, or to none when both are GEMMs, only once both halves are joined).
TEST(Analysis, ReadOnSeveralThreadsAsOnOne) {
    constexpr int kOps = 25000; // two kernels each: 50,000 kernels, split 16,666 | 16,667 | 16,667 on 3
    auto twoGemms = [](int op) { return op % 3 == 1; }; // op 16,666 among them
    std::string events;
    events.reserve(std::size_t(kOps) * 600);
    for (int op = 0; op < kOps; ++op) {
        const long t = 1000L + 100L * op;
        const int m = 64 + op % 7 * 64; // several shapes, so costs differ between ops
        char text[900];
        std::snprintf(
            text, sizeof text,
            R"(%s{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%ld,"dur":20,"args":{"Input Dims":[[%d,512],[512,256]],"Input type":["float","float"]}},)"
            R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%ld,"dur":3,"args":{"correlation":%d}},)"
            R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%ld,"dur":3,"args":{"correlation":%d}},)"
            R"({"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":%ld,"dur":30,"args":{"device":0,"stream":7,"correlation":%d}},)"
            R"({"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%ld,"dur":5,"args":{"device":0,"stream":7,"correlation":%d}})",
            op ? "," : "", t, m, t + 1, 2 * op + 1, t + 10, 2 * op + 2, t + 40, 2 * op + 1,
            twoGemms(op) ? "ampere_sgemm_64x64_nn"
                         : "void at::native::vectorized_elementwise_kernel<4, AddFunctor>",
            t + 80, 2 * op + 2);
        events += text;
    }
    const auto trace = loadText(
        R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[)" + events + "]}");
    const TraceAnalysis one =
        analyzeTrace(*trace, nullptr, DeviceSpecs::standard(), RoleRules::standard(), nullptr, 1);
    const TraceAnalysis three =
        analyzeTrace(*trace, nullptr, DeviceSpecs::standard(), RoleRules::standard(), nullptr, 3);
    ASSERT_EQ(one.kernels.size(), std::size_t(2 * kOps));
    ASSERT_EQ(three.kernels.size(), one.kernels.size());
    int inferred = 0;
    for (std::size_t i = 0; i < one.kernels.size(); ++i) {
        const KernelAnalysis &x = one.kernels[i], &y = three.kernels[i];
        ASSERT_EQ(x.event, y.event) << i;
        ASSERT_EQ(x.role, y.role) << i;
        ASSERT_EQ(x.cost, y.cost) << i;
        ASSERT_EQ(x.flops, y.flops) << i;
        ASSERT_EQ(x.bytes, y.bytes) << i;
        ASSERT_EQ(x.costOp, y.costOp) << i;
        ASSERT_EQ(x.verdict, y.verdict) << i;
        ASSERT_EQ(x.computeShare, y.computeShare) << i;
        if (x.role == KernelRole::Gemm && !twoGemms(int(i / 2))) {
            // Each op's cost went to its GEMM, the one kernel of the op's role, on either side of a split.
            ASSERT_EQ(x.cost, CostSource::Inferred) << i;
            const int m = 64 + int(i / 2) % 7 * 64;
            ASSERT_DOUBLE_EQ(x.flops, 2.0 * m * 512 * 256) << i;
            ++inferred;
        } else {
            ASSERT_EQ(x.cost, CostSource::Unknown) << i;
        }
    }
    EXPECT_EQ(inferred, kOps - kOps / 3);
    EXPECT_EQ(costBasis(*trace, one.kernels[2 * 16665]),
              "aten::mm [[" + std::to_string(64 + 16665 % 7 * 64) + ",512],[512,256]] fp32");
}

// A naive chain is found on one stream: a QKᵀ GEMM on one stream and the softmax and PV GEMM on
// another are not one call. And dropout after the softmax is not the softmax: only the scale and mask
// before it are folded into it.
TEST(Analysis, NaiveChainsStayOnTheirStreamAndDropoutStaysElementwise) {
    const auto split = a100Kernels({{gemm, 7, 50}, {softmax, 8, 20}, {gemm, 8, 50}});
    EXPECT_TRUE(analyzeTrace(*split).calls.empty());
    const auto withDropout = a100Kernels({{gemm, 7, 50}, {softmax, 7, 20}, {dropout, 7, 5}, {gemm, 7, 50}});
    const TraceAnalysis a = analyzeTrace(*withDropout);
    ASSERT_EQ(a.calls.size(), 1u);
    ASSERT_EQ(a.calls[0].kernels.size(), 4u);
    const KernelRole expected[] = {KernelRole::QkGemm, KernelRole::Softmax, KernelRole::Elementwise,
                                   KernelRole::PvGemm};
    for (std::size_t i = 0; i < 4; ++i)
        EXPECT_EQ(a.kernels[a.calls[0].kernels[i]].role, expected[i]) << i;
}

// Scale and mask kernels between the QKᵀ GEMM and the softmax belong to the call, up to four of them;
// a GEMM five elementwise kernels back is some other GEMM.
TEST(Analysis, UpToFourElementwiseKernelsBeforeTheSoftmaxAreOneCall) {
    // GEMM, `before` scale kernels, softmax, `after` dropout kernels, GEMM, on one stream.
    auto chain = [](int before, int after) {
        std::vector<std::tuple<const char*, int, int>> kernels{{gemm, 7, 50}};
        kernels.insert(kernels.end(), std::size_t(before), {scale, 7, 5});
        kernels.emplace_back(softmax, 7, 20);
        kernels.insert(kernels.end(), std::size_t(after), {dropout, 7, 5});
        kernels.emplace_back(gemm, 7, 50);
        return a100Kernels(kernels);
    };
    const TraceAnalysis a = analyzeTrace(*chain(4, 0));
    ASSERT_EQ(a.calls.size(), 1u);
    ASSERT_EQ(a.calls[0].kernels.size(), 7u);
    EXPECT_EQ(a.kernels[a.calls[0].kernels[0]].role, KernelRole::QkGemm);
    for (std::size_t i = 1; i <= 5; ++i) // the scale and mask count as the softmax's
        EXPECT_EQ(a.kernels[a.calls[0].kernels[i]].role, KernelRole::Softmax) << i;
    EXPECT_EQ(a.kernels[a.calls[0].kernels[6]].role, KernelRole::PvGemm);
    const TraceAnalysis b = analyzeTrace(*chain(5, 0));
    EXPECT_TRUE(b.calls.empty());
    EXPECT_EQ(b.kernels.front().role, KernelRole::Gemm);
    // The same after the softmax: four elementwise kernels (dropout…) before the PV GEMM, not five.
    EXPECT_EQ(analyzeTrace(*chain(0, 4)).calls.size(), 1u);
    EXPECT_TRUE(analyzeTrace(*chain(0, 5)).calls.empty());
}

// A kernel name's role in the table and the timeline's colours is the one most of its time has; a
// name whose instances all last 0 ns still gets its own.
TEST(Analysis, ANameOfZeroLengthKernelsKeepsItsRole) {
    const auto t = a100Kernels({{softmax, 7, 0}, {softmax, 7, 0}, {gemm, 7, 5}});
    const TraceAnalysis a = analyzeTrace(*t);
    const NameClasses& classes = a.tables.classes;
    const StringId softmaxName = t->track(a.kernels[0].event.track).events.name[a.kernels[0].event.index];
    ASSERT_EQ(t->str(softmaxName), softmax);
    ASSERT_TRUE(classes.role[softmaxName.value]);
    EXPECT_EQ(*classes.role[softmaxName.value], KernelRole::Softmax);
}

// AttnScope's CPU runs record each worker's share of a kernel, all run at once: with roofs of
// 100 GFLOP/s and 20 GB/s over all cores and 60 GFLOP/s and 8 GB/s on one, each of the two workers is
// held to min(60, 100/2) = 50 GFLOP/s and min(8, 20/2) = 8 GB/s (ridge 6.25 FLOP/byte).
TEST(Roofline, EachCpuWorkerIsHeldToItsShareOfTheCpuAndNoMoreThanOneCore) {
    const auto t = loadText(cpuRunTraceText());
    DeviceSpec cpu, core;
    cpu.name = "test CPU";
    cpu.fp32 = 100e9;
    cpu.bandwidth = 20e9;
    core.fp32 = 60e9;
    core.bandwidth = 8e9;
    const TraceAnalysis a = analyzeTrace(*t, &cpu, DeviceSpecs::standard(), RoleRules::standard(), &core);
    EXPECT_EQ(a.cpuWorkers, 2u);
    ASSERT_TRUE(a.cpuShare);
    EXPECT_EQ(a.cpuShare->name, "test CPU ÷ 2 workers");
    EXPECT_DOUBLE_EQ(a.cpuShare->fp32, 50e9);
    // The softmax moved 33.6 MB in 3 ms: 11.2 GB/s, above one core's 8: the roof stays, the softmax
    // has no verdict (its cost, or the measurement, is wrong), and the rest are placed as before.
    EXPECT_DOUBLE_EQ(a.cpuShare->bandwidth, 8e9);
    EXPECT_EQ(a.beyondRoof, 2u); // the softmax of each of the two workers
    ASSERT_EQ(a.kernels.size(), 8u);
    for (const KernelAnalysis& k : a.kernels) {
        const Track& track = t->track(k.event.track);
        const std::string_view name = t->str(track.events.name[k.event.index]);
        const double seconds = double(track.events.duration[k.event.index]) * 1e-9;
        if (name == "naive_qk_gemm") {
            // 0.1 GFLOP in 9 ms = 11.1 GFLOP/s, 22.2% of 50; 11.2 FLOP/byte is past the ridge.
            EXPECT_EQ(k.verdict, Verdict::ComputeBound);
            EXPECT_NEAR(k.computeShare, 0.1e9 / seconds / 50e9, 1e-9);
            EXPECT_NEAR(k.computeShare, 0.2222, 1e-4);
        } else if (name == "naive_softmax") {
            EXPECT_EQ(k.verdict, Verdict::Unknown);
            EXPECT_TRUE(k.beyondRoof);
            EXPECT_NEAR(k.memoryShare, 11.2 / 8, 1e-6);
        } else if (name == "flash_forward") {
            // 0.2 GFLOP in 15 ms = 13.3 GFLOP/s: 26.7% of 50.
            EXPECT_EQ(k.verdict, Verdict::ComputeBound);
            EXPECT_NEAR(k.computeShare, 0.2667, 1e-4);
        }
    }
    // Without one core's roofs each worker has half of all cores': 50 GFLOP/s and 10 GB/s.
    const TraceAnalysis halves = analyzeTrace(*t, &cpu);
    ASSERT_TRUE(halves.cpuShare);
    EXPECT_DOUBLE_EQ(halves.cpuShare->fp32, 50e9);
    EXPECT_DOUBLE_EQ(halves.cpuShare->bandwidth, 10e9);
    EXPECT_EQ(halves.beyondRoof, 2u);
    // Without the CPU's roofs a CPU run's kernels get no verdict.
    for (const KernelAnalysis& k : analyzeTrace(*t).kernels)
        EXPECT_EQ(k.verdict, Verdict::Unknown);
}

// A GEMM whose cost is inferred from an op that does not say its types has no known precision: it
// is held to the fp32 roof. aten::mm of two 4096² matrices is 2·4096³ = 137.4 GFLOP; in 1 µs that is
// 137.4 PFLOP/s, above the A100's 19.5 TFLOP/s: its cost is wrong, so it gets no verdict, and the
// datasheet's roofs stay as they are (a roof is never moved to fit a kernel).
TEST(Roofline, AKernelBeyondADatasheetRoofHasAWrongCostAndNoVerdict) {
    const auto t = loadText(R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,
       "args":{"Input Dims":[[4096,4096],[4096,4096]]}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,
       "args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_tn","pid":0,"tid":7,"ts":5,"dur":1,
       "args":{"device":0,"stream":7,"correlation":1}}]})");
    const TraceAnalysis a = analyzeTrace(*t);
    ASSERT_EQ(a.kernels.size(), 1u);
    EXPECT_EQ(a.kernels[0].cost, CostSource::Inferred);
    EXPECT_EQ(a.kernels[0].precision, Precision::Unknown);
    EXPECT_DOUBLE_EQ(a.kernels[0].flops, 2.0 * 4096 * 4096 * 4096);
    ASSERT_TRUE(a.device);
    EXPECT_DOUBLE_EQ(a.device->fp32, 19.5e12);
    EXPECT_DOUBLE_EQ(a.device->bandwidth, 2039e9);
    EXPECT_TRUE(a.kernels[0].beyondRoof);
    EXPECT_EQ(a.kernels[0].verdict, Verdict::Unknown);
    EXPECT_NEAR(a.kernels[0].computeShare, 137.4e15 / 19.5e12, 0.01 * 137.4e15 / 19.5e12);
    EXPECT_EQ(a.beyondRoof, 1u);
    // Its summary says so, and holds no share above 100%.
    TraceSummary s = summarize(*t, 0);
    addAnalysis(s, *t, a);
    ASSERT_TRUE(s.roofline);
    EXPECT_EQ(s.roofline->beyondRoof, 1u);
    for (const RooflineKernel& k : s.roofline->kernels) {
        EXPECT_FALSE(k.costed);
        EXPECT_EQ(k.verdict, Verdict::Unknown);
    }
}

// In the text report a kernel only B has is "new" and one B lost is "gone", not a ratio of 0.00x.
TEST(Diff, NewAndGoneKernelsAreSaidSoInText) {
    auto traceOf = [](const std::string& kernels) {
        return loadText(R"({"traceEvents":[)" + kernels + "]}");
    };
    const std::string gemm =
        R"({"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":7,"ts":0,"dur":100})";
    const auto a =
        traceOf(gemm + R"(,{"ph":"X","cat":"kernel","name":"old_kernel","pid":0,"tid":7,"ts":200,"dur":10})");
    const auto b =
        traceOf(gemm + R"(,{"ph":"X","cat":"kernel","name":"new_kernel","pid":0,"tid":7,"ts":200,"dur":10})");
    const TraceDiff d = diffTraces(*a, analyzeTrace(*a), *b, analyzeTrace(*b));
    const std::string text = formatDiff(d, "a.json", "b.json", DiffFormat::Text);
    auto lineOf = [&](const std::string& name) {
        const std::size_t at = text.find(name);
        if (at == std::string::npos) return std::string();
        const std::size_t start = text.rfind('\n', at) + 1;
        return text.substr(start, text.find('\n', at) - start);
    };
    EXPECT_NE(lineOf("old_kernel").find(" gone "), std::string::npos) << text;
    EXPECT_NE(lineOf("new_kernel").find(" new "), std::string::npos) << text;
    EXPECT_EQ(lineOf("old_kernel").find("0.00x"), std::string::npos) << text;
}

// Two made traces with a known answer: B's GEMM got 30 µs slower, its softmax 10 µs faster, and a
// fused kernel appeared; the copy did not change.
TEST(Diff, TwoMadeTracesGiveTheKnownAnswer) {
    auto traceOf = [](const std::vector<std::pair<std::string, int>>& kernels) {
        std::string events;
        int t = 0;
        for (const auto& [name, dur] : kernels) {
            events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"kernel","name":")" + name +
                      R"(","pid":0,"tid":7,"ts":)" + std::to_string(t) + R"(,"dur":)" + std::to_string(dur) +
                      R"(,"args":{"device":0,"stream":7}})";
            t += dur + 1;
        }
        return loadText(R"({"traceEvents":[)" + events + "]}");
    };
    const auto a = traceOf({{"volta_sgemm_128x64_nn", 100},
                            {"volta_sgemm_128x64_nn", 100},
                            {"cunn_SoftMaxForward", 40},
                            {"copy_kernel", 5}});
    const auto b = traceOf({{"volta_sgemm_128x64_nn", 115},
                            {"volta_sgemm_128x64_nn", 115},
                            {"cunn_SoftMaxForward", 30},
                            {"copy_kernel", 5},
                            {"flash_fwd_kernel", 20}});
    const TraceDiff d = diffTraces(*a, analyzeTrace(*a), *b, analyzeTrace(*b));
    EXPECT_EQ(d.kernelA, 245'000);
    EXPECT_EQ(d.kernelB, 285'000);
    ASSERT_EQ(d.roles.size(), 4u);
    // By |delta|: gemm +30 µs, fused +20 µs, softmax −10 µs, copy 0.
    EXPECT_EQ(d.roles[0].key, "gemm");
    EXPECT_EQ(d.roles[0].delta(), 30'000);
    EXPECT_DOUBLE_EQ(d.roles[0].ratio(), 1.15);
    EXPECT_TRUE(d.roles[0].regression());
    EXPECT_EQ(d.roles[1].key, "fused_attention");
    EXPECT_EQ(d.roles[1].countA, 0u);
    EXPECT_TRUE(std::isinf(d.roles[1].ratio()));
    EXPECT_FALSE(d.roles[1].regression()); // new in B, not slower than anything in A
    EXPECT_EQ(d.roles[2].key, "softmax");
    EXPECT_EQ(d.roles[2].delta(), -10'000);
    EXPECT_FALSE(d.roles[2].regression());
    EXPECT_EQ(d.roles[3].key, "copy");
    EXPECT_EQ(d.roles[3].delta(), 0);
    EXPECT_FALSE(d.roles[3].regression());
    ASSERT_EQ(d.kernels.size(), 4u);
    EXPECT_EQ(d.kernels[0].key, "volta_sgemm_128x64_nn");
    EXPECT_EQ(d.kernels[0].countB, 2u);

    const std::string csv = formatDiff(d, "a.json", "b.json", DiffFormat::Csv);
    EXPECT_NE(csv.find("role,gemm,2,2,200000,230000,30000,1.1500,yes\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find("role,fused_attention,0,1,0,20000,20000,,no\n"), std::string::npos) << csv;
    const std::string json = formatDiff(d, "a.json", "b.json", DiffFormat::Json, 1);
    EXPECT_NE(json.find("\"delta_ns\": 40000"), std::string::npos) << json;
    EXPECT_EQ(std::count(json.begin(), json.end(), '\n') > 10, true);
    const std::string text = formatDiff(d, "a.json", "b.json", DiffFormat::Text);
    EXPECT_NE(text.find("kernel time: 245.000 µs -> 285.000 µs (+40.000 µs)"), std::string::npos) << text;
}

// The issue's check: the two DLRM ranks open as one job with two rank groups, and no link crosses ranks.
// A rank's GPU busy time is the union of its streams' kernels, not their sum. By hand: rank 0 runs
// [0,40) on stream 7 and [30,60) on stream 8 (busy 60 µs, kernel time 70 µs); rank 1 runs [0,20) and
// [100,110) on one stream (busy 30 µs). The slowest rank is rank 0; the spread is (60 − 30) / 45.
TEST(Ranks, BusyTimeIsTheUnionOfTheStreams) {
    auto rank = [](int r, const std::string& kernels) {
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":2},"traceEvents":[)" + kernels + "]}");
    };
    const std::string k = R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":)";
    const auto r0 = rank(0, k + R"(7,"ts":0,"dur":40},)" + k + R"(8,"ts":30,"dur":30})");
    const auto r1 = rank(1, k + R"(7,"ts":0,"dur":20},)" + k + R"(7,"ts":100,"dur":10})");
    const RankReport report = rankReport({{"r0.json", r0}, {"r1.json", r1}});
    ASSERT_EQ(report.ranks.size(), 2u);
    EXPECT_EQ(report.ranks[0].gpuBusyNs, 60'000);
    EXPECT_EQ(report.ranks[0].kernelNs, 70'000);
    EXPECT_EQ(report.ranks[1].gpuBusyNs, 30'000);
    EXPECT_EQ(report.slowestRank, 0);
    EXPECT_EQ(report.meanBusyNs, 45'000);
    EXPECT_DOUBLE_EQ(report.spread(), 30.0 / 45.0);
    // The text marks the slowest rank, and only it: on rank 0's line.
    const std::string text = formatRankReport(report, SummaryFormat::Text);
    const std::size_t mark = text.find("<- slowest");
    ASSERT_NE(mark, std::string::npos) << text;
    EXPECT_EQ(mark, text.rfind("<- slowest")) << text;
    EXPECT_EQ(text.substr(text.rfind('\n', mark) + 1, 7), "     0 ") << text;
}

// Files without a distributedInfo rank are ranks by their position, their processes grouped under
// the file's name (not its folders).
// Two ranks of one program write the same correlation ids: each launch still links to its own rank's
// kernel. Their GPUs are named by device ("GPU 0", "GPU 1"); the collectives are matched in time order
// across streams (a rank's second collective on another stream that comes first in the file); and the
// JSON report carries each measure.
TEST(Ranks, SameCorrelationsStayInTheirRankAndCollectivesMatchInTimeOrder) {
    // Rank 0 writes its SendRecv on the stream listed first, rank 1 its AllReduce: only time orders them.
    auto rank = [](int r, int device, double late) {
        const std::string dev = std::to_string(device);
        const std::string allReduceStream = r == 0 ? "24" : "20", sendRecvStream = r == 0 ? "20" : "24";
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":2},"deviceProperties":[{"id":)" + dev +
                        R"(,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":9,"tid":9,"ts":1,"dur":2,"args":{"correlation":7}},
          {"ph":"X","cat":"kernel","name":"gemm_a","pid":)" +
                        dev + R"(,"tid":7,"ts":10,"dur":100,"args":{"device":)" + dev +
                        R"(,"stream":7,"correlation":7}},
          {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":)" +
                        dev + R"(,"tid":)" + allReduceStream + R"(,"ts":)" + std::to_string(300 + late) +
                        R"(,"dur":50,"args":{"device":)" + dev + R"(,"stream":)" + allReduceStream + R"(}},
          {"ph":"X","cat":"kernel","name":"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t","pid":)" +
                        dev + R"(,"tid":)" + sendRecvStream + R"(,"ts":)" + std::to_string(150 + late) +
                        R"(,"dur":50,"args":{"device":)" + dev + R"(,"stream":)" + sendRecvStream +
                        R"(}}]})");
    };
    // Rank 1 reaches both collectives 30 µs after rank 0.
    const std::vector<RankInput> inputs = {{"r0.json", rank(0, 0, 0)}, {"r1.json", rank(1, 1, 30)}};
    const auto merged = mergeRanks(inputs);
    std::set<std::string> gpus;
    for (const ProcessInfo& p : merged->processes())
        if (p.isGpu) gpus.insert(std::to_string(p.rank) + ":" + p.labels);
    EXPECT_EQ(gpus, (std::set<std::string>{"0:GPU 0", "1:GPU 1"}));
    int linked = 0;
    for (std::uint32_t t = 0; t < merged->tracks().size(); ++t)
        for (std::uint32_t i = 0; i < merged->tracks()[t].size(); ++i)
            if (const auto launch = merged->launchOf({TrackId{t}, i})) {
                ++linked;
                EXPECT_EQ(merged->process(merged->track(launch->track).process).rank,
                          merged->process(merged->tracks()[t].process).rank);
            }
    EXPECT_EQ(linked, 2);
    const RankReport report = rankReport(inputs);
    EXPECT_EQ(report.collectives, 2u); // SendRecv first, then AllReduce, on every rank
    EXPECT_EQ(report.stragglerRank, 1);
    EXPECT_EQ(report.ranks[0].waitNs, 60'000);
    EXPECT_EQ(report.ranks[1].waitNs, 0);
    EXPECT_EQ(report.ranks[0].computeBusyNs, 100'000);
    EXPECT_EQ(report.ranks[0].commNs, 100'000);
    const auto j = nlohmann::json::parse(formatRankReport(report, SummaryFormat::Json));
    EXPECT_EQ(j.at("ranks").at(0).at("compute_busy_ns"), 100'000);
    EXPECT_EQ(j.at("ranks").at(0).at("communication_ns"), 100'000);
    EXPECT_EQ(j.at("ranks").at(0).at("collective_wait_ns"), 60'000);
    EXPECT_EQ(j.at("ranks").at(1).at("last_arrivals"), 2);
    EXPECT_EQ(j.at("compute_busy").at("mean_ns"), 100'000);
    EXPECT_EQ(j.at("compute_busy").at("most_rank"), 0);
    EXPECT_EQ(j.at("collectives").at("matched"), 2);
    EXPECT_EQ(j.at("collectives").at("straggler_rank"), 1);
    EXPECT_EQ(j.at("slowest_rank"), 1);
}

// Collectives are matched by time, whatever stream each rank ran them on: rank 0 runs its first and
// third on one stream and its second on another, rank 1 all three on one.
TEST(Ranks, CollectivesAreMatchedInTimeOrderWhateverTheirStreams) {
    auto kernel = [](const char* name, int stream, int ts) {
        return std::string(R"({"ph":"X","cat":"kernel","name":")") + name + R"(","pid":0,"tid":)" +
               std::to_string(stream) + R"(,"ts":)" + std::to_string(ts) +
               R"(,"dur":20,"args":{"device":0,"stream":)" + std::to_string(stream) + "}}";
    };
    auto rank = [](int r, const std::string& events) {
        return loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                        R"(,"world_size":2},"traceEvents":[)" + events + "]}");
    };
    const char* s = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t";
    const char* b = "ncclKernel_Broadcast_RING_LL_Sum_int8_t";
    const char* a = "ncclKernel_AllReduce_RING_LL_Sum_float";
    const auto r0 = rank(0, kernel(s, 20, 100) + "," + kernel(a, 20, 400) + "," + kernel(b, 24, 250));
    const auto r1 = rank(1, kernel(s, 20, 110) + "," + kernel(b, 20, 260) + "," + kernel(a, 20, 410));
    const RankReport report = rankReport({{"r0.json", r0}, {"r1.json", r1}});
    EXPECT_EQ(report.collectives, 3u);
    EXPECT_EQ(report.stragglerRank, 1);
    EXPECT_EQ(report.ranks[0].waitNs, 30'000);
    EXPECT_EQ(report.ranks[1].lastArrivals, 3u);
}

// Three ranks of one program, each with correlation 7: each launch links to its own rank's kernel.
TEST(Ranks, ThreeRanksWithOneCorrelationKeepTheirOwnLinks) {
    std::vector<RankInput> inputs;
    for (int r = 0; r < 3; ++r)
        inputs.push_back({"r" + std::to_string(r) + ".json",
                          loadText(R"({"distributedInfo":{"rank":)" + std::to_string(r) +
                                   R"(,"world_size":3},"traceEvents":[
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":9,"tid":9,"ts":1,"dur":2,"args":{"correlation":7}},
          {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":100,"args":{"device":0,"stream":7,"correlation":7}}]})")});
    const auto merged = mergeRanks(inputs);
    int linked = 0;
    for (std::uint32_t t = 0; t < merged->tracks().size(); ++t)
        for (std::uint32_t i = 0; i < merged->tracks()[t].size(); ++i)
            if (const auto launch = merged->launchOf({TrackId{t}, i});
                launch && isKernelCategory(merged->str(merged->tracks()[t].events.category[i]))) {
                ++linked;
                EXPECT_EQ(merged->process(merged->track(launch->track).process).rank,
                          merged->process(merged->tracks()[t].process).rank);
            }
    EXPECT_EQ(linked, 3);
}

TEST(Ranks, FilesWithoutARankAreGroupedByTheirFileName) {
    const auto t =
        loadText(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1}]})");
    const auto merged = mergeRanks({{"/data/run/a.json", t}, {"/data/run/b.json", t}});
    std::set<std::string> names;
    for (const ProcessInfo& p : merged->processes())
        names.insert(p.name.substr(0, p.name.find(" · ")));
    EXPECT_EQ(names, (std::set<std::string>{"a.json", "b.json"}));
}

TEST(Ranks, TwoDlrmRanksMergeWithoutCrossingLinks) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    const std::vector<RankInput> inputs = {{r0, loadTraceFile(r0)}, {r1, loadTraceFile(r1)}};
    const auto merged = mergeRanks(inputs);
    EXPECT_EQ(merged->eventCount(), inputs[0].trace->eventCount() + inputs[1].trace->eventCount());
    std::set<std::int64_t> ranks;
    for (const ProcessInfo& p : merged->processes()) {
        ranks.insert(p.rank);
        EXPECT_EQ(p.name.rfind("rank " + std::to_string(p.rank) + " · ", 0), 0u) << p.name;
    }
    EXPECT_EQ(ranks, (std::set<std::int64_t>{0, 1}));
    auto rankOfEvent = [&](EventRef e) { return merged->process(merged->track(e.track).process).rank; };
    std::size_t links = 0, kernels = 0;
    for (std::uint32_t t = 0; t < merged->tracks().size(); ++t) {
        const Track& track = merged->tracks()[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (!isKernelCategory(merged->str(track.events.category[i]))) continue;
            ++kernels;
            if (const auto launch = merged->launchOf({TrackId{t}, i})) {
                ++links;
                EXPECT_EQ(rankOfEvent(*launch), rankOfEvent({TrackId{t}, i}));
            }
        }
    }
    EXPECT_EQ(kernels, 245u + 310u);
    // Every launch link of each file is kept, each inside its own rank.
    std::size_t linksBefore = 0;
    for (const RankInput& in : inputs)
        for (std::uint32_t t = 0; t < in.trace->tracks().size(); ++t)
            for (std::uint32_t i = 0; i < in.trace->tracks()[t].size(); ++i)
                linksBefore += isKernelCategory(in.trace->str(in.trace->tracks()[t].events.category[i])) &&
                               in.trace->launchOf({TrackId{t}, i});
    EXPECT_EQ(links, linksBefore);
    EXPECT_GT(links, 400u);
    for (const Flow& f : merged->flows())
        EXPECT_EQ(rankOfEvent(f.from), rankOfEvent(f.to));
    EXPECT_EQ(merged->flows().size(), inputs[0].trace->flows().size() + inputs[1].trace->flows().size());

    const RankReport report = rankReport(inputs);
    ASSERT_EQ(report.ranks.size(), 2u);
    EXPECT_EQ(report.ranks[0].kernels, 245u);
    EXPECT_EQ(report.ranks[1].kernels, 310u);
    // Rank 1 has the most GPU busy time, but most of it is waiting inside its collectives: by an
    // independent reading of the files (the n-th NCCL kernel of each rank is one collective, 8 of them,
    // the same names in the same order), rank 1 reaches them 5,585 µs before rank 0 in all, rank 0 40 µs
    // before rank 1. Rank 0 is the straggler; rank 1 computes the most.
    EXPECT_EQ(report.maxBusyNs, report.ranks[1].gpuBusyNs);
    EXPECT_EQ(report.collectives, 8u);
    EXPECT_EQ(report.ranks[0].waitNs, 40'000);
    EXPECT_EQ(report.ranks[1].waitNs, 5'585'000);
    EXPECT_EQ(report.stragglerRank, 0);
    EXPECT_EQ(report.slowestRank, 0);
    EXPECT_EQ(report.othersMeanWaitNs(), 5'585'000);
    EXPECT_EQ(report.mostComputeRank, 1);
    EXPECT_LT(report.ranks[0].computeBusyNs, report.ranks[1].computeBusyNs);
    EXPECT_EQ(report.ranks[0].lastArrivals, 4u); // the fourth collective starts at once on both: nobody's
    EXPECT_EQ(report.ranks[1].lastArrivals, 3u);
    EXPECT_NEAR(report.spread(),
                double(report.maxComputeNs - report.minComputeNs) / double(report.meanComputeNs), 1e-12);
    // The same rank twice is refused.
    EXPECT_THROW(mergeRanks({inputs[0], inputs[0]}), std::invalid_argument);
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

TEST(Findings, TheV100ConvolutionsTiledOccupancyIsNoFinding) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "v100_ns_decimals.json.gz");
    const auto trace = loadTraceFile(path);
    const TraceAnalysis a = analyzeTrace(*trace);
    for (const Finding& f : findFindings({*trace, a}))
        EXPECT_NE(f.id, "low_occupancy") << f.explanation;
}
