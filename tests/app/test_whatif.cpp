// SPDX-License-Identifier: MIT
// `attnscope whatif` as a user runs it: a call of a transformers model's trace (the ModelTraces.Make
// fixture) read for what it computes, run again on this machine with PyTorch as it was and as the
// alternatives, and the savings it prints are the differences of its own table's times per call.
#include "app/cli_test_support.h"

#include <filesystem>
#include <set>

using namespace attnscope;
using namespace attnscope::test;

namespace {

const std::string kModels = ATTNSCOPE_MODEL_TRACES;
const std::string kPython = std::string("ATTNSCOPE_PYTHON=") + ATTNSCOPE_TORCH_PYTHON;

nlohmann::json rowOf(const nlohmann::json& comparison, const std::string& label) {
    for (const auto& t : comparison["traces"])
        if (t["label"] == label && !t["rows"].empty()) return t["rows"][0];
    return nullptr;
}

} // namespace

// The naive call of eager Llama (its batch × heads folded in its bmm): run again as naive, SDPA math and
// flash; the call as it was, measured here, is the baseline; each saving is its row's difference from it.
TEST(WhatIf, AnEagerCallMeasuredAgainstSdpasBackends) {
    const std::string trace = kModels + "/llama_gqa_eager.json";
    ASSERT_TRUE(std::filesystem::exists(trace)) << "ModelTraces.Make did not make it";
    const CliRun r =
        run("whatif " + trace + " --try naive,naive_inplace,math,flash,flash_bf16 --repeat 2 --format json",
            false, kPython);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["implementation"], "naive");
    EXPECT_EQ(j["calls_in_trace"], 4);
    EXPECT_EQ(j["inputs"], "16 batch × heads · 384 queries × 384 keys · head dim 32 · fp32 · masked");
    // The heads folded, and its mask (transformers adds a causal one) of a kind not recorded: said, and run
    // causal, as a square mask most often is.
    EXPECT_NE(j["notes"].dump().find("run causal, as a square mask most often is"), std::string::npos)
        << j["notes"];
    // Each run computes what the call computes: its output held to the fp32 reference on the same inputs.
    const std::string notices = j["notices"].dump();
    for (const char* impl : {"naive", "naive_inplace", "math", "flash", "flash_bf16"})
        EXPECT_NE(notices.find(std::string(impl) + ": output matches the fp32 reference's"),
                  std::string::npos)
            << notices;
    const auto& c = j["comparison"];
    const auto recorded = rowOf(c, "as recorded");
    const auto naive = rowOf(c, "measured: naive");
    const auto flash = rowOf(c, "measured: flash");
    const auto math = rowOf(c, "measured: SDPA math");
    // The post's lesson measured on the call's own shapes: its mask filled in place, no copy of the scores.
    const auto inPlace = rowOf(c, "measured: naive_inplace");
    // Half precision for the fp32 call: flash on its inputs in bf16, held to the fp32 reference within bf16's
    // tolerance (a bf16 call is offered none).
    const auto half = rowOf(c, "measured: flash_bf16");
    ASSERT_FALSE(recorded.is_null() || naive.is_null() || flash.is_null() || math.is_null() ||
                 inPlace.is_null() || half.is_null())
        << c.dump(1);
    EXPECT_EQ(half["inputs"]["dtype"], "bf16") << half["inputs"];
    EXPECT_NE(notices.find("flash_bf16: output matches the fp32 reference's (largest difference"),
              std::string::npos);
    EXPECT_NE(notices.find("tolerance 0.05)"), std::string::npos) << notices;
    EXPECT_EQ(recorded["calls"], 4);
    // Its mask is added ([2, 1, 384, 384], transformers' causal mask): naive adds it as the call did, no copy
    // of the scores, and in place fills it instead, as many kernels a call.
    EXPECT_NE(j["notes"].dump().find("naive applies its mask as the call did (aten::add, an additive mask)"),
              std::string::npos)
        << j["notes"];
    EXPECT_EQ(naive["kernels_per_call"].get<double>(), inPlace["kernels_per_call"].get<double>())
        << c.dump(1);
    EXPECT_EQ(naive["calls"], 2); // --repeat, the warm-up left out
    // Every run the same work as the call: the shape read back from the measured runs' own traces.
    for (const auto& row : {naive, inPlace, flash, math, half}) {
        EXPECT_EQ(row["inputs"]["query_len"], 384);
        EXPECT_EQ(row["inputs"]["head_dim"], 32);
    }
    // The baseline is the call as it was, measured here; each saving the difference of the table's figures.
    EXPECT_EQ(c["traces"][std::size_t(c["baseline"].get<int>() - 1)]["label"], "measured: naive");
    ASSERT_EQ(j["savings"].size(), 4u);
    for (const auto& s : j["savings"]) {
        const auto row = rowOf(c, "measured: " + s["implementation"].get<std::string>());
        ASSERT_FALSE(row.is_null());
        EXPECT_EQ(s["ns_per_call"].get<std::int64_t>(), naive["kernel_ns_per_call"].get<std::int64_t>() -
                                                            row["kernel_ns_per_call"].get<std::int64_t>());
        EXPECT_EQ(s["ns_over_trace"].get<std::int64_t>(), 4 * s["ns_per_call"].get<std::int64_t>());
        // And on the host: the difference of the table's host times per call (each measured call's range,
        // what a wall clock around it sees).
        ASSERT_TRUE(naive["host_ns_per_call"].is_number() && row["host_ns_per_call"].is_number()) << row;
        EXPECT_EQ(s["host_ns_per_call"].get<std::int64_t>(), naive["host_ns_per_call"].get<std::int64_t>() -
                                                                 row["host_ns_per_call"].get<std::int64_t>());
        // Its spread: the calls that ran in one round paired, the saving the mean of the pairs' (to the ns
        // the per-call means are rounded to).
        EXPECT_EQ(s["rounds"], 2);
        const auto& pairs = s["rounds_ns_per_call"];
        EXPECT_LE(pairs["least"].get<std::int64_t>(), s["ns_per_call"].get<std::int64_t>() + 1) << s;
        EXPECT_GE(pairs["most"].get<std::int64_t>(), s["ns_per_call"].get<std::int64_t>() - 1) << s;
        EXPECT_LE(pairs["least"].get<std::int64_t>(), pairs["median"].get<std::int64_t>()) << s;
        EXPECT_LE(pairs["median"].get<std::int64_t>(), pairs["most"].get<std::int64_t>()) << s;
        // Of two rounds the median is the middle of the two, not the lower.
        EXPECT_EQ(pairs["median"].get<std::int64_t>(),
                  (pairs["least"].get<std::int64_t>() + pairs["most"].get<std::int64_t>()) / 2)
            << s;
        // The host's saving has its spread too, of the same rounds: its mean within it, its median the middle.
        EXPECT_EQ(s["host_rounds"], 2);
        const auto& host = s["host_rounds_ns_per_call"];
        ASSERT_TRUE(host.is_object()) << s;
        EXPECT_LE(host["least"].get<std::int64_t>(), s["host_ns_per_call"].get<std::int64_t>() + 1) << s;
        EXPECT_GE(host["most"].get<std::int64_t>(), s["host_ns_per_call"].get<std::int64_t>() - 1) << s;
        EXPECT_EQ(host["median"].get<std::int64_t>(),
                  (host["least"].get<std::int64_t>() + host["most"].get<std::int64_t>()) / 2)
            << s;
        // Said within the noise when the middle half straddles zero or the median and mean disagree.
        const bool straddles = pairs["lower_quartile"].get<std::int64_t>() < 0 &&
                               pairs["upper_quartile"].get<std::int64_t>() > 0;
        const bool disagree =
            (pairs["median"].get<std::int64_t>() < 0) != (s["ns_per_call"].get<std::int64_t>() < 0);
        EXPECT_EQ(s["within_noise"].get<bool>(), straddles || disagree) << s;
    }
    // The finding learns the answer: attention by hand's time at stake is the fused kernel's measured
    // saving over the trace's calls (flash's, the fused one run here in the call's precision: flash_bf16's
    // is other work), said so in its title.
    std::int64_t flashSaving = -1;
    for (const auto& s : j["savings"])
        if (s["implementation"] == "flash") flashSaving = std::max<std::int64_t>(0, s["ns_over_trace"]);
    bool learned = false;
    for (const auto& f : recorded["findings"])
        if (f["id"] == "hand_written_attention") {
            learned = true;
            // No more than the calls took as recorded (a machine busier now measures more).
            EXPECT_EQ(f["time_ns"].get<std::int64_t>(),
                      std::min(flashSaving, 4 * recorded["kernel_ns_per_call"].get<std::int64_t>()))
                << f.dump();
            EXPECT_NE(f["title"].get<std::string>().find("measured here: flash saves"), std::string::npos)
                << f.dump();
        }
    EXPECT_TRUE(learned) << recorded.dump(1);
}

// The post's naive call (masked_fill out of place, no range around it, as most scripts are written): the call
// as it was is re-created with its copy of the scores, kernel for kernel, and in place runs one kernel fewer,
// the copy, whose time is the saving it measures.
TEST(WhatIf, ThePostsNaiveCallIsMeasuredWithItsCopyAndInPlaceWithout) {
    TempDir dir;
    const std::string script = dir.path("naive.py");
    // The post's naive forward, as its Figure 3 has it, profiled with no record_function around the calls.
    writeFile(script, R"(import math, sys, torch
from torch.profiler import profile, ProfilerActivity
torch.manual_seed(0)
q, k, v = (torch.randn(1, 4, 256, 64) for _ in range(3))
mask = torch.triu(torch.ones(256, 256, dtype=torch.bool), diagonal=1)
def naive():
    s = torch.matmul(q, k.transpose(-2, -1)) * (1 / math.sqrt(64))
    s = s.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)
naive()
with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], record_shapes=True) as p:
    for _ in range(3):
        naive()
p.export_chrome_trace(sys.argv[1])
)");
    const std::string trace = dir.path("naive.json");
    ASSERT_EQ(std::system((std::string(ATTNSCOPE_TORCH_PYTHON) + " " + script + " " + trace + " > " +
                           dir.path("log.txt") + " 2>&1")
                              .c_str()),
              0);
    const CliRun r =
        run("whatif " + trace + " --try naive,naive_inplace,flash --repeat 2 --format json", false, kPython);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["calls_in_trace"], 3);
    const auto& c = j["comparison"];
    const auto recorded = rowOf(c, "as recorded");
    const auto naive = rowOf(c, "measured: naive");
    const auto inPlace = rowOf(c, "measured: naive_inplace");
    ASSERT_FALSE(recorded.is_null() || naive.is_null() || inPlace.is_null()) << c.dump(1);
    // bmm, mul, copy_ (masked_fill's clone), masked_fill_, _softmax, bmm: recorded and re-created alike.
    EXPECT_EQ(recorded["kernels_per_call"].get<double>(), 6.0) << recorded.dump(1);
    EXPECT_EQ(naive["kernels_per_call"].get<double>(), 6.0) << naive.dump(1);
    EXPECT_EQ(inPlace["kernels_per_call"].get<double>(), 5.0) << inPlace.dump(1);
    EXPECT_EQ(j["notes"].dump().find("naive applies its mask"), std::string::npos) << j["notes"];
}

// The text: what the call computes, where it was measured, the table and the savings.
TEST(WhatIf, TheTextSaysWhatRanWhereAndWhatItSaves) {
    const CliRun r =
        run("whatif " + kModels + "/llama_gqa_sdpa.json --try flash,math --repeat 2", false, kPython);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_NE(r.out.find("call 1 of "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("batch 2 × 8 heads (2 KV) · 384 queries × 384 keys · head dim 32 · fp32 · causal"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("measured on this machine's CPU"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("against flash as it was"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("SDPA math "), std::string::npos) << r.out;
    // Its spread over the rounds that ran both side by side.
    EXPECT_NE(r.out.find(" over 2 rounds "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" at the median ("), std::string::npos) << r.out;
}

// Nothing is run where the call cannot be read or chosen: each a sentence and its exit status.
TEST(WhatIf, NothingRunsWhereTheCallCannotBeRead) {
    TempDir dir;
    // A trace with no attention call.
    writeFile(dir.path("plain.json"),
              R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":1,"dur":2}]})");
    CliRun r = run("whatif " + dir.path("plain.json"), true, kPython);
    EXPECT_EQ(r.exitCode, 1) << r.out;
    EXPECT_NE(r.out.find("no attention call"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("nothing was run"), std::string::npos) << r.out;
    // A call past the last.
    r = run("whatif " + kModels + "/gpt2_eager.json --call 99", true, kPython);
    EXPECT_EQ(r.exitCode, 2) << r.out;
    EXPECT_NE(r.out.find("--call 99: the trace has 4 attention calls"), std::string::npos) << r.out;
    // An implementation it does not have.
    r = run("whatif " + kModels + "/gpt2_eager.json --impl flash", true, kPython);
    EXPECT_EQ(r.exitCode, 2) << r.out;
    EXPECT_NE(r.out.find("no call of it in the trace (its calls: naive ×4)"), std::string::npos) << r.out;
    // A finding the trace does not have.
    r = run("whatif " + kModels + "/gpt2_eager.json --finding gpu_idle", true, kPython);
    EXPECT_EQ(r.exitCode, 2) << r.out;
    EXPECT_NE(r.out.find("--finding gpu_idle: no such finding in the trace (the findings about a call: "
                         "hand_written_attention"),
              std::string::npos)
        << r.out;
}

// The call a finding is about (--finding), and -o DIR: the trace as recorded and the run saved side by side,
// which `attnscope compare` reads back as the same rows. The trace in two profiler steps (its ops cut in two
// ProfilerStep ranges, as a profile with a schedule records them): each saving a step too.
TEST(WhatIf, AFindingsCallRunsAndBothTracesAreSavedToCompare) {
    TempDir dir;
    auto trace = nlohmann::json::parse(readAllBytes(kModels + "/gpt2_eager.json"));
    double from = 0, to = 0;
    nlohmann::json thread;
    for (const auto& e : trace["traceEvents"])
        if (e.value("cat", "") == "cpu_op") {
            const double ts = e["ts"], end = ts + e["dur"].get<double>();
            if (thread.is_null()) {
                thread = e;
                from = ts;
                to = end;
            }
            from = std::min(from, ts);
            to = std::max(to, end);
        }
    ASSERT_FALSE(thread.is_null());
    for (int step = 0; step < 2; ++step) {
        const double start = step ? (from + to) / 2 : from - 1, end = step ? to + 1 : (from + to) / 2;
        trace["traceEvents"].push_back({{"ph", "X"},
                                        {"cat", "user_annotation"},
                                        {"name", "ProfilerStep#" + std::to_string(7 + step)},
                                        {"pid", thread["pid"]},
                                        {"tid", thread["tid"]},
                                        {"ts", start},
                                        {"dur", end - start}});
    }
    const std::string stepped = dir.path("gpt2_steps.json");
    writeFile(stepped, trace.dump());
    const std::string out = dir.path("out");
    const CliRun r = run("whatif '" + stepped +
                             "' --finding hand_written_attention --try naive,flash --repeat 1 -o '" + out +
                             "' --format json",
                         false, kPython);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["implementation"], "naive");
    EXPECT_EQ(j["steps"], 2);
    ASSERT_FALSE(j["savings"].empty());
    for (const auto& s : j["savings"])
        EXPECT_EQ(s["ns_per_step"].get<std::int64_t>(), s["ns_over_trace"].get<std::int64_t>() / 2) << s;
    const std::string recorded = out + "/gpt2_steps as recorded.json",
                      measured = out + "/gpt2_steps measured here.json";
    EXPECT_EQ(j["saved"], nlohmann::json({recorded, measured}));
    ASSERT_TRUE(std::filesystem::exists(recorded));
    ASSERT_TRUE(std::filesystem::exists(measured));
    const CliRun c = run("compare '" + recorded + "' '" + measured + "' --format json");
    ASSERT_EQ(c.exitCode, 0) << c.out;
    const auto compared = nlohmann::json::parse(c.out);
    std::set<std::string> impls;
    for (const auto& t : compared["traces"])
        for (const auto& row : t["rows"])
            impls.insert(row["implementation"].get<std::string>());
    EXPECT_TRUE(impls.count("naive") && impls.count("flash")) << c.out;
}
