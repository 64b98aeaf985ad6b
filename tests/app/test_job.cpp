// SPDX-License-Identifier: MIT
// `attnscope job --map` on the engine (Dask's local cluster, worker processes, the Python of `make test`):
// hundreds of generated ranks and the DLRM fixtures' two, a broken rank among them; the job's report agrees
// with `summary --ranks` on the ranks both open.
#include "cli_test_support.h"

#include <filesystem>
#include <set>
#include <string>

using namespace attnscope;
using namespace attnscope::test;

namespace {

const std::string kPython = ATTNSCOPE_TORCH_PYTHON;

// A small rank of a data-parallel job: a few compute kernels and an all-reduce per step; rank `slow`
// computes 60% longer, so the others wait for it at each all-reduce.
std::string rankTrace(int rank, int slow) {
    std::string events;
    const int scale = rank == slow ? 160 : 100 + rank % 3;
    long t = 1000;
    for (int step = 0; step < 4; ++step) {
        for (int k = 0; k < 3; ++k) {
            const long dur = 10L * scale + 7L * k;
            events += R"({"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16","pid":0,"tid":7,"ts":)" +
                      std::to_string(t) + R"(,"dur":)" + std::to_string(dur) + "},";
            t += dur + 5;
        }
        const long arrive = t;
        t = 1000 + (step + 1) * 3 * 10L * 165 + (step + 1) * 400; // all leave the all-reduce together
        events +=
            R"({"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL","pid":0,"tid":9,"ts":)" +
            std::to_string(arrive) + R"(,"dur":)" + std::to_string(t - arrive) + "},";
        t += 10;
    }
    events.pop_back();
    return R"({"distributedInfo":{"rank":)" + std::to_string(rank) +
           R"(,"world_size":300,"backend":"nccl"},"traceEvents":[)" + events + "]}";
}

} // namespace

TEST(Job, TheEngineMapsHundredsOfRanksAndTheReportAgreesWithSummaryRanks) {
    ASSERT_TRUE(std::filesystem::exists(kPython))
        << "no Python with Dask at " << kPython << " (make test makes it)";
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    TempDir dir;
    std::string generated, all;
    const int ranks = 240, slow = 117;
    for (int r = 2; r < ranks; ++r) {
        const std::string path = dir.path("rank" + std::to_string(r) + ".json");
        writeFile(path, rankTrace(r, slow));
        generated += " " + path;
    }
    writeFile(dir.path("broken.json"), "a note, not a trace"); // its place among the files: rank 240
    const CliRun map = run("job --map " + r0 + " " + r1 + generated + " " + dir.path("broken.json") +
                               " --workers 2 --python " + kPython + " --format json --records " +
                               dir.path("records") + " --parquet " + dir.path("job.parquet"),
                           false, "XDG_CACHE_HOME=" + dir.path("cache"));
    ASSERT_EQ(map.exitCode, 1) << "a rank could not be read: " << map.out;
    const auto job = nlohmann::json::parse(map.out);
    ASSERT_EQ(job.at("ranks").size(), std::size_t(ranks));
    ASSERT_EQ(job.at("failed").size(), 1u);
    EXPECT_NE(job.at("failed").at(0).at("path").get<std::string>().find("broken.json"), std::string::npos);
    EXPECT_EQ(job.at("failed").at(0).at("rank"), ranks);
    EXPECT_FALSE(job.at("failed").at(0).at("error").get<std::string>().empty());
    // The slow rank is found for itself, and the others wait for it at each all-reduce.
    ASSERT_EQ(job.at("slow_ranks").size(), 1u) << job.at("slow_ranks").dump();
    EXPECT_EQ(job.at("slow_ranks").at(0).at("rank"), slow);
    // The records: one file a batch, a record a rank, in the folder asked for; Parquet beside them.
    std::set<std::int64_t> seen;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path("records"))) {
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line))
            EXPECT_TRUE(seen.insert(nlohmann::json::parse(line).at("rank").get<std::int64_t>()).second);
    }
    EXPECT_EQ(seen.size(), std::size_t(ranks + 1));
    EXPECT_GT(std::filesystem::file_size(dir.path("job.parquet")), 0u);
    // The same as summary --ranks, rank by rank (DLRM's two among the generated: no collective matches
    // across them all, so the waits are compared on the generated ranks alone below).
    const auto whole =
        nlohmann::json::parse(run("summary --ranks --format json " + r0 + " " + r1 + generated).out);
    ASSERT_EQ(whole.at("ranks").size(), std::size_t(ranks));
    for (std::size_t k = 0; k < std::size_t(ranks); ++k)
        for (const char* key : {"rank", "kernels", "gpu_busy_ns", "compute_busy_ns", "communication_ns",
                                "collective_wait_ns", "span_ns"})
            ASSERT_EQ(job.at("ranks").at(k).at(key), whole.at("ranks").at(k).at(key))
                << key << " of rank " << k;
    EXPECT_EQ(job.at("slowest_rank"), whole.at("slowest_rank"));
    const CliRun generatedOnly =
        run("job --map" + generated + " --workers 2 --python " + kPython + " --format json", false,
            "XDG_CACHE_HOME=" + dir.path("cache"));
    ASSERT_EQ(generatedOnly.exitCode, 0) << generatedOnly.out;
    const auto g = nlohmann::json::parse(generatedOnly.out);
    const auto gWhole = nlohmann::json::parse(run("summary --ranks --format json" + generated).out);
    EXPECT_EQ(g.at("collectives").at("matched"), 4);
    EXPECT_EQ(g.at("collectives"), gWhole.at("collectives"));
    EXPECT_EQ(g.at("collectives").at("straggler_rank"), slow);
    for (std::size_t k = 0; k < g.at("ranks").size(); ++k)
        ASSERT_EQ(g.at("ranks").at(k).at("collective_wait_ns"),
                  gWhole.at("ranks").at(k).at("collective_wait_ns"));
}

TEST(Job, WithoutDaskTheMapSaysWhatIsMissing) {
    TempDir dir;
    writeFile(dir.path("rank0.json"), rankTrace(0, -1));
    // A Python without its site packages: no Dask whatever this machine has installed.
    writeFile(dir.path("python"), "#!/bin/sh\nexec python3 -S \"$@\"\n");
    std::filesystem::permissions(dir.path("python"), std::filesystem::perms::owner_all);
    const CliRun map = run("job --map " + dir.path("rank0.json") + " --python " + dir.path("python"), true);
    EXPECT_EQ(map.exitCode, 1);
    EXPECT_NE(map.out.find("no dask.distributed"), std::string::npos) << map.out;
    const CliRun noPython = run("job --map " + dir.path("rank0.json") + " --python /no/such/python", true);
    EXPECT_EQ(noPython.exitCode, 1);
    EXPECT_NE(noPython.out.find("cannot start"), std::string::npos) << noPython.out;
}
