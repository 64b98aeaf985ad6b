// SPDX-License-Identifier: MIT
// Traces joined into one: the steps one profiled process wrote, one after another, and a time window of
// a trace (what the live benchmark cuts its steps with).
#include "support/test_support.h"

#include "core/io/trace_merge.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

namespace {

// A step as the hook writes one: a launch on the host and its kernel on stream 7, the same
// correlation id in every step (Kineto numbers them per profiling session), the device listed.
std::shared_ptr<const Trace> step(int at, const std::string& host = "box") {
    const std::string ts = std::to_string(at);
    return loadText(R"({"host_name":")" + host + R"(","deviceProperties":[{"id":0,"name":"NVIDIA H100"}],
      "traceEvents":[
      {"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
                    ts +
                    R"(,"dur":5,"args":{"correlation":9}},
      {"ph":"X","cat":"kernel","name":"k)" +
                    ts + R"(","pid":0,"tid":7,"ts":)" + std::to_string(at + 10) +
                    R"(,"dur":20,"args":{"correlation":9,"device":0,"stream":7}}]})");
}

EventRef only(const Trace& t, const std::string& name) {
    for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti)
        for (std::uint32_t i = 0; i < t.tracks()[ti].size(); ++i)
            if (t.str(t.tracks()[ti].events.name[i]) == name) return {TrackId{ti}, i};
    ADD_FAILURE() << name << " not found";
    return {};
}

TEST(TraceMerge, StepsOfOneProcessAreOneTraceWithEachLaunchLinkedInItsOwnStep) {
    const auto a = step(0), b = step(100, "node7");
    const auto merged = mergeSteps({a, b});
    EXPECT_EQ(merged->eventCount(), a->eventCount() + b->eventCount());
    // The same process and stream: one host track and one stream track hold both steps.
    std::size_t tracksWithEvents = 0;
    for (const Track& t : merged->tracks())
        tracksWithEvents += t.size() > 0;
    EXPECT_EQ(tracksWithEvents, 2u);
    EXPECT_EQ(merged->devices().size(), 1u); // listed in each step, once here
    EXPECT_EQ(merged->info().hostName, "node7");
    // Correlation 9 in both steps: each kernel's launch is its own step's.
    for (const auto& [kernel, launchAt] : {std::pair{"k0", 0}, std::pair{"k100", 100'000}}) {
        const auto launch = merged->launchOf(only(*merged, kernel));
        ASSERT_TRUE(launch) << kernel;
        EXPECT_EQ(merged->track(launch->track).events.start[launch->index], launchAt) << kernel;
    }
    EXPECT_EQ(mergeSteps({})->eventCount(), 0u);
}

TEST(TraceMerge, AWindowKeepsWhatStartsInIt) {
    const auto whole = mergeSteps({step(0), step(100)});
    TraceMerger merger;
    TraceMerger::Part part;
    part.window = {{95'000, 200'000}}; // the second step's launch and kernel
    merger.add(*whole, part);
    const auto cut = merger.finish();
    EXPECT_EQ(cut->eventCount(), 2u);
    EXPECT_TRUE(cut->launchOf(only(*cut, "k100")));
    TraceMerger none;
    part.window = {{1'000'000, 2'000'000}};
    none.add(*whole, part);
    EXPECT_EQ(none.finish()->eventCount(), 0u);
}

} // namespace
