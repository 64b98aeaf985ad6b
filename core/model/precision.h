// SPDX-License-Identifier: MIT
#pragma once

// The one element type vocabulary: what AttnScope's workloads run in, what the analysis reads from
// a trace's "Input type" and "dtype" args, and which roof a kernel is held to. Header-only, so the
// CUDA plugin (which links none of core) shares it.
#include <cstdint>
#include <string_view>

namespace attnscope {

enum class Precision : std::uint8_t { Unknown, F32, TF32, F16, BF16, F8 };

// "fp32", "tf32", "fp16", "bf16", "fp8", "unknown": as AttnScope writes and reads them.
constexpr std::string_view precisionName(Precision p) {
    switch (p) {
    case Precision::F32:
        return "fp32";
    case Precision::TF32:
        return "tf32";
    case Precision::F16:
        return "fp16";
    case Precision::BF16:
        return "bf16";
    case Precision::F8:
        return "fp8";
    default:
        return "unknown";
    }
}

// The precision a name means: AttnScope's own names ("bf16"), or PyTorch's "Input type" spellings
// ("float", "c10::Half", "c10::BFloat16", the c10::Float8_* types); Unknown otherwise.
constexpr Precision precisionNamed(std::string_view name) {
    for (Precision p : {Precision::F32, Precision::TF32, Precision::F16, Precision::BF16, Precision::F8})
        if (name == precisionName(p)) return p;
    if (name == "float") return Precision::F32;
    if (name == "c10::Half") return Precision::F16;
    if (name == "c10::BFloat16") return Precision::BF16;
    if (name.find("Float8") != std::string_view::npos) return Precision::F8;
    return Precision::Unknown;
}

// The precision a kernel computes in, from its inputs' and its name: fp32 inputs on tensor cores are
// TF32 (also where the inputs are not said: cuBLAS's "…_tf32f32_…", CUTLASS's "tensorop_s1688gemm" / "s1684":
// the single-precision tensor-core shapes of sm80 and later), held to the TF32 roof; anything else is what
// its inputs are.
constexpr Precision precisionRunning(Precision inputs, std::string_view kernelName) {
    if (inputs != Precision::F32 && inputs != Precision::Unknown) return inputs;
    for (std::string_view tf32 : {"tf32", "tensorop_s1688", "tensorop_s1684"})
        if (kernelName.find(tf32) != std::string_view::npos) return Precision::TF32;
    return inputs;
}

// Bytes per element (fp32 for Unknown: the widest AttnScope assumes).
constexpr int precisionBytes(Precision p) {
    return p == Precision::F8 ? 1 : p == Precision::F16 || p == Precision::BF16 ? 2 : 4;
}

} // namespace attnscope
