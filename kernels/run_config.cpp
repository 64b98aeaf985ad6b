// SPDX-License-Identifier: MIT
// What a run runs: its cases, the presets, the checks that say what cannot run, and the backend a
// user's choice comes to.
#include "kernels/cpu/blas.h"
#include "kernels/cuda_backend.h"
#include "kernels/run_session.h"
#include "kernels/torch_backend.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace attnscope::kernels {

std::vector<RunCase> runCases(const RunConfig& config) {
    std::vector<RunCase> cases;
    if (config.variants.empty())
        for (const std::string& impl : config.impls)
            cases.push_back({impl, impl, config.shape});
    for (const RunVariant& v : config.variants)
        for (const std::string& impl : v.impls)
            cases.push_back({impl + " " + v.name, impl, v.shape});
    return cases;
}

const std::vector<RunPreset>& runPresets() {
    static const std::vector<RunPreset> presets = [] {
        auto shape = [](int heads, int seq, int dim, int kvHeads, int kvLen) {
            AttentionShape s;
            s.heads = heads;
            s.seq = seq;
            s.dim = dim;
            s.kvHeads = kvHeads;
            s.kvLen = kvLen;
            return s;
        };
        const AttentionShape prefill = shape(8, 2048, 64, 0, 0);
        const AttentionShape decode = shape(8, 1, 64, 0, 32768);
        return std::vector<RunPreset>{
            // The window's first run: the N×N scores naive attention writes and reads (its softmax
            // memory-bound), the fused kernel compute-bound, and a decode step bound by reading its KV cache.
            {"first-look",
             "naive vs flash, prefill and decode",
             {{"prefill", prefill, {"naive", "flash"}}, {"decode", decode, {"flash"}}}},
            {"naive-flash", "naive vs flash", {{"prefill", prefill, {"naive", "flash"}}}},
            {"prefill-decode",
             "prefill vs decode",
             {{"prefill", prefill, {"flash"}}, {"decode", decode, {"naive", "flash"}}}},
            // A decode step reads the whole KV cache: sharing K/V heads divides what it reads.
            {"mha-gqa-mqa",
             "MHA vs GQA vs MQA (decode)",
             {{"MHA", shape(32, 1, 128, 0, 16384), {"flash"}},
              {"GQA", shape(32, 1, 128, 8, 16384), {"flash"}},
              {"MQA", shape(32, 1, 128, 1, 16384), {"flash"}}}},
        };
    }();
    return presets;
}

const RunPreset* findRunPreset(const std::string& key) {
    for (const RunPreset& p : runPresets())
        if (p.key == key) return &p;
    return nullptr;
}

namespace {

// What is wrong with one case's shape ("" when it can run).
std::string checkShape(const AttentionShape& s, bool cuda, bool naive, bool flash) {
    if (s.batch < 1 || s.heads < 1 || s.seq < 1 || s.dim < 1 || s.batch > 4096 || s.heads > 4096 ||
        s.seq > (1 << 20) || s.dim > 1024 || s.kvHeads < 0 || s.kvLen < 0 || s.kvLen > (1 << 24))
        return "shape out of range (batch and heads 1–4096, seq 1–1048576, dim 1–1024, kv-len up to "
               "16777216)";
    if (s.heads % s.kvHeadCount() != 0)
        return "kv-heads (" + std::to_string(s.kvHeadCount()) + ") must divide heads (" +
               std::to_string(s.heads) + "): each K/V head serves the same number of query heads";
    if (s.keys() < s.seq)
        return "kv-len (" + std::to_string(s.keys()) + ") is shorter than the queries (" +
               std::to_string(s.seq) + "): the KV cache holds at least the tokens being decoded";
    if (cuda && !flash && (s.kvHeadCount() != s.heads || s.keys() != s.seq))
        return "on CUDA, grouped K/V heads and KV caches run on flash (tensor cores); naive and the SIMT "
               "kernels "
               "need kv-heads = heads and kv-len = seq";
    if (cuda) return {}; // the device checks its own memory
    // Q, K, V, O in fp32, and for naive the seq × keys scores of every head.
    double bytes = 4.0 * 2 * (double(s.elements()) + double(s.kvElements()));
    if (naive) bytes += 4.0 * double(s.scoreElements());
    const double physical = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    if (physical > 0 && bytes > physical * 0.75) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "out of memory at this shape: it needs %.1f GB, the machine has %.1f GB", bytes / 1e9,
                      physical / 1e9);
        return msg;
    }
    return {};
}

} // namespace

std::string checkRunConfig(const RunConfig& c) {
    const bool cuda = c.backend == Backend::Cuda, torch = c.backend == Backend::Torch;
    const std::vector<RunCase> cases = runCases(c);
    if (cases.empty()) return "no implementation to run";
    if ((cuda || torch) && !c.variants.empty())
        return "presets run on AttnScope's CPU backend (choose Custom for the " +
               std::string(torch ? "PyTorch" : "CUDA") + " backend)";
    for (const RunCase& rc : cases) {
        const std::string& impl = rc.impl;
        if (torch) {
            if (std::find(torchImpls().begin(), torchImpls().end(), impl) == torchImpls().end())
                return "unknown implementation '" + impl +
                       "' (the PyTorch backend has: naive, naive_inplace, math, flash, efficient, cudnn, "
                       "flash_bf16)";
            // PyTorch picks its device: the memory is checked as for the CPU, by the largest user.
            if (const std::string why = checkShape(rc.shape, false, impl == "naive" || impl == "math", false);
                !why.empty())
                return why;
            continue;
        }
        if (cuda && std::find(cudaImpls().begin(), cudaImpls().end(), impl) == cudaImpls().end())
            return "unknown implementation '" + impl +
                   "' (the CUDA backend has: naive, naive_simt, flash, flash_simt)";
        if (!cuda && impl != "naive" && impl != "flash")
            return "unknown implementation '" + impl + "' (the CPU backend has: naive, flash)";
        const bool fp32 = rc.shape.dtype == Precision::F32;
        if (cuda && impl == "flash" && (fp32 || (rc.shape.dim != 64 && rc.shape.dim != 128)))
            return "flash on CUDA (tensor cores) runs fp16 and bf16 at head dims 64 and 128; flash_simt runs "
                   "fp32";
        if (cuda && (impl == "naive_simt" || impl == "flash_simt") && !fp32) return impl + " runs fp32 only";
        if (cuda && impl == "flash_simt" && rc.shape.dim > 128)
            return "flash_simt handles head dims up to 128";
        if (const std::string why = checkShape(rc.shape, cuda, impl == "naive", impl == "flash");
            !why.empty())
            return c.variants.empty() ? why : rc.label + ": " + why;
        if (!cuda && impl == "naive" && !blas()) return blasProblem();
    }
    if (c.warmup < 0 || c.iters < 1 || c.warmup > 10000 || c.iters > 10000)
        return "warm-up 0–10000 and iterations 1–10000";
    return {};
}

namespace {

constexpr std::pair<BackendChoice, std::string_view> kBackendChoices[] = {{BackendChoice::Cpu, "cpu"},
                                                                          {BackendChoice::Cuda, "cuda"},
                                                                          {BackendChoice::Torch, "torch"},
                                                                          {BackendChoice::Auto, "auto"}};

} // namespace

std::string_view backendChoiceName(BackendChoice choice) {
    for (const auto& [c, name] : kBackendChoices)
        if (c == choice) return name;
    return {};
}

std::optional<BackendChoice> backendChoiceNamed(std::string_view name) {
    for (const auto& [c, n] : kBackendChoices)
        if (n == name) return c;
    return std::nullopt;
}

std::string backendChoicesText() {
    std::string text;
    const std::size_t n = std::size(kBackendChoices);
    for (std::size_t i = 0; i < n; ++i)
        text += std::string(i == 0       ? ""
                            : i + 1 == n ? " or "
                                         : ", ") +
                std::string(kBackendChoices[i].second);
    return text;
}

const std::vector<std::string>& cpuImpls() {
    static const std::vector<std::string> impls{"naive", "flash"};
    return impls;
}

std::vector<std::string> implsOffered(BackendChoice choice) {
    std::vector<std::string> out;
    auto add = [&](const std::vector<std::string>& impls) {
        for (const std::string& impl : impls)
            if (std::find(out.begin(), out.end(), impl) == out.end()) out.push_back(impl);
    };
    if (choice == BackendChoice::Cpu || choice == BackendChoice::Auto) add(cpuImpls());
    if (choice == BackendChoice::Cuda || choice == BackendChoice::Auto) add(cudaImpls());
    if (choice == BackendChoice::Torch) add(torchImpls());
    return out;
}

std::vector<std::string> allImpls() {
    std::vector<std::string> out = implsOffered(BackendChoice::Auto);
    for (const std::string& impl : torchImpls())
        if (std::find(out.begin(), out.end(), impl) == out.end()) out.push_back(impl);
    return out;
}

std::string chooseBackend(RunConfig& config, BackendChoice requested, std::string& notice) {
    notice.clear();
    config.backend = Backend::Cpu;
    if (requested == BackendChoice::Torch) {
        config.backend = Backend::Torch; // PyTorch itself runs on its GPU when it has one
    } else if (requested != BackendChoice::Cpu) {
        const CudaAvailability cuda = probeCuda();
        if (requested == BackendChoice::Cuda) {
            if (!cuda.runnable) return cuda.message;
            config.backend = Backend::Cuda;
        } else if (cuda.runnable) {
            RunConfig onGpu = config;
            onGpu.backend = Backend::Cuda;
            if (const std::string why = checkRunConfig(onGpu); why.empty())
                config.backend = Backend::Cuda;
            else
                notice = "CUDA: " + why + ": using the CPU backend";
        } else {
            notice = cuda.message + ": using the CPU backend";
        }
    }
    return checkRunConfig(config);
}

} // namespace attnscope::kernels
