// SPDX-License-Identifier: MIT
#include "core/io/chrome_writer.h"
#include "core/io/json_escape.h"
#include "core/io/load_error.h"
#include "core/io/trace_loader.h"
#include "support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

using namespace attnscope;
using namespace attnscope::test;

TEST(ChromeWriter, RoundTripsEveryFixture) {
    for (const char* name :
         {"v100_ns_decimals.json.gz", "h100_sdpa_flash_qwen.json.gz", "mi250_rocm_small.json.gz",
          "triton_single_kernel.json.gz", "uint64_arg.json.gz", "kineto_newest_schema.json",
          "chrome_generic_edge_cases.json", "flow_v1.json", "flow_v2.json", "dlrm_2ranks/rank0.json"}) {
        SCOPED_TRACE(name);
        ATTNSCOPE_REQUIRE_FIXTURE(path, name);
        const auto original = loadTraceFile(path);
        const std::string written = chromeTraceJson(*original);
        // Strict JSON, as Perfetto and chrome://tracing need it.
        const nlohmann::json parsed = nlohmann::json::parse(written);
        ASSERT_TRUE(parsed.at("traceEvents").is_array());
        const auto again = loadText(written);
        expectSame(snapshot(*original), snapshot(*again));
        if (std::string(name).rfind("flow", 0) == 0) {
            EXPECT_FALSE(again->flows().empty());
        }
    }
}

TEST(ChromeWriter, KeepsNamesTracksArgsAndFlowsOfAHandMadeTrace) {
    const auto t = loadText(R"({"traceEvents": [
      {"ph": "M", "name": "process_name", "pid": 9, "args": {"name": "python3"}},
      {"ph": "M", "name": "thread_name", "pid": 9, "tid": 9, "args": {"name": "main \"thread\""}},
      {"ph": "M", "name": "process_labels", "pid": 0, "args": {"labels": "GPU 0"}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 1.001, "dur": 2,
       "args": {"correlation": 5, "Comms Id": 18446744073709551615}},
      {"ph": "X", "cat": "kernel", "name": "void k<\"x\">(float*)\n", "pid": 0, "tid": 7, "ts": 4, "dur": 0.5,
       "args": {"correlation": 5, "grid": [1, 2, 3]}},
      {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 5, "pid": 9, "tid": 9, "ts": 1.001},
      {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 5, "pid": 0, "tid": 7, "ts": 4, "bp": "e"},
      {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 10}
    ], "distributedInfo": {"rank": 1, "world_size": 2}})");
    const auto again = loadText(chromeTraceJson(*t));
    expectSame(snapshot(*t), snapshot(*again));
    EXPECT_EQ(again->flows().size(), 1u);
    const auto kernel = findEvent(*again, "void k<\"x\">(float*)\n");
    ASSERT_TRUE(kernel);
    EXPECT_EQ(again->trackLabel(kernel->track), "GPU 0 \u00b7 stream 7");
    EXPECT_TRUE(again->launchOf(*kernel).has_value());
    const auto launch = findEvent(*again, "cudaLaunchKernel");
    EXPECT_EQ(again->trackLabel(launch->track), "python3 \u00b7 main \"thread\"");
    EXPECT_EQ(again->argsJson(*launch), R"({"correlation":5,"Comms Id":18446744073709551615})");
}

TEST(ChromeWriter, WritesGzipAtomically) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "mi250_rocm_small.json.gz");
    const auto t = loadTraceFile(path);
    TempDir dir;
    const std::string out = dir.path("out.json.gz");
    writeChromeTrace(*t, out);
    const std::string bytes = [&] {
        std::ifstream in(out, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
    expectSame(snapshot(*t), snapshot(*loadTraceFile(out)));
    // Nothing but the output is left behind.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path("")))
        ++files;
    EXPECT_EQ(files, 1u);
    // A path that cannot be written: an error, and no half-written file.
    EXPECT_THROW(writeChromeTrace(*t, dir.path("missing/dir/out.json")), std::runtime_error);
    EXPECT_FALSE(std::filesystem::exists(dir.path("missing")));
}

// Saving reports how far it got (the window's bar), and a cancelled save leaves no file, whole or
// partial, behind.
TEST(ChromeWriter, ReportsProgressAndACancelLeavesNoFile) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto t = loadTraceFile(path);
    TempDir dir;
    std::vector<double> reported;
    WriteOptions options;
    options.progress = [&](double f) { reported.push_back(f); };
    writeChromeTrace(*t, dir.path("out.json"), options);
    ASSERT_GE(reported.size(), 3u);
    EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
    EXPECT_EQ(reported.front(), 0.0);
    EXPECT_LE(reported.back(), 1.0);
    EXPECT_GT(reported.back(), 0.5);
    // Cancelled half way: LoadCancelled, and the directory holds only the first file.
    std::atomic<bool> cancel{false};
    options.cancel = &cancel;
    options.progress = [&](double f) {
        if (f > 0.3) cancel = true;
    };
    EXPECT_THROW(writeChromeTrace(*t, dir.path("cancelled.json.gz"), options), LoadCancelled);
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path("")))
        ++files;
    EXPECT_EQ(files, 1u);
    EXPECT_FALSE(std::filesystem::exists(dir.path("cancelled.json.gz")));
}

// Found by fuzzing: the reader skips nested arg values without validating them, and the writer
// wrote the broken text back out, giving a file no JSON reader opens.
TEST(ChromeWriter, WritesValidJsonEvenForBrokenArgs) {
    const auto t = loadText(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,)"
                            R"("args":{"Input type":["float" ""],"ok":1,"k\q":2}}]})");
    ASSERT_EQ(t->eventCount(), 1u);
    const std::string written = chromeTraceJson(*t);
    const nlohmann::json j = nlohmann::json::parse(written);
    nlohmann::json args;
    for (const auto& e : j.at("traceEvents"))
        if (e.at("ph") == "X") args = e.at("args");
    EXPECT_EQ(args.at("ok"), 1);
    // What did not parse is kept, as text.
    EXPECT_EQ(args.at("Input type"), R"(["float" ""])");
    EXPECT_EQ(args.at("k\\q"), 2);
    EXPECT_EQ(loadText(written)->eventCount(), 1u);
}

// The one JSON escaper: what JSON requires escaped is escaped, valid UTF-8 passes through, and bytes
// that are not UTF-8 become U+FFFD, so a strict parser reads back the same text.
TEST(JsonEscape, ControlCharactersQuotesBackslashesAndBrokenUtf8) {
    EXPECT_EQ(jsonQuoted("plain"), "\"plain\"");
    EXPECT_EQ(jsonQuoted(std::string("a\x01"
                                     "b\x1f",
                                     4)),
              "\"a\\u0001b\\u001f\"");
    EXPECT_EQ(jsonQuoted("say \"hi\"\\now\n\t\r"), "\"say \\\"hi\\\"\\\\now\\n\\t\\r\"");
    EXPECT_EQ(jsonQuoted("QKᵀ · µs 🙂"), "\"QKᵀ · µs 🙂\""); // valid UTF-8 of 2, 3 and 4 bytes
    EXPECT_EQ(jsonQuoted(std::string(1, '\0')), "\"\\u0000\"");
    // Not UTF-8: a lone continuation byte, a truncated sequence, an overlong '/', a surrogate, a
    // byte that never starts a sequence.
    for (const std::string& bad : {std::string("\x80"), std::string("\xE2\x82"), std::string("\xC0\xAF"),
                                   std::string("\xED\xA0\x80"), std::string("\xFF")}) {
        const std::string quoted = jsonQuoted("k" + bad + "x");
        const auto parsed = nlohmann::json::parse(quoted); // throws on invalid JSON or UTF-8
        EXPECT_EQ(parsed.get<std::string>().front(), 'k');
        EXPECT_NE(parsed.get<std::string>().find("\xEF\xBF\xBD"), std::string::npos) << quoted;
        EXPECT_EQ(parsed.get<std::string>().back(), 'x');
    }
    for (const std::string& name : {std::string("a\x01"
                                                "\"\\b"),
                                    std::string("tab\there"), std::string("µs")})
        EXPECT_EQ(nlohmann::json::parse(jsonQuoted(name)).get<std::string>(), name);
}
