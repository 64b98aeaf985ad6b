// SPDX-License-Identifier: MIT
// A growing trace: steps appended one by one give, at every step, the trace mergeSteps builds from the
// same steps — depths, parents, flags, correlation links and flows included — and a snapshot taken
// earlier reads on unchanged while later steps are appended into the memory it shares.
#include "support/test_support.h"

#include "core/io/trace_append.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

using namespace attnscope;
using namespace attnscope::test;

namespace {

std::string place(const Trace& t, EventRef e) {
    const Track& track = t.track(e.track);
    return std::string(t.str(t.process(track.process).key)) + "/" + std::string(t.str(track.tidKey)) + "#" +
           std::to_string(e.index);
}

// Everything of a trace, written out: every event with its nesting, flags, correlation and args; the
// flows and each GPU event's launch; the counters, devices, span and what the trace says of itself.
std::string dump(const Trace& t) {
    std::ostringstream out;
    out << "span " << t.startNs() << ' ' << t.endNs() << " opKernels " << t.info().opKernels << " devices "
        << t.devices().size() << " host " << t.info().hostName << " format " << t.info().format << " rank "
        << t.distributed().rank.value_or(-1) << " of " << t.distributed().worldSize.value_or(-1) << '\n';
    for (const std::string& w : t.info().warnings)
        out << "warning " << w << '\n';
    for (const ProcessInfo& p : t.processes())
        out << "process " << t.str(p.key) << ' ' << p.name << ' ' << p.labels << ' ' << p.isGpu << '\n';
    for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti) {
        const Track& track = t.tracks()[ti];
        out << "track " << place(t, {TrackId{ti}, 0}) << ' ' << track.name << ' ' << int(track.kind)
            << " depth " << track.maxDepth << '\n';
        const EventColumns& c = track.events;
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            out << c.start[i] << ' ' << c.duration[i] << ' ' << t.str(c.name[i]) << ' '
                << t.str(c.category[i]) << " d" << c.depth[i] << " p"
                << (c.parent[i] == kNoParent ? std::string("-") : std::to_string(c.parent[i])) << " f"
                << int(c.flags[i]) << " c" << c.correlation[i] << ' ' << t.argsJson({TrackId{ti}, i});
            if (const auto launch = t.launchOf({TrackId{ti}, i})) out << " launched by " << place(t, *launch);
            out << '\n';
        }
    }
    std::vector<std::string> flows;
    for (const Flow& f : t.flows())
        flows.push_back(place(t, f.from) + " -> " + place(t, f.to) + " " + std::string(t.str(f.category)));
    std::sort(flows.begin(), flows.end());
    for (const std::string& f : flows)
        out << "flow " << f << '\n';
    for (const CounterSeries& c : t.counters()) {
        out << "counter " << t.str(t.process(c.process).key) << ' ' << c.name;
        for (std::size_t i = 0; i < c.time.size(); ++i)
            out << ' ' << c.time[i] << '=' << c.value[i];
        out << '\n';
    }
    return out.str();
}

// Appends the steps one by one; after each, the snapshot must be what mergeSteps makes of the steps so
// far. Returns how many were appended in place.
std::size_t expectEachSnapshotMerged(const std::vector<std::shared_ptr<const Trace>>& steps) {
    TraceAppender appender;
    std::size_t inPlace = 0;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const TraceAppender::Placement placed = appender.append(*steps[k], std::uint64_t(k + 1) << 32);
        inPlace += !placed.rebuilt;
        const std::vector<std::shared_ptr<const Trace>> sofar(steps.begin(),
                                                              steps.begin() + std::ptrdiff_t(k + 1));
        const auto snapshot = appender.snapshot();
        EXPECT_EQ(dump(*snapshot), dump(*mergeSteps(sofar))) << "after step " << k;
        EXPECT_EQ(appender.parts(), k + 1);
        if (!placed.rebuilt) // each of the step's events where the placement says
            for (std::uint32_t ti = 0; ti < steps[k]->tracks().size(); ++ti)
                for (std::uint32_t i = 0; i < steps[k]->tracks()[ti].size(); ++i) {
                    const EventRef to = placed({TrackId{ti}, i});
                    EXPECT_EQ(snapshot->track(to.track).events.start[to.index],
                              steps[k]->tracks()[ti].events.start[i]);
                }
    }
    return inPlace;
}

TEST(TraceAppend, EachSnapshotOfAGpuTraceCutIntoStepsIsTheStepsMerged) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto whole = loadTraceFile(path);
    const auto steps = cutByTime(*whole, 7);
    // Ops open across a cut nest under the last step's: the events still open carry over.
    EXPECT_EQ(expectEachSnapshotMerged(steps), steps.size());
}

TEST(TraceAppend, FlowsCountersAndOlderKinetoTracesToo) {
    for (const char* name : {"v100_ns_decimals.json.gz", "flow_v2.json", "kineto_newest_schema.json"}) {
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        SCOPED_TRACE(name);
        const auto steps = cutByTime(*loadTraceFile(path), 4);
        EXPECT_EQ(expectEachSnapshotMerged(steps), steps.size());
    }
}

// A PyTorch CPU step: `aten::linear` around `aten::addmm` (the op that does the work), and a relu.
std::string cpuStep(int at, int opDuration = 40) {
    const std::string ts = std::to_string(at);
    return R"({"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":5,"tid":5,"ts":)" +
           ts + R"(,"dur":)" + std::to_string(opDuration) + R"(,"args":{"Input Dims":[[8,16],[16,16],[16]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":5,"tid":5,"ts":)" +
           std::to_string(at + 2) +
           R"(,"dur":30,"args":{"Input Dims":[[16],[8,16],[16,16]]}},
      {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":5,"tid":5,"ts":)" +
           std::to_string(at + 50) + R"(,"dur":5,"args":{"Input Dims":[[8,16]]}}]})";
}

TEST(TraceAppend, ARanksStepsKeepItsRankAndTheirMemoryIsCounted) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank1.json");
    const auto steps = cutByTime(*loadTraceFile(path), 3);
    EXPECT_EQ(expectEachSnapshotMerged(steps), steps.size());
    TraceAppender appender;
    for (std::size_t k = 0; k < steps.size(); ++k)
        appender.append(*steps[k], std::uint64_t(k + 1) << 32);
    const auto grown = appender.snapshot();
    EXPECT_EQ(grown->distributed().rank, 1);
    EXPECT_EQ(grown->distributed().worldSize, 8);
    // What the snapshot holds, counted as the merged trace counts it: columns, strings and args.
    const auto merged = mergeSteps(steps);
    EXPECT_GE(grown->memoryBytes(), merged->memoryBytes() * 9 / 10);
    EXPECT_LE(grown->memoryBytes(), 3 * merged->memoryBytes());
}

TEST(TraceAppend, AGpuStepThatCannotGoAfterKeepsItsLaunchLinks) {
    // The slow way for steps with kernels and launches: their correlation ids get their step's range.
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto cut = cutByTime(*loadTraceFile(path), 3);
    EXPECT_EQ(expectEachSnapshotMerged({cut[2], cut[0], cut[1]}), 1u);
}

TEST(TraceAppend, CpuOpsThatStandForKernelsAreChosenAsInTheMergedTrace) {
    const std::vector<std::shared_ptr<const Trace>> steps = {loadText(cpuStep(0)), loadText(cpuStep(100)),
                                                             loadText(cpuStep(200))};
    EXPECT_EQ(expectEachSnapshotMerged(steps), steps.size());
    EXPECT_EQ(mergeSteps(steps)->info().opKernels, 6u); // addmm and relu of each step
}

TEST(TraceAppend, AStepThatCannotGoAfterIsMergedTheSlowWay) {
    // Starts before the last step's last op: the whole is rebuilt, and still the steps merged.
    const std::vector<std::shared_ptr<const Trace>> earlier = {loadText(cpuStep(100)), loadText(cpuStep(0))};
    EXPECT_EQ(expectEachSnapshotMerged(earlier), 1u);
    // An op of the first step still open when the second starts: the ops that stand for kernels
    // could be chosen otherwise across the join, so that one is merged the slow way too — and a
    // later step that fits goes in place again.
    const std::vector<std::shared_ptr<const Trace>> open = {loadText(cpuStep(0, 120)), loadText(cpuStep(100)),
                                                            loadText(cpuStep(300))};
    EXPECT_EQ(expectEachSnapshotMerged(open), 2u);
}

TEST(TraceAppend, AnEarlierSnapshotReadsOnUnchangedWhileLaterStepsAreAppended) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto steps = cutByTime(*loadTraceFile(path), 5);
    TraceAppender appender;
    appender.append(*steps[0], 1ull << 32);
    appender.append(*steps[1], 2ull << 32);
    const auto early = appender.snapshot();
    const std::string before = dump(*early);
    for (std::size_t k = 2; k < steps.size(); ++k)
        appender.append(*steps[k], std::uint64_t(k + 1) << 32);
    const auto late = appender.snapshot();
    EXPECT_GT(late->eventCount(), early->eventCount());
    EXPECT_EQ(dump(*early), before);
    // They share the columns: the later snapshot's first events are the earlier one's, in place.
    std::size_t shared = 0;
    for (std::size_t t = 0; t < early->tracks().size(); ++t)
        shared += early->tracks()[t].size() > 0 &&
                  early->tracks()[t].events.start.data() == late->tracks()[t].events.start.data();
    EXPECT_GT(shared, 0u);
    // The appender can go before its snapshots do.
    TraceAppender* gone = new TraceAppender;
    gone->append(*steps[0], 1ull << 32);
    const auto kept = gone->snapshot();
    const std::string keptDump = dump(*kept);
    delete gone;
    EXPECT_EQ(dump(*kept), keptDump);
}

TEST(TraceAppend, AnOpEndingWhereTheNextStepBeginsDoesNotHoldIt) {
    // The first step's op ends at 100 µs, where the second's begins: they are side by side, not
    // nested; instants inside each op nest under it, as the builder nests them.
    auto step = [](int at) {
        const std::string ts = std::to_string(at);
        return loadText(R"({"traceEvents":[
          {"ph":"X","cat":"user_annotation","name":"step","pid":5,"tid":5,"ts":)" +
                        ts + R"(,"dur":100},
          {"ph":"i","s":"t","cat":"cpu_instant_event","name":"mark","pid":5,"tid":5,"ts":)" +
                        std::to_string(at + 50) + R"(},
          {"ph":"X","cat":"user_annotation","name":"tail","pid":5,"tid":5,"ts":)" +
                        std::to_string(at + 90) + R"(,"dur":10}]})");
    };
    const std::vector<std::shared_ptr<const Trace>> steps = {step(0), step(100), step(200)};
    EXPECT_EQ(expectEachSnapshotMerged(steps), steps.size());
    const auto whole = mergeSteps(steps);
    const Track& t = whole->tracks().front();
    ASSERT_EQ(t.size(), 9u);
    EXPECT_EQ(t.events.depth[3], 0);   // the second step
    EXPECT_EQ(t.events.parent[4], 3u); // its instant
}

TEST(TraceAppend, CountersOutOfOrderAcrossStepsAreSortedByTime) {
    // The first step's counter has a point after the second step's.
    const auto first = loadText(R"({"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":5,"tid":5,"ts":0,"dur":40},
      {"ph":"C","name":"memory","pid":5,"ts":10,"args":{"bytes":1}},
      {"ph":"C","name":"memory","pid":5,"ts":300,"args":{"bytes":3}}]})");
    const auto second = loadText(R"({"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":5,"tid":5,"ts":100,"dur":40},
      {"ph":"C","name":"memory","pid":5,"ts":120,"args":{"bytes":2}}]})");
    EXPECT_EQ(expectEachSnapshotMerged({first, second}), 2u);
    TraceAppender appender;
    appender.append(*first, 1ull << 32);
    appender.append(*second, 2ull << 32);
    const auto grown = appender.snapshot();
    ASSERT_EQ(grown->counters().size(), 1u);
    EXPECT_EQ(grown->counters()[0].time, (std::vector<TimeNs>{10'000, 120'000, 300'000}));
    EXPECT_EQ(grown->counters()[0].value, (std::vector<double>{1, 2, 3}));
}

TEST(TraceAppend, ALaunchCorrelatedBelowTheOnesBeforeStillFindsItsKernel) {
    // AttnScope's own runs append their batches with correlation ids as recorded (base 0): a later
    // batch may carry a smaller id than an earlier one.
    auto batch = [](int at, int correlation) {
        const std::string c = std::to_string(correlation);
        return loadText(R"({"traceEvents":[
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":5,"tid":5,"ts":)" +
                        std::to_string(at) + R"(,"dur":5,"args":{"correlation":)" + c + R"(}},
          {"ph":"X","cat":"kernel","name":"k)" +
                        c + R"(","pid":0,"tid":7,"ts":)" + std::to_string(at + 10) +
                        R"(,"dur":5,"args":{"correlation":)" + c + R"(,"device":0,"stream":7}}]})");
    };
    TraceAppender appender;
    appender.append(*batch(0, 10), 0);
    appender.append(*batch(100, 7), 0);
    appender.append(*batch(200, 12), 0);
    const auto grown = appender.snapshot();
    std::size_t linked = 0;
    for (std::uint32_t ti = 0; ti < grown->tracks().size(); ++ti) {
        const Track& t = grown->tracks()[ti];
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (!isKernelCategory(grown->str(t.events.category[i]))) continue;
            const auto launch = grown->launchOf({TrackId{ti}, i});
            ASSERT_TRUE(launch) << grown->str(t.events.name[i]);
            EXPECT_EQ(grown->track(launch->track).events.start[launch->index] + 10'000, t.events.start[i]);
            ++linked;
        }
    }
    EXPECT_EQ(linked, 3u);
}

TEST(TraceAppend, NothingAppendedIsAnEmptyTrace) {
    TraceAppender appender;
    EXPECT_EQ(appender.snapshot()->eventCount(), 0u);
    EXPECT_EQ(appender.parts(), 0u);
}

} // namespace
