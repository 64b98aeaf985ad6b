// SPDX-License-Identifier: MIT
// A rank record as a JSON line, and back (docs/RANK_RECORD.md).
#include "core/report/rank_record.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace attnscope {

namespace {

using Json = nlohmann::ordered_json;

Severity severityOf(const std::string& name, const std::string& source) {
    if (const std::optional<Severity> s = severityNamed(name)) return *s;
    throw std::runtime_error(source + ": unknown severity '" + name + "'");
}

} // namespace

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

} // namespace attnscope
