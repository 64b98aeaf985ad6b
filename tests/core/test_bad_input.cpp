// SPDX-License-Identifier: MIT
// Every input is untrusted: each case gets a clear error (what and where) or a documented
// tolerant reading, never a crash, a hang or unbounded memory.
#include "core/analysis/analysis.h"
#include "core/io/trace_loader.h"
#include "core/model/timeline_index.h"
#include "core/report/summary.h"
#include "support/test_support.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <zlib.h>

#include <unistd.h>

#include <chrono>

using namespace attnscope;
using namespace attnscope::test;

namespace {

// The LoadError message, or "" when the text loads.
std::string errorOf(std::string_view json) {
    try {
        loadText(json);
    } catch (const LoadError& e) {
        return e.what();
    }
    return {};
}

std::uint64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * 4096;
}

constexpr const char* kEvent =
    R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1})";

} // namespace

// A program started with its standard input closed (by a desktop launcher or a service manager) gets
// file descriptor 0 for the first file it opens: that is a file like any other.
TEST(BadInput, AFileOpenedAsDescriptorZeroLoads) {
    TempDir dir;
    writeFile(dir.path("t.json"),
              R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]})");
    const int savedStdin = ::dup(0);
    ASSERT_GE(savedStdin, 0);
    ::close(0);
    std::shared_ptr<const Trace> trace;
    std::string error;
    try {
        trace = loadTraceFile(dir.path("t.json"));
    } catch (const std::exception& e) {
        error = e.what();
    }
    ::dup2(savedStdin, 0); // stdin back before anything can fail
    ::close(savedStdin);
    EXPECT_EQ(error, "");
    ASSERT_TRUE(trace);
    EXPECT_EQ(trace->eventCount(), 1u);
}

TEST(BadInput, EmptyFile) {
    EXPECT_NE(errorOf("").find("empty"), std::string::npos);
    EXPECT_NE(errorOf(" \n\t ").find("empty"), std::string::npos);
}

TEST(BadInput, RandomBytesSayWhatWasFound) {
    // Random bytes, random bytes after a trace's opening, and a real trace with bytes flipped or cut
    // short: each either loads or is refused with what was wrong and the byte where it was found —
    // never a crash, a hang or a message without a place.
    std::mt19937 rng(1);
    std::string valid = R"({"traceEvents": [)";
    for (int i = 0; i < 40; ++i)
        valid += std::string(kEvent) + ",";
    valid += std::string(kEvent) + "]}";
    int refused = 0, loaded = 0;
    for (int i = 0; i < 600; ++i) {
        std::string bytes;
        switch (i % 3) {
        case 0:
            bytes.assign(1 + rng() % 4096, '\0');
            for (char& c : bytes)
                c = static_cast<char>(rng());
            break;
        case 1:
            bytes = R"({"traceEvents": [)";
            for (std::size_t n = 1 + rng() % 512; n > 0; --n)
                bytes += static_cast<char>(rng());
            break;
        default:
            bytes = valid.substr(0, 1 + rng() % valid.size());
            for (int flips = int(rng() % 4); flips > 0; --flips)
                bytes[rng() % bytes.size()] = static_cast<char>(rng());
            break;
        }
        try {
            loadText(bytes);
            ++loaded;
        } catch (const LoadError& e) {
            ++refused;
            const std::string what = e.what();
            ASSERT_TRUE(e.offset()) << "no place in: " << what;
            EXPECT_LE(*e.offset(), bytes.size()) << what;
            EXPECT_NE(what.find(" (at byte " + std::to_string(*e.offset()) + ")"), std::string::npos) << what;
            EXPECT_GT(what.size(), std::string(" (at byte )").size() + 10) << what; // and what was wrong
        }
    }
    EXPECT_GT(refused, 300);
    EXPECT_GT(loaded, 0); // some cut traces are whole up to an event: they load with what they hold
    const std::string e = errorOf("\x7f"
                                  "ELF\x02\x01");
    EXPECT_NE(e.find("not a JSON trace"), std::string::npos);
    EXPECT_NE(e.find("0x7f"), std::string::npos);
    EXPECT_NE(e.find("at byte 0"), std::string::npos);
}

// A .json.gz copied in part (a download cut off) keeps its complete events, as a cut plain file does,
// and says the gzip stream was cut; cut before its events, the error says so too.
TEST(BadInput, TruncatedGzipKeepsTheCompleteEventsAndSaysItWasCut) {
    std::string json = "{\"traceEvents\": [";
    for (int i = 0; i < 2000; ++i)
        json += std::string(kEvent) + ",";
    json += std::string(kEvent) + "]}";
    const std::string gz = gzipBytes(json);
    const auto whole = loadText(gz);
    const auto cut = loadText(std::string_view(gz).substr(0, gz.size() / 2));
    EXPECT_GT(cut->eventCount(), 0u);
    EXPECT_LT(cut->eventCount(), whole->eventCount());
    std::string warnings;
    for (const std::string& w : cut->info().warnings)
        warnings += w + "\n";
    EXPECT_NE(warnings.find("gzip data is cut off"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find("truncated trace"), std::string::npos) << warnings;
    EXPECT_TRUE(whole->info().warnings.empty());
    try {
        loadText(std::string_view(gz).substr(0, 12));
        FAIL() << "a gzip stream cut before its first event loaded";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("gzip data is cut off"), std::string::npos) << e.what();
    }
    std::string corrupt = gz;
    corrupt[corrupt.size() / 2] ^= 0x55;
    corrupt[corrupt.size() / 2 + 1] ^= 0x55;
    EXPECT_THROW(loadText(corrupt), LoadError);
}

TEST(BadInput, TruncatedJsonOutsideTheArray) {
    EXPECT_NE(errorOf(R"({"traceEv)").find("ends inside a key"), std::string::npos);
    EXPECT_NE(errorOf(R"({"deviceProperties": [{"id": 0)").find("truncated"), std::string::npos);
    // After the array: what was read is kept, with a warning that says where the file ends.
    const auto t = loadText(std::string(R"({"traceEvents": [)") + kEvent + "], \"x\": ");
    EXPECT_EQ(t->eventCount(), 1u);
    ASSERT_EQ(t->info().warnings.size(), 1u);
    EXPECT_NE(t->info().warnings[0].find("the file ends after top-level key \"x\""), std::string::npos)
        << t->info().warnings[0];
}

TEST(BadInput, WrongTypes) {
    const std::string e = errorOf(R"({"traceEvents": 5})");
    EXPECT_NE(e.find("\"traceEvents\" is not an array (it is a number)"), std::string::npos) << e;
    EXPECT_NE(errorOf(R"({"foo": 1})").find("no \"traceEvents\""), std::string::npos);
    // Bad fields inside events: the event is skipped or read tolerantly, with a counted warning.
    const auto t = loadText(R"({"traceEvents": [
        {"ph": "X", "name": "bad ts", "pid": 1, "tid": 1, "ts": "abc", "dur": 1},
        {"ph": "X", "name": "string ts", "pid": 1, "tid": 1, "ts": "12.5", "dur": 1},
        {"ph": "X", "name": "negative dur", "pid": 1, "tid": 1, "ts": 1, "dur": -3},
        {"ph": "X", "name": "no dur", "pid": 1, "tid": 1, "ts": 1},
        {"ph": "X", "name": "object name", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "cat": {"a": 1}},
        {"ph": "X", "name": "args not object", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": [1, 2]},
        {"name": "no phase", "pid": 1, "tid": 1, "ts": 1},
        7, "text", null,
        {"ph": "X", "name": "fine", "pid": {"x": 1}, "tid": [1], "ts": 1, "dur": 1}
    ], "deviceProperties": 5, "baseTimeNanoseconds": "soon"})");
    EXPECT_EQ(t->eventCount(), 6u);
    EXPECT_EQ(t->info().eventsRead, 11u);
    const auto stringTs = findEvent(*t, "string ts");
    ASSERT_TRUE(stringTs);
    EXPECT_EQ(t->track(stringTs->track).events.start[stringTs->index], 12500);
    const auto negative = findEvent(*t, "negative dur");
    ASSERT_TRUE(negative);
    EXPECT_EQ(t->track(negative->track).events.duration[negative->index], 0);
    EXPECT_GE(t->info().warnings.size(), 7u);
}

TEST(BadInput, NanAndInfinityTokens) {
    const auto t = loadText(R"({"traceEvents": [
        {"ph": "X", "name": "nan ts", "pid": 1, "tid": 1, "ts": NaN, "dur": 1},
        {"ph": "X", "name": "inf dur", "pid": 1, "tid": 1, "ts": 1, "dur": Infinity},
        {"ph": "X", "name": "nan arg", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"a": NaN, "b": -Infinity, "c": 2}}
    ]})");
    EXPECT_EQ(t->eventCount(), 1u);
    const auto e = findEvent(*t, "nan arg");
    ASSERT_TRUE(e);
    EXPECT_EQ(t->argsJson(*e), R"({"c":2})");
}

TEST(BadInput, MillionLevelsOfNestingNeedNoRecursion) {
    const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
    // As an element of traceEvents: not an event, skipped with a warning.
    const auto a = loadText(R"({"traceEvents": [)" + std::string(kEvent) + "," + deep + "]}");
    EXPECT_EQ(a->eventCount(), 1u);
    ASSERT_EQ(a->info().warnings.size(), 1u);
    EXPECT_NE(a->info().warnings[0].find("not an object"), std::string::npos);
    // Inside an event's args and in an ignored top-level value: walked past, the event is kept.
    const auto b =
        loadText(R"({"junk": )" + deep + R"(, "traceEvents": [{"ph": "X", "name": "deep args", "pid": 1,
        "tid": 1, "ts": 1, "dur": 1, "args": {"x": )" +
                 deep + "}}]}");
    EXPECT_TRUE(findEvent(*b, "deep args").has_value());
    // Unclosed: a truncated trace with nothing complete in it.
    const auto open = loadText(std::string(1000000, '['));
    EXPECT_EQ(open->eventCount(), 0u);
    ASSERT_EQ(open->info().warnings.size(), 1u);
    EXPECT_NE(open->info().warnings[0].find("truncated"), std::string::npos);
}

TEST(BadInput, HundredMegabyteString) {
    const std::string big(100u << 20, 'x');
    const auto t = loadText(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": ")" + big +
                            R"(", "pid": 0, "tid": 7, "ts": 1, "dur": 1}, )" + kEvent + "]}");
    EXPECT_EQ(t->eventCount(), 2u);
    EXPECT_TRUE(findEvent(*t, big).has_value());
    // A value over the reader's limit is refused rather than held.
    const std::string huge(300u << 20, 'y');
    const std::string e = errorOf(R"({"traceEvents": [{"ph": "X", "name": ")" + huge + R"("}]})");
    EXPECT_NE(e.find("larger than 256 MiB"), std::string::npos) << e;
}

TEST(BadInput, GzipBombStreamsInBoundedMemory) {
    // 4 GB of JSON whitespace inside the array, as 64 gzip members of 64 MiB each: ~4 MB on disk.
    const std::string spaces(64u << 20, ' ');
    const std::string member = gzipBytes(spaces);
    std::string bomb = gzipBytes(R"({"traceEvents": [)" + std::string(kEvent) + ",");
    for (int i = 0; i < 64; ++i)
        bomb += member;
    bomb += gzipBytes(std::string(kEvent) + "]}");
    EXPECT_LT(bomb.size(), 6u << 20);
    const std::uint64_t before = residentBytes();
    const auto t = loadText(bomb);
    EXPECT_EQ(t->eventCount(), 2u);
    EXPECT_EQ(t->info().bytesRead, 4ull * 1024 * 1024 * 1024 + 2 * std::string_view(kEvent).size() + 20);
    EXPECT_LT(residentBytes(), before + (200u << 20));
}

TEST(BadInput, InvalidUtf8IsReplacedNotFatal) {
    const auto t = loadText(
        "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"bad \xff\xfe name\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 1, \"dur\": 1}, " +
        std::string(kEvent) + "]}");
    EXPECT_EQ(t->eventCount(), 2u);
    EXPECT_TRUE(findEvent(*t, "bad ?? name").has_value());
    ASSERT_FALSE(t->info().warnings.empty());
    EXPECT_NE(t->info().warnings[0].find("UTF-8"), std::string::npos);
}

TEST(BadInput, DuplicateKeysLastOneWins) {
    const auto t =
        loadText(R"({"traceEvents": [{"ph": "X", "name": "first", "name": "second", "pid": 1, "tid": 1,
        "ts": 1, "ts": 2, "dur": 1}], "traceEvents": [)" +
                 std::string(kEvent) + "]}");
    // Both traceEvents arrays are read; inside an event the later key wins.
    EXPECT_EQ(t->eventCount(), 2u);
    const auto e = findEvent(*t, "second");
    ASSERT_TRUE(e);
    EXPECT_EQ(t->track(e->track).events.start[e->index], 2000);
}

TEST(BadInput, GarbageInsideTheArrayNamesTheOffset) {
    const std::string json = std::string(R"({"traceEvents": [)") + kEvent + R"(, {"ph": "X" "name": 1}]})";
    try {
        loadText(json);
        FAIL();
    } catch (const LoadError& e) {
        ASSERT_TRUE(e.offset().has_value());
        EXPECT_GT(*e.offset(), std::string_view(kEvent).size());
        EXPECT_LE(*e.offset(), json.size());
    }
}

// Garbage after the traceEvents array: its events are kept and the user is told the rest was not read.
TEST(BadInput, GarbageAfterTheEventsIsIgnoredWithAWarning) {
    const auto t = loadText(std::string(R"({"traceEvents": [)") + kEvent + R"(], "x": nonsense!!)");
    EXPECT_EQ(t->eventCount(), 1u);
    bool told = false;
    for (const std::string& w : t->info().warnings)
        told = told || w.find("after traceEvents") != std::string::npos;
    EXPECT_TRUE(told) << (t->info().warnings.empty() ? "no warning" : t->info().warnings[0]);
}

// Tools that write gzip in blocks pad the file with zero bytes after the last member: the trace loads
// whole, with no error and no warning.
TEST(BadInput, GzipPaddedWithZerosLoadsWhole) {
    TempDir dir;
    const std::string json = std::string(R"({"traceEvents": [)") + kEvent + "]}";
    writeFile(dir.path("padded.json.gz"), gzipBytes(json) + std::string(4096, '\0'));
    const auto t = loadTraceFile(dir.path("padded.json.gz"));
    EXPECT_EQ(t->eventCount(), 1u);
    EXPECT_TRUE(t->info().warnings.empty()) << t->info().warnings[0];
}

TEST(BadInput, MissingFileAndDirectory) {
    EXPECT_THROW(loadTraceFile("/nonexistent/trace.json"), LoadError);
    TempDir dir;
    EXPECT_THROW(loadTraceFile(dir.path("")), LoadError);
}

// Found by the fuzzer: relative timestamps near the top of int64 nanoseconds plus
// baseTimeNanoseconds overflowed (undefined behaviour). They are held at the end of the range.
TEST(BadInput, TimestampsThatOverflowWithTheBaseTimeAreHeldAtTheEnd) {
    const auto t = loadText(R"({"traceEvents": [
        {"ph": "X", "name": "far", "pid": 1, "tid": 1, "ts": 8843769110691101.779, "dur": 1},
        {"ph": "X", "name": "early", "pid": 1, "tid": 1, "ts": -7827896413018449.817, "dur": 1}
    ], "baseTimeNanoseconds": 1775078550000000000})");
    const auto far = findEvent(*t, "far");
    ASSERT_TRUE(far);
    EXPECT_EQ(t->track(far->track).events.start[far->index], std::numeric_limits<TimeNs>::max());
    EXPECT_EQ(t->endNs(), std::numeric_limits<TimeNs>::max());
    EXPECT_EQ(summarize(*t, 0).spanNs, std::numeric_limits<TimeNs>::max()); // held, not wrapped
    // A slice that would end past the last representable time ends there.
    const auto last = loadText(R"({"traceEvents": [
        {"ph": "X", "name": "last", "pid": 1, "tid": 1, "ts": 9223372036854775.807, "dur": 0.02}]})");
    EXPECT_EQ(last->endNs(), std::numeric_limits<TimeNs>::max());
    // What reads a trace after loading it copes too (the sanitizer build checks for overflow).
    const TimelineIndex index(*t);
    EXPECT_EQ(analyzeTrace(*t).kernels.size(), 0u);
}

// A plain JSON file bigger than the memory it would need is refused at once, before it is read
// (a sparse file: nothing is written to disk but its first bytes).
TEST(BadInput, ATraceTooBigForTheMachineIsRefusedBeforeItIsRead) {
    TempDir dir;
    const std::string path = dir.path("huge.pt.trace.json");
    writeFile(path, R"({"traceEvents":[)");
    const std::uint64_t available = availableMemoryBytes();
    ASSERT_GT(available, 0u) << "no /proc/meminfo here";
    ASSERT_EQ(truncate(path.c_str(), off_t(2 * available + (1ull << 30))), 0);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        loadTraceFile(path);
        FAIL() << "a trace bigger than the machine's memory was opened";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("needs about"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1)); // not read first
}

// A decompression bomb: gzip members of 64 MB of zeros each (about 64 KB compressed), enough of
// them to expand past twice the memory available. Refused at once from how its start expands.
TEST(BadInput, ADecompressionBombIsRefusedBeforeItIsRead) {
    const std::uint64_t available = availableMemoryBytes();
    ASSERT_GT(available, 0u);
    const std::string zeros(64u << 20, '\0');
    const std::string member = gzipBytes(zeros);
    const std::size_t members = std::size_t(2.0 * double(available) / 0.65 / double(zeros.size())) + 1;
    if (double(members) * double(member.size()) > 1e9)
        GTEST_SKIP() << "this machine's memory is so large that the bomb file would pass 1 GB";
    TempDir dir;
    const std::string path = dir.path("bomb.json.gz");
    {
        std::ofstream out(path, std::ios::binary);
        const std::string head = gzipBytes(R"({"traceEvents":[)");
        out.write(head.data(), std::streamsize(head.size()));
        for (std::size_t i = 0; i < members; ++i)
            out.write(member.data(), std::streamsize(member.size()));
    }
    const auto t0 = std::chrono::steady_clock::now();
    try {
        loadTraceFile(path);
        FAIL() << "a bomb of " << members * 64 << " MB was opened";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("once decompressed"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
    // A normal gzipped trace still opens.
    ATTNSCOPE_REQUIRE_FIXTURE(fixture, "h100_sdpa_flash_qwen.json.gz");
    EXPECT_GT(loadTraceFile(fixture)->eventCount(), 0u);
}
