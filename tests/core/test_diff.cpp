// SPDX-License-Identifier: MIT
// diff: what changed between two traces, per role and kernel name.
#include "analysis_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

// In the text report a kernel only B has is "new" and one B lost is "gone", not a ratio of 0.00x.
TEST(Diff, NewAndGoneKernelsAreSaidSoInText) {
    auto traceOf = [](const std::string& kernels) {
        return loadText(R"({"traceEvents":[)" + kernels + "]}");
    };
    const std::string gemm =
        R"({"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":7,"ts":0,"dur":100})";
    const auto a =
        traceOf(gemm + R"(,{"ph":"X","cat":"kernel","name":"old_kernel","pid":0,"tid":7,"ts":200,"dur":10})");
    const auto b =
        traceOf(gemm + R"(,{"ph":"X","cat":"kernel","name":"new_kernel","pid":0,"tid":7,"ts":200,"dur":10})");
    const TraceDiff d = diffTraces(*a, analyzeTrace(*a), *b, analyzeTrace(*b));
    const std::string text = formatDiff(d, "a.json", "b.json", DiffFormat::Text);
    auto lineOf = [&](const std::string& name) {
        const std::size_t at = text.find(name);
        if (at == std::string::npos) return std::string();
        const std::size_t start = text.rfind('\n', at) + 1;
        return text.substr(start, text.find('\n', at) - start);
    };
    EXPECT_NE(lineOf("old_kernel").find(" gone "), std::string::npos) << text;
    EXPECT_NE(lineOf("new_kernel").find(" new "), std::string::npos) << text;
    EXPECT_EQ(lineOf("old_kernel").find("0.00×"), std::string::npos) << text;
}

// Two made traces with a known answer: B's GEMM got 30 µs slower, its softmax 10 µs faster, and a
// fused kernel appeared; the copy did not change.
TEST(Diff, TwoMadeTracesGiveTheKnownAnswer) {
    auto traceOf = [](const std::vector<std::pair<std::string, int>>& kernels) {
        std::string events;
        int t = 0;
        for (const auto& [name, dur] : kernels) {
            events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"kernel","name":")" + name +
                      R"(","pid":0,"tid":7,"ts":)" + std::to_string(t) + R"(,"dur":)" + std::to_string(dur) +
                      R"(,"args":{"device":0,"stream":7}})";
            t += dur + 1;
        }
        return loadText(R"({"traceEvents":[)" + events + "]}");
    };
    const auto a = traceOf({{"volta_sgemm_128x64_nn", 100},
                            {"volta_sgemm_128x64_nn", 100},
                            {"cunn_SoftMaxForward", 40},
                            {"copy_kernel", 5}});
    const auto b = traceOf({{"volta_sgemm_128x64_nn", 115},
                            {"volta_sgemm_128x64_nn", 115},
                            {"cunn_SoftMaxForward", 30},
                            {"copy_kernel", 5},
                            {"flash_fwd_kernel", 20}});
    const TraceDiff d = diffTraces(*a, analyzeTrace(*a), *b, analyzeTrace(*b));
    EXPECT_EQ(d.kernelA, 245'000);
    EXPECT_EQ(d.kernelB, 285'000);
    ASSERT_EQ(d.roles.size(), 4u);
    // By |delta|: gemm +30 µs, fused +20 µs, softmax −10 µs, copy 0.
    EXPECT_EQ(d.roles[0].key, "gemm");
    EXPECT_EQ(d.roles[0].delta(), 30'000);
    EXPECT_DOUBLE_EQ(d.roles[0].ratio(), 1.15);
    EXPECT_TRUE(d.roles[0].regression());
    EXPECT_EQ(d.roles[1].key, "fused_attention");
    EXPECT_EQ(d.roles[1].countA, 0u);
    EXPECT_TRUE(std::isinf(d.roles[1].ratio()));
    EXPECT_FALSE(d.roles[1].regression()); // new in B, not slower than anything in A
    EXPECT_EQ(d.roles[2].key, "softmax");
    EXPECT_EQ(d.roles[2].delta(), -10'000);
    EXPECT_FALSE(d.roles[2].regression());
    EXPECT_EQ(d.roles[3].key, "copy");
    EXPECT_EQ(d.roles[3].delta(), 0);
    EXPECT_FALSE(d.roles[3].regression());
    ASSERT_EQ(d.kernels.size(), 4u);
    EXPECT_EQ(d.kernels[0].key, "volta_sgemm_128x64_nn");
    EXPECT_EQ(d.kernels[0].countB, 2u);

    const std::string csv = formatDiff(d, "a.json", "b.json", DiffFormat::Csv);
    EXPECT_NE(csv.find("role,gemm,2,2,200000,230000,30000,1.1500,yes\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find("role,fused_attention,0,1,0,20000,20000,,no\n"), std::string::npos) << csv;
    const std::string json = formatDiff(d, "a.json", "b.json", DiffFormat::Json, 1);
    EXPECT_NE(json.find("\"delta_ns\": 40000"), std::string::npos) << json;
    EXPECT_EQ(std::count(json.begin(), json.end(), '\n') > 10, true);
    const std::string text = formatDiff(d, "a.json", "b.json", DiffFormat::Text);
    EXPECT_NE(text.find("kernel time: 245.000 µs -> 285.000 µs (+40.000 µs)"), std::string::npos) << text;
}
