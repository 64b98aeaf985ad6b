// SPDX-License-Identifier: MIT
#include "cli_job.h"

#include "cli.h"

#include "core/report/rank_record.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace attnscope::cli {

namespace {

// The records in a file: one per line (a map step's output is a file per rank, or one file of lines).
bool readRecords(const std::string& path, std::vector<RankRecord>& records) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "job: %s: cannot be read\n", path.c_str());
        return false;
    }
    std::string line;
    std::size_t number = 0;
    bool ok = true;
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            records.push_back(parseRankRecord(line, path + ":" + std::to_string(number)));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "job: %s\n", e.what());
            ok = false;
        }
    }
    return ok;
}

} // namespace

int jobVerb(int argc, char** argv) {
    std::vector<std::string> files;
    JobFormat format = JobFormat::Text;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--format" && i + 1 < argc) {
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
        } else if (arg == "--from" && i + 1 < argc) {
            const std::string dir = argv[++i];
            std::error_code error;
            std::vector<std::string> found;
            for (const auto& entry : std::filesystem::directory_iterator(dir, error))
                if (entry.is_regular_file() &&
                    (entry.path().extension() == ".json" || entry.path().extension() == ".jsonl"))
                    found.push_back(entry.path().string());
            if (error) {
                std::fprintf(stderr, "job: %s: %s\n", dir.c_str(), error.message().c_str());
                return kFileError;
            }
            if (found.empty()) {
                std::fprintf(stderr, "job: %s holds no records (*.json, *.jsonl)\n", dir.c_str());
                return kFileError;
            }
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (arg.rfind("--", 0) == 0) {
            std::fprintf(stderr, "job: unknown option '%s'\n", arg.c_str());
            return kUsage;
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "job: no records given (RECORDS... or --from DIR)\n");
        printUsage(argv[0]);
        return kUsage;
    }
    std::vector<RankRecord> records;
    int exitCode = kOk;
    for (const std::string& path : files)
        if (!readRecords(path, records)) exitCode = kFileError;
    JobReport report;
    try {
        report = jobReport(std::move(records));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "job: %s\n", e.what());
        return kFileError;
    }
    const std::string out = formatJobReport(report, format);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return exitCode;
}

} // namespace attnscope::cli
