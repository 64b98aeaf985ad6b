// SPDX-License-Identifier: MIT
#pragma once

// The kinds of timeline rows, each a class (after Tracy's TimelineItem family): before a frame is
// painted, each visible row says what it will draw as records (a header band, lanes of events to
// scan, a counter's area); the renderer then paints the records kind by kind, and each row paints
// its own entry in the label column. A new kind of row is a class and a line in timelineTrack(), not
// an edit of the renderer.
#include "timeline_layout.h"

#include "core/model/trace.h"

#include <QFont>
#include <QFontMetrics>
#include <QRect>

#include <algorithm>
#include <cstdint>
#include <vector>

class QPainter;

namespace attnscope::ui {

struct TimelineStyle;

// One lane of a track's events, at y on screen: scanned into boxes by the renderer.
struct LaneRecord {
    TrackId track;
    std::uint16_t depth = 0;
    int y = 0;
};
// A counter row and the area its step line fills.
struct CounterRecord {
    const TimelineRow* row = nullptr;
    QRect area;
};

// What one frame draws in the events area, collected from the visible rows before painting.
struct FrameRecords {
    std::vector<QRect> headerBands;
    std::vector<LaneRecord> lanes;
    std::vector<CounterRecord> counters;
    void clear();
};

// Where a frame's rows go: the events area's left edge and width, the first pixel under the ruler
// and the frame's height.
struct FrameGeometry {
    int left = 0, top = 0, width = 0, height = 0;
    int laneHeight = 0, trackGap = 0;
};

// What a row's label needs to draw itself.
struct LabelPainting {
    const Trace* trace = nullptr;
    const TimelineStyle* style = nullptr;
    QFont bold;
    QFontMetrics metrics;
    int left = 0, laneHeight = 0;
    int top = 0; // the first pixel of rows on screen (below the ruler)
    // Where a row's name goes: its top, or, when its top is scrolled off, the top of the screen while any
    // lane of the row is on it (a tall track's name stays in view as long as the track does).
    int labelY(int y, int height, int lines = 1) const {
        return std::max(y, std::min(top, y + height - lines * laneHeight));
    }
};

class TimelineTrack {
public:
    virtual ~TimelineTrack() = default;
    // The records of `row`, whose top is at y on screen.
    virtual void collect(const TimelineRow& row, int y, const FrameGeometry& g, FrameRecords& out) const = 0;
    // Its entry in the label column.
    virtual void paintLabel(QPainter& p, const TimelineRow& row, int y, const LabelPainting& l) const = 0;
    // How wide the label column must be for its entry to show whole.
    virtual int labelWidthNeeded(const TimelineRow& row, const LabelPainting& l) const = 0;
};

// A process's header as its label column shows it: "▾ name" unfolded, "▸ name" folded.
QString groupHeaderText(const TimelineRow& row);

// The label column's width that shows every row's name whole, within [least, most]: a column the user
// has not sized fits its names (a GPU's model, a thread's name) as far as there is room.
int fittedLabelWidth(const TimelineLayout& layout, const Trace& trace, const TimelineStyle& style, int least,
                     int most);

// The class of each kind of row.
const TimelineTrack& timelineTrack(TimelineRow::Kind kind);

} // namespace attnscope::ui
