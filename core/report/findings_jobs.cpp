// SPDX-License-Identifier: MIT
// The rules about a distributed job: the slowest rank, and communication the compute does not hide.
#include "core/report/findings_rules.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"

#include <algorithm>
#include <map>

namespace attnscope::findings {

// 10. Rank imbalance: the slowest rank's GPU busy time above the mean holds every other rank up.
void rankImbalance(Context& c, std::vector<Finding>& out) {
    if (!c.ranks || c.ranks->ranks.size() < 2 || c.ranks->meanBusyNs <= 0) return;
    const RankReport& r = *c.ranks;
    const TimeNs excess = r.maxBusyNs - r.meanBusyNs;
    if (double(excess) < c.th["rank_imbalance_excess"] * double(r.meanBusyNs)) return;
    // Evidence: the slowest rank's longest kernels.
    std::vector<std::pair<EventRef, std::string>> places;
    for (const KernelAnalysis& k : c.analysis.kernels) {
        const ProcessInfo& p = c.trace.process(c.trace.track(k.event.track).process);
        if (p.rank == r.slowestRank && c.kind(k.event) == Context::Kernel) places.emplace_back(k.event, "");
    }
    std::stable_sort(places.begin(), places.end(),
                     [&](const auto& a, const auto& b) { return c.dur(a.first) > c.dur(b.first); });
    Finding f = c.make("rank_imbalance",
                       "Rank " + std::to_string(r.slowestRank) +
                           " is the slowest: " + percent(double(excess) / double(r.meanBusyNs)) +
                           " more GPU busy time than the mean",
                       excess);
    f.explanation = "Over " + std::to_string(r.ranks.size()) + " ranks the GPU busy time ranges from " +
                    formatDuration(r.minBusyNs) + " to " + formatDuration(r.maxBusyNs) + " (mean " +
                    formatDuration(r.meanBusyNs) +
                    "). In a synchronous job every rank waits for the slowest at "
                    "each collective, so its " +
                    formatDuration(excess) + " above the mean is lost on the others.";
    f.suggestion = "Compare the slowest rank's kernels with another rank's (File → Compare With): uneven "
                   "sequence lengths or batch sizes, embedding tables placed unevenly, or a slower GPU.";
    c.addEvidence(f, places);
    if (c.worthShowing(f)) out.push_back(std::move(f));
}

// 11. Exposed communication: communication kernels' time during which no compute kernel ran on the
// same GPU.
void exposedCommunication(Context& c, std::vector<Finding>& out) {
    // Most traces have no communication kernel: looked for first, before the busy stretches are built.
    const auto isComm = [&](const KernelAnalysis& k) {
        return k.role == KernelRole::Communication && c.kind(k.event) == Context::Kernel;
    };
    if (std::none_of(c.analysis.kernels.begin(), c.analysis.kernels.end(), isComm)) return;
    // Per GPU process: the compute kernels' busy stretches and the communication kernels.
    const std::size_t processes = c.trace.processes().size();
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> compute(processes);
    std::vector<std::vector<std::size_t>> runEnds(processes); // kernels come track by track, in order
    std::vector<TrackId> lastTrack(processes);
    std::vector<std::vector<EventRef>> comm(processes);
    for (const KernelAnalysis& k : c.analysis.kernels) {
        if (c.kind(k.event) != Context::Kernel) continue;
        const std::uint32_t p = c.trace.track(k.event.track).process.value;
        if (k.role == KernelRole::Communication) {
            comm[p].push_back(k.event);
            continue;
        }
        if (!compute[p].empty() && lastTrack[p] != k.event.track) runEnds[p].push_back(compute[p].size());
        lastTrack[p] = k.event.track;
        compute[p].emplace_back(c.start(k.event), c.end(k.event));
    }
    for (std::size_t p = 0; p < processes; ++p)
        runEnds[p].push_back(compute[p].size());
    std::size_t commGpus = 0;
    TimeNs commNs = 0, exposed = 0;
    std::uint64_t count = 0;
    std::vector<std::pair<TimeNs, EventRef>> byExposed; // a note is written only for the places listed
    for (std::size_t p = 0; p < processes; ++p) {
        const std::vector<EventRef>& kernels = comm[p];
        if (kernels.empty()) continue;
        ++commGpus;
        std::vector<std::pair<TimeNs, TimeNs>>& busy = compute[p];
        mergeSortedRuns(busy, std::move(runEnds[p]),
                        [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<std::pair<TimeNs, TimeNs>> joined;
        for (const auto& b : busy) {
            if (!joined.empty() && b.first <= joined.back().second)
                joined.back().second = std::max(joined.back().second, b.second);
            else
                joined.push_back(b);
        }
        for (EventRef e : kernels) {
            const TimeNs s = c.start(e), end = c.end(e);
            TimeNs covered = 0;
            auto it = std::lower_bound(joined.begin(), joined.end(), std::pair{s, TimeNs(0)});
            if (it != joined.begin()) --it;
            for (; it != joined.end() && it->first < end; ++it)
                covered += std::max<TimeNs>(0, std::min(end, it->second) - std::max(s, it->first));
            const TimeNs open = (end - s) - covered;
            commNs += end - s;
            ++count;
            if (open <= 0) continue;
            exposed += open;
            byExposed.emplace_back(open, e);
        }
    }
    if (exposed <= 0) return;
    std::stable_sort(byExposed.begin(), byExposed.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::pair<EventRef, std::string>> places;
    for (const auto& [open, e] : byExposed)
        places.emplace_back(e, places.size() < std::size_t(c.th["max_evidence"])
                                   ? formatDuration(open) + " of " + formatDuration(c.dur(e)) + " exposed"
                                   : std::string());
    Finding f = c.make("exposed_communication",
                       "Communication not hidden by compute: " + formatDuration(exposed) + " of " +
                           formatDuration(commNs),
                       exposed);
    f.explanation = formatCount(count, "communication kernel", "communication kernels") +
                    " (NCCL, RCCL) took " + formatDuration(commNs) + "; for " + formatDuration(exposed) +
                    " (" + percent(commNs ? double(exposed) / double(commNs) : 0) +
                    ") no compute kernel ran on the same GPU, so the step waited on the network.";
    f.suggestion = "Overlap communication with compute: DDP's gradient buckets (bucket_cap_mb), FSDP's "
                   "prefetching (forward_prefetch, backward_prefetch), or a separate stream for collectives "
                   "issued before the compute that does not depend on them.";
    // Of the span on each GPU that communicates: several GPUs' exposed time adds up past one span.
    c.setShare(f, double(exposed) / (double(c.span) * double(commGpus)));
    c.addEvidence(f, places);
    if (c.worthShowing(f)) out.push_back(std::move(f));
}

} // namespace attnscope::findings
