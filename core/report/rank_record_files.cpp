// SPDX-License-Identifier: MIT
// Rank records found in files and folders, and read from their JSON lines (rank_record.h).
#include "core/report/rank_record.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace attnscope {

std::vector<std::string> rankRecordFiles(const std::vector<std::string>& paths,
                                         std::vector<std::string>& problems) {
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        std::error_code error;
        if (!std::filesystem::is_directory(path, error)) {
            files.push_back(path);
            continue;
        }
        std::vector<std::string> found;
        for (const auto& entry : std::filesystem::directory_iterator(path, error))
            if (entry.is_regular_file() &&
                (entry.path().extension() == ".json" || entry.path().extension() == ".jsonl"))
                found.push_back(entry.path().string());
        if (error) problems.push_back(path + ": " + error.message());
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

bool readRankRecords(const std::string& path, std::vector<RankRecord>& records,
                     std::vector<std::string>& problems) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        problems.push_back(path + ": " + std::strerror(errno));
        return false;
    }
    std::string line;
    std::size_t number = 0;
    bool ok = true;
    const std::size_t before = records.size();
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            records.push_back(parseRankRecord(line, path + ":" + std::to_string(number)));
        } catch (const std::exception& e) {
            problems.push_back(e.what());
            ok = false;
            if (records.size() == before)
                break; // not a file of records (a trace?): said once, not a line each
        }
    }
    if (ok && records.size() == before) { // an empty file named as a record: said, not passed over
        problems.push_back(path + ": no rank record in it (empty)");
        return false;
    }
    return ok;
}

} // namespace attnscope
