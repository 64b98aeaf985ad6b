// SPDX-License-Identifier: MIT
// GPU attention benchmark (needs an NVIDIA GPU; tests/gpu/check.sh runs it): TFLOP/s of the
// tensor-core flash kernel at B=4, H=16, N=4096, D=128, bf16, non-causal and causal, as a share of
// the GPU's dense bf16 peak; cuBLAS naive at the same shape for comparison; and what collection
// costs: the same flash run with CUPTI and without, interleaved. Times are the calls' own, measured
// with CUDA events around each call. The last line sums it up:
//   gpu_attention flash_tflops=… flash_causal_tflops=… naive_tflops=… peak_tflops=… cupti_overhead_pct=…
//
//   attnscope_bench_attention_gpu [--peak-tflops P] [--iters I] [--seq N] [--batch B] [--heads H]
#include "kernels/cuda_backend.h"
#include "kernels/run_session.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

// Dense bf16 tensor-core peaks (TFLOP/s, no sparsity) of the GPUs the checks are likely to meet.
double knownPeak(const std::string& probe) {
    struct Entry {
        const char* name;
        double tflops;
    };
    static const Entry table[] = {{"H200", 989},      {"H100 SXM", 989}, {"H100 80GB HBM3", 989},
                                  {"H100 PCIe", 756}, {"H800", 989},     {"A100", 312},
                                  {"L40S", 362},      {"L4", 121}};
    for (const Entry& e : table)
        if (probe.find(e.name) != std::string::npos) return e.tflops;
    return 0;
}

struct Result {
    double meanMs = 0;
    double tflops = 0;
    std::uint64_t dropped = 0; // records CUPTI dropped (its buffers were full)
    std::string error;
};

Result measure(const std::string& impl, AttentionShape shape, int warmup, int iters, bool collect) {
    RunConfig c;
    c.backend = Backend::Cuda;
    c.impls = {impl};
    c.shape = shape;
    c.warmup = warmup;
    c.iters = iters;
    c.collect = collect;
    RunSession session(c);
    session.start();
    session.wait();
    Result r;
    r.error = session.error();
    r.dropped = session.dropped();
    if (!r.error.empty()) return r;
    const auto stats = runStats(c, session.takeEvents());
    r.meanMs = stats.at(0).meanMs();
    r.tflops = r.meanMs > 0 ? kernelCost(shape, KernelRole::FusedAttention).flops / (r.meanMs * 1e9) : 0;
    return r;
}

} // namespace

int main(int argc, char** argv) {
    prepareRuns(); // as the program does: collected runs record their NVTX ranges too
    AttentionShape shape{4, 16, 4096, 128, false, Precision::BF16};
    int iters = 20;
    double peak = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        const int v = std::atoi(argv[i + 1]);
        if (a == "--peak-tflops")
            peak = std::atof(argv[i + 1]);
        else if (a == "--iters" && v > 0)
            iters = v;
        else if (a == "--seq" && v > 0)
            shape.seq = v;
        else if (a == "--batch" && v > 0)
            shape.batch = v;
        else if (a == "--heads" && v > 0)
            shape.heads = v;
        else {
            std::fprintf(stderr,
                         "usage: %s [--peak-tflops P] [--iters I] [--seq N] [--batch B] [--heads H]\n",
                         argv[0]);
            return 2;
        }
    }
    const CudaAvailability cuda = probeCuda();
    std::printf("device: %s\n", cuda.message.c_str());
    if (!cuda.runnable) return 1;
    if (peak < 0) peak = knownPeak(cuda.message);
    std::printf("shape: B=%d H=%d N=%d D=%d bf16, 3 warm-up + %d measured calls; dense bf16 peak %s\n",
                shape.batch, shape.heads, shape.seq, shape.dim, iters,
                peak > 0 ? (std::to_string(int(peak)) + " TFLOP/s").c_str() : "unknown (give --peak-tflops)");

    auto report = [&](const char* label, const Result& r) {
        if (!r.error.empty()) {
            std::printf("%-24s failed: %s\n", label, r.error.c_str());
            return;
        }
        std::printf("%-24s %9.3f ms/call %8.1f TFLOP/s", label, r.meanMs, r.tflops);
        if (peak > 0) std::printf("  %5.1f%% of peak", 100 * r.tflops / peak);
        std::printf("  %llu records dropped\n", static_cast<unsigned long long>(r.dropped));
    };
    AttentionShape causal = shape;
    causal.causal = true;
    // The baseline for collection's overhead first, while no CUPTI is in the process: a run without
    // collection never loads it and makes no NVTX call, but once a collected run has loaded CUPTI it
    // stays attached. Twice, the best of each.
    double without = 1e30, with = 1e30;
    for (int round = 0; round < 2; ++round) {
        const Result off = measure("flash", shape, 3, iters, false);
        if (off.error.empty()) without = std::min(without, off.meanMs);
    }
    const Result flash = measure("flash", shape, 3, iters, true);
    report("flash", flash);
    const Result flashCausal = measure("flash", causal, 3, iters, true);
    report("flash causal", flashCausal);
    const Result naive = measure("naive", shape, 3, iters, true);
    report("naive (cuBLAS)", naive);
    const Result naiveCausal = measure("naive", causal, 3, iters, true);
    report("naive (cuBLAS) causal", naiveCausal);
    for (int round = 0; round < 2; ++round) {
        const Result on = measure("flash", shape, 3, iters, true);
        if (on.error.empty()) with = std::min(with, on.meanMs);
    }
    const double overhead = without < 1e30 && with < 1e30 ? 100 * (with - without) / without : -1;
    std::printf(
        "flash without CUPTI %9.3f ms/call, with %9.3f ms/call: collection overhead %.2f%% (target <= 3%%)\n",
        without, with, overhead);
    std::printf("gpu_attention flash_tflops=%.1f flash_causal_tflops=%.1f naive_tflops=%.1f peak_tflops=%.0f "
                "flash_share=%.3f cupti_overhead_pct=%.2f\n",
                flash.tflops, flashCausal.tflops, naive.tflops, peak, peak > 0 ? flash.tflops / peak : 0,
                overhead);
    return flash.error.empty() && flashCausal.error.empty() ? 0 : 1;
}
