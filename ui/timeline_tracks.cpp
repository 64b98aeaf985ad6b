// SPDX-License-Identifier: MIT
#include "timeline_tracks.h"

#include "counter_tracks.h"
#include "timeline_renderer.h"

#include <QPainter>

#include <algorithm>

namespace attnscope::ui {

void FrameRecords::clear() {
    headerBands.clear();
    lanes.clear();
    counters.clear();
}

namespace {

// A process's header: a band across the width, its name in bold with a fold marker.
class GroupTrack final : public TimelineTrack {
public:
    void collect(const TimelineRow& row, int y, const FrameGeometry& g, FrameRecords& out) const override {
        out.headerBands.push_back(QRect(g.left, y, g.width - g.left, row.height));
    }
    void paintLabel(QPainter& p, const TimelineRow& row, int y, const LabelPainting& l) const override {
        p.fillRect(QRect(0, y, l.left, row.height), l.style->header);
        p.setFont(l.bold);
        p.setPen(l.style->text);
        const QString text = groupHeaderText(row);
        p.drawText(QRect(6, y, l.left - 10, row.height), Qt::AlignVCenter | Qt::TextSingleLine,
                   QFontMetrics(l.bold).elidedText(text, Qt::ElideRight, l.left - 10));
        p.setFont(l.style->font);
    }
    int labelWidthNeeded(const TimelineRow& row, const LabelPainting& l) const override {
        return QFontMetrics(l.bold).horizontalAdvance(groupHeaderText(row)) + 16;
    }
};

// A track of events: a lane per nesting depth, those on screen scanned into boxes.
class EventTrack final : public TimelineTrack {
public:
    void collect(const TimelineRow& row, int y, const FrameGeometry& g, FrameRecords& out) const override {
        const int firstLane = std::max(0, (g.top - y) / g.laneHeight);
        for (int d = firstLane; d < row.lanes; ++d) {
            const int ly = y + d * g.laneHeight;
            if (ly >= g.height) break;
            out.lanes.push_back({row.track, std::uint16_t(d), ly});
        }
    }
    void paintLabel(QPainter& p, const TimelineRow& row, int y, const LabelPainting& l) const override {
        p.setPen(l.style->text);
        p.drawText(QRect(18, l.labelY(y, row.height), l.left - 22, l.laneHeight),
                   Qt::AlignVCenter | Qt::TextSingleLine,
                   l.metrics.elidedText(row.label, Qt::ElideMiddle, l.left - 22));
    }
    int labelWidthNeeded(const TimelineRow& row, const LabelPainting& l) const override {
        return l.metrics.horizontalAdvance(row.label) + 24;
    }
};

// A counter (memory held, …): a step line over its row, its range under its name.
class CounterTrack final : public TimelineTrack {
public:
    void collect(const TimelineRow& row, int y, const FrameGeometry& g, FrameRecords& out) const override {
        out.counters.push_back({&row, QRect(g.left, y, g.width - g.left, row.height - g.trackGap)});
    }
    void paintLabel(QPainter& p, const TimelineRow& row, int y, const LabelPainting& l) const override {
        y = l.labelY(y, row.height, 2);
        p.setPen(l.style->text);
        p.drawText(QRect(18, y, l.left - 22, l.laneHeight), Qt::AlignVCenter | Qt::TextSingleLine,
                   l.metrics.elidedText(row.label, Qt::ElideMiddle, l.left - 22));
        // What the step line is scaled to.
        p.setPen(l.style->dimText);
        p.drawText(QRect(18, y + l.laneHeight, l.left - 22, l.laneHeight),
                   Qt::AlignVCenter | Qt::TextSingleLine,
                   l.metrics.elidedText(counterRangeText(l.trace->counters()[row.counter], row.low, row.high),
                                        Qt::ElideRight, l.left - 22));
    }
    int labelWidthNeeded(const TimelineRow& row, const LabelPainting& l) const override {
        return std::max(l.metrics.horizontalAdvance(row.label),
                        l.metrics.horizontalAdvance(
                            counterRangeText(l.trace->counters()[row.counter], row.low, row.high))) +
               24;
    }
};

} // namespace

QString groupHeaderText(const TimelineRow& row) {
    return (row.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + row.label;
}

int fittedLabelWidth(const TimelineLayout& layout, const Trace& trace, const TimelineStyle& style, int least,
                     int most) {
    QFont bold = style.font;
    bold.setBold(true);
    const LabelPainting l{&trace, &style, bold, QFontMetrics(style.font), 0, style.metrics.laneHeight, 0};
    int needed = least;
    for (const TimelineRow& row : layout.rows())
        needed = std::max(needed, timelineTrack(row.kind).labelWidthNeeded(row, l));
    return std::min(needed, std::max(least, most));
}

const TimelineTrack& timelineTrack(TimelineRow::Kind kind) {
    static const GroupTrack group;
    static const EventTrack events;
    static const CounterTrack counter;
    switch (kind) {
    case TimelineRow::Kind::Group:
        return group;
    case TimelineRow::Kind::Counter:
        return counter;
    case TimelineRow::Kind::Track:
        break;
    }
    return events;
}

} // namespace attnscope::ui
