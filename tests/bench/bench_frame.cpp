// SPDX-License-Identifier: MIT
// Frame benchmark: renders the timeline offscreen at 1920×1080 over a generated trace of 10
// million events, at random zoom levels (whole trace down to single kernels) and positions, and
// prints per-frame times. The last line is `frame_ms p50=… p95=… max=… events=…`.
//
//   attnscope_bench_frame [--events N] [--frames N] [--size WxH] [--seed S]
#include "ui/timeline_layout.h"
#include "ui/timeline_renderer.h"

#include "core/model/timeline_index.h"
#include "core/io/trace_builder.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace attnscope;
using namespace attnscope::ui;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// GPU streams of back-to-back kernels (1 µs – 400 µs, log-uniform) and CPU threads of nested
// ops (step → layer → op → launch), about 4:1 GPU to CPU events.
std::shared_ptr<const Trace> generate(std::size_t events, std::mt19937_64& rng, TimeNs& shortestKernel) {
    TraceBuilder b;
    StringPool& s = b.strings();
    const StringId gpuPid = s.intern("0"), cpuPid = s.intern("4242");
    b.setProcessName(gpuPid, "python3");
    b.setProcessLabels(gpuPid, "GPU 0");
    b.setProcessName(cpuPid, "python3");
    const char* kernelNames[] = {
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_kernel__5x_cublas",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_kernel__5x_cublas",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, "
        "float>(c10::BFloat16*)",
        "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, "
        "4>>(pytorch_flash::Flash_fwd_params)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int, float*)",
        "void at::native::unrolled_elementwise_kernel<at::native::MulFunctor<float>>(int, float*)",
        "Memcpy HtoD (Pageable -> Device)",
        "ncclKernel_AllReduce_RING_LL_Sum_bfloat16",
    };
    std::vector<StringId> kernels;
    for (const char* n : kernelNames)
        kernels.push_back(s.intern(n));
    const StringId kernelCat = s.intern("kernel"), opCat = s.intern("cpu_op"),
                   rtCat = s.intern("cuda_runtime");
    const StringId launch = s.intern("cudaLaunchKernel");
    std::vector<StringId> ops;
    for (int i = 0; i < 40; ++i)
        ops.push_back(s.intern("aten::op_" + std::to_string(i)));

    const std::size_t gpuEvents = events * 4 / 5, cpuEvents = events - gpuEvents;
    const int streams = 4;
    std::lognormal_distribution<double> kernelUs(std::log(12.0), 1.1);
    shortestKernel = 1000;
    TimeNs traceEnd = 0;
    for (int st = 0; st < streams; ++st) {
        const TrackId track = b.track(gpuPid, s.intern(std::to_string(7 + st)));
        b.setThreadName(gpuPid, s.intern(std::to_string(7 + st)), "stream " + std::to_string(7 + st));
        TimeNs t = 0;
        for (std::size_t i = 0; i < gpuEvents / streams; ++i) {
            const TimeNs dur = TimeNs(std::clamp(kernelUs(rng), 1.0, 400.0) * 1000);
            b.addSlice(track, t, dur, kernels[rng() % kernels.size()], kernelCat, 0, {});
            t += dur + TimeNs(200 + rng() % 3000);
        }
        traceEnd = std::max(traceEnd, t);
    }
    // CPU: steps of 8 layers of 5 ops of 2 launches = 1 + 8 + 40 + 80 = 129 events, spread to the
    // GPU's length.
    const int cpuThreads = 2;
    const std::size_t steps = std::max<std::size_t>(1, cpuEvents / 129 / cpuThreads);
    const TimeNs stepLen = std::max<TimeNs>(129 * 200, traceEnd / TimeNs(steps));
    for (int th = 0; th < cpuThreads; ++th) {
        const StringId tid = s.intern(std::to_string(4242 + th));
        const TrackId track = b.track(cpuPid, tid);
        b.setThreadName(cpuPid, tid, "thread " + std::to_string(4242 + th) + " (python3)");
        for (std::size_t step = 0; step < steps; ++step) {
            const TimeNs s0 = TimeNs(step) * stepLen;
            b.addSlice(track, s0, stepLen * 9 / 10, ops[0], opCat, 0, {});
            const TimeNs layerLen = stepLen * 9 / 10 / 8;
            for (int l = 0; l < 8; ++l) {
                const TimeNs l0 = s0 + l * layerLen;
                b.addSlice(track, l0, layerLen * 9 / 10, ops[1 + l], opCat, 0, {});
                const TimeNs opLen = layerLen * 9 / 10 / 5;
                for (int o = 0; o < 5; ++o) {
                    const TimeNs o0 = l0 + o * opLen;
                    b.addSlice(track, o0, opLen * 9 / 10, ops[9 + (rng() % 31)], opCat, 0, {});
                    const TimeNs launchLen = opLen * 9 / 10 / 2;
                    for (int k = 0; k < 2; ++k)
                        b.addSlice(track, o0 + k * launchLen, launchLen * 8 / 10, launch, rtCat, 0, {});
                }
            }
        }
    }
    return b.finish();
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

} // namespace

int main(int argc, char** argv) {
    std::size_t events = 10'000'000;
    int frames = 200, width = 1920, height = 1080;
    unsigned seed = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--events" && i + 1 < argc)
            events = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--frames" && i + 1 < argc)
            frames = std::max(1, std::atoi(argv[++i]));
        else if (a == "--size" && i + 1 < argc)
            std::sscanf(argv[++i], "%dx%d", &width, &height);
        else if (a == "--seed" && i + 1 < argc)
            seed = unsigned(std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--events N] [--frames N] [--size WxH] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QGuiApplication app(argc, argv);

    std::mt19937_64 rng(seed);
    auto t0 = Clock::now();
    TimeNs shortest = 0;
    const auto trace = generate(events, rng, shortest);
    std::printf("generated %zu events on %zu tracks in %.0f ms (span %.3f s)\n", trace->eventCount(),
                trace->tracks().size(), msSince(t0), double(trace->endNs() - trace->startNs()) / 1e9);
    t0 = Clock::now();
    const TimelineIndex index(*trace);
    std::printf("timeline index built in %.0f ms\n", msSince(t0));

    const TimelineStyle style = TimelineStyle::from(QGuiApplication::palette(), QGuiApplication::font());
    TimelineLayout layout;
    layout.build(*trace, style.metrics, {});
    TimelineRenderer renderer(*trace);
    QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
    TimelineScene scene;
    scene.trace = trace.get();
    scene.index = &index;
    scene.layout = &layout;
    scene.viewport = TimeViewport(trace->startNs(), trace->endNs(), width - style.labelWidth);

    auto frame = [&] {
        const auto f0 = Clock::now();
        QPainter p(&image);
        renderer.paint(p, image.size(), scene, style);
        p.end();
        return msSince(f0);
    };
    std::printf("first frame (colour cache cold): %.2f ms\n", frame());

    // Zoom levels log-uniform from the whole trace down to a single short kernel.
    const double full = double(trace->endNs() - trace->startNs());
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<double> times;
    double wholeTrace = 0;
    for (int i = 0; i < frames; ++i) {
        const double span = i == 0 ? full
                                   : std::exp(std::log(double(shortest)) +
                                              unit(rng) * (std::log(full) - std::log(double(shortest))));
        const TimeNs from = trace->startNs() + TimeNs(unit(rng) * std::max(0.0, full - span));
        scene.viewport.fit(from, from + TimeNs(span), 0);
        scene.scrollY = int(unit(rng) * std::max(0, layout.totalHeight() - height / 2));
        times.push_back(frame());
        if (i == 0) wholeTrace = times.back();
    }
    std::printf("whole trace: %.2f ms\n", wholeTrace);
    std::printf("frame_ms p50=%.2f p95=%.2f max=%.2f events=%zu\n", percentile(times, 0.5),
                percentile(times, 0.95), *std::max_element(times.begin(), times.end()), trace->eventCount());
    return 0;
}
