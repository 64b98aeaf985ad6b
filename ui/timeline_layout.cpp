// SPDX-License-Identifier: MIT
#include "timeline_layout.h"

#include "counter_tracks.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace attnscope::ui {

QString TimelineLayout::groupLabel(const Trace& trace, ProcessId process) {
    const ProcessInfo& p = trace.process(process);
    if (const std::string gpu = gpuLabel(p); !gpu.empty())
        return QString::fromStdString(p.deviceModel.empty() ? gpu : gpu + " \u00b7 " + p.deviceModel);
    const QString key = QString::fromStdString(std::string(trace.str(p.key)));
    const QString name = QString::fromStdString(p.name);
    if (key.isEmpty() || name == key) return name;
    return QStringLiteral("%1 (pid %2)").arg(name, key);
}

void TimelineLayout::build(const Trace& trace, const Metrics& metrics,
                           const std::set<std::uint32_t>& collapsed, const QRegularExpression& trackFilter) {
    m_metrics = metrics;
    m_rows.clear();
    m_trackRow.assign(trace.tracks().size(), -1);
    const bool filtering = trackFilter.isValid() && !trackFilter.pattern().isEmpty();

    std::vector<std::uint32_t> processes(trace.processes().size());
    std::iota(processes.begin(), processes.end(), 0u);
    // Per rank (several files open as one job), GPUs first (what an attention profile is about),
    // then the rest in the file's sort order.
    std::stable_sort(processes.begin(), processes.end(), [&](std::uint32_t a, std::uint32_t b) {
        const ProcessInfo& pa = trace.processes()[a];
        const ProcessInfo& pb = trace.processes()[b];
        if (pa.rank != pb.rank) return pa.rank < pb.rank; // the ranks of a job, one after the other
        if (pa.isGpu != pb.isGpu) return pa.isGpu;
        if (pa.isGpu && pa.deviceIndex != pb.deviceIndex) return pa.deviceIndex < pb.deviceIndex;
        return pa.sortIndex < pb.sortIndex;
    });
    std::vector<std::vector<std::uint32_t>> tracksOf(processes.size());
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const Track& track = trace.tracks()[t];
        if (track.size() == 0) continue;
        if (filtering && !trackFilter.match(QString::fromStdString(trace.trackLabel(TrackId(t)))).hasMatch())
            continue;
        tracksOf[track.process.value].push_back(t);
    }
    std::vector<std::vector<std::uint32_t>> countersOf(processes.size());
    for (std::uint32_t c = 0; c < trace.counters().size(); ++c) {
        const CounterSeries& series = trace.counters()[c];
        if (series.time.empty()) continue;
        if (filtering && !trackFilter.match(QString::fromStdString(series.name)).hasMatch()) continue;
        countersOf[series.process.value].push_back(c);
    }

    int y = 0;
    for (std::uint32_t p : processes) {
        std::vector<std::uint32_t>& tracks = tracksOf[p];
        if (tracks.empty() && countersOf[p].empty()) continue;
        std::stable_sort(tracks.begin(), tracks.end(), [&](std::uint32_t a, std::uint32_t b) {
            return trace.tracks()[a].sortIndex < trace.tracks()[b].sortIndex;
        });
        TimelineRow header;
        header.kind = TimelineRow::Kind::Group;
        header.process = ProcessId(p);
        header.y = y;
        header.height = metrics.headerHeight;
        header.collapsed = collapsed.count(p) > 0;
        header.label = groupLabel(trace, ProcessId(p));
        y += header.height;
        m_rows.push_back(header);
        if (header.collapsed) continue;
        for (std::uint32_t t : tracks) {
            TimelineRow row;
            row.kind = TimelineRow::Kind::Track;
            row.process = ProcessId(p);
            row.track = TrackId(t);
            row.y = y;
            row.lanes = trace.tracks()[t].maxDepth + 1;
            row.height = row.lanes * metrics.laneHeight + metrics.trackGap;
            row.label = QString::fromStdString(trace.trackLabel(TrackId(t)));
            y += row.height;
            m_trackRow[t] = std::int32_t(m_rows.size());
            m_rows.push_back(row);
        }
        for (std::uint32_t c : countersOf[p]) {
            TimelineRow row;
            row.kind = TimelineRow::Kind::Counter;
            row.process = ProcessId(p);
            row.counter = c;
            std::tie(row.low, row.high) = counterRange(trace.counters()[c]); // once, not every frame
            row.y = y;
            row.lanes = 2;
            row.height = row.lanes * metrics.laneHeight + metrics.trackGap;
            row.label = QString::fromStdString(trace.counters()[c].name);
            y += row.height;
            m_rows.push_back(row);
        }
    }
    m_totalHeight = y;
}

std::optional<std::size_t> TimelineLayout::rowAt(int y) const {
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y,
                               [](int value, const TimelineRow& r) { return value < r.y; });
    if (it == m_rows.begin()) return std::nullopt;
    --it;
    if (y >= it->y + it->height) return std::nullopt;
    return std::size_t(it - m_rows.begin());
}

std::optional<std::size_t> TimelineLayout::rowOfTrack(TrackId track) const {
    if (track.value >= m_trackRow.size() || m_trackRow[track.value] < 0) return std::nullopt;
    return std::size_t(m_trackRow[track.value]);
}

} // namespace attnscope::ui
