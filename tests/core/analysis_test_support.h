// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the analysis tests: made traces of real kernel names.
#include "core/analysis/analysis.h"
#include "core/analysis/resources.h"
#include "core/io/trace_loader.h"
#include "core/report/diff.h"
#include "core/report/findings.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"
#include "support/test_support.h"
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace attnscope::test {

using namespace attnscope;

inline std::string nameOf(const Trace& t, EventRef e) {
    return std::string(t.str(t.track(e.track).events.name[e.index]));
}

inline TimeNs durationOf(const Trace& t, EventRef e) {
    return t.track(e.track).events.duration[e.index];
}

// Kernels one after another on an A100 (name, stream, µs), 1 µs apart.
inline std::shared_ptr<const Trace>
a100Kernels(const std::vector<std::tuple<const char*, int, int>>& kernels) {
    std::string events;
    int t = 1000;
    for (const auto& [name, stream, dur] : kernels) {
        events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"kernel","name":")" + name +
                  R"(","pid":0,"tid":)" + std::to_string(stream) + R"(,"ts":)" + std::to_string(t) +
                  R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"device":0,"stream":)" +
                  std::to_string(stream) + "}}";
        t += dur + 1;
    }
    return loadText(R"({"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB"}],"traceEvents":[)" +
                    events + "]}");
}

inline constexpr const char* gemm = "ampere_sgemm_128x64_tn";
inline constexpr const char* softmax = "void at::native::cunn_SoftMaxForward<4, float>";
inline constexpr const char* dropout =
    "void at::native::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4>";
inline constexpr const char* scale = "void at::native::vectorized_elementwise_kernel<4, MulFunctor<float>>";

} // namespace attnscope::test
