// SPDX-License-Identifier: MIT
// Kernel roles from real kernel names (resources/kernel_roles.txt, user rules first).
#include "analysis_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

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

// Roles match words of work, not any substring: FBGEMM's embedding and sparse kernels (the DLRM fixture's,
// every one holding "gemm" in its library's name or in an fbgemm_gpu::FixedDivisor argument) are no GEMMs,
// while the GEMMs whose names hold "gemm" inside a word (sgemm, s16816gemm) still are. Reductions named
// after their op (MTIA's kernels) are reductions, not elementwise.
TEST(KernelRoles, LibraryNamesAreNoRolesAndReductionsByOpNameAreReductions) {
    const RoleRules& rules = RoleRules::standard();
    EXPECT_EQ(
        rules.classify("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, "
                       "int*)",
                       "kernel"),
        KernelRole::Other);
    EXPECT_EQ(
        rules.classify("void bounds_check_indices_kernel<long>(at::GenericPackedTensorAccessor<long, 1ul, "
                       "at::RestrictPtrTraits, int>, long, fbgemm_gpu::FixedDivisor)",
                       "kernel"),
        KernelRole::Other);
    EXPECT_EQ(rules.classify("fbgemm::permute_2D_sparse_data", "cpu_op"), KernelRole::Elementwise);
    EXPECT_EQ(rules.classify("ampere_sgemm_128x64_tn", "kernel"), KernelRole::Gemm);
    EXPECT_EQ(rules.classify("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", "kernel"),
              KernelRole::Gemm);
    for (const char* name : {"reduce_sum-dtype_Float", "linalg_vector_norm-dtype_Float",
                             "max_dim_max-dtype_Float", "aten::reduce_mean.out-dtype_BFloat16"})
        EXPECT_EQ(rules.classify(name, "kernel"), KernelRole::Reduction) << name;
    EXPECT_EQ(rules.classify("add-dtype_Float", "kernel"), KernelRole::Elementwise);
    // In the DLRM trace no kernel of fbgemm_gpu is a GEMM.
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto trace = loadText(readAllBytes(path));
    const TraceAnalysis a = analyzeTrace(*trace);
    int fbgemm = 0;
    for (const KernelAnalysis& k : a.kernels) {
        const std::string name = nameOf(*trace, k.event);
        if (name.find("fbgemm") == std::string::npos) continue;
        ++fbgemm;
        EXPECT_NE(k.role, KernelRole::Gemm) << name;
    }
    EXPECT_GE(fbgemm, 4);
    // A user's ignored word: parsed, and a line without a word is a problem.
    std::vector<std::string> problems;
    const RoleRules user = RoleRules::parse("ignore  LibGemm\ngemm  gemm\nignore\n", &problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0], "line 3: ignore needs a word");
    EXPECT_EQ(user.classify("libgemm_sgemm_scatter", "kernel"), KernelRole::Gemm);
    EXPECT_EQ(user.classify("LIBGEMM_scatter", "kernel"), KernelRole::Other);
}

// An MTIA trace names no device model: its kernels have no roofs, and the reason says so (not "no GPU").
TEST(KernelRoles, AnMtiaTraceSaysWhyItHasNoRoofs) {
    const auto t = loadText(
        R"({"traceEvents":[{"ph":"M","name":"process_name","pid":9,"tid":0,"args":{"name":"MTIA 9"}},)"
        R"({"ph":"X","cat":"mtia_ccp_events","name":"fc-dtype_Float","pid":9,"tid":1,"ts":10,"dur":5},)"
        R"({"ph":"X","cat":"mtia_ccp_events","name":"reduce_sum-dtype_Float","pid":9,"tid":1,"ts":20,"dur":5}]})");
    const TraceAnalysis a = analyzeTrace(*t);
    ASSERT_EQ(a.kernels.size(), 2u);
    EXPECT_EQ(a.kernels[1].role, KernelRole::Reduction);
    EXPECT_FALSE(a.device);
    EXPECT_EQ(a.deviceNote, "no roofs are known for its devices: the trace does not name their model (MTIA)");
}
