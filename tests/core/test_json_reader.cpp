// SPDX-License-Identifier: MIT
#include "core/io/chrome_writer.h"
#include "core/io/json_parallel_parser.h"
#include "core/io/json_text.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_loader.h"
#include "support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

using namespace attnscope;
using namespace attnscope::test;

namespace {

const Track* trackLabelled(const Trace& t, std::string_view label) {
    for (std::uint32_t i = 0; i < t.tracks().size(); ++i)
        if (t.trackLabel(TrackId(i)) == label) return &t.tracks()[i];
    return nullptr;
}

std::vector<std::string> names(const Trace& t, const Track& track) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < track.size(); ++i)
        out.emplace_back(t.str(track.events.name[i]));
    return out;
}

} // namespace

TEST(JsonReader, ReadsEveryPhase) {
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "trainer"}},
      {"ph": "M", "name": "thread_name", "pid": 7, "tid": 1, "args": {"name": "main"}},
      {"ph": "M", "name": "process_sort_index", "pid": 7, "args": {"sort_index": 3}},
      {"ph": "M", "name": "thread_sort_index", "pid": 7, "tid": 1, "args": {"sort_index": 9}},
      {"ph": "X", "name": "step", "cat": "step", "pid": 7, "tid": 1, "ts": 100, "dur": 50},
      {"ph": "B", "name": "begin-end", "cat": "x", "pid": 7, "tid": 1, "ts": 110, "args": {"a": 1}},
      {"ph": "E", "pid": 7, "tid": 1, "ts": 120},
      {"ph": "i", "name": "thread instant", "s": "t", "pid": 7, "tid": 1, "ts": 115},
      {"ph": "I", "name": "process instant", "s": "p", "pid": 7, "tid": 1, "ts": 116},
      {"ph": "i", "name": "global instant", "s": "g", "pid": 7, "tid": 1, "ts": 117},
      {"ph": "C", "name": "memory", "pid": 7, "ts": 100, "args": {"value": 10}},
      {"ph": "C", "name": "memory", "pid": 7, "ts": 130, "args": {"value": 12.5}},
      {"ph": "C", "name": "pool", "pid": 7, "ts": 130, "args": {"used": 1, "free": 2}},
      {"ph": "s", "id": 1, "cat": "flow", "name": "flow", "pid": 7, "tid": 1, "ts": 111},
      {"ph": "t", "id": 1, "cat": "flow", "name": "flow", "pid": 7, "tid": 1, "ts": 140},
      {"ph": "f", "id": 1, "cat": "flow", "name": "flow", "pid": 7, "tid": 1, "ts": 145, "bp": "e"},
      {"ph": "P", "name": "sample", "pid": 7, "tid": 1, "ts": 100}
    ]})");
    EXPECT_EQ(t->info().eventsRead, 17u);
    EXPECT_EQ(t->info().format, "chrome-json");
    const Track* main = trackLabelled(*t, "trainer \u00b7 main");
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->sortIndex, 9);
    EXPECT_EQ(t->process(main->process).sortIndex, 3);
    EXPECT_EQ(names(*t, *main), (std::vector<std::string>{"step", "begin-end", "thread instant"}));
    EXPECT_EQ(main->events.duration[1], 10'000);
    EXPECT_EQ(t->argsJson(EventRef{TrackId(std::uint32_t(main - t->tracks().data())), 1}), R"({"a":1})");
    EXPECT_TRUE(main->events.flags[2] & kInstant);
    ASSERT_NE(trackLabelled(*t, "trainer \u00b7 process events"), nullptr);
    ASSERT_NE(trackLabelled(*t, "global events"), nullptr);
    ASSERT_EQ(t->counters().size(), 3u);
    EXPECT_EQ(t->counters()[0].name, "memory");
    EXPECT_EQ(t->counters()[0].value, (std::vector<double>{10, 12.5}));
    EXPECT_EQ(t->counters()[1].name, "pool.used");
    EXPECT_EQ(t->counters()[2].name, "pool.free");
    // s -> t -> f: two arrows, step -> step (t and f both inside "step").
    EXPECT_EQ(t->flows().size(), 2u);
    ASSERT_EQ(t->info().warnings.size(), 1u);
    EXPECT_NE(t->info().warnings[0].find("\"P\""), std::string::npos);
}

TEST(JsonReader, ReadsFlowVersionTwo) {
    const auto t = loadText(R"([
      {"ph": "X", "name": "producer", "pid": 1, "tid": 1, "ts": 0, "dur": 10, "bind_id": "0xa", "flow_out": true},
      {"ph": "X", "name": "relay", "pid": 1, "tid": 2, "ts": 20, "dur": 10, "bind_id": "0xa", "flow_in": true, "flow_out": true},
      {"ph": "X", "name": "consumer", "pid": 1, "tid": 3, "ts": 40, "dur": 10, "bind_id": "0xa", "flow_in": true}
    ])");
    ASSERT_EQ(t->flows().size(), 2u);
    auto name = [&](EventRef r) { return std::string(t->str(t->track(r.track).events.name[r.index])); };
    std::set<std::pair<std::string, std::string>> got;
    for (const Flow& f : t->flows())
        got.emplace(name(f.from), name(f.to));
    EXPECT_EQ(got,
              (std::set<std::pair<std::string, std::string>>{{"producer", "relay"}, {"relay", "consumer"}}));
}

TEST(JsonReader, ParsesTheThreeTimestampRegimes) {
    // Integer epoch microseconds.
    auto a = loadText(
        R"({"traceEvents": [{"ph": "X", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495519689, "dur": 3}]})");
    EXPECT_EQ(a->startNs(), 1712195495519689000LL);
    // Epoch microseconds with ns decimals: two kernels 1 ns apart stay apart and do not overlap.
    auto b = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 1712195495519689.047, "dur": 0.001},
      {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 1712195495519689.048, "dur": 0.001}]})");
    const Track& track = b->tracks()[0];
    EXPECT_EQ(track.events.start[0], 1712195495519689047LL);
    EXPECT_EQ(track.events.start[1], 1712195495519689048LL);
    EXPECT_EQ(track.events.depth[1], 0);
    // Relative microseconds + baseTimeNanoseconds, which may come after the events.
    auto c = loadText(
        R"({"traceEvents": [{"ph": "X", "name": "k", "pid": 0, "tid": 7, "ts": 88437691101.839, "dur": 0.020}],
                          "baseTimeNanoseconds": 1700000000000000000})");
    EXPECT_EQ(c->startNs(), 1700000000000000000LL + 88437691101839LL);
    EXPECT_EQ(c->info().format, "kineto-json");
    // baseTimeNanoseconds with timestamps that are already absolute is not added twice.
    auto d = loadText(R"({"baseTimeNanoseconds": 1700000000000000000,
                          "traceEvents": [{"ph": "X", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495519689, "dur": 1}]})");
    EXPECT_EQ(d->startNs(), 1712195495519689000LL);
}

TEST(JsonReader, ReadsLegacyCategoriesAndStringIds) {
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 25738, "tid": "25738", "ts": 10, "dur": 20},
      {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 12, "dur": 5,
       "args": {"correlation": 311, "external id": 9}},
      {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7", "ts": 40, "dur": 8,
       "args": {"correlation": 311, "device": 0, "stream": 7}},
      {"ph": "s", "cat": "async", "name": "launch", "id": 311, "pid": 25738, "tid": "25738", "ts": 12},
      {"ph": "f", "cat": "async", "name": "launch", "id": 311, "pid": 0, "tid": "stream 7", "ts": 40, "bp": "e"}
    ]})");
    const Track* gpu = trackLabelled(*t, "GPU 0 \u00b7 stream 7");
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->kind, TrackKind::GpuStream);
    const EventRef kernel{TrackId(std::uint32_t(gpu - t->tracks().data())), 0};
    const auto launch = t->launchOf(kernel);
    ASSERT_TRUE(launch);
    EXPECT_EQ(t->str(t->track(launch->track).events.name[launch->index]), "cudaLaunchKernel");
    EXPECT_EQ(t->flows().size(), 1u);
    EXPECT_EQ(t->info().format, "kineto-json");
}

TEST(JsonReader, SortsUnsortedInputAndKeepsOverlaps) {
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 30, "dur": 10},
      {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 10, "dur": 10},
      {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 15, "dur": 10}
    ]})");
    const Track& track = t->tracks()[0];
    EXPECT_EQ(names(*t, track), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(track.events.depth[1], 1); // partial overlap on one stream: a level down, not lost
    EXPECT_EQ(track.events.depth[2], 0);
}

TEST(JsonReader, MetadataLessTracesGetSaneNames) {
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 3, "tid": 13, "ts": 1, "dur": 1},
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 4242, "tid": 4243, "ts": 1, "dur": 1},
      {"ph": "X", "cat": "python_function", "name": "f", "pid": "", "tid": "", "ts": 1, "dur": 1}
    ]})");
    EXPECT_NE(trackLabelled(*t, "GPU 3 \u00b7 stream 13"), nullptr);
    EXPECT_NE(trackLabelled(*t, "process 4242 \u00b7 thread 4243"), nullptr);
    EXPECT_NE(trackLabelled(*t, "(no process) \u00b7 process events"), nullptr);
}

TEST(JsonReader, TopLevelKeysInAnyOrderAndUnknownKeysIgnored) {
    const auto t = loadText(R"({"metadata": {"traceEvents": "not this one", "x": [1, {"y": "]}"}]},
      "schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "numSms": 132, "computeMajor": 9,
      "totalGlobalMem": 85045460992}], "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
      "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1}],
      "traceName": "x.json", "displayTimeUnit": "ms", "INFO": ["a"], "with_stack": 0})");
    EXPECT_EQ(t->eventCount(), 1u);
    ASSERT_EQ(t->devices().size(), 1u);
    EXPECT_EQ(t->devices()[0].name, "NVIDIA H100");
    EXPECT_EQ(t->devices()[0].numSms, 132);
    EXPECT_EQ(t->devices()[0].totalGlobalMem, 85045460992ull);
    EXPECT_EQ(t->distributed().rank, 3);
    EXPECT_EQ(t->distributed().worldSize, 8);
    EXPECT_EQ(t->distributed().backend, "nccl");
    EXPECT_EQ(t->info().schemaVersion, 1);
    EXPECT_EQ(t->info().displayTimeUnit, "ms");
    EXPECT_TRUE(t->info().warnings.empty());
}

TEST(JsonReader, KeepsArgsAsWrittenIncludingHugeIntegers) {
    const auto t =
        loadText(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1,
      "tid": 1, "ts": 1, "dur": 1, "args": {"Comms Id": 18446744073709551615, "Input Dims": [[32, 128], []],
      "null": null, "f": 0.18181819, "s": "a\"b", "occupancy": {"a":
        1}}}]})");
    EXPECT_EQ(t->argsJson(EventRef{TrackId(0), 0}),
              R"({"Comms Id":18446744073709551615,"Input Dims":[[32, 128], []],"null":null,"f":0.18181819,)"
              R"("s":"a\"b","occupancy":{"a":1}})");
}

TEST(JsonReader, GzipByMagicBytesGivesTheSameTrace) {
    const std::string json =
        R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 2}]})";
    TempDir dir;
    const std::string path = dir.path("trace.json"); // no .gz: detection is by content
    writeFile(path, gzipBytes(json));
    const auto t = loadTraceFile(path);
    EXPECT_EQ(t->eventCount(), 1u);
    EXPECT_EQ(t->startNs(), 5000);
    // Two gzip members in a row (cat a.gz b.gz) read as one stream.
    writeFile(path, gzipBytes(json.substr(0, 40)) + gzipBytes(json.substr(40)));
    EXPECT_EQ(loadTraceFile(path)->eventCount(), 1u);
}

TEST(JsonReader, TruncatedArrayKeepsCompleteEventsAndWarns) {
    const std::string json = R"({"traceEvents": [
      {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
      {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1},
      {"ph": "X", "name": "c", "pid": 1, "ti)";
    const auto t = loadText(json);
    EXPECT_EQ(t->eventCount(), 2u);
    ASSERT_EQ(t->info().warnings.size(), 1u);
    EXPECT_NE(t->info().warnings[0].find("truncated"), std::string::npos);
}

TEST(JsonReader, EventsSpanningManyBufferFillsAllArrive) {
    // Well over the reader's 4 MB reads, with a long name to make elements straddle fills.
    std::string json = "{\"traceEvents\": [\n";
    const std::string longName(5000, 'n');
    const int n = 80000;
    for (int i = 0; i < n; ++i) {
        json += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" +
                (i % 100 == 0 ? longName : std::string("k")) +
                "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(i * 10) + ".5, \"dur\": 1.25}";
        json += i + 1 < n ? ",\n" : "\n";
    }
    json += "]}";
    ASSERT_GT(json.size(), 9u << 20);
    std::vector<std::uint64_t> progress;
    LoadOptions options;
    options.progress = [&](std::uint64_t done, std::uint64_t) { progress.push_back(done); };
    auto source = openMemorySource(json);
    const auto t = readJsonTrace(*source, "memory", options);
    EXPECT_EQ(t->eventCount(), std::size_t(n));
    EXPECT_EQ(t->info().bytesRead, json.size());
    EXPECT_EQ(t->tracks()[0].events.start[n - 1], (n - 1) * 10'000LL + 500);
    EXPECT_EQ(t->tracks()[0].events.duration[n - 1], 1250);
    EXPECT_GE(progress.size(), 3u);
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
}

TEST(JsonReader, CancelStopsTheLoad) {
    std::string json = "[";
    for (int i = 0; i < 200000; ++i)
        json += R"({"ph":"X","name":"k","pid":0,"tid":7,"ts":1,"dur":1},)";
    json += "{}]";
    std::atomic<bool> cancel{false};
    LoadOptions options;
    options.cancel = &cancel;
    options.progress = [&](std::uint64_t, std::uint64_t) { cancel = true; };
    auto source = openMemorySource(json);
    EXPECT_THROW(readJsonTrace(*source, "memory", options), LoadCancelled);
}

TEST(JsonReader, NewestKinetoFixtureUsesBaseTime) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "kineto_newest_schema.json");
    const auto t = loadTraceFile(path);
    const std::string text = readAllBytes(path);
    const nlohmann::json j = nlohmann::json::parse(text);
    const std::int64_t base = j.at("baseTimeNanoseconds").get<std::int64_t>();
    const auto kernel = findEvent(*t, "Kernel");
    ASSERT_TRUE(kernel);
    int checked = 0;
    for (const RefEvent& e : referenceEvents(text)) {
        if (e.ph == "X" && e.name == "Kernel") {
            EXPECT_EQ(t->track(kernel->track).events.start[kernel->index], base + refMicrosToNs(e.ts));
            ++checked;
        }
    }
    EXPECT_EQ(checked, 1);
    EXPECT_EQ(t->info().format, "kineto-json");
    EXPECT_EQ(t->devices().size(), j.at("deviceProperties").size());
    EXPECT_TRUE(t->launchOf(*kernel).has_value());
}

TEST(JsonReader, EveryFixtureEventArrivesWithExactTimes) {
    for (const char* name : {"v100_ns_decimals.json.gz", "h100_sdpa_flash_qwen.json.gz",
                             "mi250_rocm_small.json.gz", "triton_single_kernel.json.gz", "uint64_arg.json.gz",
                             "kineto_newest_schema.json", "chrome_generic_edge_cases.json", "flow_v1.json",
                             "flow_v2.json", "dlrm_2ranks/rank0.json", "dlrm_2ranks/rank1.json"}) {
        SCOPED_TRACE(name);
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        const auto t = loadTraceFile(path);
        const auto ref = referenceEvents(readAllBytes(path));
        EXPECT_EQ(t->info().eventsRead, ref.size());
        // Every complete event is on the model with its exact start and duration.
        std::multiset<std::tuple<std::string, std::int64_t, std::int64_t>> expected, got;
        for (const RefEvent& e : ref)
            if (e.ph == "X")
                expected.emplace(e.name, refMicrosToNs(e.ts), e.hasDur ? refMicrosToNs(e.dur) : 0);
        const std::int64_t offset = t->info().baseTimeNs && expected.size() &&
                                            std::get<1>(*expected.begin()) < 100'000'000'000'000'000
                                        ? *t->info().baseTimeNs
                                        : 0;
        for (const Track& track : t->tracks())
            for (std::size_t i = 0; i < track.size(); ++i)
                if (!(track.events.flags[i] & kInstant) && !(track.events.flags[i] & kUnfinished))
                    got.emplace(std::string(t->str(track.events.name[i])), track.events.start[i] - offset,
                                track.events.duration[i]);
        // B/E pairs become slices too, so the X events must be a sub-multiset of the slices.
        for (auto it = expected.begin(); it != expected.end(); it = expected.upper_bound(*it))
            EXPECT_GE(got.count(*it), expected.count(*it)) << std::get<0>(*it);
    }
}

namespace {

std::shared_ptr<const Trace> loadWith(const std::string& bytes, unsigned threads, std::size_t readBytes) {
    LoadOptions options;
    options.threads = threads;
    options.readBytes = readBytes;
    auto source = openMemorySource(bytes);
    return readJsonTrace(*source, "memory", options);
}

} // namespace

TEST(JsonReader, ParsingOnWorkerThreadsOrInSmallPiecesBuildsTheSameTrace) {
    // Small reads make many chunks, so even the small fixtures go through the workers.
    for (const char* name :
         {"v100_ns_decimals.json.gz", "h100_sdpa_flash_qwen.json.gz", "kineto_newest_schema.json",
          "chrome_generic_edge_cases.json", "flow_v1.json", "flow_v2.json", "dlrm_2ranks/rank1.json"}) {
        SCOPED_TRACE(name);
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        const std::string bytes = readAllBytes(path);
        const auto serial = loadWith(bytes, 1, 1u << 20);
        // One thread with tiny reads cuts pretty-printed files at newlines hundreds of times.
        expectSame(snapshot(*serial), snapshot(*loadWith(bytes, 1, 4096)));
        for (unsigned threads : {2u, 3u}) {
            const auto parallel = loadWith(bytes, threads, 4096);
            expectSame(snapshot(*serial), snapshot(*parallel));
            EXPECT_EQ(serial->info().eventsRead, parallel->info().eventsRead);
            EXPECT_EQ(serial->info().warnings, parallel->info().warnings);
            EXPECT_EQ(serial->info().format, parallel->info().format);
            // Track order and names are the same too, not just the events on them.
            ASSERT_EQ(serial->tracks().size(), parallel->tracks().size());
            std::multiset<std::string> a, b;
            for (std::uint32_t i = 0; i < serial->tracks().size(); ++i) {
                a.insert(serial->trackLabel(TrackId(i)));
                b.insert(parallel->trackLabel(TrackId(i)));
            }
            EXPECT_EQ(a, b);
        }
    }
}

TEST(JsonReader, WorkerErrorsReportTheEarliestChunk) {
    std::string json = "{\"traceEvents\": [\n";
    for (int i = 0; i < 5000; ++i)
        json += R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
                std::to_string(i) +
                R"(, "dur": 1},)"
                "\n";
    const std::size_t firstBad = json.size();
    json += R"({"ph": "X" "name": 1},)"
            "\n";
    for (int i = 0; i < 5000; ++i)
        json += R"({"ph": "X", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1},)"
                "\n";
    json += R"({"ph": "X" "name": 2}]})";
    for (unsigned threads : {1u, 2u}) {
        try {
            loadWith(json, threads, 4096);
            FAIL() << "loaded";
        } catch (const LoadError& e) {
            ASSERT_TRUE(e.offset().has_value());
            EXPECT_GE(*e.offset(), firstBad);
            EXPECT_LT(*e.offset(), firstBad + 30) << threads << " threads: " << e.what();
        }
    }
}

TEST(JsonReader, NewlineCutsAndTheByteScannerAgree) {
    // The same events pretty-printed (cut at newlines) and on one line (cut by the byte scanner),
    // with elements longer than a read and strings full of brackets and escaped quotes.
    std::string pretty = "{\"traceEvents\": [\n", flat = "{\"traceEvents\":[";
    for (int i = 0; i < 3000; ++i) {
        const std::string name = i % 500 == 0 ? std::string(20000, 'n') : "k \\\"}]," + std::to_string(i % 7);
        const std::string ev = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name +
                               "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(i) +
                               ", \"dur\": 1, \"args\": {\"grid\": [1, 2, 3], \"o\": {\"a\": [\"]\"]}}}";
        pretty += "  " + ev + (i + 1 < 3000 ? ",\n" : "\n");
        flat += ev + (i + 1 < 3000 ? "," : "");
    }
    pretty += "  ],\n  \"traceName\": \"x\"\n}\n";
    flat += "],\"traceName\":\"x\"}";
    const auto a = loadWith(pretty, 1, 4096);
    const auto b = loadWith(flat, 1, 4096);
    EXPECT_EQ(a->eventCount(), 3000u);
    EXPECT_EQ(a->info().eventsRead, 3000u);
    expectSame(snapshot(*a), snapshot(*b));
    EXPECT_TRUE(a->info().warnings.empty());
    // A broken event in the middle is still an error with its offset, not a retry.
    std::string broken = pretty;
    const std::size_t at = broken.find("\"ts\": 1500,");
    broken.replace(at, 11, "\"ts\": 1500 ");
    try {
        loadWith(broken, 1, 4096);
        FAIL() << "loaded";
    } catch (const LoadError& e) {
        ASSERT_TRUE(e.offset().has_value());
        EXPECT_NEAR(double(*e.offset()), double(at), 200.0) << e.what();
    }
}

TEST(JsonReader, CancelStopsWorkerThreadsToo) {
    std::string json = "{\"traceEvents\": [\n";
    for (int i = 0; i < 50000; ++i)
        json += R"({"ph": "X", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1},)"
                "\n";
    json += "{}]}";
    std::atomic<bool> cancel{false};
    int reports = 0;
    LoadOptions options;
    options.threads = 2;
    options.readBytes = 4096;
    options.cancel = &cancel;
    // Cancel well after the workers have started (they start after the first few chunks).
    options.progress = [&](std::uint64_t, std::uint64_t) {
        if (++reports == 50) cancel = true;
    };
    auto source = openMemorySource(json);
    EXPECT_THROW(readJsonTrace(*source, "memory", options), LoadCancelled);
}

// The parallel driver's chunk buffers are reused: chunks of any size up to the usual one never make it
// keep more buffers than the queue, the workers and the reader hold at once (it once kept a spare that was
// too small for the next chunk and made another: 13 spares, 103 MB, on a 400 MB trace), and unusually long
// chunks still parse.
TEST(ParallelParser, ChunkBuffersAreReusedWhateverTheChunkSizes) {
    constexpr std::size_t kUsual = 8192;
    json::ParallelEventParser parser(2, kUsual);
    std::string text;
    int events = 0;
    std::uint64_t offset = 0;
    for (std::uint32_t chunk = 0; chunk < 120; ++chunk) {
        // Sizes that go up and down: 300 bytes to just under the usual, and every tenth 3× the usual.
        const std::size_t size = chunk % 10 == 9 ? 3 * kUsual : 300 + (chunk * 2654435761u) % (kUsual - 400);
        text.clear();
        while (text.size() + 80 < size) {
            text += R"({"ph":"X","name":"k)" + std::to_string(events % 5) + R"(","pid":1,"tid":1,"ts":)" +
                    std::to_string(events) + R"(,"dur":1},)";
            ++events;
        }
        text.pop_back(); // the comma after the chunk's last event
        BigBuffer buffer = parser.buffer(text.size() + 1 + json::kPadding);
        std::memcpy(buffer.data() + 1, text.data(), text.size());
        parser.submit(std::move(buffer), 1, 1 + text.size(), offset, chunk);
        offset += text.size();
    }
    TraceBuilder main;
    bool kineto = false;
    parser.finishInto(main, kineto);
    // The queued chunks', the two workers' and the one being filled: the reader fills the buffers
    // the workers hand back, so its own is one of them.
    EXPECT_LE(parser.spareBuffers(), parser.queueLimit() + 2 + 1);
    const auto trace = main.finish();
    EXPECT_EQ(trace->info().eventsRead, std::uint64_t(events));
    ASSERT_EQ(trace->tracks().size(), 1u);
    EXPECT_EQ(trace->tracks()[0].size(), std::size_t(events));
}

// PyTorch's "[memory]" instants (profile_memory=True) become counters: CUDA memory allocated and
// reserved under the GPU the memory is on, CPU memory under the host process, in bytes; a saved
// trace keeps the instants and makes the same counters again (not twice). Checked on the H100 trace:
// 2,250 CUDA events on device 0 and 200 CPU events.
// A counter's value may be a number or a string of one (as some writers quote them): the same value.
TEST(Counters, StringValuesAreTheNumbersTheySay) {
    const auto t = loadText(R"({"traceEvents":[
      {"ph":"C","name":"queue","pid":1,"ts":1,"args":{"value":2.25,"depth":"3.5"}},
      {"ph":"C","name":"queue","pid":1,"ts":2,"args":{"value":"1.75","depth":4}}]})");
    std::map<std::string, std::vector<double>> values;
    for (const CounterSeries& c : t->counters())
        values[c.name] = c.value;
    EXPECT_EQ(values["queue"], (std::vector<double>{2.25, 1.75}));
    EXPECT_EQ(values["queue.depth"], (std::vector<double>{3.5, 4}));
}

TEST(Counters, PyTorchMemoryEventsBecomeCountersPerDevice) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto trace = loadTraceFile(path);
    std::map<std::string, const CounterSeries*> byName;
    for (const CounterSeries& c : trace->counters())
        byName[c.name] = &c;
    ASSERT_TRUE(byName.count("GPU memory allocated") && byName.count("GPU memory reserved") &&
                byName.count("CPU memory allocated"));
    const CounterSeries& allocated = *byName["GPU memory allocated"];
    EXPECT_EQ(allocated.unit, "B");
    EXPECT_EQ(allocated.value.size(), 2250u);
    EXPECT_EQ(byName["GPU memory reserved"]->value.size(), 2250u);
    EXPECT_TRUE(std::is_sorted(allocated.time.begin(), allocated.time.end()));
    const ProcessInfo& gpu = trace->process(allocated.process);
    EXPECT_TRUE(gpu.isGpu);
    EXPECT_EQ(gpu.deviceIndex, 0);
    const auto [lo, hi] = std::minmax_element(allocated.value.begin(), allocated.value.end());
    EXPECT_EQ(*lo, 984742400.0); // as Python's json reads the file
    EXPECT_EQ(*hi, 2088508416.0);
    EXPECT_EQ(allocated.value.front(), 1003059712.0); // the first event's "Total Allocated"
    const CounterSeries& cpu = *byName["CPU memory allocated"];
    EXPECT_EQ(cpu.value.size(), 200u);
    EXPECT_EQ(trace->str(trace->process(cpu.process).key), "25286");
    EXPECT_EQ(byName.count("CPU memory reserved"), 0u); // the CPU allocator reserves nothing

    const auto again = loadText(chromeTraceJson(*trace));
    std::map<std::string, std::vector<double>> reloaded;
    for (const CounterSeries& c : again->counters())
        reloaded[c.name] = c.value;
    EXPECT_EQ(reloaded["GPU memory allocated"], allocated.value);
    EXPECT_EQ(reloaded["CPU memory allocated"], cpu.value);
}
