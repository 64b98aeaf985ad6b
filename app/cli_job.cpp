// SPDX-License-Identifier: MIT
#include "cli.h"
#include "cli_options.h"

#include "core/report/job_report.h"
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

struct JobArgs {
    std::vector<std::string> files, from;
    JobFormat format = JobFormat::Text;
    bool map = false;
    MapOptions mapOptions;
};

// The records each folder holds (--from, or a folder given alone), after the files given; false (said) when
// a folder cannot be listed or holds none.
bool gatherRecords(JobArgs& a) {
    std::vector<std::string> files, folders = a.from;
    for (const std::string& f : a.files)
        (!a.map && std::filesystem::is_directory(f) ? folders : files).push_back(f);
    for (const std::string& dir : folders) {
        std::vector<std::string> problems;
        const std::vector<std::string> found = rankRecordFiles({dir}, problems);
        for (const std::string& p : problems)
            std::fprintf(stderr, "job: %s\n", p.c_str());
        if (!problems.empty()) return false;
        if (found.empty()) {
            std::fprintf(stderr, "job: %s holds no records (*.json, *.jsonl)\n", dir.c_str());
            return false;
        }
        files.insert(files.end(), found.begin(), found.end());
    }
    a.files = std::move(files);
    return true;
}

int job(JobArgs& a, const char* program) {
    if (!gatherRecords(a)) return kFileError;
    std::vector<std::string>& files = a.files;
    MapOptions& mapOptions = a.mapOptions;
    if (files.empty())
        return usageError("job", program,
                          a.map ? "--map needs the traces" : "no records given (RECORDS... or --from DIR)");
    std::optional<kernels::TempFolder> ownRecords;
    if (a.map) {
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
    const std::string out = formatJobReport(report, a.format);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return report.failed.empty() ? exitCode : kFileError; // listed, and said by the status too
}

} // namespace

Verb verbJob() {
    return {
        "job",
        "a job of many ranks from its ranks' records (summary TRACE --format rank, one per rank, made where "
        "the traces lie): the spread, the slow ranks, the straggler, findings across ranks",
        "Also `attnscope --job DIR`: the records in the Job window.\n"
        "A rank whose trace could not be read is listed with its error; two records of one rank are "
        "refused.\n",
        [](CLI::App& app, const char* program) -> VerbRun {
            auto a = std::make_shared<JobArgs>();
            MapOptions& m = a->mapOptions;
            m.python = kernels::pythonToRun();
            app.add_option("RECORDS", a->files, "rank records, folders of them, or with --map the traces")
                ->type_name("RECORDS...|DIR");
            app.add_option("--from", a->from,
                           "every *.json and *.jsonl record there (a folder given alone: the same)")
                ->type_name("DIR")
                ->allow_extra_args(false);
            formatOption(app, a->format,
                         {{"text", JobFormat::Text},
                          {"json", JobFormat::Json},
                          {"csv", JobFormat::Csv},
                          {"markdown", JobFormat::Markdown}},
                         "text (default), json, csv or markdown");
            app.add_flag("--map", a->map,
                         "make the records first from the traces given, on Dask (docs/JOBS.md): a local\n"
                         "cluster of --workers N processes or the scheduler at --scheduler ADDR");
            app.add_option("--workers", m.workers, "the local cluster's processes (default: one per core)")
                ->type_name("N");
            app.add_option("--scheduler", m.scheduler,
                           "a cluster's scheduler (tcp://host:8786; AttnScope installed on its workers,\n"
                           "the traces at the same paths)")
                ->type_name("ADDR");
            app.add_option("--records", m.records, "keep the records there (a file a batch)")
                ->type_name("DIR");
            app.add_option("--parquet", m.parquet, "also the records as one table")->type_name("FILE");
            app.add_option("--python", m.python,
                           "the Python with dask[distributed] (default: ATTNSCOPE_PYTHON, else the\n"
                           "torch-venv `make test` made beside attnscope, else python3; the job says which)")
                ->type_name("PY");
            app.add_option("--batch", m.batch,
                           "traces a task (default: a few tasks a worker, at most 64 traces each)")
                ->type_name("N");
            app.add_option("--threads", m.threads, "threads a summary reads with (default 1)")
                ->type_name("N");
            app.add_option("--attnscope", m.attnscope,
                           "the workers' attnscope (default: this one, or a cluster's on PATH)")
                ->type_name("PATH");
            return [a, program] { return job(*a, program); };
        }};
}

} // namespace attnscope::cli
