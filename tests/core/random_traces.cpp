// SPDX-License-Identifier: MIT
#include "random_traces.h"

#include <algorithm>
#include <random>
#include <vector>

namespace attnscope::test {

namespace {

class Writer {
public:
    explicit Writer(std::uint32_t seed) : m_rng(seed) {}

    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }
    bool chance(double p) { return std::bernoulli_distribution(p)(m_rng); }
    template <typename T> const T& oneOf(const std::vector<T>& v) {
        return v[std::size_t(pick(0, int(v.size()) - 1))];
    }

    void event(const std::string& cat, const std::string& name, int pid, int tid, double ts, double dur,
               const std::string& args = "") {
        m_events.push_back(R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":)" +
                           std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" + num(ts) +
                           R"(,"dur":)" + num(dur) + (args.empty() ? "" : R"(,"args":{)" + args + "}") + "}");
    }
    void raw(const std::string& e) { m_events.push_back(e); }
    std::string text(const std::string& head) const {
        std::string out = "{" + head + R"("traceEvents":[)";
        for (std::size_t i = 0; i < m_events.size(); ++i)
            out += (i ? ",\n" : "") + m_events[i];
        return out + "]}";
    }
    static std::string num(double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.3f", v);
        return b;
    }

private:
    std::mt19937 m_rng;
    std::vector<std::string> m_events;
};

std::string dims(std::initializer_list<std::vector<int>> shapes) {
    std::string out = "[";
    for (const auto& s : shapes) {
        out += out.size() > 1 ? ",[" : "[";
        for (std::size_t i = 0; i < s.size(); ++i)
            out += (i ? "," : "") + std::to_string(s[i]);
        out += "]";
    }
    return out + "]";
}

// A GPU trace: host thread 100 of process 100 launches on streams 7.. of device 0.
class GpuWriter {
public:
    GpuWriter(Writer& w, int streams) : w(w), streams(streams) {}

    // A cpu_op [ts, ts + dur) with its inputs.
    void op(const std::string& name, double ts, double dur, const std::string& d, const std::string& types) {
        w.event("cpu_op", name, 100, 100, ts, dur, R"("Input Dims":)" + d + R"(,"Input type":)" + types);
    }
    // A launch at ts of a kernel on a stream, after the GPU's last work there; returns the kernel's end.
    double launch(double ts, const std::string& kernel, double dur, int stream,
                  const std::string& runtime = "cudaLaunchKernel", const std::string& cat = "kernel") {
        const int corr = ++m_corr;
        w.event("cuda_runtime", runtime, 100, 100, ts, 1, R"("correlation":)" + std::to_string(corr));
        double& at = gpu[std::size_t(stream)];
        at = std::max(at, ts + w.pick(1, 20));
        w.event(cat, kernel, 0, 7 + stream, at, dur,
                R"("device":0,"stream":)" + std::to_string(7 + stream) + R"(,"correlation":)" +
                    std::to_string(corr));
        at += dur + w.pick(0, 30);
        return at;
    }
    // One launch that asks for many kernels (a CUDA or HIP graph), one after another on a stream.
    void graph(double ts, const std::vector<std::pair<std::string, double>>& kernels, int stream, bool hip) {
        const int corr = ++m_corr;
        w.event("cuda_runtime", hip ? "hipGraphLaunch" : "cudaGraphLaunch", 100, 100, ts, 5,
                R"("correlation":)" + std::to_string(corr));
        double& at = gpu[std::size_t(stream)];
        at = std::max(at, ts + 10);
        for (const auto& [name, dur] : kernels) {
            w.event("kernel", name, 0, 7 + stream, at, dur,
                    R"("device":0,"stream":)" + std::to_string(7 + stream) + R"(,"correlation":)" +
                        std::to_string(corr));
            at += dur + 1;
        }
    }
    int stream() { return w.pick(0, streams - 1); }

    Writer& w;
    int streams;
    double gpu[4] = {0, 0, 0, 0};

private:
    int m_corr = 0;
};

const std::vector<std::string> kGemms = {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
                                         "ampere_sgemm_128x64_nn",
                                         "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
                                         "Cijk_Alik_Bljk_BBS_BH_MT128x128x32"};
const std::vector<std::string> kFused = {
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>(Flash_fwd_params)",
    "fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t>::"
    "Params)",
    "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x64_4x1x1_kernel0_0",
    "void qk_int_sv_f8_attn_kernel<128, 64>(int8_t*, int8_t*)",
    "_attn_fwd",
    "flash::FlashAttnFwdSm90<...>"};
const std::vector<std::string> kOther = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>",
    "void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "void at::native::(anonymous namespace)::layer_norm_kernel<float>",
    "triton_poi_fused_add_0"};

std::string gpuTrace(Writer& w) {
    const int streams = w.pick(1, 3);
    GpuWriter g(w, streams);
    const int B = w.pick(1, 4), H = w.oneOf<int>({8, 16, 32}), S = w.oneOf<int>({128, 512, 1024, 4096}),
              D = w.oneOf<int>({64, 128});
    const std::string bf16 = R"("c10::BFloat16")";
    const std::string t3 = "[" + bf16 + "," + bf16 + "," + bf16 + "]", t2 = "[" + bf16 + "," + bf16 + "]";
    const std::vector<int> q{B, H, S, D}, s{B, H, S, S};
    double h = 1000;
    const int steps = w.pick(1, 3);
    for (int step = 0; step < steps; ++step) {
        const double stepStart = h;
        const int calls = w.pick(0, 6);
        for (int c = 0; c < calls; ++c) {
            const bool ranged = w.chance(0.5);
            const double callStart = h;
            h += 1;
            const int kind = w.pick(0, 4);
            const double gemmUs = w.pick(2, 3000), softUs = w.pick(1, 2000);
            if (kind <= 1) { // naive (kind 1: with dropout, as in training)
                g.op("aten::matmul", h, 8, dims({q, {B, H, D, S}}), t2);
                g.op("aten::bmm", h + 1, 6, dims({{B * H, S, D}, {B * H, D, S}}), t2);
                g.launch(h + 2, w.oneOf(kGemms), gemmUs, 0);
                h += 10;
                g.op("aten::mul", h, 4, dims({s, {}}), "[" + bf16 + ",\"Scalar\"]");
                g.launch(h + 1,
                         "void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::MulFunctor<c10::BFloat16>>",
                         w.pick(1, 300), 0);
                h += 6;
                g.op("aten::softmax", h, 8, dims({s, {}, {}}), "[" + bf16 + ",\"Scalar\",\"\"]");
                g.op("aten::_softmax", h + 1, 6, dims({s, {}, {}}), "[" + bf16 + ",\"Scalar\",\"Scalar\"]");
                g.launch(h + 2, "void (anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float>",
                         softUs, 0);
                h += 10;
                if (kind == 1) {
                    g.op("aten::dropout", h, 8, dims({s, {}, {}}), "[" + bf16 + ",\"Scalar\",\"Scalar\"]");
                    g.launch(
                        h + 1,
                        "void at::native::fused_dropout_kernel_vec<c10::BFloat16, float, unsigned int, 1, 4>",
                        w.pick(1, 300), 0);
                    h += 10;
                }
                g.op("aten::matmul", h, 8, dims({s, q}), t2);
                g.op("aten::bmm", h + 1, 6, dims({{B * H, S, S}, {B * H, S, D}}), t2);
                g.launch(h + 2, w.oneOf(kGemms), gemmUs, 0);
                h += 10;
            } else if (kind <= 3) { // SDPA on a fused backend
                const std::string& kernel = w.oneOf(kFused);
                g.op("aten::scaled_dot_product_attention", h, 30, dims({q, q, q, {}, {}, {}, {}, {}}), t3);
                g.op(kernel.find("cutlass") != std::string::npos
                         ? "aten::_scaled_dot_product_efficient_attention"
                         : "aten::_scaled_dot_product_flash_attention",
                     h + 5, 20, dims({q, q, q}), t3);
                g.launch(h + 10, kernel, w.pick(2, 5000), g.stream());
                h += 31;
                if (w.chance(0.2)) { // its backward, as training runs it: attention work, no call
                    g.op("aten::_scaled_dot_product_flash_attention_backward", h, 20, dims({q, q, q, q}),
                         "[" + bf16 + "," + bf16 + "," + bf16 + "," + bf16 + "]");
                    g.launch(h + 5,
                             "void pytorch_flash::flash_bwd_dq_dk_dv_loop_kernel<Flash_bwd_kernel_traits>",
                             w.pick(2, 5000), g.stream());
                    h += 21;
                }
            } else { // work outside attention
                const std::string& k = w.oneOf(kOther);
                g.op("aten::add", h, 6, dims({q, q}), t2);
                g.launch(h + 1, k, w.pick(1, 2000), g.stream());
                if (w.chance(0.3))
                    g.launch(h + 3, "Memcpy DtoD (Device -> Device)", w.pick(1, 100), g.stream(),
                             "cudaMemcpyAsync", "gpu_memcpy");
                h += 7;
            }
            if (ranged) w.event("user_annotation", "attn_fwd", 100, 100, callStart, h - callStart + 0.5);
            h += w.pick(1, 50);
        }
        if (w.chance(0.3)) { // a compiled region whose graph holds attention among GEMMs
            const double at = h;
            std::vector<std::pair<std::string, double>> ks;
            const int n = w.pick(3, 30);
            for (int i = 0; i < n; ++i)
                ks.emplace_back(i % 7 == 3 ? w.oneOf(kFused) : w.oneOf(kGemms), w.pick(1, 500));
            g.graph(at + 2, ks, g.stream(), w.chance(0.5));
            w.event("user_annotation", "## Call CompiledFxGraph fabc" + std::to_string(step) + " ##", 100,
                    100, at, 10);
            h += 12;
        }
        if (w.chance(0.7))
            w.event("user_annotation", "ProfilerStep#" + std::to_string(step), 100, 100, stepStart,
                    h - stepStart + 1);
        else if (w.chance(0.5)) // a serving engine's range around a whole forward (vLLM's execute_context)
            w.event("user_annotation", "execute_context_" + std::to_string(step), 100, 100, stepStart - 0.5,
                    h - stepStart + 1);
        h += w.pick(0, 500);
    }
    const std::string device = w.oneOf<std::string>(
        {"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "AMD Instinct MI300X", "NVIDIA Mystery GPU"});
    std::string head = R"("deviceProperties":[{"id":0,"name":")" + device + R"("}],)";
    if (w.chance(0.3))
        head += R"("distributedInfo":{"rank":)" + std::to_string(w.pick(0, 7)) + R"(,"world_size":8},)";
    return w.text(head);
}

// A PyTorch CPU trace: its aten:: ops are its kernels.
std::string cpuTrace(Writer& w) {
    const int B = 1, H = w.oneOf<int>({2, 4, 8}), S = w.oneOf<int>({64, 256, 512, 1024}), D = 64;
    const std::vector<int> q{B, H, S, D}, s{B, H, S, S};
    const std::string f3 = R"(["float","float","float"])";
    auto op = [&](const std::string& name, double ts, double dur, const std::string& d) {
        w.event("cpu_op", name, 7, 7, ts, dur, R"("Input Dims":)" + d + R"(,"Input type":)" + f3);
    };
    double h = 5000;
    const int calls = w.pick(1, 6);
    for (int c = 0; c < calls; ++c) {
        const double bmm = w.pick(5, 20000), soft = w.pick(5, 20000);
        if (w.chance(0.5)) {
            op("aten::matmul", h, bmm + 4, dims({q, {B, H, D, S}}));
            op("aten::bmm", h + 1, bmm, dims({{B * H, S, D}, {B * H, D, S}}));
            h += bmm + 5;
            op("aten::softmax", h, soft + 2, dims({s, {}, {}}));
            op("aten::_softmax", h + 1, soft, dims({s, {}, {}}));
            h += soft + 3;
            op("aten::matmul", h, bmm + 4, dims({s, q}));
            op("aten::bmm", h + 1, bmm, dims({{B * H, S, S}, {B * H, S, D}}));
            h += bmm + 5;
        } else {
            op("aten::scaled_dot_product_attention", h, bmm + 10, dims({q, q, q}));
            op("aten::_scaled_dot_product_flash_attention_for_cpu", h + 2, bmm + 5, dims({q, q, q}));
            h += bmm + 11;
        }
        h += w.pick(1, 100);
    }
    return w.text(R"("schemaVersion":1,"deviceProperties":[],)");
}

} // namespace

std::string randomTrace(std::uint32_t seed) {
    Writer w(seed);
    return w.chance(0.2) ? cpuTrace(w) : gpuTrace(w);
}

} // namespace attnscope::test
