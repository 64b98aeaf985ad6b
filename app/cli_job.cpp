// SPDX-License-Identifier: MIT
#include "cli_job.h"

#include "cli.h"

#include "core/report/rank_record.h"
#include "kernels/run_session.h"
#include "kernels/temp_folder.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace attnscope::cli {

namespace {

struct MapOptions {
    std::vector<std::string> traces;
    std::string python, scheduler, records, parquet, attnscope;
    std::size_t workers = 0, batch = 0, threads = 1;
};

// This program as the workers of a local cluster run it; a real cluster's run the attnscope on their PATH
// (the package's) unless told.
std::string thisProgram() {
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string("attnscope") : self.string();
}

// Runs the engine's map (resources/job_map.py) on the traces; the records land in options.records. The
// engine's own line (what ran where) is said on stderr. False when it could not run or failed.
bool runMap(const MapOptions& options) {
    kernels::TempFolder folder("attnscope-job");
    if (folder.path().empty()) {
        std::fprintf(stderr, "job: no temporary folder: %s\n", std::strerror(errno));
        return false;
    }
    const std::string script = folder.path() + "/job_map.py", said = folder.path() + "/engine.json";
    {
        std::ofstream out(script, std::ios::binary);
        out << jobMapScript();
        if (!out) {
            std::fprintf(stderr, "job: %s cannot be written\n", script.c_str());
            return false;
        }
    }
    std::vector<std::string> args = {options.python,
                                     script,
                                     "--attnscope",
                                     options.attnscope.empty()
                                         ? (options.scheduler.empty() ? thisProgram() : "attnscope")
                                         : options.attnscope,
                                     "--records",
                                     options.records,
                                     "--threads",
                                     std::to_string(options.threads)};
    auto add = [&](const char* name, const std::string& value) {
        if (value.empty() || value == "0") return;
        args.push_back(name);
        args.push_back(value);
    };
    add("--scheduler", options.scheduler);
    add("--workers", std::to_string(options.workers));
    add("--batch", std::to_string(options.batch));
    add("--parquet", options.parquet);
    args.push_back("--");
    args.insert(args.end(), options.traces.begin(), options.traces.end());
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, said.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    std::fprintf(stderr, "job: mapping with %s\n", options.python.c_str()); // which Python, said once
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        std::fprintf(stderr, "job: %s cannot start: %s (--python names the Python with Dask)\n",
                     options.python.c_str(), std::strerror(spawned));
        return false;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 3) // 3: it said what is missing
            std::fprintf(stderr, "job: the engine's map ended with status %d\n",
                         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return false;
    }
    std::ifstream in(said);
    std::string line;
    if (std::getline(in, line)) std::fprintf(stderr, "attnscope: the engine's map: %s\n", line.c_str());
    return true;
}

} // namespace

int jobVerb(int argc, char** argv) {
    std::vector<std::string> files;
    JobFormat format = JobFormat::Text;
    bool map = false;
    MapOptions mapOptions;
    mapOptions.python = kernels::pythonToRun();
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--map") {
            map = true;
        } else if ((arg == "--python" || arg == "--scheduler" || arg == "--records" || arg == "--parquet" ||
                    arg == "--attnscope") &&
                   i + 1 < argc) {
            std::string& value = arg == "--python"      ? mapOptions.python
                                 : arg == "--scheduler" ? mapOptions.scheduler
                                 : arg == "--records"   ? mapOptions.records
                                 : arg == "--parquet"   ? mapOptions.parquet
                                                        : mapOptions.attnscope;
            value = argv[++i];
        } else if ((arg == "--workers" || arg == "--batch" || arg == "--threads") && i + 1 < argc) {
            std::size_t& value = arg == "--workers" ? mapOptions.workers
                                 : arg == "--batch" ? mapOptions.batch
                                                    : mapOptions.threads;
            char* end = nullptr;
            const std::string text = argv[++i];
            value = std::strtoull(text.c_str(), &end, 10);
            if (text.empty() || *end || text[0] == '-') {
                std::fprintf(stderr, "job: %s needs a number, got '%s'\n", arg.c_str(), text.c_str());
                return kUsage;
            }
        } else if (arg == "--format" && i + 1 < argc) {
            const std::string f = argv[++i];
            if (f == "text")
                format = JobFormat::Text;
            else if (f == "json")
                format = JobFormat::Json;
            else if (f == "csv")
                format = JobFormat::Csv;
            else if (f == "markdown")
                format = JobFormat::Markdown;
            else {
                std::fprintf(stderr, "job: unknown format '%s' (text, json, csv or markdown)\n", f.c_str());
                return kUsage;
            }
        } else if ((arg == "--from" && i + 1 < argc) || (!map && std::filesystem::is_directory(arg))) {
            const std::string dir = arg == "--from" ? argv[++i] : arg;
            std::vector<std::string> problems;
            const std::vector<std::string> found = rankRecordFiles({dir}, problems);
            for (const std::string& p : problems)
                std::fprintf(stderr, "job: %s\n", p.c_str());
            if (!problems.empty()) return kFileError;
            if (found.empty()) {
                std::fprintf(stderr, "job: %s holds no records (*.json, *.jsonl)\n", dir.c_str());
                return kFileError;
            }
            files.insert(files.end(), found.begin(), found.end());
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "job: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, map ? "job: --map needs the traces\n"
                                 : "job: no records given (RECORDS... or --from DIR)\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::optional<kernels::TempFolder> ownRecords;
    if (map) {
        mapOptions.traces = std::move(files);
        if (mapOptions.records.empty()) {
            ownRecords.emplace("attnscope-records");
            mapOptions.records = ownRecords->path();
        }
        if (!runMap(mapOptions)) return kFileError;
        std::vector<std::string> problems;
        files = rankRecordFiles({mapOptions.records}, problems);
    }
    std::vector<RankRecord> records;
    std::vector<std::string> problems;
    int exitCode = kOk;
    for (const std::string& path : files)
        if (!readRankRecords(path, records, problems)) exitCode = kFileError;
    for (const std::string& p : problems)
        std::fprintf(stderr, "job: %s\n", p.c_str());
    if (records.empty()) {
        std::fprintf(stderr, "job: no rank record in %s\n",
                     files.size() == 1 ? files.front().c_str() : "the files given");
        return kFileError;
    }
    JobReport report;
    try {
        report = jobReport(std::move(records));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "job: %s\n", e.what());
        return kFileError;
    }
    for (const RankRecord& r : report.failed) // named here too: the table's last rows may be far down
        std::fprintf(stderr, "job: rank %lld, %s: %s\n", static_cast<long long>(r.stats.rank), r.path.c_str(),
                     r.error.c_str());
    const std::string out = formatJobReport(report, format);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return report.failed.empty() ? exitCode : kFileError; // listed, and said by the status too
}

} // namespace attnscope::cli
