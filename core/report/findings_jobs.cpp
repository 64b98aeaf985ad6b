// SPDX-License-Identifier: MIT
// The rules about a distributed job: the slowest rank, and communication the compute does not hide.
#include "core/report/findings_rules.h"
#include "core/report/format.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"

#include <algorithm>
#include <map>

namespace attnscope::findings {

// 10. Rank imbalance: where the ranks meet at collectives, the one that arrives last holds the others
// up; GPU busy time alone names the rank that waits most (its wait runs inside the communication
// kernel). Without matched collectives, the rank that computes most above the mean.
void rankImbalance(Context& c, std::vector<Finding>& out) {
    if (!c.ranks || c.ranks->ranks.size() < 2 || c.ranks->meanComputeNs <= 0) return;
    const RankReport& r = *c.ranks;
    const std::int64_t straggler = r.stragglerRank;
    const TimeNs computeExcess = r.maxComputeNs - r.meanComputeNs;
    const TimeNs wait = r.othersMeanWaitNs();
    const double threshold = c.th["rank_imbalance_excess"];
    const bool late = straggler >= 0 && double(wait) >= threshold * double(r.meanComputeNs);
    if (!late && double(computeExcess) < threshold * double(r.meanComputeNs)) return;
    const std::int64_t rank = late ? straggler : r.mostComputeRank;
    // Evidence: the straggler's collectives, the latest arrivals first; else its longest compute kernels.
    std::vector<std::pair<EventRef, std::string>> places;
    for (const KernelAnalysis& k : c.analysis.kernels) {
        const ProcessInfo& p = c.trace.process(c.trace.track(k.event.track).process);
        if (p.rank != rank || c.kind(k.event) != Context::Kernel) continue;
        if (late == (k.role == KernelRole::Communication)) places.emplace_back(k.event, "");
    }
    std::stable_sort(places.begin(), places.end(), [&](const auto& a, const auto& b) {
        return late ? c.start(a.first) < c.start(b.first) : c.dur(a.first) > c.dur(b.first);
    });
    const std::string compute = "compute busy time (kernels other than communication) ranges from " +
                                formatDuration(r.minComputeNs) + " to " + formatDuration(r.maxComputeNs) +
                                " (mean " + formatDuration(r.meanComputeNs) + ", rank " +
                                std::to_string(r.mostComputeRank) + " the most, " +
                                percent(double(computeExcess) / double(r.meanComputeNs)) + " above the mean)";
    const std::string perRank = " per rank, of the job's span";
    Finding f;
    if (late) {
        const RankStats& s = *r.find(rank);
        f = c.make("rank_imbalance",
                   "Rank " + std::to_string(rank) + " is the straggler: the other ranks wait " +
                       formatDuration(wait) + " each for it at the collectives",
                   wait);
        f.explanation =
            "Of " + std::to_string(r.collectives) + " collectives matched on all " +
            std::to_string(r.ranks.size()) + " ranks (the n-th communication kernel of each), rank " +
            std::to_string(rank) + " arrives last at " + std::to_string(s.lastArrivals) +
            "; from its arrival to the last one's each other rank waits " + formatDuration(wait) +
            " on average (the time at stake" + perRank + "), rank " + std::to_string(rank) + " " +
            formatDuration(s.waitNs) + ". The wait runs inside the communication kernels, so the " +
            "waiting ranks show the most GPU busy time (" + formatDuration(r.minBusyNs) + " to " +
            formatDuration(r.maxBusyNs) + "); " + compute + ".";
        f.suggestion =
            "Look at what rank " + std::to_string(rank) +
            " does before the collectives it reaches last (File → Compare With another rank): "
            "uneven batches or sequence lengths, embedding tables placed unevenly, a data loader or "
            "host work that delays its launches, or a slower GPU.";
    } else {
        f = c.make("rank_imbalance",
                   "Rank " + std::to_string(rank) + " computes the most: " +
                       percent(double(computeExcess) / double(r.meanComputeNs)) + " more than the mean",
                   computeExcess);
        f.explanation = "Over " + std::to_string(r.ranks.size()) + " ranks the " + compute +
                        ". No collective could be matched on every rank, so who waits for whom is not known; "
                        "in a synchronous job the others wait for the rank that computes most, its " +
                        formatDuration(computeExcess) + " above the mean (the time at stake" + perRank + ").";
        f.suggestion = "Compare the busiest rank's kernels with another rank's (File → Compare With): uneven "
                       "sequence lengths or batch sizes, embedding tables placed unevenly, or a slower GPU.";
    }
    c.addEvidence(f, places);
    if (late)
        for (Evidence& e : f.evidence)
            e.note = "a collective of rank " + std::to_string(rank);
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
    // In a job, part of a collective's kernel time is a rank waiting for the last one to arrive: that is
    // the straggler's (rank_imbalance), not the network's, and is taken out of the time at stake.
    TimeNs waits = 0;
    if (c.ranks)
        for (const RankStats& s : c.ranks->ranks)
            waits += s.waitNs;
    waits = std::min(waits, exposed);
    Finding f = c.make("exposed_communication",
                       "Communication not hidden by compute: " + formatDuration(exposed - waits) + " of " +
                           formatDuration(commNs),
                       exposed - waits);
    f.explanation = formatCount(count, "communication kernel", "communication kernels") +
                    " (NCCL, RCCL) took " + formatDuration(commNs) + "; for " + formatDuration(exposed) +
                    " (" + percent(commNs ? double(exposed) / double(commNs) : 0) +
                    ") no compute kernel ran on the same GPU" +
                    (waits > 0 ? ", of which " + formatDuration(waits) +
                                     " is ranks waiting at collectives for the last to arrive (the rank "
                                     "imbalance finding): the other " +
                                     formatDuration(exposed - waits) + " the step waited on the network."
                               : ", so the step waited on the network.");
    f.suggestion = "Overlap communication with compute: DDP's gradient buckets (bucket_cap_mb), FSDP's "
                   "prefetching (forward_prefetch, backward_prefetch), or a separate stream for collectives "
                   "issued before the compute that does not depend on them.";
    // Of the span on each GPU that communicates: several GPUs' exposed time adds up past one span.
    c.setShare(f, double(exposed) / (double(c.span) * double(commGpus)));
    c.addEvidence(f, places);
    if (c.worthShowing(f)) out.push_back(std::move(f));
}

} // namespace attnscope::findings
