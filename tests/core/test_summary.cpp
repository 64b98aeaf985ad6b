// SPDX-License-Identifier: MIT
#include "core/analysis/analysis.h"
#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"
#include "core/report/summary.h"
#include "support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

using namespace attnscope;
using namespace attnscope::test;

TEST(Summary, HandCheckedTrace) {
    // Device 0: stream 7 has kernels [0,10) and [20,30); stream 13 has [5,25) -> busy union [0,30) = 30 µs.
    // Device 1: one kernel of 4 µs. A memcpy and a cpu_op are not kernels.
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 0, "dur": 10},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 10},
      {"ph": "X", "cat": "kernel", "name": "softmax", "pid": 0, "tid": 13, "ts": 5, "dur": 20},
      {"ph": "X", "cat": "Kernel", "name": "legacy", "pid": 1, "tid": 7, "ts": 100, "dur": 4},
      {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 40, "dur": 3},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 99, "tid": 99, "ts": -1, "dur": 2},
      {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "python3"}},
      {"ph": "i", "s": "g", "name": "mark", "ts": 200}
    ], "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}]})");
    const TraceSummary s = summarize(*t, 0);
    EXPECT_EQ(s.events, 8u);
    EXPECT_EQ(s.spanNs, 201'000); // from -1 µs to the instant at 200 µs
    EXPECT_EQ(s.kernelCount, 4u);
    EXPECT_EQ(s.kernelNs, 44'000);
    ASSERT_EQ(s.devices.size(), 2u);
    EXPECT_EQ(s.devices[0].id, "0");
    EXPECT_EQ(s.devices[0].name, "NVIDIA H200");
    EXPECT_EQ(s.devices[0].kernels, 3u);
    EXPECT_EQ(s.devices[0].kernelNs, 40'000);
    EXPECT_EQ(s.devices[0].busyNs, 30'000);
    EXPECT_EQ(s.devices[1].id, "1");
    EXPECT_EQ(s.devices[1].busyNs, 4'000);
    ASSERT_EQ(s.topKernels.size(), 3u);
    // Ties on total time (gemm 20 µs, softmax 20 µs) go by name.
    EXPECT_EQ(s.topKernels[0].name, "gemm");
    EXPECT_EQ(s.topKernels[0].count, 2u);
    EXPECT_EQ(s.topKernels[0].meanNs(), 10'000);
    EXPECT_EQ(s.topKernels[1].name, "softmax");
    EXPECT_EQ(s.topKernels[2].name, "legacy");
    EXPECT_EQ(s.topKernels[2].minNs, 4'000);
    EXPECT_EQ(summarize(*t, 1).topKernels.size(), 1u);
    ASSERT_EQ(s.categories.size(),
              4u); // kernel, Kernel, gpu_memcpy, cpu_op: instants and metadata are no slices
    EXPECT_EQ(s.categories[0].name, "kernel");
    EXPECT_EQ(s.categories[0].totalNs, 40'000);
}

TEST(Summary, UnionLength) {
    std::vector<std::pair<TimeNs, TimeNs>> v = {{10, 20}, {0, 5}, {15, 30}, {30, 31}, {40, 40}, {3, 4}};
    EXPECT_EQ(unionLength(v), 5 + 21);
    std::vector<std::pair<TimeNs, TimeNs>> empty;
    EXPECT_EQ(unionLength(empty), 0);
}

// Intervals gathered stream by stream come in sorted runs, which are merged; more runs than are merged
// (a trace of many streams or threads), or none at all, are sorted: the same union either way.
TEST(Summary, UnionLengthOfManySortedRunsAndOfNone) {
    for (const int streams : {3, 40}) {
        std::vector<std::pair<TimeNs, TimeNs>> v;
        std::vector<std::uint8_t> covered(100'000, 0);
        for (int s = 0; s < streams; ++s)
            for (TimeNs t = 1000 * s + 7 * s; t + 100 < 100'000; t += 997 + s) { // each stream in start order
                v.emplace_back(t, t + 50 + s);
                std::fill(covered.begin() + t, covered.begin() + t + 50 + s, 1);
            }
        const auto expected = TimeNs(std::count(covered.begin(), covered.end(), 1));
        std::vector<std::pair<TimeNs, TimeNs>> shuffled(v.rbegin(), v.rend()); // every element a run
        EXPECT_EQ(unionLength(v), expected) << streams;
        EXPECT_EQ(unionLength(shuffled), expected) << streams;
    }
}

// Figures worked out here from nlohmann's reading of each file, independently of the reader.
TEST(Summary, MatchesAnIndependentReadingOfEveryFixture) {
    for (const char* name :
         {"v100_ns_decimals.json.gz", "h100_sdpa_flash_qwen.json.gz", "mi250_rocm_small.json.gz",
          "triton_single_kernel.json.gz", "uint64_arg.json.gz", "kineto_newest_schema.json",
          "chrome_generic_edge_cases.json", "dlrm_2ranks/rank0.json", "dlrm_2ranks/rank1.json"}) {
        SCOPED_TRACE(name);
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        const auto ref = referenceEvents(readAllBytes(path));
        struct K {
            std::uint64_t count = 0;
            std::int64_t total = 0, min = INT64_MAX, max = INT64_MIN;
        };
        std::map<std::string, K> kernels;
        std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> perDevice;
        std::uint64_t count = 0;
        std::int64_t total = 0;
        for (const RefEvent& e : ref) {
            if (e.ph != "X" || (e.cat != "kernel" && e.cat != "Kernel")) continue;
            const std::int64_t ts = refMicrosToNs(e.ts), dur = refMicrosToNs(e.dur);
            K& k = kernels[e.name];
            ++k.count;
            k.total += dur;
            k.min = std::min(k.min, dur);
            k.max = std::max(k.max, dur);
            ++count;
            total += dur;
            perDevice[e.pid].emplace_back(ts, ts + dur);
        }
        const auto trace = loadTraceFile(path);
        const TraceSummary s = summarize(*trace, 0);
        EXPECT_EQ(s.events, ref.size());
        EXPECT_EQ(s.kernelCount, count);
        EXPECT_EQ(s.kernelNs, total);
        ASSERT_EQ(s.topKernels.size(), kernels.size());
        for (std::size_t i = 0; i < s.topKernels.size(); ++i) {
            const KernelStats& k = s.topKernels[i];
            const K& r = kernels.at(k.name);
            EXPECT_EQ(k.count, r.count) << k.name;
            EXPECT_EQ(k.totalNs, r.total) << k.name;
            EXPECT_EQ(k.minNs, r.min) << k.name;
            EXPECT_EQ(k.maxNs, r.max) << k.name;
            if (i) {
                EXPECT_TRUE(s.topKernels[i - 1].totalNs > k.totalNs ||
                            (s.topKernels[i - 1].totalNs == k.totalNs && s.topKernels[i - 1].name < k.name));
            }
        }
        ASSERT_EQ(s.devices.size(), perDevice.size());
        for (const DeviceSummary& d : s.devices) {
            auto intervals = perDevice.at(d.id);
            // Busy time by sweeping sorted intervals, as a person would on paper.
            std::sort(intervals.begin(), intervals.end());
            std::int64_t busy = 0, reach = INT64_MIN;
            for (auto [a, b] : intervals) {
                if (b <= reach) continue;
                busy += b - std::max(a, reach);
                reach = b;
            }
            EXPECT_EQ(d.busyNs, busy) << d.id;
            EXPECT_LE(d.busyNs, d.kernelNs);
        }
    }
}

TEST(Summary, CountedPartByPartIsTheWholeTracesSummary) {
    // Real traces cut by time into parts (a program's steps: a kernel's name in several, with other
    // durations, a device's busy time across the cuts), counted part by part as a growing profile is.
    for (const char* name :
         {"h100_sdpa_flash_qwen.json.gz", "mi250_rocm_small.json.gz", "dlrm_2ranks/rank0.json"}) {
        SCOPED_TRACE(name);
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        const auto whole = loadTraceFile(path);
        const TimeNs from = whole->startNs(), span = whole->endNs() + 1 - whole->startNs();
        std::vector<std::shared_ptr<const Trace>> parts;
        for (int k = 0; k < 5; ++k) {
            TraceMerger merger;
            TraceMerger::Part part;
            part.window = {{from + span * k / 5, from + span * (k + 1) / 5}};
            merger.add(*whole, part);
            parts.push_back(merger.finish());
        }
        const auto merged = mergeSteps(parts);
        // In time order, as a program writes them, and last first (each part's kernels before all the
        // ones counted so far).
        SummaryParts inOrder, lastFirst;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            inOrder.add(*parts[k]);
            lastFirst.add(*parts[parts.size() - 1 - k]);
        }
        for (const SummaryParts* counted : {&inOrder, &lastFirst})
            for (const std::size_t top : {std::size_t(0), std::size_t(3)}) {
                const TraceSummary grown = counted->summary(*merged, top), read = summarize(*merged, top);
                EXPECT_EQ(formatSummaries({{"parts", grown, ""}}, SummaryFormat::Json),
                          formatSummaries({{"parts", read, ""}}, SummaryFormat::Json));
                ASSERT_FALSE(grown.topKernels.empty());
                for (const KernelStats& k : grown.topKernels)
                    EXPECT_EQ(merged->str(k.nameId), k.name);
            }
        EXPECT_FALSE(inOrder.kernelsByRole(*merged)); // the parts came without their analyses
    }
}

TEST(Summary, FormatsJsonTextAndCsv) {
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k, \"quoted\"", "pid": 0, "tid": 7, "ts": 0, "dur": 1.5}]})");
    SummaryResult ok{"a.json", summarize(*t, 20), {}};
    SummaryResult bad{"b.json", std::nullopt, "not a JSON trace (at byte 0)"};
    const nlohmann::json j = nlohmann::json::parse(formatSummaries({ok, bad}, SummaryFormat::Json));
    ASSERT_EQ(j.at("files").size(), 2u);
    const auto& f = j.at("files")[0];
    for (const char* key : {"path", "format", "events", "span_ns", "kernels", "devices", "top_kernels",
                            "categories", "warnings"})
        EXPECT_TRUE(f.contains(key)) << key;
    EXPECT_EQ(f.at("kernels").at("total_ns"), 1500);
    EXPECT_EQ(f.at("top_kernels")[0].at("name"), "k, \"quoted\"");
    EXPECT_EQ(f.at("top_kernels")[0].at("mean_ns"), 1500);
    EXPECT_EQ(f.at("devices")[0].at("busy_ns"), 1500);
    EXPECT_EQ(j.at("files")[1].at("error"), "not a JSON trace (at byte 0)");
    const std::string csv = formatSummaries({ok}, SummaryFormat::Csv);
    EXPECT_NE(csv.find("a.json,kernel,,\"k, \"\"quoted\"\"\",1,1500,1500,1500,1500,"), std::string::npos)
        << csv;
    const std::string text = formatSummaries({ok}, SummaryFormat::Text);
    EXPECT_NE(text.find("1.500 µs"), std::string::npos) << text;
    EXPECT_NE(text.find("k, \"quoted\""), std::string::npos);
}

// Each number in its own field, checked against values worked by hand: a kernel name with instances of
// 10 and 30 µs (min, max and mean differ), a device whose streams overlap (busy 50 µs: stream 7 runs
// [0,10) and [20,50), stream 13 [5,25), union [0,50); kernel time 60 µs).
TEST(Summary, EachNumberInItsOwnFieldInJsonAndCsv) {
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 0, "dur": 10},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 30},
      {"ph": "X", "cat": "kernel", "name": "softmax", "pid": 0, "tid": 13, "ts": 5, "dur": 20}]})");
    const SummaryResult r{"t.json", summarize(*t, 20), {}};
    const nlohmann::json j = nlohmann::json::parse(formatSummaries({r}, SummaryFormat::Json)).at("files")[0];
    const auto& gemm = j.at("top_kernels")[0];
    EXPECT_EQ(gemm.at("name"), "gemm");
    EXPECT_EQ(gemm.at("count"), 2);
    EXPECT_EQ(gemm.at("total_ns"), 40000);
    EXPECT_EQ(gemm.at("mean_ns"), 20000);
    EXPECT_EQ(gemm.at("min_ns"), 10000);
    EXPECT_EQ(gemm.at("max_ns"), 30000);
    const auto& device = j.at("devices")[0];
    EXPECT_EQ(device.at("kernel_ns"), 60000);
    EXPECT_EQ(device.at("busy_ns"), 50000);
    const std::string csv = formatSummaries({r}, SummaryFormat::Csv);
    // file,kind,id,name,count,total_ns,mean_ns,min_ns,max_ns,busy_ns,…
    EXPECT_NE(csv.find("\nt.json,kernel,,gemm,2,40000,20000,10000,30000,,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\nt.json,device,0,GPU 0,3,60000,,,,50000,"), std::string::npos) << csv;
}

// The roofline section against numbers worked by hand: aten::mm [4096,4096]·[4096,4096] bf16 is
// 2·4096³ = 137,438,953,472 FLOPs on 3·4096²·2 = 100,663,296 bytes; its kernel took 200 µs on an H100
// (989.4 TFLOP/s bf16, 3.35 TB/s): 687.19 TFLOP/s = 69.46% of the compute roof, 503.3 GB/s = 15.02% of
// the memory roof, intensity 1365 above the ridge 295: compute-bound. JSON, CSV and text say so, each in
// its own field, with SI units in the text; and the text goes on to the attention calls.
TEST(Summary, RooflineSectionAgainstHandWorkedNumbers) {
    const auto t = loadText(R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":50,
       "args":{"Input Dims":[[4096,4096],[4096,4096]],"Input type":["c10::BFloat16","c10::BFloat16"]}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n","pid":0,"tid":7,"ts":100,"dur":200,
       "args":{"device":0,"stream":7,"correlation":1}},
      {"ph":"X","cat":"kernel","name":"flash_fwd_kernel","pid":0,"tid":7,"ts":400,"dur":40,"args":{"device":0}},
      {"ph":"X","cat":"kernel","name":"flash_fwd_kernel","pid":0,"tid":7,"ts":500,"dur":60,"args":{"device":0}}]})");
    TraceSummary summary = summarize(*t, 20);
    addAnalysis(summary, *t, analyzeTrace(*t));
    const SummaryResult r{"t.json", summary, {}};
    const nlohmann::json j = nlohmann::json::parse(formatSummaries({r}, SummaryFormat::Json)).at("files")[0];
    const auto& k = j.at("roofline").at("kernels").at(0);
    EXPECT_EQ(k.at("flops").get<double>(), 137438953472.0);
    EXPECT_EQ(k.at("bytes").get<double>(), 100663296.0);
    EXPECT_NEAR(k.at("flops_per_s").get<double>(), 137438953472.0 / 200e-6, 1);
    EXPECT_NEAR(k.at("compute_share").get<double>(), 137438953472.0 / 200e-6 / 989.4e12, 1e-12);
    EXPECT_NEAR(k.at("memory_share").get<double>(), 100663296.0 / 200e-6 / 3.35e12, 1e-12);
    EXPECT_EQ(k.at("verdict"), "compute");
    EXPECT_EQ(k.at("precision"), "bf16");
    EXPECT_EQ(k.at("role"), "gemm");
    const std::string csv = formatSummaries({r}, SummaryFormat::Csv);
    EXPECT_NE(csv.find("\nt.json,role,,gemm,1,200000,"), std::string::npos) << csv;
    EXPECT_NE(
        csv.find("\nt.json,roofline,gemm,sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n,1,200000,,,,,1.37439e+11,"
                 "1.00663e+08,6.87195e+14,5.03316e+11,0.694557,0.150244,compute,bf16,,,,\n"),
        std::string::npos)
        << csv;
    // Every name has its row, costed or not (flash: no cost, its verdict unknown).
    EXPECT_NE(csv.find("\nt.json,roofline,fused_attention,flash_fwd_kernel,2,100000,"), std::string::npos)
        << csv;
    const std::string text = formatSummaries({r}, SummaryFormat::Text);
    EXPECT_NE(text.find("687.2 TFLOP/s   503.3 GB/s    69.5%    15.0%  compute"), std::string::npos) << text;
    EXPECT_NE(text.find("memory 3.35 TB/s, fp32 67 TFLOP/s"), std::string::npos) << text;
    // Two flash calls of 40 and 60 µs (no cost: no op launched them): 50 µs each on average.
    EXPECT_NE(text.find("attention calls: 2\n"), std::string::npos) << text;
    EXPECT_NE(
        text.find(
            "  flash                   2          1.0    50.000 µs             -           -  unknown 100.0%\n"),
        std::string::npos)
        << text;
    // The same per call in the CSV: kernels per call, kernel time per call; no host range, no cost.
    EXPECT_NE(csv.find("\nt.json,attention,,flash,2,100000,50000,,,,,,,,,,,,1,50000,,\n"), std::string::npos)
        << csv;
}

// Devices and tracks as people read them, built once in core: "GPU 0", "rank 0 · GPU 0" (rank 0 is a
// rank too), and a device whose name is its GPU's name said once.
TEST(Summary, DeviceAndTrackLabels) {
    ProcessInfo p;
    p.isGpu = true;
    p.deviceIndex = 0;
    EXPECT_EQ(gpuLabel(p), "GPU 0");
    p.rank = 0;
    EXPECT_EQ(gpuLabel(p), "rank 0 \u00b7 GPU 0");
    p.rank = 3;
    p.deviceIndex = 1;
    EXPECT_EQ(gpuLabel(p), "rank 3 \u00b7 GPU 1");
    p.isGpu = false;
    EXPECT_EQ(gpuLabel(p), "");
    const auto t = loadText(
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0}}]})");
    const TraceSummary s = summarize(*t, 0);
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_EQ(s.devices[0].label, "GPU 0"); // its process is named "GPU 0" too: not "GPU 0 · GPU 0"
    const auto named = loadText(
        R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0}}]})");
    EXPECT_EQ(summarize(*named, 0).devices[0].label, "GPU 0 \u00b7 NVIDIA H100 80GB HBM3");
}
