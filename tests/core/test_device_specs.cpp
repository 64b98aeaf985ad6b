// SPDX-License-Identifier: MIT
// Device specs: which roofs a trace's GPU gets, from the datasheet table.
#include "analysis_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

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

// A GPU the specs do not know: the note says which file takes its roofs, by its path (the user's
// device_specs.txt, where ATTNSCOPE_DEVICE_SPECS points or under the config home).
TEST(DeviceSpecs, AnUnknownGpuNamesTheFileItsRoofsGoIn) {
    auto trace = loadText(R"({"deviceProperties":[{"id":0,"name":"Acme Tensor 9000"}],"traceEvents":[)"
                          R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1,)"
                          R"("args":{"device":0}}]})");
    const TraceAnalysis a = analyzeTrace(*trace);
    EXPECT_FALSE(a.device);
    const std::string path = userDataFile("ATTNSCOPE_DEVICE_SPECS", "device_specs.txt");
    ASSERT_FALSE(path.empty());
    EXPECT_NE(a.deviceNote.find("no roofs known for 'Acme Tensor 9000' (add its roofs to "),
              std::string::npos)
        << a.deviceNote;
    EXPECT_NE(a.deviceNote.find("device_specs.txt)"), std::string::npos) << a.deviceNote;
    EXPECT_EQ(
        userDataFileForPeople("ATTNSCOPE_DEVICE_SPECS", "device_specs.txt").ends_with("device_specs.txt"),
        true);
}
