// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <QRegularExpression>
#include <QString>

#include <optional>
#include <set>
#include <vector>

namespace attnscope::ui {

// One row of the timeline: a process / GPU header, a track with its lanes (one per depth), or a
// counter of the process drawn as a step line.
struct TimelineRow {
    enum class Kind { Group, Track, Counter };
    Kind kind = Kind::Group;
    ProcessId process;
    TrackId track;             // Track rows only
    std::uint32_t counter = 0; // Counter rows: the index into Trace::counters()
    double low = 0, high = 0;  // Counter rows: the series' smallest and largest value
    int y = 0;                 // top, in layout coordinates (0 = first row)
    int height = 0;
    int lanes = 0;
    bool collapsed = false; // Group rows: its tracks are hidden
    QString label;
};

// Where rows go: GPU devices first, then processes in their sort order, each a collapsible group
// of its tracks and then its counters.
class TimelineLayout {
public:
    struct Metrics {
        int headerHeight = 22;
        int laneHeight = 18;
        int trackGap = 3;
    };

    // trackFilter, when valid and not empty, keeps only tracks whose label matches (and their headers).
    void build(const Trace& trace, const Metrics& metrics, const std::set<std::uint32_t>& collapsedProcesses,
               const QRegularExpression& trackFilter = {});

    const std::vector<TimelineRow>& rows() const { return m_rows; }
    int totalHeight() const { return m_totalHeight; }
    const Metrics& metrics() const { return m_metrics; }
    // The row at layout y, if any.
    std::optional<std::size_t> rowAt(int y) const;
    // The row of a track, when it is shown.
    std::optional<std::size_t> rowOfTrack(TrackId track) const;

    // A group's header label: "GPU 0 · NVIDIA H200", "python3 (pid 4242)".
    static QString groupLabel(const Trace& trace, ProcessId process);

private:
    std::vector<TimelineRow> m_rows;
    std::vector<std::int32_t> m_trackRow; // by track id; -1 when hidden
    Metrics m_metrics;
    int m_totalHeight = 0;
};

} // namespace attnscope::ui
