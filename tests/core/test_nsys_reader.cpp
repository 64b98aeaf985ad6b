// SPDX-License-Identifier: MIT
// Nsight Systems SQLite exports: the real fixture from an RTX 4060 Ti, and the files that only look
// like one.
#include "core/io/trace_format.h"
#include "support/test_support.h"

#include "core/analysis/analysis.h"
#include "core/io/chrome_writer.h"
#include "core/io/nsys_reader.h"
#include "core/report/diff.h"
#include "core/report/summary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <map>
#include <set>

using namespace attnscope;
using namespace attnscope::test;

namespace {

void makeDatabase(const std::string& path, const std::vector<std::string>& statements) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    for (const std::string& sql : statements)
        ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
    sqlite3_close(db);
}

// One number from a query, computed by SQLite itself: the oracle the reader's figures are held to.
std::int64_t sqlNumber(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    std::int64_t out = -1;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
            out = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return out;
}

std::string sqlText(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    std::string out;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
            out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return out;
}

std::uint64_t countCategory(const Trace& t, std::string_view category) {
    std::uint64_t n = 0;
    for (const Track& track : t.tracks())
        for (std::uint32_t i = 0; i < track.size(); ++i)
            n += t.str(track.events.category[i]) == category;
    return n;
}

std::string loadError(const std::string& path) {
    try {
        loadTraceFile(path);
    } catch (const LoadError& e) {
        return e.what();
    }
    return "(loaded)";
}

} // namespace

TEST(NsysReader, TheRtx4060ExportHasItsKernelsCopiesAndLaunches) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_rtx4060_export.sqlite");
    ASSERT_EQ(detectTraceFormat(traceFileHead(path), path), TraceFormat::NsysSqlite);
    const auto t = loadTraceFile(path);
    EXPECT_EQ(t->info().format, "nsys-sqlite");
    ASSERT_EQ(t->devices().size(), 1u);
    EXPECT_EQ(t->devices()[0].name, "NVIDIA GeForce RTX 4060 Ti");
    EXPECT_EQ(t->devices()[0].computeMajor, 8);
    int kernels = 0, memcpys = 0, linked = 0, runtime = 0;
    for (std::uint32_t tr = 0; tr < t->tracks().size(); ++tr) {
        const Track& track = t->tracks()[tr];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const std::string_view cat = t->str(track.events.category[i]);
            const EventRef e{TrackId{tr}, i};
            if (cat == "kernel") {
                ++kernels;
                EXPECT_EQ(t->str(track.events.name[i]),
                          "add_parallel(const float *, const float *, float *, int)");
                EXPECT_EQ(t->trackLabel(e.track).rfind("GPU 0 · stream ", 0), 0u) << t->trackLabel(e.track);
                const std::string args = t->argsJson(e);
                EXPECT_NE(args.find("\"grid\":[97657,1,1]"), std::string::npos) << args;
                EXPECT_NE(args.find("\"block\":[256,1,1]"), std::string::npos) << args;
                EXPECT_NE(args.find("\"registers per thread\":16"), std::string::npos) << args;
                EXPECT_NE(args.find("\"shared memory\":"), std::string::npos) << args;
            }
            if (cat == "gpu_memcpy") {
                ++memcpys;
                EXPECT_NE(t->argsJson(e).find("\"bytes\":100000000"), std::string::npos);
            }
            if (cat == "cuda_runtime") ++runtime;
            if (cat == "kernel" || cat == "gpu_memcpy") {
                const auto launch = t->launchOf(e);
                if (launch &&
                    t->str(t->track(launch->track).events.category[launch->index]) == "cuda_runtime")
                    ++linked;
            }
        }
    }
    EXPECT_EQ(kernels, 4);
    EXPECT_EQ(memcpys, 12);
    EXPECT_EQ(runtime, 44);
    EXPECT_EQ(linked, 16); // every kernel and copy links to the runtime call that made it
    // Threads carry their names; the copies' names say which way they went.
    bool named = false;
    for (const Track& track : t->tracks())
        named = named || (!track.name.empty() && track.name.find("stream") == std::string::npos);
    EXPECT_TRUE(named);
    const TraceSummary s = summarize(*t, 0);
    EXPECT_EQ(s.kernelCount, 4u);
    // The summary names the GPU by its device index and its name from TARGET_INFO_GPU.
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_EQ(s.devices[0].id, "GPU 0");
    EXPECT_EQ(s.devices[0].name, "NVIDIA GeForce RTX 4060 Ti");
    EXPECT_EQ(s.devices[0].kernels, 4u);
    // The copies' directions, as its CUPTI_ACTIVITY_KIND_MEMCPY rows give them (sqlite3 by hand:
    // copyKind 1, srcKind 1, dstKind 2 ×8; copyKind 2, srcKind 2, dstKind 1 ×4).
    std::map<std::string, int> copies;
    for (const Track& track : t->tracks())
        for (std::uint32_t i = 0; i < track.size(); ++i)
            if (t->str(track.events.category[i]) == "gpu_memcpy")
                ++copies[std::string(t->str(track.events.name[i]))];
    EXPECT_EQ(copies, (std::map<std::string, int>{{"Memcpy HtoD (Pinned -> Device)", 8},
                                                  {"Memcpy DtoH (Device -> Pinned)", 4}}));
}

// A kernel's shared memory is its static and dynamic parts together, as its occupancy needs them: on
// the H200 export (sqlite3 by hand) nvfuser_reduction_f0_c1_r0_g3 has 16 B static and 4096 B dynamic,
// nvjet_tst_192x192… 0 and 213,204.
TEST(NsysReader, SharedMemoryIsTheStaticAndTheDynamicPart) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_2025_pytorch_h200.sqlite");
    const auto t = loadTraceFile(path);
    std::map<std::string, std::string> shared;
    for (std::uint32_t tr = 0; tr < t->tracks().size(); ++tr)
        for (std::uint32_t i = 0; i < t->tracks()[tr].size(); ++i) {
            const std::string name(t->str(t->tracks()[tr].events.name[i]));
            for (const char* k :
                 {"nvfuser_reduction_f0_c1_r0_g3", "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN"})
                if (name.find(k) != std::string::npos)
                    t->forEachArg({TrackId{tr}, i}, [&](std::string_view key, std::string_view value) {
                        if (key == "shared memory") shared[k] = std::string(value);
                    });
        }
    EXPECT_EQ(shared["nvfuser_reduction_f0_c1_r0_g3"], "4112");
    EXPECT_EQ(shared["nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN"], "213204");
}

TEST(NsysReader, ConvertsToAChromeTraceThatReadsBack) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_rtx4060_export.sqlite");
    TempDir dir;
    const auto t = loadTraceFile(path);
    writeChromeTrace(*t, dir.path("report.json"));
    const auto back = loadTraceFile(dir.path("report.json"));
    EXPECT_EQ(summarize(*back, 0).kernelCount, 4u);
    EXPECT_EQ(back->eventCount(), t->eventCount());
}

TEST(NsysReader, WhatIsNotAnExportOfAKnownSchemaSaysSo) {
    TempDir dir;
    makeDatabase(dir.path("other.sqlite"), {"CREATE TABLE notes (id INTEGER, text TEXT)"});
    EXPECT_NE(loadError(dir.path("other.sqlite")).find("not an Nsight Systems export"), std::string::npos)
        << loadError(dir.path("other.sqlite"));
    // A metadata table and strings, but none of an export's target or CUPTI tables.
    makeDatabase(dir.path("strings.sqlite"),
                 {"CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)",
                  "CREATE TABLE StringIds (id INTEGER, value TEXT)",
                  "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '2.7.1')"});
    const std::string strings = loadError(dir.path("strings.sqlite"));
    EXPECT_NE(strings.find("not an Nsight Systems export (no StringIds table beside TARGET_INFO_* or "
                           "CUPTI_ACTIVITY_* tables)"),
              std::string::npos)
        << strings;
    // An export whose kernel table lacks a column AttnScope needs: the error names it.
    makeDatabase(
        dir.path("nocolumn.sqlite"),
        {"CREATE TABLE StringIds (id INTEGER, value TEXT)",
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, deviceId INTEGER, streamId INTEGER, "
         "correlationId INTEGER, shortName INTEGER)"});
    const std::string nocolumn = loadError(dir.path("nocolumn.sqlite"));
    EXPECT_EQ(nocolumn, "an Nsight Systems export whose CUPTI_ACTIVITY_KIND_KERNEL table has no end column, "
                        "which AttnScope needs");
    // The header of an SQLite file and then nothing that makes sense.
    writeFile(dir.path("broken.sqlite"), std::string("SQLite format 3\0", 16) + std::string(4096, '\x5a'));
    const std::string broken = loadError(dir.path("broken.sqlite"));
    EXPECT_NE(broken, "(loaded)");
    EXPECT_FALSE(broken.empty());
    // A file the export did not finish: cut short.
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_rtx4060_export.sqlite");
    const std::string bytes = readAllBytes(path);
    writeFile(dir.path("cut.sqlite"), bytes.substr(0, bytes.size() / 3));
    const std::string cut = loadError(dir.path("cut.sqlite"));
    EXPECT_NE(cut, "(loaded)") << "a third of the file loaded as if whole";
}

// The fixture has no NVTX, memset or driver rows; these are added to a copy of it in the tables'
// real shapes (as nsys 2024–2025 exports them), registrations included, which must not show.
TEST(NsysReader, NvtxRangesMarksMemsetsAndDriverCallsAreRead) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_rtx4060_export.sqlite");
    TempDir dir;
    const std::string copy = dir.path("report.sqlite");
    writeFile(copy, readAllBytes(path));
    makeDatabase(
        copy,
        {"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId "
         "INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, "
         "textId "
         "INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value "
         "INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT)",
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId "
         "INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, "
         "correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, "
         "graphNodeId "
         "INTEGER, memKind INTEGER)",
         "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass "
         "INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue "
         "INTEGER NOT NULL, callchainId INTEGER)",
         "INSERT INTO StringIds SELECT max(id) + 1, 'cuLaunchKernel' FROM StringIds",
         "INSERT INTO StringIds SELECT max(id) + 1, 'step (from a string id)' FROM StringIds",
         // A push/pop range with its text, a start/end range whose text is a string id, a mark, and
         // a domain's and a category's registration.
         "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) SELECT min(start), max(end), 59, "
         "'forward', globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME",
         "INSERT INTO NVTX_EVENTS (start, end, eventType, textId, globalTid) SELECT min(start), min(start) + "
         "1000, 60, (SELECT id FROM StringIds WHERE value = 'step (from a string id)'), globalTid FROM "
         "CUPTI_ACTIVITY_KIND_RUNTIME",
         "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid) SELECT min(start) + 10, 34, "
         "'checkpoint', "
         "globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME",
         "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid) SELECT min(start), 75, 'my domain', "
         "globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME",
         "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid) SELECT min(start), 33, 'my category', "
         "globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME",
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET SELECT max(end) + 100, max(end) + 2100, deviceId, "
         "contextId, "
         "NULL, streamId, 900001, NULL, 0, 4096, NULL, 2 FROM CUPTI_ACTIVITY_KIND_KERNEL",
         "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER SELECT max(end) + 10, max(end) + 90, 1, globalTid, 900001, "
         "(SELECT id FROM StringIds WHERE value = 'cuLaunchKernel'), 0, NULL FROM "
         "CUPTI_ACTIVITY_KIND_RUNTIME"});

    const auto t = loadTraceFile(copy);
    std::map<std::string, int> byName;
    int nvtx = 0, memsets = 0, driver = 0;
    for (std::uint32_t tr = 0; tr < t->tracks().size(); ++tr) {
        const Track& track = t->tracks()[tr];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const std::string_view cat = t->str(track.events.category[i]);
            const std::string name(t->str(track.events.name[i]));
            const EventRef e{TrackId{tr}, i};
            if (cat == "user_annotation") {
                ++nvtx;
                ++byName[name];
                if (name == "checkpoint") {
                    EXPECT_TRUE(track.events.flags[i] & kInstant);
                }
                if (name == "step (from a string id)") {
                    EXPECT_EQ(track.events.duration[i], 1000);
                }
            }
            if (cat == "gpu_memset") {
                ++memsets;
                EXPECT_EQ(name, "Memset (Device)");
                EXPECT_EQ(track.events.duration[i], 2000);
                const std::string args = t->argsJson(e);
                EXPECT_NE(args.find("\"bytes\":4096"), std::string::npos) << args;
                const auto launch = t->launchOf(e);
                ASSERT_TRUE(launch.has_value()) << "the memset is not linked to its driver call";
                EXPECT_EQ(t->str(t->track(launch->track).events.name[launch->index]), "cuLaunchKernel");
                EXPECT_EQ(t->str(t->track(launch->track).events.category[launch->index]), "cuda_driver");
            }
            if (cat == "cuda_driver") ++driver;
        }
    }
    EXPECT_EQ(nvtx, 3) << "registrations (domain, category) are not events";
    EXPECT_EQ(byName["forward"], 1);
    EXPECT_EQ(byName["step (from a string id)"], 1);
    EXPECT_EQ(byName["checkpoint"], 1);
    EXPECT_EQ(memsets, 1);
    EXPECT_EQ(driver, 1);
}

// Real exports of every generation: nsys 2022.2 (schema 2.9.1, EXPORT_META_DATA), 2024.5 (four GPUs
// whose TARGET_INFO_GPU.id differs from cuDevice), 2025.1 (13,513 NVTX ranges) and 2026.1. Each is
// held to figures SQLite computes from the same file.
TEST(NsysReader, ExportsOfEveryVersionMatchTheirOwnTables) {
    for (const char* name : {"nsys_2022_schema2_saxpy_a100.sqlite", "nsys_2024_cloverleaf_a100.sqlite",
                             "nsys_2025_pytorch_h200.sqlite", "nsys_rtx4060_export.sqlite"}) {
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        SCOPED_TRACE(name);
        const auto t = loadTraceFile(path);
        const TraceSummary s = summarize(*t, 0);
        EXPECT_EQ(std::int64_t(s.kernelCount),
                  sqlNumber(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
        EXPECT_EQ(s.kernelNs, sqlNumber(path, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
        EXPECT_EQ(std::int64_t(countCategory(*t, "gpu_memcpy")),
                  sqlNumber(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
        EXPECT_EQ(std::int64_t(countCategory(*t, "cuda_runtime")),
                  sqlNumber(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
        const std::int64_t nvtx =
            sqlNumber(path, "SELECT count(*) FROM sqlite_master WHERE name = 'NVTX_EVENTS'") == 1
                ? sqlNumber(path,
                            "SELECT count(*) FROM NVTX_EVENTS WHERE globalTid IS NOT NULL AND eventType IN "
                            "(34, 59, 60, 65, 70, 71)")
                : 0;
        EXPECT_EQ(std::int64_t(countCategory(*t, "user_annotation")), nvtx);
        // The GPU the kernels ran on (CUPTI's deviceId is TARGET_INFO_GPU.cuDevice), by its model.
        ASSERT_EQ(s.devices.size(), 1u);
        const std::int64_t device = sqlNumber(path, "SELECT min(deviceId) FROM CUPTI_ACTIVITY_KIND_KERNEL");
        EXPECT_EQ(s.devices[0].id, "GPU " + std::to_string(device));
        EXPECT_EQ(s.devices[0].name, sqlText(path, "SELECT name FROM TARGET_INFO_GPU WHERE cuDevice = " +
                                                       std::to_string(device)));
        EXPECT_EQ(s.devices[0].busyNs, s.kernelNs) << "one stream: no overlap";
        EXPECT_TRUE(t->info().warnings.empty()) << t->info().warnings.front();
    }
}

// The 2024 export lists four GPUs whose nsys ids run opposite to the CUDA ordinals: the kernels
// (CUDA device 0) are on the GPU at bus 03:00.0, which nsys calls id 3.
TEST(NsysReader, KernelsGoToTheirGpuThroughCuDevice) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_2024_cloverleaf_a100.sqlite");
    ASSERT_EQ(sqlNumber(path, "SELECT id FROM TARGET_INFO_GPU WHERE cuDevice = 0"), 3);
    const auto t = loadTraceFile(path);
    ASSERT_EQ(t->devices().size(), 4u);
    std::set<std::int64_t> ids;
    for (const DeviceInfo& d : t->devices())
        ids.insert(d.id);
    EXPECT_EQ(ids, (std::set<std::int64_t>{0, 1, 2, 3}));
    // All four are the same model: name the one at cuDevice 0 apart in a copy, and the kernels' GPU
    // takes that name, not the name of nsys's id 0.
    TempDir dir;
    const std::string copy = dir.path("report.sqlite");
    writeFile(copy, readAllBytes(path));
    makeDatabase(copy, {"UPDATE TARGET_INFO_GPU SET name = 'the GPU at 0000:03:00.0' WHERE cuDevice = 0"});
    const TraceSummary s = summarize(*loadTraceFile(copy), 0);
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_EQ(s.devices[0].id, "GPU 0");
    EXPECT_EQ(s.devices[0].name, "the GPU at 0000:03:00.0");
}

// Exports change shape: no metadata table at all, DLProf's extra columns, a shortName that is only
// "Kernel", no kernel table (CUDA tracing off) and an empty one. Each still opens, and says what it lacks.
TEST(NsysReader, ExportsOfOtherShapesOpenAndSayWhatTheyLack) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_2022_schema2_saxpy_a100.sqlite");
    TempDir dir;
    const std::string copy = dir.path("report.sqlite");
    writeFile(copy, readAllBytes(path));
    makeDatabase(
        copy,
        {"DROP TABLE EXPORT_META_DATA", "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN kernel_name TEXT",
         "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN long_kernel_name TEXT",
         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET kernel_name = 'saxpy', long_kernel_name = 'saxpy(…)'",
         "INSERT INTO StringIds SELECT max(id) + 1, 'Kernel' FROM StringIds",
         "INSERT INTO StringIds SELECT max(id) + 1, '' FROM StringIds",
         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = (SELECT id FROM StringIds WHERE "
         "value = ''), shortName = (SELECT id FROM StringIds WHERE value = 'Kernel')"});
    const auto t = loadTraceFile(copy);
    const TraceSummary s = summarize(*t, 0);
    EXPECT_EQ(s.kernelCount, 5u);
    ASSERT_EQ(s.topKernels.size(), 1u);
    // shortName says only "Kernel": the mangled name is the real one.
    EXPECT_EQ(s.topKernels[0].name,
              sqlText(path, "SELECT value FROM StringIds WHERE id = (SELECT mangledName FROM "
                            "CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1)"));
    EXPECT_EQ(s.topKernels[0].name.rfind("_Z", 0), 0u) << s.topKernels[0].name;

    const std::string empty = dir.path("empty.sqlite");
    writeFile(empty, readAllBytes(path));
    makeDatabase(empty, {"DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL"});
    const auto e = loadTraceFile(empty);
    ASSERT_EQ(e->info().warnings.size(), 1u);
    EXPECT_EQ(e->info().warnings[0],
              "the export's kernel table is empty: no GPU kernel ran while nsys traced");

    const std::string none = dir.path("nokernels.sqlite");
    writeFile(none, readAllBytes(path));
    makeDatabase(none, {"DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL", "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME",
                        "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY", "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET"});
    const auto n = loadTraceFile(none);
    EXPECT_EQ(summarize(*n, 0).kernelCount, 0u);
    ASSERT_EQ(n->info().warnings.size(), 1u);
    EXPECT_NE(n->info().warnings[0].find("CUDA tracing off"), std::string::npos) << n->info().warnings[0];
    EXPECT_GT(n->eventCount(), 0u) << "the NVTX ranges are still there";
}

// A kernel name that is not UTF-8 (an nsys export stores what the binary held): every JSON AttnScope
// writes of it — summary, diff, a converted trace — still parses, with U+FFFD for the bad bytes.
TEST(NsysReader, NamesThatAreNotUtf8StillGiveValidJson) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_rtx4060_export.sqlite");
    TempDir dir;
    const std::string copy = dir.path("report.sqlite");
    writeFile(copy, readAllBytes(path));
    makeDatabase(copy, {"UPDATE StringIds SET value = 'add_' || X'FF80' || '_kernel' WHERE id = (SELECT "
                        "demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1)"});
    const auto t = loadTraceFile(copy);
    const TraceSummary s = summarize(*t, 0);
    ASSERT_EQ(s.topKernels.size(), 1u);
    ASSERT_EQ(s.topKernels[0].name, "add_\xFF\x80_kernel");
    const TraceAnalysis a = analyzeTrace(*t);
    std::string json = formatDiff(diffTraces(*t, a, *t, a), "a", "b", SummaryFormat::Json);
    EXPECT_NE(nlohmann::json::parse(json).dump().find("add_\xEF\xBF\xBD"), std::string::npos) << json;
    json = formatSummaries({SummaryResult{copy, s, {}}}, SummaryFormat::Json);
    EXPECT_TRUE(nlohmann::json::parse(json).contains("files"));
    writeChromeTrace(*t, dir.path("report.json"));
    EXPECT_TRUE(nlohmann::json::parse(readAllBytes(dir.path("report.json"))).contains("traceEvents"));
}
