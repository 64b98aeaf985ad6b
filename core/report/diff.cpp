// SPDX-License-Identifier: MIT
#include "core/report/diff.h"
#include "core/report/format.h"

#include "core/report/summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

namespace attnscope {

namespace {

using Rows = std::map<std::string, DiffRow>;

void collect(const Trace& trace, const TraceAnalysis& analysis, bool second, Rows& roles, Rows& kernels,
             TimeNs& total) {
    for (const KernelAnalysis& k : analysis.kernels) {
        const Track& t = trace.track(k.event.track);
        if (!isKernelEvent(trace, t, k.event.index)) continue;
        const TimeNs d = t.events.duration[k.event.index];
        total += d;
        for (auto [rows, key] : {std::pair{&roles, std::string(roleName(k.role))},
                                 std::pair{&kernels, std::string(trace.str(t.events.name[k.event.index]))}}) {
            DiffRow& row = (*rows)[key];
            row.key = key;
            (second ? row.countB : row.countA) += 1;
            (second ? row.totalB : row.totalA) += d;
        }
    }
}

std::vector<DiffRow> sorted(const Rows& rows) {
    std::vector<DiffRow> out;
    for (const auto& [key, row] : rows)
        out.push_back(row);
    std::sort(out.begin(), out.end(), [](const DiffRow& x, const DiffRow& y) {
        const TimeNs dx = x.delta() < 0 ? -x.delta() : x.delta(), dy = y.delta() < 0 ? -y.delta() : y.delta();
        return dx != dy ? dx > dy : x.key < y.key;
    });
    return out;
}

std::string signedDuration(TimeNs ns) {
    return (ns < 0 ? "-" : "+") + formatDuration(ns < 0 ? -ns : ns);
}

} // namespace

std::string DiffRow::ratioText() const {
    const double r = ratio();
    if (std::isinf(r)) return "new";
    if (countB == 0) return "gone";
    return formatRatio(r);
}

std::string regressionRule() {
    return "B at least " + formatShare(kRegressionRatio - 1) + " and " +
           std::to_string(kRegressionMinNs / 1000) + " µs slower than A";
}

double DiffRow::ratio() const {
    if (totalA == 0) return totalB == 0 ? 1.0 : std::numeric_limits<double>::infinity();
    return double(totalB) / double(totalA);
}

bool DiffRow::regression() const {
    return totalA > 0 && delta() >= kRegressionMinNs && ratio() >= kRegressionRatio;
}

TraceDiff diffTraces(const Trace& a, const TraceAnalysis& analysisA, const Trace& b,
                     const TraceAnalysis& analysisB) {
    Rows roles, kernels;
    TraceDiff d;
    collect(a, analysisA, false, roles, kernels, d.kernelA);
    collect(b, analysisB, true, roles, kernels, d.kernelB);
    d.roles = sorted(roles);
    d.kernels = sorted(kernels);
    return d;
}

std::string formatDiff(const TraceDiff& diff, const std::string& nameA, const std::string& nameB,
                       DiffFormat format, std::size_t topKernels) {
    const std::size_t kernelRows =
        topKernels ? std::min(topKernels, diff.kernels.size()) : diff.kernels.size();
    if (format == DiffFormat::Json) {
        using json = nlohmann::ordered_json;
        auto rows = [](const std::vector<DiffRow>& list, std::size_t n, const char* keyName) {
            json out = json::array();
            for (std::size_t i = 0; i < n; ++i) {
                const DiffRow& r = list[i];
                json row{{keyName, r.key},         {"count_a", r.countA},    {"count_b", r.countB},
                         {"total_a_ns", r.totalA}, {"total_b_ns", r.totalB}, {"delta_ns", r.delta()}};
                row["ratio"] = std::isinf(r.ratio()) ? json(nullptr) : json(r.ratio());
                row["regression"] = r.regression();
                out.push_back(std::move(row));
            }
            return out;
        };
        json out{{"a", nameA},
                 {"b", nameB},
                 {"kernel_a_ns", diff.kernelA},
                 {"kernel_b_ns", diff.kernelB},
                 {"delta_ns", diff.kernelB - diff.kernelA},
                 {"roles", rows(diff.roles, diff.roles.size(), "role")},
                 {"kernels", rows(diff.kernels, kernelRows, "kernel")}};
        return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    std::ostringstream out;
    if (format == DiffFormat::Csv) {
        out << "kind,key,count_a,count_b,total_a_ns,total_b_ns,delta_ns,ratio,regression\n";
        auto rows = [&](const std::vector<DiffRow>& list, std::size_t n, const char* kind) {
            for (std::size_t i = 0; i < n; ++i) {
                const DiffRow& r = list[i];
                char ratio[32];
                if (std::isinf(r.ratio()))
                    ratio[0] = '\0';
                else
                    std::snprintf(ratio, sizeof ratio, "%.4f", r.ratio());
                out << kind << ',' << csvField(r.key) << ',' << r.countA << ',' << r.countB << ',' << r.totalA
                    << ',' << r.totalB << ',' << r.delta() << ',' << ratio << ','
                    << (r.regression() ? "yes" : "no") << '\n';
            }
        };
        out << "total,kernels,,," << diff.kernelA << ',' << diff.kernelB << ',' << diff.kernelB - diff.kernelA
            << ",,\n";
        rows(diff.roles, diff.roles.size(), "role");
        rows(diff.kernels, kernelRows, "kernel");
        return out.str();
    }
    char line[512];
    out << "A: " << nameA << "\nB: " << nameB << "\n";
    out << "kernel time: " << formatDuration(diff.kernelA) << " -> " << formatDuration(diff.kernelB) << " ("
        << signedDuration(diff.kernelB - diff.kernelA) << ")\n";
    auto table = [&](const std::vector<DiffRow>& list, std::size_t n, const char* what) {
        std::snprintf(line, sizeof line, "\n  %8s %8s %14s %14s %14s %8s  %s\n", "count A", "count B",
                      "total A", "total B", "delta", "ratio", what);
        out << line;
        for (std::size_t i = 0; i < n; ++i) {
            const DiffRow& r = list[i];
            std::snprintf(line, sizeof line, "%s %8llu %8llu %14s %14s %14s %9s  %s\n",
                          r.regression() ? "!" : " ", static_cast<unsigned long long>(r.countA),
                          static_cast<unsigned long long>(r.countB), formatDuration(r.totalA).c_str(),
                          formatDuration(r.totalB).c_str(), signedDuration(r.delta()).c_str(),
                          r.ratioText().c_str(),
                          r.key.size() > 100 ? (r.key.substr(0, 99) + "…").c_str() : r.key.c_str());
            out << line;
        }
    };
    table(diff.roles, diff.roles.size(), "role");
    table(diff.kernels, kernelRows, "kernel");
    out << "\n  ! marks a regression: " << regressionRule() << ".\n";
    return out.str();
}

} // namespace attnscope
