// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the findings tests: documents, findings against fixed roofs, made GPU traces.
#include "core/analysis/analysis.h"
#include "core/document/document.h"
#include "core/report/findings.h"
#include "core/report/findings_rules.h"
#include "core/report/format.h"
#include "core/report/summary.h"
#include "support/test_support.h"
#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>

namespace attnscope::test {

using namespace attnscope;

inline const Finding* findingOf(const std::vector<Finding>& all, std::string_view id) {
    for (const Finding& f : all)
        if (f.id == id) return &f;
    return nullptr;
}

inline std::shared_ptr<const Document> open(const std::string& path) {
    return openDocument(DocumentSource::file(path));
}

// The findings of a trace analysed against fixed roofs (a CPU run's kernels need the CPU's).
inline std::vector<Finding> findingsOf(const Trace& trace,
                                       const FindingThresholds& th = FindingThresholds::standard()) {
    DeviceSpec cpu;
    cpu.name = "CPU (fixed for the test)";
    cpu.fp32 = 300e9;
    cpu.bandwidth = 15e9;
    const TraceAnalysis analysis = analyzeTrace(trace, &cpu);
    return findFindings({trace, analysis, th});
}

// A time in µs as a trace writes it ("12.500").
inline std::string microseconds(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v);
    return b;
}

// A GPU trace written for a test: an H100, one Python thread whose cpu_ops launch kernels through
// cudaLaunchKernel (correlation ids, as Kineto writes them), kernels on stream 7.
class GpuTrace {
public:
    // An op [ts, ts+dur) µs launching one kernel of kernelDur µs at kernelTs; returns the kernel's name.
    void launch(const std::string& op, const std::string& dims, const std::string& types, double ts,
                double dur, const std::string& kernel, double kernelTs, double kernelDur,
                const std::string& kernelArgs = "", const std::string& launchName = "cudaLaunchKernel",
                double launchDur = 2) {
        const int corr = ++m_corr;
        add(R"({"ph":"X","cat":"cpu_op","name":")" + op + R"(","pid":100,"tid":100,"ts":)" + num(ts) +
            R"(,"dur":)" + num(dur) + R"(,"args":{"Input Dims":)" + dims + R"(,"Input type":)" + types +
            "}}");
        add(R"({"ph":"X","cat":"cuda_runtime","name":")" + launchName + R"(","pid":100,"tid":100,"ts":)" +
            num(ts + 0.5) + R"(,"dur":)" + num(launchDur) + R"(,"args":{"correlation":)" +
            std::to_string(corr) + "}}");
        add(R"({"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":7,"ts":)" + num(kernelTs) +
            R"(,"dur":)" + num(kernelDur) + R"(,"args":{"device":0,"stream":7,"correlation":)" +
            std::to_string(corr) + kernelArgs + "}}");
    }
    void add(const std::string& event) { m_events.push_back(event); }
    std::string text() const {
        std::string out =
            R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3","computeMajor":9,)"
            R"("computeMinor":0,"maxThreadsPerMultiprocessor":2048,"regsPerMultiprocessor":65536,)"
            R"("sharedMemPerMultiprocessor":233472,"warpSize":32,"numSms":132}],"traceEvents":[)";
        for (std::size_t i = 0; i < m_events.size(); ++i)
            out += (i ? ",\n" : "") + m_events[i];
        return out + "]}";
    }

private:
    static std::string num(double v) { return microseconds(v); }
    std::vector<std::string> m_events;
    int m_corr = 0;
};

// Kineto's args of one large kernel launch: 128 threads a block, the registers and shared memory given.
inline std::string launchArgs(int registers, int shared, int reported = 50) {
    return R"(,"grid":[132,8,1],"block":[128,1,1],"registers per thread":)" + std::to_string(registers) +
           R"(,"shared memory":)" + std::to_string(shared) + R"(,"est. achieved occupancy %":)" +
           std::to_string(reported);
}

} // namespace attnscope::test
