// SPDX-License-Identifier: MIT
// The GPU findings: idle time, launch-bound and latency-bound kernels, synchronizations.
#include "findings_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

TEST(Findings, GpuIdleSplitByWhatTheGpuWaitedOn) {
    GpuTrace t;
    // Kernel 1 [10, 20); the next one's launch starts at 120, after the GPU ran dry: 100 µs host wait.
    t.launch("aten::mul", "[[4]]", R"(["float"])", 0, 5, "k1", 10, 10);
    t.launch("aten::mul", "[[4]]", R"(["float"])", 120, 5, "k2", 130, 10);
    // A sync ends at 300; the host then launches at 400: the 260 µs gap [140, 400) waited on the sync.
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":100,"tid":100,"ts":141,"dur":159})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 390, 5, "k3", 400, 10);
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "gpu_idle");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 110'000 + 260'000);
    EXPECT_EQ(f->count, 2u);
    // The share of the trace's span, as every finding's; the severity from the GPU's own span [10, 410),
    // whose 92.5% the explanation says. The title says the time, not a third share.
    EXPECT_NEAR(f->share, 370.0 / double(trace->endNs() - trace->startNs()) * 1000, 1e-9);
    EXPECT_LT(f->share, 370.0 / 400.0);
    EXPECT_EQ(f->title, "The GPU idles 370.000 µs in 2 gaps between its first and last work");
    // Both shares said, each with its base: the row's share a reader compares it with is named as such.
    EXPECT_NE(f->explanation.find("370.000 µs of the 400.000 µs from the first work to the last (92.5% of "
                                  "those; 90.2% of the trace's span, the share beside the finding)"),
              std::string::npos)
        << f->explanation;
    EXPECT_EQ(f->severity, Severity::Critical);
    EXPECT_NE(f->explanation.find("Waiting on the host to launch (the next work was launched only after the "
                                  "GPU ran dry): 110.000 µs"),
              std::string::npos)
        << f->explanation;
    EXPECT_NE(
        f->explanation.find(
            "waiting on a synchronization (the host sat in a sync, then had to launch again): 260.000 µs"),
        std::string::npos);
    ASSERT_EQ(f->evidence.size(), 2u);
    EXPECT_EQ(f->evidence[0].name, "k3"); // the longest gap first
    // Its place shows the gap [140, 400) µs with the work either side, not k3 alone.
    EXPECT_LE(f->evidence[0].showFromNs, 140'000 - 1);
    EXPECT_GE(f->evidence[0].showToNs, 410'000);
    // The sync: one call, the GPU idle 100 µs after it (300 → 400).
    const Finding* s = findingOf(all, "synchronization");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->count, 1u);
    EXPECT_EQ(s->timeNs, 100'000);
}

TEST(Findings, BackToBackKernelsAreNotIdleNorLaunchBound) {
    GpuTrace t;
    // The host runs ahead: each launch 2 µs, long before its 50 µs kernel runs back to back.
    for (int k = 0; k < 200; ++k)
        t.launch("aten::mm", "[[8192,8192],[8192,8192]]", R"(["c10::BFloat16","c10::BFloat16"])", k * 3, 2.5,
                 "gemm", 1000 + k * 2000, 2000, launchArgs(64, 0));
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    EXPECT_EQ(findingOf(all, "gpu_idle"), nullptr);
    EXPECT_EQ(findingOf(all, "launch_bound"), nullptr);
    EXPECT_EQ(findingOf(all, "synchronization"), nullptr);
    EXPECT_EQ(findingOf(all, "latency_bound"), nullptr); // 1.1 TFLOP in 2 ms: compute-bound
    EXPECT_EQ(findingOf(all, "low_occupancy"), nullptr); // 64 registers: full occupancy
}

TEST(Findings, ShortKernelsLaunchedAsSlowlyAsTheyRunAreLaunchBoundAndLatencyBound) {
    GpuTrace t;
    for (int k = 0; k < 100; ++k)
        t.launch(k % 4 ? "aten::add" : "aten::mul", "[[16,16],[16,16]]", R"(["float","float"])", k * 10, 8,
                 "tiny", k * 10 + 5, 4, "", "cudaLaunchKernel", 6);
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "launch_bound");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.find("100 kernels run shorter"), std::string::npos) << f->title;
    EXPECT_EQ(f->count, 2u);           // its places: the two ops that launch them
    EXPECT_EQ(f->timeNs, 100 * 6'000); // the launches' time
    EXPECT_NE(f->explanation.find("aten::add (75), aten::mul (25)"), std::string::npos) << f->explanation;
    ASSERT_EQ(f->evidence.size(), 2u); // one place per op, the one that launched most first
    EXPECT_EQ(f->evidence[0].name, "aten::add");
}

// The advice names PyTorch's tools only for a PyTorch program: a CUDA program's trace (an Nsight Systems
// export of a solver, no aten:: op in it) is told to fuse and to capture a graph, not to torch.compile.
TEST(Findings, TorchCompileIsAdvisedOnlyToPyTorchPrograms) {
    for (const bool pytorch : {true, false}) {
        GpuTrace t;
        for (int k = 0; k < 100; ++k)
            t.launch(pytorch ? "aten::add" : "solver::step", "[[16,16],[16,16]]", R"(["float","float"])",
                     k * 10, 8, "tiny", k * 10 + 5, 4, "", "cudaLaunchKernel", 6);
        const auto all = findingsOf(*loadText(t.text()));
        const Finding* f = findingOf(all, "launch_bound");
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->suggestion.find("torch.compile") != std::string::npos, pytorch) << f->suggestion;
        EXPECT_NE(f->suggestion.find("CUDA graph"), std::string::npos) << f->suggestion;
    }
}

// An AMD GPU's trace (ROCm: hipLaunchKernel) is told to capture a HIP graph, never a CUDA one.
TEST(Findings, AnAmdTraceIsToldOfHipGraphs) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "mi250_rocm_small.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    bool hip = false;
    for (const Finding& f : *doc->findings) {
        EXPECT_EQ(f.suggestion.find("CUDA"), std::string::npos) << f.id << ": " << f.suggestion;
        hip = hip || f.suggestion.find("HIP graph") != std::string::npos;
    }
    EXPECT_TRUE(hip);
}

// One launch call that enqueues several kernels (hipExtLaunchKernel's groups, a graph's nodes, a
// launch Kineto correlates with each of its kernels) is the host's time once: 60 kernels of 1 µs from
// 6 launch calls of 20 µs each are 120 µs of launching, not 60 × 20 µs (the 2021 MI300X trace's
// "972 ms of launching" in a 412 ms span). A graph's kernels are never launch-bound one by one.
TEST(Findings, LaunchTimeCountsEachLaunchCallOnceAndStaysWithinTheRuntimeCalls) {
    GpuTrace t;
    int corr = 1000;
    for (int l = 0; l < 6; ++l) {
        const double ts = l * 100.0;
        t.add(R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":100,"tid":100,"ts":)" +
              std::to_string(ts) + R"(,"dur":25})");
        t.add(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":100,"tid":100,"ts":)" +
              std::to_string(ts + 1) + R"(,"dur":20,"args":{"correlation":)" + std::to_string(++corr) + "}}");
        for (int k = 0; k < 10; ++k)
            t.add(R"({"ph":"X","cat":"kernel","name":"tiny","pid":0,"tid":7,"ts":)" +
                  std::to_string(ts + 30 + 2 * k) +
                  R"(,"dur":1,"args":{"device":0,"stream":7,"correlation":)" + std::to_string(corr) + "}}");
    }
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "launch_bound");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 6 * 20'000);
    EXPECT_NE(f->explanation.find("120.000 µs of the host's time went to their 6 launch calls"),
              std::string::npos)
        << f->explanation;
    TimeNs runtimeNs = 0; // the bound: the runtime calls' own time
    for (const Track& track : trace->tracks())
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (trace->str(track.events.category[i]) == "cuda_runtime") runtimeNs += track.events.duration[i];
    EXPECT_LE(f->timeNs, runtimeNs);
    EXPECT_LE(f->timeNs, trace->endNs() - trace->startNs());
    // The same kernels replayed by one graph launch: not launch-bound.
    GpuTrace g;
    g.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":100,"tid":100,"ts":0,"dur":200,"args":{"correlation":7}})");
    for (int k = 0; k < 60; ++k)
        g.add(R"({"ph":"X","cat":"kernel","name":"tiny","pid":0,"tid":7,"ts":)" + std::to_string(10 + 2 * k) +
              R"(,"dur":1,"args":{"device":0,"stream":7,"correlation":7}})");
    const auto graph = findingsOf(*loadText(g.text()));
    EXPECT_EQ(findingOf(graph, "launch_bound"), nullptr);
}

TEST(Findings, LatencyBoundKernelsHoldingTheKernelTime) {
    GpuTrace t;
    // aten::mm of 16×16 matrices (8 kFLOP) taking 50 µs each: far under both of the H100's roofs.
    for (int k = 0; k < 50; ++k)
        t.launch("aten::mm", "[[16,16],[16,16]]", R"(["float","float"])", k * 100, 3, "gemm_small",
                 k * 100 + 10, 50);
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* f = findingOf(all, "latency_bound");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.find("50 kernels are latency-bound"), std::string::npos) << f->title;
    EXPECT_EQ(f->count, 1u); // one place per name
    EXPECT_EQ(f->timeNs, 50 * 50'000);
    ASSERT_EQ(f->evidence.size(), 1u); // one place per name
    EXPECT_NE(f->evidence[0].note.find("50 kernels"), std::string::npos);
}

// Idle gaps count from 5 µs: 40 gaps of 4 µs between back-to-back kernels are not idle time, the one of
// 100 µs is.
TEST(Findings, IdleGapsCountFromTheirThresholdInMicroseconds) {
    GpuTrace t;
    double ts = 0;
    for (int k = 0; k < 40; ++k, ts += 14)
        t.add(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(ts) +
              R"(,"dur":10,"args":{"device":0,"stream":7}})");
    t.add(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(ts + 96) +
          R"(,"dur":10,"args":{"device":0,"stream":7}})");
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "gpu_idle");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->count, 1u);
    EXPECT_EQ(f->timeNs, 100'000);
}

// The synchronizations that cost most come first: the one the GPU idled 200 µs after, then the 20 µs one.
TEST(Findings, SynchronizationsThatCostMostComeFirst) {
    GpuTrace t;
    t.launch("aten::mul", "[[4]]", R"(["float"])", 0, 5, "k1", 10, 10);
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":100,"tid":100,"ts":12,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 30, 5, "k2", 42, 10); // idle 20 µs after the first sync
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":100,"tid":100,"ts":45,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 240, 5, "k3", 255, 10); // idle 200 µs after the second
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "synchronization");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->evidence.size(), 2u);
    EXPECT_EQ(f->evidence[0].name, "cudaDeviceSynchronize");
    EXPECT_NE(f->evidence[0].note.find("GPU idle 200.000 µs after"), std::string::npos)
        << f->evidence[0].note;
    EXPECT_EQ(f->evidence[1].name, "cudaStreamSynchronize");
    EXPECT_EQ(f->timeNs, 220'000);
}

// Latency-bound kernels holding under 5% of the kernel time are no finding.
TEST(Findings, AFewLatencyBoundKernelsAreNoFinding) {
    GpuTrace t;
    for (int k = 0; k < 3; ++k) // 8 kFLOP each in 50 µs: latency-bound, 150 µs in all
        t.launch("aten::mm", "[[16,16],[16,16]]", R"(["float","float"])", k * 100, 3, "gemm_small",
                 k * 100 + 10, 50);
    // 10 ms of kernels without a cost: no verdict, but kernel time.
    t.launch("aten::add", "[[4]]", R"(["float"])", 400, 3, "big_kernel", 410, 10'000);
    const auto all = findingsOf(*loadText(t.text()));
    EXPECT_EQ(findingOf(all, "latency_bound"), nullptr);
}

// A GPU's busy time is its kernels, copies and memsets: a GPU-side annotation over a gap is no work.
TEST(Findings, AnAnnotationOnAStreamIsNotGpuWork) {
    GpuTrace t;
    t.add(
        R"({"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":0,"dur":10,"args":{"device":0,"stream":7}})");
    t.add(
        R"({"ph":"X","cat":"gpu_user_annotation","name":"step","pid":0,"tid":7,"ts":0,"dur":300,"args":{"device":0,"stream":7}})");
    t.add(
        R"({"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":200,"dur":10,"args":{"device":0,"stream":7}})");
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "gpu_idle");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->timeNs, 190'000);
    EXPECT_NE(f->title.find("The GPU idles"), std::string::npos) << f->title; // one GPU
}

// The costliest synchronization first even when it came first, and the calls listed by name.
TEST(Findings, TheCostliestSynchronizationFirstWhereverItIs) {
    GpuTrace t;
    t.launch("aten::mul", "[[4]]", R"(["float"])", 0, 5, "k1", 10, 10);
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":100,"tid":100,"ts":12,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 210, 5, "k2", 222, 10); // idle 200 µs after the first
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":100,"tid":100,"ts":225,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 240, 5, "k3", 255, 10); // idle 20 µs after the second
    const auto all = findingsOf(*loadText(t.text()));
    const Finding* f = findingOf(all, "synchronization");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->evidence.size(), 2u);
    EXPECT_EQ(f->evidence[0].name, "cudaDeviceSynchronize");
    EXPECT_EQ(f->evidence[1].name, "cudaStreamSynchronize");
    EXPECT_NE(
        f->explanation.find("2 synchronizing calls (cudaDeviceSynchronize ×1, cudaStreamSynchronize ×1): "),
        std::string::npos)
        << f->explanation;
}

// A sync before the GPU's first work costs the GPU nothing (it had nothing queued: the idle before its
// first kernel is start-up), and a gap after two syncs is counted once, from the first to return: the
// idle after syncs is never more than the GPU's idle time.
TEST(Findings, SyncsCountOnlyTheGpusOwnIdleTimeAndEachGapOnce) {
    GpuTrace t;
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":100,"tid":100,"ts":0,"dur":1})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 5000, 5, "k1", 5010, 10); // first GPU work at 5 ms
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":100,"tid":100,"ts":5012,"dur":10})");
    t.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":100,"tid":100,"ts":5030,"dur":10})");
    t.launch("aten::mul", "[[4]]", R"(["float"])", 5100, 5, "k2", 5122, 10); // idle [5022, 5122) after both
    const auto trace = loadText(t.text());
    const auto all = findingsOf(*trace);
    const Finding* s = findingOf(all, "synchronization");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->timeNs, 100'000); // not 5 ms before the first kernel, not the last 82 µs again
    EXPECT_EQ(s->count, 3u);
    ASSERT_EQ(s->evidence.size(), 3u);
    EXPECT_NE(s->evidence[0].note.find("GPU idle 100.000 µs after"), std::string::npos)
        << s->evidence[0].note;
    for (std::size_t i = 1; i < 3; ++i) {
        EXPECT_EQ(s->evidence[i].note.find("GPU idle"), std::string::npos) << s->evidence[i].note;
    }
    const Finding* idle = findingOf(all, "gpu_idle");
    ASSERT_NE(idle, nullptr);
    EXPECT_LE(s->timeNs, idle->timeNs);
}

// What a device is called: an MTIA by its process's name or labels, else a GPU.
TEST(Accelerators, AnMtiaIsNamedByItsProcessesNameOrLabels) {
    ProcessInfo p;
    p.name = "MTIA 9";
    EXPECT_EQ(deviceKind(p), "MTIA");
    p.name = "python";
    p.labels = "MTIA 3";
    EXPECT_EQ(deviceKind(p), "MTIA");
    p.labels = "GPU 0";
    EXPECT_EQ(deviceKind(p), "GPU");
}

// A Meta MTIA trace, written as Kineto writes one (the facts of HTA's MTIA test trace): the device's
// events are "mtia_ccp_events" on a process named "MTIA 9", launched from "mtia_runtime" calls linked by
// correlation ids; its "dma_request"s are its copies and "event_record"/"event_wait" its syncs. Its
// kernels are those device events — not the aten:: ops on the host — and the device is called an MTIA.
TEST(Accelerators, AnMtiasDeviceEventsAreItsKernelsAndCopies) {
    std::string events;
    auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
    add(R"({"ph":"M","name":"process_name","pid":9,"tid":0,"args":{"name":"MTIA 9"}})");
    add(R"({"ph":"M","name":"process_labels","pid":9,"tid":0,"args":{"labels":"MTIA 9"}})");
    add(R"({"ph":"M","name":"thread_name","pid":9,"tid":4,"args":{"name":"Stream 1 FW"}})");
    add(R"({"ph":"M","name":"thread_name","pid":9,"tid":801,"args":{"name":"DMA_REQUEST"}})");
    int corr = 0;
    for (int i = 0; i < 3; ++i) { // three ops, each a runtime call launching one kernel, after a DMA
        const int t = 1000 + 200 * i;
        add(R"({"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":100,"tid":100,"ts":)" + std::to_string(t) +
            R"(,"dur":50})");
        add(R"({"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":100,"tid":100,"ts":)" +
            std::to_string(t + 5) + R"(,"dur":30,"args":{"correlation":)" + std::to_string(++corr) + "}}");
        add(R"({"ph":"X","cat":"mtia_ccp_events","name":"dma_request","pid":9,"tid":801,"ts":)" +
            std::to_string(t + 40) + R"(,"dur":8,"args":{"direction":"HOST_TO_DEVICE","size":4096}})");
        add(R"({"ph":"X","cat":"mtia_ccp_events","name":"fc-dtype_Float","pid":9,"tid":4,"ts":)" +
            std::to_string(t + 50) + R"(,"dur":100,"args":{"correlation":)" + std::to_string(corr) +
            R"(,"stream":1}})");
        add(R"({"ph":"X","cat":"mtia_ccp_events","name":"event_record","pid":9,"tid":4,"ts":)" +
            std::to_string(t + 151) + R"(,"dur":1})");
    }
    const auto doc = openDocument(DocumentSource::memory(R"({"traceEvents":[)" + events + "]}", "mtia.json"));
    ASSERT_TRUE(doc->trace && doc->summary && doc->analysis);
    EXPECT_EQ(doc->summary->kernelCount,
              3u); // the fc kernels: not the DMA requests, the syncs or aten::addmm
    EXPECT_EQ(doc->summary->kernelNs, 300000);
    EXPECT_TRUE(doc->summary->kernelsNote.empty()) << doc->summary->kernelsNote; // not "no GPU kernels"
    ASSERT_EQ(doc->summary->devices.size(), 1u);
    EXPECT_EQ(doc->summary->devices[0].name, "MTIA 9");
    EXPECT_EQ(doc->summary->topKernels.at(0).name, "fc-dtype_Float");
    // Its role (fc is its GEMM) and its launch: the runtime call, under the op.
    const KernelAnalysis* fc = nullptr;
    for (const KernelAnalysis& k : doc->analysis->kernels)
        if (doc->trace->str(doc->trace->track(k.event.track).events.name[k.event.index]) == "fc-dtype_Float")
            fc = &k;
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc->role, KernelRole::Gemm);
    const auto launch = doc->trace->launchOf(fc->event);
    ASSERT_TRUE(launch);
    EXPECT_EQ(doc->trace->str(doc->trace->track(launch->track).events.name[launch->index]),
              "runFunction - job_prep_and_submit_for_execution");
    // The device is an MTIA, never called a GPU: its tracks and its idle time say so.
    EXPECT_EQ(doc->trace->trackLabel(fc->event.track).rfind("MTIA 9 · ", 0), 0u)
        << doc->trace->trackLabel(fc->event.track);
    const auto found = findFindings({*doc->trace, *doc->analysis});
    const Finding* idle = findingOf(found, "gpu_idle");
    ASSERT_NE(idle, nullptr);
    EXPECT_EQ(idle->title.rfind("The MTIA idles", 0), 0u) << idle->title;
    // Its syncs are not work: the gaps run from each fc kernel's end to the next DMA (90 µs, twice).
    EXPECT_EQ(idle->timeNs, 180000);
    EXPECT_EQ(idle->suggestion.find("CUDA"), std::string::npos) << idle->suggestion;
}
