// SPDX-License-Identifier: MIT
// The rules about a distributed job: communication the compute does not hide (each rank's own rule), and
// the job's findings put together from its ranks' (job_findings.h): the straggler, the waits for it.
#include "core/report/findings_rules.h"
#include "core/report/format.h"
#include "core/report/job_findings.h"
#include "core/report/ranks.h"
#include "core/report/summary.h"

#include <algorithm>
#include <functional>
#include <map>

namespace attnscope::findings {

namespace {

constexpr std::string_view kOverlapCommunication =
    "Overlap communication with compute: DDP's gradient buckets (bucket_cap_mb), FSDP's prefetching "
    "(forward_prefetch, backward_prefetch), or a separate stream for collectives issued before the compute "
    "that does not depend on them.";

} // namespace

// 10. Exposed communication: communication kernels' time during which no compute kernel ran on the
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
    Finding f = c.make("Communication not hidden by compute: " + formatDuration(exposed) + " of " +
                           formatDuration(commNs),
                       exposed);
    f.explanation = formatCount(count, "communication kernel", "communication kernels") +
                    " (NCCL, RCCL) took " + formatDuration(commNs) + "; for " + formatDuration(exposed) +
                    " (" + formatShare(commNs ? double(exposed) / double(commNs) : 0) +
                    ") no compute kernel ran on the same GPU, so the step waited on the network or on "
                    "another rank.";
    f.suggestion = std::string(kOverlapCommunication);
    // Of the span on each GPU that communicates: several GPUs' exposed time adds up past one span.
    c.severityFromShare(f, double(exposed) / (double(c.span) * double(commGpus)));
    c.keep(out, std::move(f), std::move(places), Context::Order::AsGiven);
}

} // namespace attnscope::findings

namespace attnscope {

TimeNs jobSpanNs(const std::vector<RankRecord>& records) {
    TimeNs first = 0, last = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TimeNs start = records[i].startNs, end = start + records[i].stats.spanNs;
        first = i ? std::min(first, start) : start;
        last = i ? std::max(last, end) : end;
    }
    return std::max<TimeNs>(1, last - first);
}

namespace {

// A title and where it holds, shortened (at a character) to fit one line.
std::string fitTitle(const std::string& title, const std::string& where) {
    if (title.size() + where.size() <= kFindingTitleMax) return title + where;
    std::size_t keep = kFindingTitleMax - where.size() - 3; // "…" is 3 bytes
    while (keep > 0 && (static_cast<unsigned char>(title[keep]) & 0xC0) == 0x80)
        --keep;
    return title.substr(0, keep) + "…" + where;
}

// Rank imbalance: where the ranks meet at collectives, the one that arrives last holds the others up; GPU
// busy time alone names the rank that waits most (its wait runs inside the communication kernel). Without
// matched collectives, the rank that computes most above the mean.
std::optional<JobFinding> rankImbalance(const RankReport& r, TimeNs span, const FindingThresholds& th) {
    if (r.ranks.size() < 2 || r.meanComputeNs <= 0) return std::nullopt;
    const std::int64_t straggler = r.stragglerRank;
    const TimeNs computeExcess = r.maxComputeNs - r.meanComputeNs;
    const TimeNs wait = r.othersMeanWaitNs();
    const double threshold = th["rank_imbalance_excess"];
    const bool late = straggler >= 0 && double(wait) >= threshold * double(r.meanComputeNs);
    if (!late && double(computeExcess) < threshold * double(r.meanComputeNs)) return std::nullopt;
    const std::int64_t rank = late ? straggler : r.mostComputeRank;
    const std::string compute =
        "compute busy time (kernels other than communication) ranges from " + formatDuration(r.minComputeNs) +
        " to " + formatDuration(r.maxComputeNs) + " (mean " + formatDuration(r.meanComputeNs) + ", rank " +
        std::to_string(r.mostComputeRank) + " the most, " +
        formatShare(double(computeExcess) / double(r.meanComputeNs)) + " above the mean)";
    const std::string perRank = " per rank, of the job's span";
    JobFinding f;
    f.id = kRankImbalance;
    f.titleRank = f.maxRank = rank;
    f.ranks = {rank};
    if (late) {
        const RankStats& s = *r.find(rank);
        f.meanNs = f.maxNs = wait;
        // The time is the others': the ranks that wait for the straggler, the most on the one that waits
        // longest (the Job window said "on 1 rank, most … on rank 0" of the straggler, whose wait is none).
        f.ranks.clear();
        f.ranksWait = true;
        TimeNs most = -1;
        for (const RankStats& other : r.ranks) {
            if (other.rank == rank) continue;
            f.ranks.push_back(other.rank);
            if (other.waitNs > most) {
                most = other.waitNs;
                f.maxRank = other.rank;
            }
        }
        f.totalNs = r.waitForStragglerNs;
        f.title = "Rank " + std::to_string(rank) + " is the straggler: the other ranks wait " +
                  formatDuration(wait) + " each for it at the collectives";
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
        f.meanNs = f.maxNs = f.totalNs = computeExcess;
        f.title = "Rank " + std::to_string(rank) +
                  " computes the most: " + formatShare(double(computeExcess) / double(r.meanComputeNs)) +
                  " more than the mean";
        f.explanation = "Over " + std::to_string(r.ranks.size()) + " ranks the " + compute +
                        ". No collective could be matched on every rank, so who waits for whom is not known; "
                        "in a synchronous job the others wait for the rank that computes most, its " +
                        formatDuration(computeExcess) + " above the mean (the time at stake" + perRank + ").";
        f.suggestion = "Compare the busiest rank's kernels with another rank's (File → Compare With): uneven "
                       "sequence lengths or batch sizes, embedding tables placed unevenly, or a slower GPU.";
    }
    f.share = std::clamp(double(f.meanNs) / double(span), 0.0, 1.0);
    f.severity = severityOfShare(f.share, th);
    if (f.share < th["min_share"]) return std::nullopt;
    return f;
}

} // namespace

std::vector<JobFinding> jobFindings(const std::vector<RankRecord>& records, const RankReport& ranks,
                                    const FindingThresholds& th) {
    const TimeNs span = jobSpanNs(records);
    const std::size_t n = records.size();
    struct Part {
        std::int64_t rank;
        TimeNs timeNs;
        const std::string* title;
        Severity severity; // the rank's own
    };
    std::map<std::string, std::vector<Part>> byId;
    TimeNs waits = 0, exposed = 0;
    for (const RankRecord& r : records)
        for (const RecordFinding& f : r.findings) {
            if (f.id == kRankImbalance) continue; // a job's, not a rank's (an older record's)
            TimeNs time = f.timeNs;
            // Part of a collective's kernel time is the rank waiting for the last one to arrive: that is
            // the straggler's (rank_imbalance), not the network's, and is taken out of the rank's exposed
            // communication.
            if (f.id == "exposed_communication") {
                const TimeNs wait = std::min(r.stats.waitNs, f.timeNs);
                exposed += f.timeNs;
                waits += wait;
                time -= wait;
                if (double(time) < th["min_share"] * double(std::max<TimeNs>(1, r.stats.spanNs))) continue;
            }
            byId[f.id].push_back({r.stats.rank, time, &f.title, f.severity});
        }
    std::vector<JobFinding> out;
    for (auto& [id, parts] : byId) {
        std::stable_sort(parts.begin(), parts.end(),
                         [](const Part& a, const Part& b) { return a.timeNs > b.timeNs; });
        JobFinding f;
        f.id = id;
        for (const Part& p : parts) {
            f.ranks.push_back(p.rank);
            f.totalNs += p.timeNs;
        }
        std::sort(f.ranks.begin(), f.ranks.end());
        f.maxNs = parts.front().timeNs;
        f.maxRank = f.titleRank = parts.front().rank;
        f.meanNs = f.totalNs / TimeNs(std::max<std::size_t>(1, n));
        f.share = std::clamp(double(f.meanNs) / double(span), 0.0, 1.0);
        // From its share of the job's span, and never below the severity at least half the ranks give it
        // (a rule whose severity is of its own measure, GPU idle's of the GPU's window, says the same of the
        // job as of its ranks).
        std::vector<int> given(n, -1); // a rank without the finding gives it none
        for (std::size_t i = 0; i < parts.size() && i < n; ++i)
            given[i] = int(parts[i].severity);
        std::sort(given.begin(), given.end(), std::greater<>());
        f.severity = severityOfShare(f.share, th);
        if (n > 0 && given[(n - 1) / 2] > int(f.severity)) f.severity = Severity(given[(n - 1) / 2]);
        const std::string where = n < 2 ? std::string()
                                        : " (rank " + std::to_string(f.maxRank) + "; on " +
                                              std::to_string(parts.size()) + " of " + std::to_string(n) +
                                              " ranks)";
        const std::string on =
            "On " + std::to_string(parts.size()) + " of the job's " + std::to_string(n) +
            (n == 1 ? " rank" : " ranks") + " (" + rankList(f.ranks) + "): " + formatDuration(f.totalNs) +
            " at stake in all, " + formatDuration(f.meanNs) + " per rank of the job (the time at stake, " +
            formatShare(f.share) + " of the job's span of " + formatDuration(span) + "), the most " +
            formatDuration(f.maxNs) + " on rank " + std::to_string(f.maxRank) +
            ", whose title this is. Each rank's rules read its own trace.";
        if (id == "exposed_communication") {
            f.title = fitTitle("Communication not hidden by compute, waits at collectives aside: " +
                                   formatDuration(f.maxNs),
                               where);
            f.explanation = on + " Of the " + formatDuration(exposed) +
                            " of communication kernels during which no compute kernel ran on the same GPU, " +
                            formatDuration(waits) +
                            " is ranks waiting at collectives for the last to arrive (the rank imbalance "
                            "finding's, not the network's) and is left out.";
            f.suggestion = std::string(findings::kOverlapCommunication);
        } else {
            f.title = fitTitle(*parts.front().title, where);
            f.explanation = on;
        }
        out.push_back(std::move(f));
    }
    if (std::optional<JobFinding> straggler = rankImbalance(ranks, span, th))
        out.push_back(std::move(*straggler));
    std::stable_sort(out.begin(), out.end(), [](const JobFinding& a, const JobFinding& b) {
        return a.meanNs != b.meanNs ? a.meanNs > b.meanNs : findingRuleOrder(a.id) < findingRuleOrder(b.id);
    });
    return out;
}

namespace {

// Where a rank's events are in the ranks' merged trace: its tracks under the merged process key
// ("r3:" before its own), each event at the same start, name and duration.
class MergedPlaces {
public:
    explicit MergedPlaces(const Trace& merged) : m_merged(merged) {
        for (std::uint32_t t = 0; t < merged.tracks().size(); ++t) {
            const Track& track = merged.tracks()[t];
            m_tracks.emplace(std::string(merged.str(merged.process(track.process).key)) + '\n' +
                                 std::string(merged.str(track.tidKey)),
                             TrackId(t));
        }
    }

    std::optional<EventRef> find(std::int64_t rank, const Trace& from, EventRef e) const {
        const Track& track = from.track(e.track);
        const auto it = m_tracks.find(rankProcessKey(rank, from.str(from.process(track.process).key)) + '\n' +
                                      std::string(from.str(track.tidKey)));
        if (it == m_tracks.end()) return std::nullopt;
        const Track& to = m_merged.track(it->second);
        const TimeNs start = track.events.start[e.index], dur = track.events.duration[e.index];
        const std::string_view name = from.str(track.events.name[e.index]);
        const auto& starts = to.events.start;
        for (auto i = std::size_t(std::lower_bound(starts.begin(), starts.end(), start) - starts.begin());
             i < to.size() && starts[i] == start; ++i)
            if (to.events.duration[i] == dur && m_merged.str(to.events.name[i]) == name)
                return EventRef{it->second, std::uint32_t(i)};
        return std::nullopt;
    }

private:
    const Trace& m_merged;
    std::map<std::string, TrackId> m_tracks;
};

} // namespace

std::vector<Finding> jobFindingsInTrace(const std::vector<JobFinding>& job,
                                        const std::vector<RankFindings>& ranks, const Trace& merged,
                                        const FindingThresholds& th) {
    const MergedPlaces places(merged);
    std::map<std::int64_t, const RankFindings*> byRank;
    for (const RankFindings& r : ranks)
        byRank[r.rank] = &r;
    const std::size_t cap = std::size_t(th["max_evidence"]);
    auto addPlace = [&](Finding& f, const RankFindings& r, EventRef e, const std::string& note) {
        const std::optional<EventRef> at = places.find(r.rank, *r.trace, e);
        if (!at || f.evidence.size() >= cap) return;
        const Track& track = merged.track(at->track);
        f.evidence.push_back({*at, merged.trackLabel(at->track), track.events.start[at->index],
                              track.events.duration[at->index],
                              std::string(merged.str(track.events.name[at->index])), note});
    };
    std::vector<Finding> out;
    for (const JobFinding& j : job) {
        Finding f;
        f.id = j.id;
        f.severity = j.severity;
        f.title = j.title;
        f.timeNs = j.meanNs;
        f.share = j.share;
        f.explanation = j.explanation;
        f.suggestion = j.suggestion;
        if (j.id == kRankImbalance) {
            // The straggler's collectives, in the order the job reached them.
            if (const auto it = byRank.find(j.titleRank); it != byRank.end()) {
                const RankFindings& r = *it->second;
                std::vector<EventRef> comm;
                for (const KernelAnalysis& k : r.analysis->kernels)
                    if (k.role == KernelRole::Communication &&
                        isKernelEvent(*r.trace, r.trace->track(k.event.track), k.event.index))
                        comm.push_back(k.event);
                std::stable_sort(comm.begin(), comm.end(), [&](EventRef a, EventRef b) {
                    return r.trace->track(a.track).events.start[a.index] <
                           r.trace->track(b.track).events.start[b.index];
                });
                f.count = comm.size();
                for (EventRef e : comm)
                    addPlace(f, r, e, "a collective of rank " + std::to_string(r.rank));
            }
            out.push_back(std::move(f));
            continue;
        }
        // The ranks' own findings, the most at stake first: the first one's words, every one's places.
        std::vector<std::pair<const RankFindings*, const Finding*>> own;
        for (std::int64_t rank : j.ranks)
            if (const auto it = byRank.find(rank); it != byRank.end())
                for (const Finding& g : it->second->findings)
                    if (g.id == j.id) own.emplace_back(it->second, &g);
        std::stable_sort(own.begin(), own.end(), [&](const auto& a, const auto& b) {
            return (a.first->rank == j.titleRank) > (b.first->rank == j.titleRank) ||
                   ((a.first->rank == j.titleRank) == (b.first->rank == j.titleRank) &&
                    a.second->timeNs > b.second->timeNs);
        });
        for (const auto& [r, g] : own) {
            if (r->rank == j.titleRank) {
                f.explanation += " Rank " + std::to_string(r->rank) + ": " + g->explanation;
                if (f.suggestion.empty()) f.suggestion = g->suggestion;
            }
            f.count += g->count;
            for (const Evidence& e : g->evidence)
                addPlace(f, *r, e.event, e.note);
        }
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace attnscope
