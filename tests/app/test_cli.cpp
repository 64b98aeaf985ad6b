// SPDX-License-Identifier: MIT
// The command-line verbs as a user runs them: exit codes, messages, outputs.
#include "cli_test_support.h"

#include "core/document/document.h"
#include "core/document/notes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

using namespace attnscope;
using namespace attnscope::test;

TEST(Cli, SummaryJsonOfAFixture) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const CliRun r = run("summary --format json --top 5 " + path);
    ASSERT_EQ(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out);
    const auto& f = j.at("files").at(0);
    EXPECT_EQ(f.at("path"), path);
    EXPECT_EQ(f.at("format"), "kineto-json");
    EXPECT_EQ(f.at("top_kernels").size(), 5u);
    EXPECT_EQ(f.at("devices").at(0).at("name"), "NVIDIA H100 80GB HBM3");
    // As Python's json counts them: 1,465 events of category "kernel", 45,432.698 µs in all.
    EXPECT_EQ(f.at("kernels").at("count"), 1465);
    EXPECT_EQ(f.at("kernels").at("total_ns"), 45432698);
    // Roles over kernels: the 34 flash kernels are fused attention, the cuBLAS ones GEMMs.
    std::map<std::string, int> roles;
    long long roleCount = 0;
    for (const auto& r : f.at("roles")) {
        roles[r.at("role")] = r.at("count");
        roleCount += r.at("count").get<long long>();
    }
    EXPECT_EQ(roles["fused_attention"], 34);
    EXPECT_EQ(roles["gemm"], 242);
    EXPECT_EQ(roleCount, f.at("kernels").at("count").get<long long>());
    EXPECT_EQ(f.at("attention").at("calls"), 34);
    EXPECT_EQ(f.at("attention").at("implementations").at(0).at("impl"), "flash");
    EXPECT_NEAR(f.at("attention").at("implementations").at(0).at("span_ns_per_call").get<double>(), 113396,
                1);
    // The same sections in text and CSV.
    const CliRun text = run("summary --top 1 " + path);
    EXPECT_NE(text.out.find("attention calls: 34"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("fused_attention"), std::string::npos);
    const CliRun csv = run("summary --format csv --top 1 " + path);
    EXPECT_NE(csv.out.find(",role,,fused_attention,34,"), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find(",attention,,flash,34,"), std::string::npos) << csv.out;
}

TEST(Cli, OneBadFileDoesNotStopTheOthers) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "mi250_rocm_small.json.gz");
    TempDir dir;
    writeFile(dir.path("bad.json"), "this is not json");
    const CliRun r = run("summary --format json " + dir.path("bad.json") + " " + path);
    EXPECT_EQ(r.exitCode, 1);
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("files").size(), 2u);
    EXPECT_NE(j.at("files")[0].at("error").get<std::string>().find("at byte 0"), std::string::npos);
    EXPECT_EQ(j.at("files")[1].at("kernels").at("count"), 14);
    const CliRun e = run("summary " + dir.path("bad.json"), true);
    EXPECT_EQ(e.exitCode, 1);
    EXPECT_NE(e.out.find(dir.path("bad.json") + ": not a JSON trace"), std::string::npos) << e.out;
    // Said once (stderr), not again on stdout.
    EXPECT_EQ(e.out.find("not a JSON trace"), e.out.rfind("not a JSON trace")) << e.out;
    // Nsight Systems' own report: how to export what AttnScope reads.
    writeFile(dir.path("report1.nsys-rep"), "NSYS\x01\x02");
    const CliRun rep = run("summary " + dir.path("report1.nsys-rep"), true);
    EXPECT_EQ(rep.exitCode, 1);
    EXPECT_NE(rep.out.find("nsys export --type sqlite"), std::string::npos) << rep.out;
    // A path that is not there is said to be missing, not an unknown command.
    const CliRun missing = run(dir.path("nosuch.json"), true);
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.out.find("nosuch.json: No such file or directory"), std::string::npos) << missing.out;
}

TEST(Cli, BadUsageExitsTwo) {
    EXPECT_EQ(run("summary").exitCode, 2);
    EXPECT_EQ(run("summary --format xml x.json").exitCode, 2);
    EXPECT_EQ(run("summary --top many x.json").exitCode, 2);
    EXPECT_EQ(run("convert onlyinput.json").exitCode, 2);
    EXPECT_EQ(run("frobnicate").exitCode, 2);
}

TEST(Cli, TextAndCsvSummaries) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const CliRun text = run("summary " + path);
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.out.find("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"), std::string::npos);
    EXPECT_NE(text.out.find("Tesla V100-SXM2-32GB"), std::string::npos);
    const CliRun csv = run("summary --format csv " + path);
    EXPECT_EQ(csv.exitCode, 0);
    EXPECT_EQ(csv.out.rfind("file,kind,id,name,count,total_ns,mean_ns,min_ns,max_ns,busy_ns,flops,bytes,"
                            "flops_per_s,bytes_per_s,compute_share,memory_share,verdict,precision,"
                            "kernels_per_call,kernel_ns_per_call,host_ns_per_call,bytes_per_call\n",
                            0),
              0u);
}

TEST(Cli, ConvertWritesWhatPerfettoOpensAndReadsBack) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "v100_ns_decimals.json.gz");
    TempDir dir;
    const std::string out = dir.path("v100.json.gz");
    ASSERT_EQ(run("convert " + path + " -o " + out).exitCode, 0);
    const auto original = nlohmann::json::parse(run("summary --format json --top 0 " + path).out);
    const auto converted = nlohmann::json::parse(run("summary --format json --top 0 " + out).out);
    EXPECT_EQ(original["files"][0]["kernels"], converted["files"][0]["kernels"]);
    EXPECT_EQ(original["files"][0]["top_kernels"], converted["files"][0]["top_kernels"]);
    EXPECT_EQ(original["files"][0]["span_ns"], converted["files"][0]["span_ns"]);
    EXPECT_EQ(original["files"][0]["devices"], converted["files"][0]["devices"]);
    EXPECT_EQ(run("convert /nonexistent.json -o " + dir.path("x.json")).exitCode, 1);
}

TEST(Cli, VersionAndHelp) {
    const CliRun v = run("--version");
    EXPECT_EQ(v.exitCode, 0);
    EXPECT_EQ(v.out.rfind("attnscope ", 0), 0u);
    EXPECT_EQ(run("--help").exitCode, 0);
    // One verb table: --help names every verb, and each verb's own --help lists its options.
    const CliRun help = run("--help");
    for (const char* verb : {"summary", "diff", "convert", "export", "run", "version"})
        EXPECT_NE(help.out.find(std::string("attnscope ") + verb), std::string::npos) << verb << "\n"
                                                                                      << help.out;
    const std::map<std::string, std::vector<std::string>> options = {
        {"summary", {"--format", "--top", "--ranks"}},
        {"diff", {"--format", "--top"}},
        {"convert", {"-o OUT.json"}},
        {"export", {"--timeline", "--chart", "--range", "--size", "--scale", "--tracks"}},
        {"run",
         {"--backend", "--impl", "--batch", "--dtype", "--causal", "--warmup", "--threads", "--kv-heads",
          "--kv-len", "--decode", "--preset", "-o RUN.json"}},
    };
    for (const auto& [verb, names] : options) {
        const CliRun r = run(verb + " --help");
        EXPECT_EQ(r.exitCode, 0) << verb;
        EXPECT_EQ(r.out.rfind("usage: ", 0), 0u) << r.out;
        for (const std::string& option : names)
            EXPECT_NE(r.out.find(option), std::string::npos) << verb << " " << option << "\n" << r.out;
    }
    // One declaration: each verb's usage line is its line in `attnscope --help`, and each option its
    // synopsis names has its help line.
    for (const char* verb : {"summary", "diff", "compare", "convert", "export", "run", "profile", "job"}) {
        const std::string own = run(std::string(verb) + " --help").out;
        const std::string line = own.substr(0, own.find('\n')); // "usage: PROGRAM VERB …"
        const std::string first = line.substr(line.find(std::string(" ") + verb + " "));
        EXPECT_NE(help.out.find(first), std::string::npos) << verb << ": " << first;
        std::size_t at = 0;
        while ((at = first.find("[--", at)) != std::string::npos) {
            const std::string option = first.substr(at + 1, first.find_first_of(" ]", at + 1) - at - 1);
            EXPECT_NE(own.find("\n  " + option), std::string::npos)
                << verb << " " << option << " has no help line";
            ++at;
        }
    }
    // Options after the program's name are the program's: its --help is not profile's.
    const TempDir out;
    EXPECT_EQ(run("profile -o " + out.path("p.json") + " -- attnscope-no-such-program --help").exitCode, 127);
}

// With no display, `attnscope FILE` prints what the window would show through summary's own code
// (the roles and roofline verdicts included), not a copy of it.
TEST(Cli, TheWindowWithoutADisplayPrintsTheSummary) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const CliRun window = run(path);
    EXPECT_EQ(window.exitCode, 0);
    EXPECT_EQ(window.out, run("summary " + path).out);
    EXPECT_NE(window.out.find("roofline"), std::string::npos) << window.out;
}

// With no display and no file, `attnscope` (what `make run` starts) prints the window's first run, the
// first-look preset: naive and flash prefill and a flash decode step, not another run.
TEST(Cli, TheLiveRunWithoutADisplayIsTheWindowsFirstRun) {
    const CliRun r = run("");
    ASSERT_EQ(r.exitCode, 0) << r.out;
    for (const char* impl : {"naive prefill", "flash prefill", "flash decode"})
        EXPECT_NE(r.out.find(impl), std::string::npos) << impl << "\n" << r.out;
}

TEST(Cli, ExportDrawsATimelineWithoutADisplay) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "mi250_rocm_small.json.gz");
    TempDir dir;
    // DISPLAY and WAYLAND_DISPLAY are unset by run(): the offscreen platform is picked by itself.
    const CliRun r = run(
        "export " + path + " --timeline " + dir.path("t.png") + " --size 1000x400 --range 0:2000000", true);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    const std::string png = readAllBytes(dir.path("t.png"));
    ASSERT_GT(png.size(), 2000u);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    // 1000 x 400, from the IHDR chunk.
    auto be32 = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(png[at])) << 24) |
               (std::uint32_t(std::uint8_t(png[at + 1])) << 16) |
               (std::uint32_t(std::uint8_t(png[at + 2])) << 8) | std::uint32_t(std::uint8_t(png[at + 3]));
    };
    EXPECT_EQ(be32(16), 1000u);
    EXPECT_EQ(be32(20), 400u);
    const CliRun svg = run("export " + path + " --timeline " + dir.path("t.svg") + " --tracks 'stream'");
    ASSERT_EQ(svg.exitCode, 0);
    EXPECT_NE(readAllBytes(dir.path("t.svg")).find("<svg"), std::string::npos);
}

// report: one page of the traces from the command line with no display; a job with --ranks; what is
// wrong said, nothing written.
TEST(Cli, ReportWritesOnePageOfTheTracesOrOfAJob) {
    ATTNSCOPE_REQUIRE_FIXTURE(mi250, "mi250_rocm_small.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(rank0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(rank1, "dlrm_2ranks/rank1.json");
    TempDir dir;
    const CliRun r = run("report " + mi250 + " -o " + dir.path("r.html"), true);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    const std::string html = readAllBytes(dir.path("r.html"));
    EXPECT_NE(html.find(">Attention at a glance</h2>"), std::string::npos);
    EXPECT_NE(html.find("mi250_rocm_small.json.gz"), std::string::npos);
    EXPECT_NE(html.find("<svg"), std::string::npos);
    const CliRun job = run("report --ranks " + rank0 + " " + rank1 + " -o " + dir.path("job.md"), true);
    ASSERT_EQ(job.exitCode, 0) << job.out;
    const std::string md = readAllBytes(dir.path("job.md"));
    EXPECT_NE(md.find("## Job: 2 ranks read"), std::string::npos) << md.substr(0, 2000);
    EXPECT_NE(md.find("](job_files/trace1-roofline.png)"), std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(dir.path("job_files/trace1-roofline.png")));

    // Beside a copy with a damaged notes file: the page says its notes were left out, and why.
    const std::string copy = dir.path("mi250.json.gz");
    std::filesystem::copy_file(mi250, copy);
    writeFile(notesPathFor(copy), "{\"attnscope_notes\": 1, \"notes\": [");
    ASSERT_EQ(run("report " + copy + " -o " + dir.path("n.md"), true).exitCode, 0);
    const std::string said = readAllBytes(dir.path("n.md"));
    EXPECT_NE(said.find("⚠ Its notes file was left out:"), std::string::npos) << said; // said once

    EXPECT_EQ(run("report " + mi250 + " -o " + dir.path("r.txt")).exitCode, 2); // its format
    EXPECT_EQ(run("report " + mi250).exitCode, 2);                              // no -o
    const CliRun missing = run("report " + dir.path("nope.json") + " -o " + dir.path("n.html"), true);
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.out.find("nope.json"), std::string::npos) << missing.out;
    EXPECT_FALSE(std::filesystem::exists(dir.path("n.html")));
}

// convert keeps a trace's notes (its notes file's): written into the output, read back from it, and a mark
// Perfetto shows; a damaged notes file is said and the trace converted without it.
TEST(Cli, ConvertWritesTheTracesNotesIntoIt) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const std::string trace = dir.path("h100.json.gz");
    std::filesystem::copy_file(h100, trace);
    DocumentOptions options;
    options.parts = 0;
    const auto doc = openDocument(DocumentSource::file(trace), options);
    Note n = noteOnRange(*doc->trace, doc->trace->startNs() + 1000000, doc->trace->startNs() + 2000000);
    signNote(n, "ana");
    n.text = "from here the step stalls";
    writeNotesFile(notesPathFor(trace), {n});
    const CliRun r = run("convert " + trace + " -o " + dir.path("out.json"), true);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    const std::string out = readAllBytes(dir.path("out.json"));
    EXPECT_NE(out.find("\"attnscopeNotes\":{\"attnscope_notes\":1"), std::string::npos);
    EXPECT_NE(out.find("\"cat\":\"attnscope_note\",\"name\":\"ana: from here the step stalls\""),
              std::string::npos);
    std::vector<std::string> problems;
    const auto converted = openDocument(DocumentSource::file(dir.path("out.json")), options);
    const std::vector<Note> back = notesOfTrace(*converted->trace, "", problems);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].fromNs, 1000000);
    EXPECT_TRUE(placeNote(back[0], *converted).placed);

    writeFile(notesPathFor(trace), "not notes");
    const CliRun damaged = run("convert " + trace + " -o " + dir.path("out2.json"), true);
    EXPECT_EQ(damaged.exitCode, 0) << damaged.out;
    EXPECT_NE(damaged.out.find("its notes file was left out"), std::string::npos) << damaged.out;
    EXPECT_EQ(readAllBytes(dir.path("out2.json")).find("attnscopeNotes"), std::string::npos);
}

TEST(Cli, ExportSaysWhatIsWrong) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "mi250_rocm_small.json.gz");
    TempDir dir;
    EXPECT_EQ(run("export " + path).exitCode, 2);                                      // no --timeline
    EXPECT_EQ(run("export " + path + " --timeline " + dir.path("t.gif")).exitCode, 2); // format
    EXPECT_EQ(run("export " + path + " --timeline x.png --range 5:1").exitCode, 2);    // empty range
    EXPECT_EQ(run("export " + path + " --timeline x.png --size 10x10").exitCode, 2);   // too small
    EXPECT_EQ(run("export " + path + " --timeline x.png --frobnicate").exitCode, 2);   // unknown option
    const CliRun missing = run("export " + dir.path("nope.json") + " --timeline " + dir.path("t.png"), true);
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.out.find("nope.json"), std::string::npos) << missing.out;
    const CliRun regex = run("export " + path + " --timeline " + dir.path("t.png") + " --tracks '(['", true);
    EXPECT_EQ(regex.exitCode, 1);
    EXPECT_NE(regex.out.find("not a valid regular expression"), std::string::npos) << regex.out;
    EXPECT_FALSE(std::ifstream(dir.path("t.png")).good()) << "nothing is written on failure";
}

TEST(Cli, DiffComparesTwoTracesAndSaysWhatIsWrong) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(v100, "v100_ns_decimals.json.gz");
    const CliRun same = run("diff --format json " + h100 + " " + h100);
    ASSERT_EQ(same.exitCode, 0);
    const auto j = nlohmann::json::parse(same.out);
    EXPECT_EQ(j.at("delta_ns"), 0);
    for (const auto& role : j.at("roles")) {
        EXPECT_EQ(role.at("delta_ns"), 0);
        EXPECT_EQ(role.at("regression"), false);
    }
    const CliRun other = run("diff --top 3 " + v100 + " " + h100);
    ASSERT_EQ(other.exitCode, 0);
    EXPECT_NE(other.out.find("fused_attention"), std::string::npos) << other.out;
    EXPECT_NE(other.out.find("new"), std::string::npos);
    EXPECT_EQ(run("diff " + h100).exitCode, 2);
    EXPECT_EQ(run("diff --format xml " + h100 + " " + h100).exitCode, 2);
    const CliRun missing = run("diff " + h100 + " /nonexistent/b.json", true);
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.out.find("/nonexistent/b.json"), std::string::npos) << missing.out;
}

TEST(Cli, SummaryOfRanksShowsTheSlowest) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    const CliRun r = run("summary --ranks --format json " + r0 + " " + r1);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("ranks").size(), 2u);
    EXPECT_EQ(j.at("ranks").at(0).at("rank"), 0);
    EXPECT_EQ(j.at("ranks").at(1).at("kernels"), 310);
    EXPECT_EQ(j.at("slowest_rank"), 0); // rank 1 waits for it: its GPU busy time is the wait
    EXPECT_EQ(j.at("collectives").at("straggler_rank"), 0);
    EXPECT_EQ(j.at("ranks").at(1).at("collective_wait_ns"), 5'585'000);
    // The job's findings are in the report, in the one shape --findings-only prints alone.
    ASSERT_TRUE(j.contains("findings"));
    const auto only =
        nlohmann::json::parse(run("summary --ranks --findings-only --format json " + r0 + " " + r1).out);
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only.at("findings"), j.at("findings"));
    bool straggler = false;
    for (const auto& f : j.at("findings"))
        straggler = straggler || (f.at("id") == "rank_imbalance" &&
                                  f.at("title").get<std::string>().find("Rank 0 is the straggler") == 0);
    EXPECT_TRUE(straggler) << j.at("findings").dump();
    const CliRun text = run("summary --ranks " + r0 + " " + r1);
    EXPECT_NE(text.out.find("<- slowest: the others wait for it"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("spread (max - min) / mean"), std::string::npos);
    EXPECT_NE(text.out.find("[rank_imbalance]"), std::string::npos);
    EXPECT_EQ(run("summary --ranks " + r0 + " /nonexistent.json").exitCode, 1);
}

// A job as map and reduce from the command line: a rank record per trace (a broken trace's record says
// why, and the verb exits 1), then the job's report from a folder of records, agreeing with summary --ranks.
TEST(Cli, RankRecordsMakeTheJobsReport) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    TempDir dir;
    writeFile(dir.path("rank2.json"), "a note, not a trace");
    const CliRun map = run("summary --format rank " + r0 + " " + r1 + " " + dir.path("rank2.json"));
    EXPECT_EQ(map.exitCode, 1) << "a trace could not be read";
    std::istringstream lines(map.out);
    std::string line;
    int n = 0;
    std::filesystem::create_directories(dir.path("records"));
    while (std::getline(lines, line)) {
        const auto j = nlohmann::json::parse(line);
        EXPECT_EQ(j.at("attnscope_rank_record"), 1);
        writeFile(dir.path("records/r" + std::to_string(n) + ".jsonl"), line + "\n");
        EXPECT_EQ(j.contains("error"), n == 2) << line;
        ++n;
    }
    ASSERT_EQ(n, 3);
    const CliRun job = run("job --format json --from " + dir.path("records"));
    ASSERT_EQ(job.exitCode, 1) << "a rank could not be read: " << job.out;
    const auto j = nlohmann::json::parse(job.out);
    const auto ranks = nlohmann::json::parse(run("summary --ranks --format json " + r0 + " " + r1).out);
    ASSERT_EQ(j.at("ranks").size(), 2u);
    for (int k = 0; k < 2; ++k)
        for (const char* key :
             {"rank", "gpu_busy_ns", "compute_busy_ns", "communication_ns", "collective_wait_ns"})
            EXPECT_EQ(j.at("ranks").at(k).at(key), ranks.at("ranks").at(k).at(key)) << key;
    EXPECT_EQ(j.at("slowest_rank"), ranks.at("slowest_rank"));
    EXPECT_EQ(j.at("failed").size(), 1u);
    EXPECT_EQ(j.at("failed").at(0).at("rank"), 2);
    const CliRun text = run("job " + dir.path("records/r0.jsonl") + " " + dir.path("records/r2.jsonl"));
    EXPECT_NE(text.out.find("could not be read"), std::string::npos) << text.out;
    // One rank's record twice: refused, naming both.
    const CliRun twice =
        run("job " + dir.path("records/r0.jsonl") + " " + dir.path("records/r0.jsonl"), true);
    EXPECT_EQ(twice.exitCode, 1);
    EXPECT_NE(twice.out.find("rank 0 twice"), std::string::npos) << twice.out;
    EXPECT_EQ(run("job").exitCode, 2);
    EXPECT_EQ(run("job --format yaml " + dir.path("records/r0.jsonl")).exitCode, 2);
    const CliRun notRecord = run("job " + r0, true);
    EXPECT_EQ(notRecord.exitCode, 1);
    EXPECT_NE(notRecord.out.find("not a rank record"), std::string::npos) << notRecord.out;
    EXPECT_EQ(notRecord.out.find("not a rank record"), notRecord.out.rfind("not a rank record"))
        << "a trace given for records is said once, not once a line: " << notRecord.out.substr(0, 400);
    writeFile(dir.path("empty.jsonl"), "");
    const CliRun empty = run("job " + dir.path("empty.jsonl"), true);
    EXPECT_EQ(empty.exitCode, 1);
    EXPECT_NE(empty.out.find("no rank record"), std::string::npos) << empty.out;
}

TEST(Cli, NsysExportsSummarizeAndConvert) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "nsys_rtx4060_export.sqlite");
    const CliRun summary = run("summary --format json " + path);
    ASSERT_EQ(summary.exitCode, 0) << summary.out;
    const auto j = nlohmann::json::parse(summary.out);
    EXPECT_EQ(j.at("files").at(0).at("format"), "nsys-sqlite");
    EXPECT_EQ(j.at("files").at(0).at("kernels").at("count"), 4);
    EXPECT_EQ(j.at("files").at(0).at("devices").at(0).at("name"), "NVIDIA GeForce RTX 4060 Ti");
    TempDir dir;
    const CliRun convert = run("convert " + path + " -o " + dir.path("report.json"));
    ASSERT_EQ(convert.exitCode, 0) << convert.out;
    const auto back = nlohmann::json::parse(run("summary --format json " + dir.path("report.json")).out);
    EXPECT_EQ(back.at("files").at(0).at("kernels").at("count"), 4);
    writeFile(dir.path("notes.sqlite"), std::string("SQLite format 3\0", 16) + "not really");
    const CliRun bad = run("summary " + dir.path("notes.sqlite"), true);
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.out.find("notes.sqlite"), std::string::npos) << bad.out;
}

// The window's live run on a backend of one's choosing: a bad one is bad usage; without a display the
// run is printed on that backend (here, with no GPU, CUDA says why it cannot run).
// The window asked for a screenshot of a file it cannot open: the reason on stderr and exit 1, as the
// verbs do — no one is at the window to read a message box.
TEST(Cli, TheWindowsScreenshotOfAFileItCannotOpenFails) {
    TempDir dir;
    writeFile(dir.path("program.json"), std::string("\x7f"
                                                    "ELF\x02\x01\x01",
                                                    6));
    const CliRun window = run(dir.path("program.json") + " --screenshot " + dir.path("shot.png"), true,
                              "QT_QPA_PLATFORM=offscreen");
    EXPECT_EQ(window.exitCode, 1) << window.out;
    EXPECT_NE(window.out.find("program.json: not a JSON trace"), std::string::npos) << window.out;
    EXPECT_NE(window.out.find("at byte 0"), std::string::npos) << window.out;
}

// A trace's verdicts depend on the trace and the roofs named for it only: the same file gives the same
// bytes before and after other traces were opened and summarized (a trace that beat a roof once moved
// the roof, and the cache with it). The machine is measured only when nothing is cached, and summary
// says so on stderr, once.
TEST(Cli, TheSameFileGivesTheSameAnswerWhateverWasOpenedBefore) {
    TempDir dir;
    const std::string cache = "XDG_CACHE_HOME=" + dir.path("cache");
    writeFile(dir.path("cpu_run.json"), cpuRunTraceText());
    const CliRun first = run("summary --format json " + dir.path("cpu_run.json"), true, cache);
    ASSERT_EQ(first.exitCode, 0) << first.out;
    EXPECT_NE(first.out.find("measured this machine's CPU roofs"), std::string::npos)
        << first.out.substr(0, 300);
    const CliRun before = run("summary --format json " + dir.path("cpu_run.json"), false, cache);
    EXPECT_EQ(run("summary --format json " + dir.path("cpu_run.json"), true, cache)
                  .out.find("measured this machine's"),
              std::string::npos); // cached now: not measured again
    // Others opened in between: a run with kernels far beyond any roof's, the fixtures.
    std::string fast = cpuRunTraceText();
    for (std::size_t at = fast.find("\"dur\":"); at != std::string::npos; at = fast.find("\"dur\":", at + 1))
        fast.replace(at, 6, "\"dur\":0.00");
    writeFile(dir.path("fast.json"), fast);
    run("summary " + dir.path("fast.json"), false, cache);
    for (const std::string& other : verdictTraces(dir))
        run("summary " + other, false, cache);
    const CliRun after = run("summary --format json " + dir.path("cpu_run.json"), false, cache);
    EXPECT_EQ(after.out, before.out);
}

// Variants side by side: a row per implementation of each trace, kernels per call against the expected
// call (a CPU run's workers' shares of a kernel are one kernel), ratios to the baseline; a trace that
// cannot be read keeps its row with the reason and the others are compared; a trace with no attention
// call has one row for all its kernels. The same table as JSON, CSV and Markdown.
TEST(Cli, CompareKeepsAFailedTraceAndComparesTheOthers) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(dlrm, "dlrm_2ranks/rank0.json");
    TempDir dir;
    const std::string run0 = verdictTraces(dir).front();
    writeFile(dir.path("broken.json"), "not a trace at all");
    const std::string files = run0 + " " + dir.path("broken.json") + " " + h100 + " " + dlrm;
    const CliRun r = run("compare --format json " + files);
    EXPECT_EQ(r.exitCode, 1) << r.out;
    EXPECT_NE(run("compare --format json " + files, true).out.find("broken.json: not a JSON trace"),
              std::string::npos);
    const auto j = nlohmann::json::parse(r.out);
    const auto& traces = j.at("traces");
    ASSERT_EQ(traces.size(), 4u);
    EXPECT_EQ(j.at("baseline"), 1); // as --baseline counts
    EXPECT_FALSE(traces[1].at("error").get<std::string>().empty());
    EXPECT_FALSE(traces[1].contains("rows"));
    const auto& own = traces[0].at("rows");
    ASSERT_EQ(own.size(), 2u);
    std::map<std::string, nlohmann::json> byImpl;
    for (const auto& row : own)
        byImpl[row.at("implementation")] = row;
    const auto& naive = byImpl.at("naive");
    const auto& flash = byImpl.at("flash");
    EXPECT_EQ(naive.at("calls"), 1);
    EXPECT_EQ(naive.at("kernels_per_call"), 3.0); // QKᵀ, softmax, PV: each run by two workers
    EXPECT_EQ(naive.at("expected_kernels_per_call"), 3.0);
    EXPECT_EQ(naive.at("mismatched_calls"), 0);
    // The file's µs, the two workers' shares at once counted once: the time the call's kernels ran.
    EXPECT_EQ(naive.at("kernel_ns_per_call"), (9000 + 3000 + 9000) * 1000);
    EXPECT_EQ(flash.at("kernels_per_call"), 1.0);
    EXPECT_EQ(flash.at("kernel_ns_per_call"), 15000 * 1000);
    const nlohmann::json& base = own[0]; // the baseline trace's first row
    for (const auto& row : own)
        EXPECT_DOUBLE_EQ(row.at("kernel_ratio").get<double>(),
                         row.at("kernel_ns_per_call").get<double>() /
                             base.at("kernel_ns_per_call").get<double>());
    EXPECT_TRUE(flash.at("host_ratio").is_null()); // an own run has no host ranges
    const auto& qwen = traces[2].at("rows");
    ASSERT_EQ(qwen.size(), 1u);
    EXPECT_EQ(qwen[0].at("implementation"), "flash");
    EXPECT_EQ(qwen[0].at("calls"), 34);
    EXPECT_EQ(qwen[0].at("kernels_per_call"), 1.0);
    EXPECT_EQ(qwen[0].at("mismatched_calls"), 0);
    const auto& rec = traces[3].at("rows");
    ASSERT_EQ(rec.size(), 1u);
    EXPECT_EQ(rec[0].at("implementation"), "");
    EXPECT_GT(rec[0].at("kernels").get<std::uint64_t>(), 0u);
    EXPECT_FALSE(rec[0].contains("kernels_per_call"));

    const CliRun md = run("compare --format markdown --baseline 3 " + files);
    EXPECT_EQ(md.exitCode, 1);
    EXPECT_EQ(md.out.rfind("| trace | implementation | calls | kernels/call | expected |", 0), 0u) << md.out;
    EXPECT_NE(md.out.find("| cpu_run.json | naive | 1 | 3 | 3 | 0 |"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("| broken.json | could not be read: "), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("over h100_sdpa_flash_qwen.json.gz · flash's"), std::string::npos) << md.out;
    const CliRun csv = run("compare --format csv " + files);
    EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 6) << csv.out; // header, 2 + 1 + 1 + 1 rows
    // Every line, the failed trace's too, has the header's fields (quoted commas are one field's).
    auto fields = [](const std::string& line) {
        std::size_t n = 1;
        bool quoted = false;
        for (char ch : line) {
            if (ch == '"') quoted = !quoted;
            n += !quoted && ch == ',';
        }
        return n;
    };
    std::istringstream lines(csv.out);
    std::string header, line;
    std::getline(lines, header);
    while (std::getline(lines, line))
        EXPECT_EQ(fields(line), fields(header)) << line;
    // A baseline with no attention call gives no ratios, and says so.
    const auto noBase = nlohmann::json::parse(run("compare --format json --baseline 4 " + files).out);
    EXPECT_TRUE(noBase.at("baseline").is_null());
    EXPECT_NE(run("compare --baseline 4 " + files)
                  .out.find("vs base: none (the baseline trace has no attention call)."),
              std::string::npos);
    const CliRun text = run("compare " + files);
    EXPECT_NE(text.out.find("(no attention call)"), std::string::npos) << text.out;
    EXPECT_EQ(run("compare --baseline 5 " + files).exitCode, 2);
    EXPECT_EQ(run("compare --format yaml " + files).exitCode, 2);
    EXPECT_EQ(run("compare").exitCode, 2);
}
