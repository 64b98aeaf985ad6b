// SPDX-License-Identifier: MIT
#include "kineto_generator.h"

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <random>
#include <vector>

namespace attnscope::bench {

namespace {

// Kernel names of the lengths and shapes real traces carry (templated, mangled, short).
constexpr std::array<const char*, 8> kKernels = {
    "void "
    "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(cutlass_80_"
    "tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel__5x_cublas",
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, "
    "false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
    "void at::native::elementwise_kernel<128, 4, "
    "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, "
    "at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
    "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > "
    "const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, "
    "float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
    "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > "
    "const&)::{lambda(int)#1})",
    "triton_poi_fused_add_cos_sin_0",
    "_ZN7ck_tile6kentryILi64ELi1ENS_13FmhaFwdKernelINS_24BlockFmhaPipelineQRKSVSIS1_EENS_"
    "17Default2DEpilogueEEEEEvNT1_5KargsE",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
};
constexpr std::array<const char*, 8> kOps = {"aten::mm",     "aten::_softmax",
                                             "aten::bmm",    "aten::_flash_attention_forward",
                                             "aten::mul",    "triton_poi_fused_add_cos_sin_0",
                                             "aten::linear", "c10d::allreduce_"};

class Writer {
public:
    explicit Writer(const std::function<void(std::string_view)>& sink) : m_sink(sink) {}
    void add(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
        va_list ap;
        va_start(ap, fmt);
        char tmp[4096];
        const int n = std::vsnprintf(tmp, sizeof tmp, fmt, ap);
        va_end(ap);
        m_buf.append(tmp, static_cast<std::size_t>(std::min<int>(n, sizeof tmp - 1)));
        if (m_buf.size() > (1u << 20)) flush();
    }
    void flush() {
        m_bytes += m_buf.size();
        m_sink(m_buf);
        m_buf.clear();
    }
    std::uint64_t bytes() const { return m_bytes + m_buf.size(); }

private:
    const std::function<void(std::string_view)>& m_sink;
    std::string m_buf;
    std::uint64_t m_bytes = 0;
};

// libkineto's fmtTs: "{ns/1000}.{ns%1000:03}".
struct Ts {
    char text[32];
    explicit Ts(std::int64_t ns) {
        std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ns / 1000),
                      static_cast<long long>(ns % 1000));
    }
};

} // namespace

GeneratedTraceStats generateKinetoTrace(std::uint64_t targetBytes, std::uint32_t seed,
                                        const std::function<void(std::string_view)>& sink) {
    GeneratedTraceStats stats;
    Writer w(sink);
    std::mt19937 rng(seed);
    const std::int64_t base = 1712195495000000000LL;
    const int pid = 25286, tid = 25286, bwdTid = 25301;
    w.add("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, \"name\": \"NVIDIA "
          "H100 80GB HBM3\", "
          "\"totalGlobalMem\": 85045460992,\n      \"computeMajor\": 9, \"computeMinor\": 0,\n      "
          "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": "
          "65536, "
          "\"warpSize\": 32,\n      \"sharedMemPerBlock\": 49152, \"numSms\": 132\n    , "
          "\"regsPerMultiprocessor\": "
          "65536, \"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472\n    }\n  ],\n"
          "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n  "
          "\"traceEvents\": [\n");
    bool first = true;
    auto open = [&]() {
        if (!first) w.add(",\n");
        first = false;
        ++stats.events;
    };
    // Metadata for the CPU process and eight device slots, as Kineto writes it.
    open();
    w.add("  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n    "
          "\"args\": {\n      \"name\": \"python3\"\n    }\n  }",
          pid);
    open();
    w.add("  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n   "
          " \"args\": {\n      \"labels\": \"CPU\"\n    }\n  }",
          pid);
    for (int t : {tid, bwdTid}) {
        open();
        w.add("  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d,\n "
              "   \"args\": {\n      \"name\": \"thread %d (python3)\"\n    }\n  }",
              pid, t, t);
    }
    for (int dev = 0; dev < 8; ++dev) {
        open();
        w.add("  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n "
              "   \"args\": {\n      \"name\": \"python3\"\n    }\n  }",
              dev);
        open();
        w.add("  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": "
              "0,\n    \"args\": {\n      \"labels\": \"GPU %d\"\n    }\n  }",
              dev, dev);
        open();
        w.add("  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, "
              "\"tid\": 0,\n    \"args\": {\n      \"sort_index\": %d\n    }\n  }",
              dev, 5000000 + dev);
    }
    for (int stream : {7, 13}) {
        open();
        w.add("  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 0, \"tid\": %d,\n  "
              "  \"args\": {\n      \"name\": \"stream %d \"\n    }\n  }",
              stream, stream);
    }

    std::int64_t cpuNs = 1'000'000; // relative to base
    std::int64_t gpuNs = 1'500'000;
    std::uint64_t correlation = 1000;
    std::uint64_t externalId = 1;
    std::uniform_int_distribution<int> kernelPick(0, int(kKernels.size()) - 1);
    std::uniform_int_distribution<int> durPick(2'000, 400'000);
    struct Gpu {
        int kernel;
        std::int64_t start, dur;
        std::uint64_t corr, ext;
        int stream;
        bool memcpy;
    };
    std::vector<Gpu> pending;
    while (w.bytes() < targetBytes) {
        // One step on the CPU: a python function around a few ops, each launching one kernel.
        const std::int64_t stepStart = cpuNs;
        const int ops = 16;
        open();
        w.add(
            "  {\n    \"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Attention_%llu\", "
            "\"pid\": %d, \"tid\": %d,\n    \"ts\": %s, \"dur\": %s,\n    \"args\": {\n      \"Python parent "
            "id\": %llu, \"Python id\": %llu, \"Python module id\": 3, \"Ev Idx\": %llu\n    }\n  }",
            static_cast<unsigned long long>(externalId % 97), pid, tid, Ts(stepStart).text,
            Ts(ops * 30'000 + 10'000).text, static_cast<unsigned long long>(externalId),
            static_cast<unsigned long long>(externalId + 1), static_cast<unsigned long long>(externalId));
        cpuNs += 3'000;
        for (int op = 0; op < ops; ++op) {
            const int k = kernelPick(rng);
            const std::int64_t opStart = cpuNs;
            const std::uint64_t ext = ++externalId;
            open();
            w.add("  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, \"tid\": "
                  "%d,\n    \"ts\": %s, \"dur\": %s,\n    \"args\": {\n      \"External id\": %llu,\"Record "
                  "function id\": 0, \"Concrete Inputs\": [\"\", \"\"], \"Input type\": [\"c10::BFloat16\", "
                  "\"c10::BFloat16\"], \"Input Strides\": [[4194304, 128, 1], [4194304, 1, 128]], \"Input "
                  "Dims\": [[32, 32768, 128], [32, 128, 32768]], \"Ev Idx\": %llu\n    }\n  }",
                  kOps[k], pid, op % 5 == 4 ? bwdTid : tid, Ts(opStart).text, Ts(25'000).text,
                  static_cast<unsigned long long>(ext), static_cast<unsigned long long>(ext * 2));
            const std::uint64_t corr = ++correlation;
            open();
            w.add("  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                  "\"pid\": %d, \"tid\": %d,\n    \"ts\": %s, \"dur\": %s,\n    \"args\": {\n      "
                  "\"External id\": %llu,\n      \"cbid\": 211, \"correlation\": %llu\n    }\n  }",
                  pid, op % 5 == 4 ? bwdTid : tid, Ts(opStart + 5'000).text, Ts(8'123).text,
                  static_cast<unsigned long long>(ext), static_cast<unsigned long long>(corr));
            open();
            w.add("  {\n    \"ph\": \"s\", \"id\": %llu, \"pid\": %d, \"tid\": %d, \"ts\": %s,\n    \"cat\": "
                  "\"ac2g\", \"name\": \"ac2g\"\n  }",
                  static_cast<unsigned long long>(corr), pid, op % 5 == 4 ? bwdTid : tid,
                  Ts(opStart + 5'000).text);
            const std::int64_t dur = durPick(rng);
            gpuNs = std::max(gpuNs, opStart + 20'000);
            pending.push_back({k, gpuNs, dur, corr, ext, op % 3 == 2 ? 13 : 7, op == ops - 1});
            gpuNs += dur + 1'000;
            cpuNs += 30'000;
        }
        cpuNs = std::max(cpuNs, gpuNs - 200'000);
        // GPU activity arrives after the CPU side, in buffer order.
        for (const Gpu& g : pending) {
            open();
            if (g.memcpy) {
                w.add("  {\n    \"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> "
                      "Pinned)\", \"pid\": 0, \"tid\": %d,\n    \"ts\": %s, \"dur\": %s,\n    \"args\": {\n  "
                      "    \"External id\": %llu,\n      \"device\": 0, \"context\": 1,\n      \"stream\": "
                      "%d, \"correlation\": %llu,\n      \"bytes\": 4194304, \"memory bandwidth (GB/s)\": "
                      "1236.98\n    }\n  }",
                      g.stream, Ts(g.start).text, Ts(g.dur).text, static_cast<unsigned long long>(g.ext),
                      g.stream, static_cast<unsigned long long>(g.corr));
            } else {
                ++stats.kernels;
                stats.kernelNs += g.dur;
                w.add("  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": "
                      "%d,\n    \"ts\": %s, \"dur\": %s,\n    \"args\": {\n      \"External id\": %llu,\n    "
                      "  \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": %d, "
                      "\"correlation\": %llu,\n      \"registers per thread\": 168,\n      \"shared "
                      "memory\": 98304,\n      \"blocks per SM\": 1.939394,\n      \"warps per SM\": "
                      "15.515152,\n      \"grid\": [256, 1, 1],\n      \"block\": [256, 1, 1],\n      \"est. "
                      "achieved occupancy %%\": 19\n    }\n  }",
                      kKernels[g.kernel], g.stream, Ts(g.start).text, Ts(g.dur).text,
                      static_cast<unsigned long long>(g.ext), g.stream,
                      static_cast<unsigned long long>(g.corr));
            }
            open();
            w.add("  {\n    \"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": %d, \"ts\": %s,\n    \"cat\": "
                  "\"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
                  static_cast<unsigned long long>(g.corr), g.stream, Ts(g.start).text);
        }
        pending.clear();
    }
    w.add("\n  ],\n  \"traceName\": \"generated.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n  "
          "\"baseTimeNanoseconds\": %lld\n}\n",
          static_cast<long long>(base));
    w.flush();
    stats.bytes = w.bytes();
    return stats;
}

} // namespace attnscope::bench
