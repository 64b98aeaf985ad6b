// SPDX-License-Identifier: MIT
// What a trace is, told once for files and bytes alike (trace_format.h), and what the loader does with it.
#include "core/io/load_error.h"
#include "core/io/trace_format.h"
#include "core/io/trace_loader.h"
#include "support/test_support.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

namespace {
std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}
} // namespace

TEST(TraceFormat, ByTheFirstBytesNotTheName) {
    const std::string gzip = gzipBytes(R"({"traceEvents":[]})");
    EXPECT_EQ(detectTraceFormat(gzip, "trace.json"), TraceFormat::GzipJson); // a gzipped .json is gzip
    EXPECT_EQ(detectTraceFormat(R"({"traceEvents":[]})", "trace.json.gz"), TraceFormat::Json);
    EXPECT_EQ(detectTraceFormat(std::string_view("SQLite format 3\0xyz", 19), "a.json"),
              TraceFormat::NsysSqlite);
    EXPECT_EQ(detectTraceFormat(std::string_view("SQLite format 3", 15), "short"), TraceFormat::Json);
    EXPECT_EQ(detectTraceFormat("anything", "run.nsys-rep"), TraceFormat::NsysReport);
    EXPECT_EQ(detectTraceFormat("anything", "old.qdrep"), TraceFormat::NsysReport);
    EXPECT_EQ(detectTraceFormat("", ""), TraceFormat::Json);
    EXPECT_EQ(detectTraceFormat("\x1f", ""), TraceFormat::Json);
    // One byte of gzip's magic is not gzip, whatever lies past the bytes given.
    const std::string magic = "\x1f\x8b";
    EXPECT_EQ(detectTraceFormat(std::string_view(magic.data(), 1), ""), TraceFormat::Json);
}

// A gzipped trace larger than the bytes inflated ahead for the memory check (and than one read of
// the reader) reads exactly as the same JSON plain: the bytes inflated ahead are handed over once, in
// order, then the rest.
TEST(TraceFormat, AGzippedTraceReadsAsThePlainOne) {
    std::string json = R"({"traceEvents":[)";
    for (int i = 0; i < 60000; ++i)
        json += std::string(i ? "," : "") + R"({"ph":"X","cat":"kernel","name":"k)" + std::to_string(i % 97) +
                R"(","pid":0,"tid":7,"ts":)" + std::to_string(i * 3) + R"(,"dur":2,"args":{"i":)" +
                std::to_string(i) + "}}";
    json += "]}";
    ASSERT_GT(json.size(), 5u << 20); // more than one 4 MB read
    TempDir dir;
    writeFile(dir.path("plain.json"), json);
    writeFile(dir.path("packed.json.gz"), gzipBytes(json));
    LoadOptions small;
    small.readBytes = (1 << 20) + 17; // many reads of the bytes handed over, none a divisor of them
    for (const LoadOptions& options : {LoadOptions{}, small}) {
        const auto plain = loadTraceFile(dir.path("plain.json"), options);
        const auto packed = loadTraceFile(dir.path("packed.json.gz"), options);
        EXPECT_EQ(packed->eventCount(), 60000u);
        expectSame(snapshot(*plain), snapshot(*packed));
        EXPECT_EQ(packed->info().warnings, plain->info().warnings); // no bytes read twice or past the end
        EXPECT_TRUE(packed->info().warnings.empty());
    }
}

TEST(TraceFormat, FilesAndBytesInMemoryAreDetectedAlike) {
    ATTNSCOPE_REQUIRE_FIXTURE(gz, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(sqlite, "nsys_2022_schema2_saxpy_a100.sqlite");
    EXPECT_EQ(detectTraceFormat(traceFileHead(gz), gz), TraceFormat::GzipJson);
    EXPECT_EQ(detectTraceFormat(traceFileHead(sqlite), sqlite), TraceFormat::NsysSqlite);
    EXPECT_EQ(traceFileHead("/nonexistent/trace.json"), "");
    // A gzipped trace in memory opens as its file does, event for event.
    const std::string bytes = fileBytes(gz);
    EXPECT_EQ(loadTraceBytes(bytes, "h100")->eventCount(), loadTraceFile(gz)->eventCount());
    // An nsys export in memory is refused with why, never parsed as JSON.
    const std::string db = fileBytes(sqlite);
    try {
        loadTraceBytes(db, "saxpy.sqlite");
        FAIL() << "an SQLite export was read from memory";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("Nsight Systems SQLite export is read from its file"),
                  std::string::npos)
            << e.what();
    }
    try {
        loadTraceBytes("PK...", "profile.nsys-rep");
        FAIL() << "a report was read";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("nsys export --type sqlite"), std::string::npos) << e.what();
    }
}

// Each format is one entry of the readers' table: what recognizes it, the suffixes the file dialogs
// offer, and how it is read from a file and from bytes; the loader dispatches by that table alone.
TEST(TraceFormat, EachReaderIsOneEntryOfTheTable) {
    const std::vector<std::string_view> suffixes = traceSuffixes();
    std::set<TraceFormat> formats;
    for (const TraceReader& r : traceReaders()) {
        EXPECT_TRUE(formats.insert(r.format).second);
        EXPECT_FALSE(r.description.empty());
        ASSERT_TRUE(r.readFile && r.readBytes);
        for (std::string_view suffix : r.suffixes)
            EXPECT_NE(std::find(suffixes.begin(), suffixes.end(), suffix), suffixes.end()) << suffix;
    }
    EXPECT_FALSE(traceReaders().back().recognizes) << "the last reads what no other recognizes";
    for (std::size_t i = 1; i < suffixes.size(); ++i)
        EXPECT_GE(suffixes[i - 1].size(), suffixes[i].size()) << "longest first";
    EXPECT_EQ(traceReaderFor("\x1f\x8b", "x").format, TraceFormat::GzipJson);
    EXPECT_EQ(traceReaderFor("{", "run.nsys-rep").format, TraceFormat::NsysReport);
    // Bytes of an Nsight Systems export are refused with what to do, by its reader's entry.
    try {
        loadTraceBytes(std::string_view("SQLite format 3\0\0\0\0", 20), "x.sqlite");
        ADD_FAILURE() << "read an nsys export from memory";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("read from its file"), std::string::npos) << e.what();
    }
}
