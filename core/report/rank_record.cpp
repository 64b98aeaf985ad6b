// SPDX-License-Identifier: MIT
#include "core/report/rank_record.h"

#include "core/report/format.h"
#include "core/report/job_findings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace attnscope {

namespace {

using Json = nlohmann::ordered_json;

std::vector<std::int64_t> profilerSteps(const Trace& t) {
    constexpr std::string_view kStep = "ProfilerStep#";
    std::vector<std::int8_t> isStep(t.strings().size(), -1);
    std::vector<std::int64_t> steps;
    for (const Track& track : t.tracks()) {
        if (track.kind != TrackKind::CpuThread) continue;
        for (std::size_t i = 0; i < track.size(); ++i) {
            const StringId name = track.events.name[i];
            std::int8_t& s = isStep[name.value];
            if (s < 0) s = t.str(name).starts_with(kStep);
            if (!s) continue;
            const std::string_view text = t.str(name).substr(kStep.size());
            std::int64_t n = 0;
            bool digits = !text.empty();
            for (char c : text) {
                digits = digits && c >= '0' && c <= '9';
                n = n * 10 + (c - '0');
            }
            if (digits) steps.push_back(n);
        }
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    return steps;
}

Severity severityOf(const std::string& name, const std::string& source) {
    if (const std::optional<Severity> s = severityNamed(name)) return *s;
    throw std::runtime_error(source + ": unknown severity '" + name + "'");
}

} // namespace

std::string slowRankRule() {
    return "beyond the median by " + formatNumber(kSlowRankMads) + " median absolute deviations";
}

RankRecord rankRecord(const std::shared_ptr<const Trace>& trace, const TraceSummary& s, std::string path,
                      std::size_t position, std::size_t topKernels) {
    const Trace& t = *trace;
    RankRecord r;
    r.path = std::move(path);
    r.worldSize = t.distributed().worldSize;
    r.steps = profilerSteps(t);
    r.startNs = t.startNs();
    r.stats = measureRank({r.path, trace}, position, &r.collectives);
    r.warnings = s.warnings;
    r.roles = s.roles;
    for (const AttentionImplStats& a : s.attention)
        r.attention.push_back({a.impl, a.calls, a.totalNs, a.kernelNs});
    for (const Finding& f : s.findings)
        r.findings.push_back({f.id, f.severity, f.title, f.timeNs, f.share});
    for (std::size_t i = 0; i < s.topKernels.size() && i < topKernels; ++i)
        r.topKernels.push_back({s.topKernels[i].name, s.topKernels[i].count, s.topKernels[i].totalNs});
    return r;
}

RankRecord failedRankRecord(std::string path, std::string error, std::int64_t rank) {
    RankRecord r;
    r.path = std::move(path);
    r.error = std::move(error);
    r.stats.rank = rank;
    r.stats.path = r.path;
    return r;
}

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
    return ok;
}

std::string rankRecordJson(const RankRecord& r) {
    Json j;
    j["attnscope_rank_record"] = kRankRecordVersion;
    j["path"] = r.path;
    j["rank"] = r.stats.rank;
    if (!r.error.empty()) {
        j["error"] = r.error;
        return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    j["world_size"] = r.worldSize ? Json(*r.worldSize) : Json(nullptr);
    j["warnings"] = r.warnings;
    j["steps"] = r.steps;
    j["start_ns"] = r.startNs;
    j["span_ns"] = r.stats.spanNs;
    j["kernels"] = r.stats.kernels;
    j["kernel_ns"] = r.stats.kernelNs;
    j["gpu_busy_ns"] = r.stats.gpuBusyNs;
    j["compute_busy_ns"] = r.stats.computeBusyNs;
    j["communication_ns"] = r.stats.commNs;
    Json roles = Json::array();
    for (const RoleStats& s : r.roles)
        roles.push_back({{"role", s.role}, {"kernels", s.count}, {"ns", s.totalNs}});
    j["roles"] = roles;
    Json attention = Json::array();
    for (const RecordImpl& a : r.attention)
        attention.push_back(
            {{"impl", a.impl}, {"calls", a.calls}, {"ns", a.totalNs}, {"kernel_ns", a.kernelNs}});
    j["attention"] = attention;
    Json findings = Json::array();
    for (const RecordFinding& f : r.findings)
        findings.push_back({{"id", f.id},
                            {"severity", severityName(f.severity)},
                            {"title", f.title},
                            {"time_ns", f.timeNs},
                            {"share", f.share}});
    j["findings"] = findings;
    Json kernels = Json::array();
    for (const RecordKernel& k : r.topKernels)
        kernels.push_back({{"name", k.name}, {"count", k.count}, {"ns", k.totalNs}});
    j["top_kernels"] = kernels;
    Json arrivals = Json::array();
    for (const RankCollectives::Arrival& a : r.collectives.arrivals)
        arrivals.push_back({a.name, a.start, a.duration});
    j["collectives"] = {{"names", r.collectives.names}, {"arrivals", arrivals}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

RankRecord parseRankRecord(std::string_view text, const std::string& source) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() && text.substr(0, 25) == R"({"attnscope_rank_record":)")
        throw std::runtime_error(source + ": a rank record cut short or broken (not valid JSON)");
    if (j.is_discarded() || !j.is_object() || !j.contains("attnscope_rank_record"))
        throw std::runtime_error(source +
                                 ": not a rank record (make one with attnscope summary TRACE --format rank)");
    if (!j["attnscope_rank_record"].is_number_integer() ||
        j["attnscope_rank_record"].get<int>() != kRankRecordVersion)
        throw std::runtime_error(source + ": a rank record of version " + j["attnscope_rank_record"].dump() +
                                 "; this AttnScope reads version " + std::to_string(kRankRecordVersion));
    RankRecord r;
    r.source = source;
    try {
        r.path = j.at("path").get<std::string>();
        r.stats.path = r.path;
        r.stats.rank = j.at("rank").get<std::int64_t>();
        if (j.contains("error")) {
            r.error = j["error"].get<std::string>();
            return r;
        }
        if (!j.at("world_size").is_null()) r.worldSize = j["world_size"].get<std::int64_t>();
        r.steps = j.at("steps").get<std::vector<std::int64_t>>();
        if (j.contains("warnings")) r.warnings = j["warnings"].get<std::vector<std::string>>();
        r.startNs = j.at("start_ns").get<TimeNs>();
        r.stats.spanNs = j.at("span_ns").get<TimeNs>();
        r.stats.kernels = j.at("kernels").get<std::uint64_t>();
        r.stats.kernelNs = j.at("kernel_ns").get<TimeNs>();
        r.stats.gpuBusyNs = j.at("gpu_busy_ns").get<TimeNs>();
        r.stats.computeBusyNs = j.at("compute_busy_ns").get<TimeNs>();
        r.stats.commNs = j.at("communication_ns").get<TimeNs>();
        for (const auto& s : j.at("roles"))
            r.roles.push_back({s.at("role").get<std::string>(), s.at("kernels").get<std::uint64_t>(),
                               s.at("ns").get<TimeNs>()});
        for (const auto& a : j.at("attention"))
            r.attention.push_back({a.at("impl").get<std::string>(), a.at("calls").get<std::uint64_t>(),
                                   a.at("ns").get<TimeNs>(), a.at("kernel_ns").get<TimeNs>()});
        for (const auto& f : j.at("findings"))
            r.findings.push_back({f.at("id").get<std::string>(),
                                  severityOf(f.at("severity").get<std::string>(), source),
                                  f.at("title").get<std::string>(), f.at("time_ns").get<TimeNs>(),
                                  f.at("share").get<double>()});
        for (const auto& k : j.at("top_kernels"))
            r.topKernels.push_back({k.at("name").get<std::string>(), k.at("count").get<std::uint64_t>(),
                                    k.at("ns").get<TimeNs>()});
        const auto& c = j.at("collectives");
        r.collectives.names = c.at("names").get<std::vector<std::string>>();
        for (const auto& a : c.at("arrivals")) {
            const auto name = a.at(0).get<std::uint32_t>();
            if (name >= r.collectives.names.size())
                throw std::runtime_error("a collective names kernel " + std::to_string(name) + " of " +
                                         std::to_string(r.collectives.names.size()));
            r.collectives.arrivals.push_back({name, a.at(1).get<TimeNs>(), a.at(2).get<TimeNs>()});
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(source + ": a broken rank record: " + e.what());
    } catch (const std::runtime_error& e) {
        if (std::string_view(e.what()).starts_with(source)) throw;
        throw std::runtime_error(source + ": a broken rank record: " + e.what());
    }
    return r;
}

TimeNs attentionNs(const RankRecord& r) {
    TimeNs ns = 0;
    for (const RecordImpl& a : r.attention)
        ns += a.totalNs;
    return ns;
}

double communicationShare(const RankStats& s) {
    return s.gpuBusyNs ? double(s.commNs) / double(s.gpuBusyNs) : 0;
}

const std::vector<JobMeasure>& jobMeasures() {
    static const std::vector<JobMeasure> measures = {
        {"GPU busy", "gpu_busy", [](const RankRecord& r) { return r.stats.gpuBusyNs; }},
        {"compute busy", "compute_busy", [](const RankRecord& r) { return r.stats.computeBusyNs; }},
        {"communication", "communication", [](const RankRecord& r) { return r.stats.commNs; }},
        {"collective wait", "collective_wait", [](const RankRecord& r) { return r.stats.waitNs; }},
        {"attention", "attention", attentionNs},
    };
    return measures;
}

const Spread& JobReport::spread(std::string_view key) const {
    const auto& measures = jobMeasures();
    for (std::size_t i = 0; i < measures.size() && i < spreads.size(); ++i)
        if (key == measures[i].key) return spreads[i];
    throw std::out_of_range("no job measure " + std::string(key));
}

namespace {

double percentileOf(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double at = p * double(v.size() - 1);
    const std::size_t lo = std::size_t(std::floor(at)), hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

Spread spreadOf(const std::vector<RankRecord>& records, TimeNs (*value)(const RankRecord&)) {
    Spread s;
    std::vector<double> v;
    for (const RankRecord& r : records) {
        const double x = double(value(r));
        v.push_back(x);
        if (s.maxRank < 0 || x > s.max) {
            s.max = x;
            s.maxRank = r.stats.rank;
        }
    }
    s.median = percentileOf(v, 0.5);
    s.p90 = percentileOf(v, 0.9);
    return s;
}

std::string recordName(const RankRecord& r) {
    return r.source.empty() ? r.path : r.source;
}

} // namespace

JobReport jobReport(std::vector<RankRecord> records) {
    JobReport job;
    std::map<std::int64_t, const RankRecord*> seen;
    for (const RankRecord& r : records) {
        const auto [it, added] = seen.emplace(r.stats.rank, &r);
        if (!added)
            throw std::invalid_argument("rank " + std::to_string(r.stats.rank) +
                                        " twice: " + recordName(*it->second) + " and " + recordName(r));
    }
    std::vector<RankRecord> read;
    for (RankRecord& r : records)
        (r.error.empty() ? read : job.failed).push_back(std::move(r));
    std::sort(read.begin(), read.end(),
              [](const RankRecord& a, const RankRecord& b) { return a.stats.rank < b.stats.rank; });
    std::sort(job.failed.begin(), job.failed.end(), [](const RankRecord& a, const RankRecord& b) {
        return a.stats.rank != b.stats.rank ? a.stats.rank < b.stats.rank : a.path < b.path;
    });
    std::vector<RankStats> stats;
    std::vector<RankCollectives> collectives;
    for (const RankRecord& r : read) {
        stats.push_back(r.stats);
        collectives.push_back(r.collectives);
    }
    job.ranks = reduceRanks(std::move(stats), collectives);
    for (std::size_t k = 0; k < read.size(); ++k)
        read[k].stats = job.ranks.ranks[k]; // with their waits (both by rank)
    job.records = std::move(read);
    for (const JobMeasure& m : jobMeasures())
        job.spreads.push_back(spreadOf(job.records, m.value));
    // Slow for themselves: beyond the median by kSlowRankMads scaled MADs, and by kSlowRankMinExcess of it.
    if (job.records.size() >= 3) {
        const double median = job.spread("compute_busy").median;
        std::vector<double> deviations;
        for (const RankRecord& r : job.records)
            deviations.push_back(std::fabs(double(r.stats.computeBusyNs) - median));
        const double mad = 1.4826 * percentileOf(deviations, 0.5);
        for (const RankRecord& r : job.records) {
            const double x = double(r.stats.computeBusyNs);
            if (median > 0 && x > median + std::max(kSlowRankMads * mad, kSlowRankMinExcess * median))
                job.slowRanks.push_back({r.stats.rank, r.stats.computeBusyNs, x / median});
        }
        std::sort(job.slowRanks.begin(), job.slowRanks.end(),
                  [](const SlowRank& a, const SlowRank& b) { return a.computeBusyNs > b.computeBusyNs; });
    }
    std::optional<std::int64_t> world;
    bool oneWorld = true;
    for (const RankRecord& r : job.records) {
        if (!r.warnings.empty()) job.warned.push_back(r.stats.rank);
        if (r.worldSize) {
            oneWorld = oneWorld && (!world || *world == *r.worldSize);
            world = r.worldSize;
        }
    }
    if (oneWorld) job.worldSize = world;
    job.findings = jobFindings(job.records, job.ranks);
    return job;
}

namespace {

std::string jobJson(const JobReport& job) {
    Json out;
    out["ranks_read"] = job.records.size();
    Json ranks = Json::array();
    for (const RankRecord& r : job.records) {
        const RankStats& s = r.stats;
        ranks.push_back({{"rank", s.rank},
                         {"path", r.path},
                         {"steps", r.steps},
                         {"span_ns", s.spanNs},
                         {"kernels", s.kernels},
                         {"kernel_ns", s.kernelNs},
                         {"gpu_busy_ns", s.gpuBusyNs},
                         {"compute_busy_ns", s.computeBusyNs},
                         {"communication_ns", s.commNs},
                         {"communication_share", communicationShare(s)},
                         {"collective_wait_ns", s.waitNs},
                         {"last_arrivals", s.lastArrivals},
                         {"attention_ns", attentionNs(r)},
                         {"findings", r.findings.size()}});
    }
    out["ranks"] = ranks;
    Json failed = Json::array();
    for (const RankRecord& r : job.failed)
        failed.push_back({{"rank", r.stats.rank}, {"path", r.path}, {"error", r.error}});
    out["failed"] = failed;
    Json spreads = Json::object();
    for (std::size_t i = 0; i < job.spreads.size(); ++i) {
        const Spread& s = job.spreads[i];
        spreads[jobMeasures()[i].key] = {
            {"median_ns", s.median}, {"p90_ns", s.p90}, {"max_ns", s.max}, {"max_rank", s.maxRank}};
    }
    out["spread"] = spreads;
    Json slow = Json::array();
    for (const SlowRank& s : job.slowRanks)
        slow.push_back(
            {{"rank", s.rank}, {"compute_busy_ns", s.computeBusyNs}, {"over_median", s.overMedian}});
    out["slow_ranks"] = slow;
    out["collectives"] = {{"matched", job.ranks.collectives},
                          {"straggler_rank", job.ranks.stragglerRank},
                          {"ranks_without", job.ranks.withoutCollectives}};
    out["ranks_with_warnings"] = job.warned;
    out["world_size"] = job.worldSize ? Json(*job.worldSize) : Json(nullptr);
    out["slowest_rank"] = job.ranks.slowestRank;
    Json findings = Json::array();
    for (const JobFinding& f : job.findings)
        findings.push_back(
            {{"id", f.id},
             {"severity", severityName(f.severity)},
             {"title", f.title},
             {"ranks", f.ranks},
             {"title_rank", f.titleRank},
             {"total_ns", f.totalNs},
             {"time_ns", f.meanNs}, // the time at stake: the mean per rank, as summary --ranks says it
             {"share", f.share},
             {"max_ns", f.maxNs},
             {"max_rank", f.maxRank}});
    out["findings"] = findings;
    return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace

std::string formatJobReport(const JobReport& job, JobFormat format) {
    if (format == JobFormat::Json) return jobJson(job);
    std::ostringstream out;
    if (format == JobFormat::Csv) {
        out << "rank,path,span_ns,kernels,gpu_busy_ns,compute_busy_ns,communication_ns,communication_share,"
               "collective_wait_ns,attention_ns,findings,error\n";
        for (const RankRecord& r : job.records) {
            const RankStats& s = r.stats;
            out << s.rank << ',' << csvField(r.path) << ',' << s.spanNs << ',' << s.kernels << ','
                << s.gpuBusyNs << ',' << s.computeBusyNs << ',' << s.commNs << ',' << communicationShare(s)
                << ',' << s.waitNs << ',' << attentionNs(r) << ',' << r.findings.size() << ",\n";
        }
        for (const RankRecord& r : job.failed)
            out << r.stats.rank << ',' << csvField(r.path) << ",,,,,,,,,," << csvField(r.error) << '\n';
        return out.str();
    }
    const bool md = format == JobFormat::Markdown;
    const std::size_t n = job.records.size();
    out << (md ? "## " : "") << "Job: " << n << (n == 1 ? " rank" : " ranks") << " read";
    if (!job.failed.empty()) out << ", " << job.failed.size() << " could not be";
    out << "\n\n";
    if (md) out << "| measure | median | p90 | max (rank) |\n|---|---:|---:|---:|\n";
    auto spreadLine = [&](const char* what, const Spread& s) {
        char line[256];
        if (md)
            std::snprintf(line, sizeof line, "| %s | %s | %s | %s (%lld) |\n", what,
                          formatDuration(TimeNs(s.median)).c_str(), formatDuration(TimeNs(s.p90)).c_str(),
                          formatDuration(TimeNs(s.max)).c_str(), static_cast<long long>(s.maxRank));
        else
            std::snprintf(line, sizeof line, "%-18s median %12s   p90 %12s   max %12s (rank %lld)\n", what,
                          formatDuration(TimeNs(s.median)).c_str(), formatDuration(TimeNs(s.p90)).c_str(),
                          formatDuration(TimeNs(s.max)).c_str(), static_cast<long long>(s.maxRank));
        out << line;
    };
    if (n) {
        for (std::size_t i = 0; i < job.spreads.size(); ++i)
            spreadLine(jobMeasures()[i].name, job.spreads[i]);
        out << '\n';
    }
    if (!job.slowRanks.empty()) {
        out << (md ? "**Slow ranks**" : "slow ranks") << " (compute busy " << slowRankRule() << "):";
        for (const SlowRank& s : job.slowRanks)
            out << ' ' << s.rank << " (" << formatRatio(s.overMedian) << ')';
        out << "\n";
    } else if (n >= 3) {
        out << "slow ranks: none " << slowRankRule() << "\n";
    }
    if (job.ranks.collectives)
        out << "collectives: " << job.ranks.stragglerSentence() << "\n";
    else if (n > 1)
        out << "collectives: none matched on every rank\n";
    if (!job.ranks.withoutCollectives.empty())
        out << "ranks without a communication kernel, left out of the collectives: "
            << rankList(job.ranks.withoutCollectives) << "\n";
    if (!job.warned.empty()) {
        out << "ranks whose trace was read with warnings: " << rankList(job.warned) << "\n";
        for (const RankRecord& r : job.records)
            if (!r.warnings.empty()) {
                out << "  rank " << r.stats.rank << ": " << r.warnings.front() << "\n";
                break;
            }
    }
    if (job.worldSize && std::int64_t(n + job.failed.size()) < *job.worldSize)
        out << "world size " << *job.worldSize << ": "
            << (*job.worldSize - std::int64_t(n + job.failed.size())) << " ranks have no record\n";
    if (!job.findings.empty()) {
        out << '\n'
            << (md ? "| finding | severity | at stake per rank | share of the job's span | ranks | most "
                     "(rank) "
                     "|\n|---|---|---:|---:|---|---:|\n"
                   : "findings of the job (each rank's rules on its own trace, put together; the straggler's "
                     "over the ranks):\n");
        for (const JobFinding& f : job.findings) {
            const std::string severity(severityName(f.severity));
            char line[640];
            if (md)
                std::snprintf(line, sizeof line, "| %s | %s | %s | %s | %s | %s (%lld) |\n", f.title.c_str(),
                              severity.c_str(), formatDuration(f.meanNs).c_str(),
                              formatPercent(f.share).c_str(), rankList(f.ranks).c_str(),
                              formatDuration(f.maxNs).c_str(), static_cast<long long>(f.maxRank));
            else
                std::snprintf(line, sizeof line,
                              "  %-8s %12s %7s  %s  [%s]\n           on %zu of %zu %s: %s; most %s on rank "
                              "%lld\n",
                              severity.c_str(), formatDuration(f.meanNs).c_str(),
                              formatPercent(f.share).c_str(), f.title.c_str(), f.id.c_str(), f.ranks.size(),
                              n, n == 1 ? "rank" : "ranks", rankList(f.ranks).c_str(),
                              formatDuration(f.maxNs).c_str(), static_cast<long long>(f.maxRank));
            out << line;
        }
    }
    out << '\n'
        << (md ? "| rank | GPU busy | compute busy | communication | comm share | waited | attention | file "
                 "|\n"
                 "|---:|---:|---:|---:|---:|---:|---:|---|\n"
               : "");
    char line[640];
    if (!md) {
        std::snprintf(line, sizeof line, "%6s %12s %14s %14s %10s %12s %12s  %s\n", "rank", "GPU busy",
                      "compute busy", "communication", "comm share", "waited", "attention", "file");
        out << line;
    }
    for (const RankRecord& r : job.records) {
        const RankStats& s = r.stats;
        const std::string wait = job.ranks.collectives ? formatDuration(s.waitNs) : "-";
        std::snprintf(line, sizeof line,
                      md ? "| %lld | %s | %s | %s | %s | %s | %s | %s |\n"
                         : "%6lld %12s %14s %14s %10s %12s %12s  %s\n",
                      static_cast<long long>(s.rank), formatDuration(s.gpuBusyNs).c_str(),
                      formatDuration(s.computeBusyNs).c_str(), formatDuration(s.commNs).c_str(),
                      formatPercent(communicationShare(s)).c_str(), wait.c_str(),
                      formatDuration(attentionNs(r)).c_str(), r.path.c_str());
        out << line;
    }
    for (const RankRecord& r : job.failed) {
        std::snprintf(line, sizeof line,
                      md ? "| %lld | could not be read: %s | | | | | | %s |\n"
                         : "%6lld  could not be read: %s  %s\n",
                      static_cast<long long>(r.stats.rank), r.error.c_str(), r.path.c_str());
        out << line;
    }
    return out.str();
}

} // namespace attnscope
