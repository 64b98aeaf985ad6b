// SPDX-License-Identifier: MIT
// A rank's record, made from its trace's summary (rank_record.h).
#include "core/report/rank_record.h"

#include <algorithm>

namespace attnscope {

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

RankRecord measuredRankRecord(const std::shared_ptr<const Trace>& trace, std::string path,
                              std::size_t position) {
    const Trace& t = *trace;
    RankRecord r;
    r.path = std::move(path);
    r.worldSize = t.distributed().worldSize;
    r.steps = profilerSteps(t);
    r.startNs = t.startNs();
    r.stats = measureRank({r.path, trace}, position, &r.collectives);
    return r;
}

bool joinMeasured(RankRecord& into, const RankRecord& step, const Trace& whole) {
    RankStats& a = into.stats;
    const RankStats& b = step.stats;
    // The kernels' unions add up only when the step's kernels start after the ones before end.
    if (a.kernels && b.kernels && b.firstKernelNs < a.lastKernelEndNs) return false;
    if (!a.kernels) a.firstKernelNs = b.firstKernelNs;
    if (b.kernels) a.lastKernelEndNs = b.lastKernelEndNs;
    a.kernels += b.kernels;
    a.kernelNs += b.kernelNs;
    a.gpuBusyNs += b.gpuBusyNs;
    a.computeBusyNs += b.computeBusyNs;
    a.commNs += b.commNs;
    a.spanNs = whole.endNs() - whole.startNs();
    into.startNs = whole.startNs();
    if (!into.worldSize) into.worldSize = step.worldSize;
    for (const std::int64_t s : step.steps)
        if (!std::binary_search(into.steps.begin(), into.steps.end(), s))
            into.steps.insert(std::upper_bound(into.steps.begin(), into.steps.end(), s), s);
    // Its collectives after the ones before (in start order, as measureRank lists them), its names
    // numbered among theirs.
    std::vector<std::uint32_t> renamed;
    for (const std::string& name : step.collectives.names) {
        auto& names = into.collectives.names;
        const auto it = std::find(names.begin(), names.end(), name);
        renamed.push_back(std::uint32_t(it - names.begin()));
        if (it == names.end()) names.push_back(name);
    }
    for (RankCollectives::Arrival arrival : step.collectives.arrivals) {
        arrival.name = renamed[arrival.name];
        into.collectives.arrivals.push_back(arrival);
    }
    return true;
}

void addSummary(RankRecord& r, const TraceSummary& s, std::size_t topKernels) {
    r.warnings = s.warnings;
    r.roles = s.roles;
    r.attention.clear();
    for (const AttentionImplStats& a : s.attention)
        r.attention.push_back({a.impl, a.calls, a.totalNs, a.kernelNs});
    r.findings.clear();
    for (const Finding& f : s.findings)
        r.findings.push_back({f.id, f.severity, f.title, f.timeNs, f.share});
    r.topKernels.clear();
    for (std::size_t i = 0; i < s.topKernels.size() && i < topKernels; ++i)
        r.topKernels.push_back({s.topKernels[i].name, s.topKernels[i].count, s.topKernels[i].totalNs});
}

RankRecord rankRecord(const std::shared_ptr<const Trace>& trace, const TraceSummary& s, std::string path,
                      std::size_t position, std::size_t topKernels) {
    RankRecord r = measuredRankRecord(trace, std::move(path), position);
    addSummary(r, s, topKernels);
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
