// SPDX-License-Identifier: MIT
// A rank's record, made from its trace's summary (rank_record.h).
#include "core/report/rank_record.h"

#include <algorithm>

namespace attnscope {

namespace {

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

} // namespace

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

} // namespace attnscope
