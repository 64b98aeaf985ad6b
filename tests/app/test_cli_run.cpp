// SPDX-License-Identifier: MIT
// The run verb and the window's runs from the command line: tables, saved traces, refusals, backends.
#include "cli_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::test;

TEST(Cli, RunPrintsATableAndSavesATrace) {
    TempDir dir;
    const CliRun r =
        run("run --heads 2 --seq 64 --dim 32 --warmup 0 --iters 2 --threads 2 -o " + dir.path("run.json.gz"),
            true);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_NE(r.out.find(": using the CPU backend"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos);
    EXPECT_NE(r.out.find("\nnaive "), std::string::npos);
    EXPECT_NE(r.out.find("\nflash "), std::string::npos);
    EXPECT_NE(r.out.find("flash / naive time:"), std::string::npos);
    // And the table `attnscope compare` prints of the same trace: each call as expected.
    const std::string naiveRow = "run.json.gz  naive               2             3         3          0";
    EXPECT_NE(run("compare " + dir.path("run.json.gz")).out.find(naiveRow), std::string::npos);
    EXPECT_NE(r.out.find(naiveRow), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("implementation  calls  kernels/call  expected  calls off"), std::string::npos)
        << r.out;
    // The saved run opens like any trace: 2 calls × (3 naive kernels + 1 flash) × 2 workers.
    const CliRun summary = run("summary --format json " + dir.path("run.json.gz"));
    ASSERT_EQ(summary.exitCode, 0);
    const auto j = nlohmann::json::parse(summary.out);
    EXPECT_EQ(j.at("files").at(0).at("kernels").at("count"), 16);
    // The run's own roles and calls: each of the 4 roles on 2 calls × 2 workers.
    for (const auto& role : j.at("files").at(0).at("roles"))
        EXPECT_EQ(role.at("count"), 4) << role;
    EXPECT_EQ(j.at("files").at(0).at("roles").size(), 4u);
    EXPECT_EQ(j.at("files").at(0).at("attention").at("calls"), 4);
}

TEST(Cli, RunRefusesWhatItCannotDo) {
    const CliRun cuda = run("run --backend cuda --seq 16", true);
    EXPECT_EQ(cuda.exitCode, 1);
    // One line: the plugin's probe without a driver, or a build without the plugin.
    EXPECT_EQ(cuda.out.rfind("run: no CUDA", 0), 0u) << cuda.out;
    EXPECT_EQ(std::count(cuda.out.begin(), cuda.out.end(), '\n'), 1) << cuda.out;
    EXPECT_EQ(run("run --impl fancy --seq 16").exitCode, 2);
    EXPECT_EQ(run("run --seq 0").exitCode, 2);
    EXPECT_EQ(run("run --dtype fp8").exitCode, 2);
    const CliRun huge = run("run --batch 64 --heads 64 --seq 1048576 --dim 128", true);
    EXPECT_EQ(huge.exitCode, 2);
    EXPECT_NE(huge.out.find("out of memory at this shape"), std::string::npos) << huge.out;
    // Bad shapes are refused before anything is allocated, each saying what is wrong.
    const std::pair<const char*, const char*> refused[] = {
        {"run --backend cpu --heads 8 --kv-heads 3", "run: kv-heads (3) must divide heads (8)"},
        {"run --backend cpu --decode", "run: --decode needs --kv-len"},
        {"run --backend cpu --seq 64 --kv-len 32", "run: kv-len (32) is shorter than the queries (64)"},
        {"run --backend cpu --decode --kv-len 1000000000",
         "run: --kv-len: Value 1000000000 not in range 0 to 16777216"},
        {"run --backend cpu --decode --kv-len 16777216 --heads 4096 --dim 1024",
         "out of memory at this shape"},
        {"run --backend cpu --preset nope",
         "run: --preset: 'nope' is not first-look, naive-flash, prefill-decode or mha-gqa-mqa"},
    };
    for (const auto& [args, says] : refused) {
        const CliRun r = run(args, true);
        EXPECT_EQ(r.exitCode, 2) << args;
        EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
    }
}

// A decode step with grouped-query heads, and a run of several shapes: each case its own row and its
// own attention calls in the saved trace.
TEST(Cli, RunDecodeStepsAndGroupedHeads) {
    TempDir dir;
    const CliRun r =
        run("run --backend cpu --heads 8 --kv-heads 2 --decode --kv-len 4096 --dim 64 --warmup 0 "
            "--iters 2 --threads 2 -o " +
                dir.path("decode.json"),
            true);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_NE(r.out.find("B=1 H=8 N=1 D=64 fp32 · GQA 8:2 · 4096 keys"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(run("summary --format json " + dir.path("decode.json")).out);
    // The fused decode kernel is its own name, and it reads the KV cache: 4·8·4096·64 = 8,388,608 FLOPs
    // for K and V's 2·2·4096·64·4 = 4,194,304 bytes and Q and O's 4,096: 1.998 FLOP/byte.
    // (Its rates are in the summary unless each of its kernels beat this machine's measured bandwidth,
    // the KV cache being in cache: the cost is the run's own either way.)
    bool decodeKernel = false;
    for (const auto& k : j.at("files").at(0).at("roofline").at("kernels"))
        if (k.at("name") == "flash_decode_fwd") {
            decodeKernel = true;
            if (k.contains("flops"))
                EXPECT_NEAR(k.at("flops").get<double>() / k.at("bytes").get<double>(), 8388608.0 / 4198400.0,
                            1e-9)
                    << k;
        }
    EXPECT_TRUE(decodeKernel) << j.dump(1);
    const auto doc = attnscope::openDocument(attnscope::DocumentSource::file(dir.path("decode.json")));
    int costed = 0;
    for (const attnscope::KernelAnalysis& k : doc->analysis->kernels)
        if (doc->trace->str(doc->trace->track(k.event.track).events.name[k.event.index]) ==
            "flash_decode_fwd") {
            ++costed;
            EXPECT_EQ(k.cost, attnscope::CostSource::Exact);
            EXPECT_NEAR(k.flops / k.bytes, 8388608.0 / 4198400.0, 1e-9);
        }
    EXPECT_GT(costed, 0);
}

TEST(Cli, TheProgramLinksNoCudaLibrary) {
    // It must start where no NVIDIA driver or CUDA library is installed: CUDA lives in a plugin.
    FILE* p = popen((std::string("ldd ") + ATTNSCOPE_BINARY).c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string libs;
    std::array<char, 4096> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), p))
        libs.append(buf.data(), n);
    pclose(p);
    ASSERT_NE(libs.find("libc.so"), std::string::npos) << libs;
    for (const char* lib : {"libcuda.", "libcudart", "libcublas", "libcupti", "libQt6"})
        EXPECT_EQ(libs.find(lib), std::string::npos) << lib << " in\n" << libs;
}

// The summary's roofline section on AttnScope's own CPU run: per kernel name the rates and shares of
// the roofs its kernels were held to — never above 1 — and the verdict the window shows for that
// name (the analysis' NameClasses of the same document).
TEST(Cli, SummaryRooflineOfACpuRunStaysWithinItsRoofs) {
    TempDir dir;
    const std::string path = dir.path("run.json");
    ASSERT_EQ(
        run("run --backend cpu --heads 4 --seq 256 --dim 64 --warmup 0 --iters 2 --threads 2 -o " + path)
            .exitCode,
        0);
    const CliRun r = run("summary --format json " + path);
    ASSERT_EQ(r.exitCode, 0);
    const auto roofline = nlohmann::json::parse(r.out).at("files").at(0).at("roofline");
    EXPECT_NE(roofline.at("device").get<std::string>().find("CPU"), std::string::npos);
    EXPECT_GT(roofline.at("bandwidth_bytes_per_s").get<double>(), 0);
    const auto doc = attnscope::openDocument(attnscope::DocumentSource::file(path));
    const attnscope::NameClasses& classes = doc->analysis->tables.classes;
    const auto& kernels = roofline.at("kernels");
    ASSERT_EQ(kernels.size(), 4u); // naive's three kernels and flash's one
    for (const auto& k : kernels) {
        SCOPED_TRACE(k.dump());
        const attnscope::StringId name = doc->trace->strings().find(k.at("name").get<std::string>());
        ASSERT_TRUE(name.valid());
        // Every kernel of an own run has its exact cost: the name has shares unless each of its kernels
        // beat this machine's measured roof (data in cache), which leaves them without a verdict.
        std::size_t placed = 0;
        for (const attnscope::KernelAnalysis& ka : doc->analysis->kernels)
            if (doc->trace->track(ka.event.track).events.name[ka.event.index] == name)
                placed += ka.beyondRoof ? 0 : 1;
        if (placed == 0) {
            EXPECT_FALSE(k.contains("compute_share"));
            EXPECT_EQ(k.at("verdict"), "beyond roof");
            EXPECT_GE(roofline.at("beyond_roof").get<std::size_t>(), k.at("count").get<std::size_t>());
            continue;
        }
        ASSERT_TRUE(k.contains("compute_share"));
        EXPECT_GT(k.at("compute_share").get<double>(), 0);
        EXPECT_LE(k.at("compute_share").get<double>(), 1.0 + 1e-9);
        EXPECT_LE(k.at("memory_share").get<double>(), 1.0 + 1e-9);
        EXPECT_GT(k.at("flops").get<double>(), 0);
        // The name's shares are its placed kernels' shares averaged over their time (share = rate / roof).
        double weighted = 0, memoryWeighted = 0, ns = 0;
        for (const attnscope::KernelAnalysis& ka : doc->analysis->kernels) {
            const attnscope::Track& t = doc->trace->track(ka.event.track);
            if (t.events.name[ka.event.index] != name || ka.beyondRoof) continue;
            const double d = double(t.events.duration[ka.event.index]);
            weighted += ka.computeShare * d;
            memoryWeighted += ka.memoryShare * d;
            ns += d;
        }
        ASSERT_GT(ns, 0);
        EXPECT_NEAR(k.at("compute_share").get<double>(), weighted / ns, 1e-9);
        EXPECT_NEAR(k.at("memory_share").get<double>(), memoryWeighted / ns, 1e-9);
        EXPECT_EQ(attnscope::shortVerdictName(classes.verdict[name.value]),
                  k.at("verdict").get<std::string>());
    }
}

TEST(Cli, TheWindowsRunBackend) {
    const CliRun bad = run("--run-backend gpu", true);
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.out.find("cpu, cuda, torch or auto"), std::string::npos) << bad.out;
    const CliRun cuda = run("--run-backend cuda --seq 16", true);
    EXPECT_NE(cuda.exitCode, 0) << cuda.out; // "--seq" is not a window option: refused before any run
    const CliRun noDisplay = run("--run-backend cuda", true);
    if (attnscope::kernels::probeCuda().devices == 0) { // this machine: the CUDA run cannot start
        EXPECT_EQ(noDisplay.exitCode, 1) << noDisplay.out;
        EXPECT_NE(noDisplay.out.find("no CUDA device"), std::string::npos) << noDisplay.out;
    } else { // a machine with a GPU: the run happens there
        EXPECT_EQ(noDisplay.exitCode, 0) << noDisplay.out;
    }
}
