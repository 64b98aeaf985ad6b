// SPDX-License-Identifier: MIT
#include "core/io/trace_builder.h"

#include <gtest/gtest.h>

using namespace attnscope;

namespace {

struct Fixture {
    TraceBuilder b;
    StringId id(std::string_view s) { return b.strings().intern(s); }
    TrackId track(std::string_view pid, std::string_view tid) { return b.track(id(pid), id(tid)); }
};

const Track& trackNamed(const Trace& t, std::string_view label) {
    for (std::uint32_t i = 0; i < t.tracks().size(); ++i)
        if (t.trackLabel(TrackId(i)) == label) return t.tracks()[i];
    throw std::runtime_error("no track " + std::string(label));
}

} // namespace

TEST(TraceBuilder, SortsEachTrackAndGivesNestedEventsDepths) {
    Fixture f;
    const TrackId t = f.track("100", "1");
    // Arrival order is not time order; the parent arrives after its children.
    f.b.addSlice(t, 20, 10, f.id("child2"), f.id("cpu_op"), 0, {});
    f.b.addSlice(t, 10, 5, f.id("child1"), f.id("cpu_op"), 0, {});
    f.b.addSlice(t, 10, 2, f.id("grandchild"), f.id("cpu_op"), 0, {});
    f.b.addSlice(t, 10, 50, f.id("parent"), f.id("cpu_op"), 0, {});
    f.b.addSlice(t, 55, 10, f.id("partial"), f.id("cpu_op"), 0, {}); // overlaps the parent's end
    f.b.addSlice(t, 70, 0, f.id("zero"), f.id("cpu_op"), 0, {});
    auto trace = f.b.finish();
    const Track& track = trace->tracks()[t.value];
    ASSERT_EQ(track.size(), 6u);
    std::vector<std::pair<std::string, int>> got;
    for (std::size_t i = 0; i < track.size(); ++i)
        got.emplace_back(std::string(trace->str(track.events.name[i])), track.events.depth[i]);
    const std::vector<std::pair<std::string, int>> expected = {
        {"parent", 0}, {"child1", 1}, {"grandchild", 2}, {"child2", 1}, {"partial", 1}, {"zero", 0}};
    EXPECT_EQ(got, expected);
    EXPECT_EQ(track.maxDepth, 2);
    EXPECT_EQ(trace->startNs(), 10);
    EXPECT_EQ(trace->endNs(), 70);
    // Each event's parent is the innermost one open when it started; walking up calls only the
    // events that enclose it whole (the partly overlapped parent is passed over, not called).
    const std::vector<std::uint32_t> parents = {kNoParent, 0, 1, 0, 0, kNoParent};
    EXPECT_EQ(std::vector<std::uint32_t>(track.events.parent.begin(), track.events.parent.end()), parents);
    auto enclosing = [&](std::uint32_t i) {
        std::vector<std::uint32_t> out;
        for (EventRef e : enclosingEvents(*trace, {t, i}))
            out.push_back(e.index);
        return out;
    };
    EXPECT_EQ(enclosing(2), (std::vector<std::uint32_t>{1, 0}));
    EXPECT_EQ(enclosing(3), std::vector<std::uint32_t>{0});
    EXPECT_TRUE(enclosing(4).empty());
    EXPECT_TRUE(enclosing(5).empty());
}

TEST(TraceBuilder, MatchesBeginAndEndInTimeOrder) {
    Fixture f;
    const TrackId t = f.track("1", "1");
    f.b.addEnd(t, 40, {});
    f.b.addBegin(t, 10, f.id("outer"), f.id("c"), {});
    f.b.addEnd(t, 30, {});
    f.b.addBegin(t, 20, f.id("inner"), f.id("c"), {});
    f.b.addEnd(t, 5, {}); // before any B: unmatched
    f.b.addBegin(t, 50, f.id("open"), f.id("c"), {});
    f.b.addSlice(t, 60, 40, f.id("last"), f.id("c"), 0, {});
    auto trace = f.b.finish();
    const Track& track = trace->tracks()[t.value];
    ASSERT_EQ(track.size(), 4u);
    EXPECT_EQ(trace->str(track.events.name[0]), "outer");
    EXPECT_EQ(track.events.duration[0], 30);
    EXPECT_EQ(trace->str(track.events.name[1]), "inner");
    EXPECT_EQ(track.events.duration[1], 10);
    EXPECT_EQ(track.events.depth[1], 1);
    EXPECT_EQ(trace->str(track.events.name[2]), "open");
    EXPECT_EQ(track.events.duration[2], 50); // to the end of the trace
    EXPECT_TRUE(track.events.flags[2] & kUnfinished);
    ASSERT_EQ(trace->info().warnings.size(), 2u);
}

TEST(TraceBuilder, NamesTracksFromMetadataOrSanely) {
    Fixture f;
    f.b.addSlice(f.track("0", "7"), 0, 1, f.id("k"), f.id("kernel"), 0, {});
    f.b.addSlice(f.track("25286", "25286"), 0, 1, f.id("op"), f.id("cpu_op"), 0, {});
    f.b.addSlice(f.track("1", "13"), 0, 1, f.id("k"), f.id("kernel"), 0, {});
    f.b.addSlice(f.track("Spans", "PyTorch Profiler"), 0, 1, f.id("span"), f.id("Trace"), 0, {});
    f.b.setProcessName(f.id("25286"), "python3");
    f.b.setThreadName(f.id("25286"), f.id("25286"), "thread 25286 (python3)");
    f.b.setProcessName(f.id("1"), "python3");
    f.b.setProcessLabels(f.id("1"), "GPU 1");
    f.b.setThreadName(f.id("1"), f.id("13"), "stream 13 ");
    auto trace = f.b.finish();
    EXPECT_NO_THROW(trackNamed(*trace, "GPU 0 \u00b7 stream 7"));
    EXPECT_NO_THROW(trackNamed(*trace, "python3 \u00b7 thread 25286 (python3)"));
    EXPECT_NO_THROW(trackNamed(*trace, "GPU 1 \u00b7 stream 13"));
    EXPECT_NO_THROW(trackNamed(*trace, "Spans \u00b7 PyTorch Profiler"));
    EXPECT_EQ(trackNamed(*trace, "GPU 0 \u00b7 stream 7").kind, TrackKind::GpuStream);
    EXPECT_EQ(trackNamed(*trace, "python3 \u00b7 thread 25286 (python3)").kind, TrackKind::CpuThread);
}

TEST(TraceBuilder, LinksLaunchesToGpuWorkByCorrelation) {
    Fixture f;
    const TrackId cpu = f.track("100", "100");
    const TrackId gpu = f.track("0", "7");
    f.b.addSlice(cpu, 10, 5, f.id("cudaLaunchKernel"), f.id("cuda_runtime"), 42, {});
    f.b.addSlice(cpu, 20, 5, f.id("cudaLaunchKernel"), f.id("cuda_runtime"), 43, {});
    f.b.addSlice(gpu, 30, 5, f.id("gemm"), f.id("kernel"), 43, {});
    f.b.addSlice(gpu, 40, 5, f.id("softmax"), f.id("kernel"), 42, {});
    f.b.addSlice(gpu, 50, 5, f.id("orphan"), f.id("kernel"), 99, {});
    auto trace = f.b.finish();
    const EventRef softmax{gpu, 1};
    ASSERT_EQ(trace->str(trace->track(gpu).events.name[1]), "softmax");
    const auto launch = trace->launchOf(softmax);
    ASSERT_TRUE(launch);
    EXPECT_EQ(launch->track, cpu);
    EXPECT_EQ(trace->track(cpu).events.start[launch->index], 10);
    const auto work = trace->gpuWorkOf(*launch);
    ASSERT_EQ(work.size(), 1u);
    EXPECT_EQ(work[0], softmax);
    EXPECT_FALSE(trace->launchOf(EventRef{gpu, 2}));
}

TEST(TraceBuilder, ResolvesFlowsVersionOneAndTwo) {
    Fixture f;
    const TrackId cpu = f.track("1", "1");
    const TrackId gpu = f.track("0", "7");
    f.b.addSlice(cpu, 0, 100, f.id("outer"), f.id("c"), 0, {});
    f.b.addSlice(cpu, 10, 10, f.id("launch"), f.id("c"), 0, {});
    f.b.addSlice(gpu, 200, 10, f.id("kernel"), f.id("kernel"), 0, {});
    f.b.addSlice(gpu, 300, 10, f.id("next"), f.id("kernel"), 0, {});
    FlowPoint s;
    s.kind = FlowPoint::Kind::Start;
    s.category = f.id("ac2g");
    s.id = 5;
    s.track = cpu;
    s.time = 12; // inside "launch", which is inside "outer": the deepest wins
    f.b.addFlowPoint(s);
    FlowPoint e = s;
    e.kind = FlowPoint::Kind::Finish;
    e.track = gpu;
    e.time = 200;
    f.b.addFlowPoint(e);
    // 'f' without bp "e" binds to the next slice.
    FlowPoint s2 = s;
    s2.id = 6;
    f.b.addFlowPoint(s2);
    FlowPoint e2 = e;
    e2.id = 6;
    e2.time = 250;
    e2.bindEnclosing = false;
    f.b.addFlowPoint(e2);
    // v2: bound to the slices that carry them.
    const std::uint32_t out = f.b.addSlice(cpu, 150, 5, f.id("v2src"), f.id("c"), 0, {});
    const std::uint32_t in = f.b.addSlice(gpu, 400, 5, f.id("v2dst"), f.id("c"), 0, {});
    FlowPoint o;
    o.kind = FlowPoint::Kind::V2Out;
    o.id = 9;
    o.track = cpu;
    o.boundSeq = out;
    f.b.addFlowPoint(o);
    FlowPoint i = o;
    i.kind = FlowPoint::Kind::V2In;
    i.track = gpu;
    i.boundSeq = in;
    f.b.addFlowPoint(i);
    // An orphan end: normal in Kineto traces, no flow and no warning.
    FlowPoint orphan = e;
    orphan.id = 77;
    f.b.addFlowPoint(orphan);

    auto trace = f.b.finish();
    auto name = [&](EventRef r) {
        return std::string(trace->str(trace->track(r.track).events.name[r.index]));
    };
    std::vector<std::pair<std::string, std::string>> flows;
    for (const Flow& fl : trace->flows())
        flows.emplace_back(name(fl.from), name(fl.to));
    std::sort(flows.begin(), flows.end());
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"launch", "kernel"}, {"launch", "next"}, {"v2src", "v2dst"}};
    EXPECT_EQ(flows, expected);
    EXPECT_TRUE(trace->info().warnings.empty());
}

// Flow ids are per category: a start of one category never ends at a finish of another with its id.
TEST(TraceBuilder, FlowsOfTwoCategoriesWithOneIdStayApart) {
    Fixture f;
    const TrackId cpu = f.track("1", "1");
    const TrackId gpu = f.track("0", "7");
    f.b.addSlice(cpu, 0, 100, f.id("launch"), f.id("c"), 0, {});
    f.b.addSlice(gpu, 200, 10, f.id("kernel"), f.id("kernel"), 0, {});
    FlowPoint s;
    s.kind = FlowPoint::Kind::Start;
    s.category = f.id("ac2g");
    s.id = 1;
    s.track = cpu;
    s.time = 10;
    f.b.addFlowPoint(s); // ac2g 1 has no finish
    FlowPoint e = s;
    e.kind = FlowPoint::Kind::Finish;
    e.category = f.id("fwdbwd");
    e.track = gpu;
    e.time = 200;
    f.b.addFlowPoint(e); // fwdbwd 1 has no start
    EXPECT_TRUE(f.b.finish()->flows().empty());
}

TEST(TraceBuilder, AppliesTheTimeOffsetEverywhere) {
    Fixture f;
    const TrackId t = f.track("1", "1");
    f.b.addSlice(t, 100, 5, f.id("a"), f.id("c"), 0, {});
    f.b.addInstant(t, 200, f.id("i"), f.id("c"), {});
    f.b.addCounter(f.id("1"), "mem", 300, 1.5);
    f.b.setTimeOffset(1'000'000);
    auto trace = f.b.finish();
    EXPECT_EQ(trace->track(t).events.start[0], 1'000'100);
    EXPECT_EQ(trace->track(t).events.start[1], 1'000'200);
    EXPECT_TRUE(trace->track(t).events.flags[1] & kInstant);
    ASSERT_EQ(trace->counters().size(), 1u);
    EXPECT_EQ(trace->counters()[0].time[0], 1'000'300);
    EXPECT_EQ(trace->startNs(), 1'000'100);
    EXPECT_EQ(trace->endNs(), 1'000'300);
}
