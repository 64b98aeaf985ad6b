// SPDX-License-Identifier: MIT
#pragma once

#include "timeline_renderer.h"

#include <QSize>

#include <functional>

class QPainter;
#include <QString>

namespace attnscope::ui {

// Draws a timeline scene into a file: PNG (at scale × the size, for 2× pictures), SVG or PDF, by
// the file's suffix. Written to a temporary file and renamed, so nothing is left half-written.
// Returns an empty string on success, else what went wrong.
QString exportTimeline(TimelineRenderer& renderer, const TimelineScene& scene, const TimelineStyle& style,
                       QSize size, double scale, const QString& path);

// Draws with paint into a file: PNG (at scale × the size), SVG or PDF by the path's suffix, written
// to a temporary file and renamed. Returns an empty string on success, else what went wrong.
QString exportPicture(QSize size, double scale, const QString& path, const QString& title,
                      const std::function<void(QPainter&, QSize)>& paint);

// The picture formats exportTimeline understands, from a path's suffix ("png", "svg", "pdf"), or "".
QString timelineFormatOf(const QString& path);

// Height that shows every row of a layout with the ruler and room for the legend below.
int fullTimelineHeight(const TimelineLayout& layout, const TimelineStyle& style);

// A timeline picture of a whole trace without a window (`attnscope export … --timeline`): every
// track (or those whose label matches trackFilter), over range (the whole trace when unset).
struct TimelinePicture {
    QString path;
    std::optional<TimeRange> range; // absolute ns
    QSize size;                     // empty: 1600 wide, as tall as the tracks need
    QString trackFilter;            // a regular expression on track labels
    double scale = 1;
    int maxHeight = 20000;            // with size empty: at most this tall
    std::optional<EventRef> selected; // drawn selected, as a click in the window does, and scrolled to
    std::optional<TimeRange> marked;  // drawn as a selected stretch is (its length over it)
};
// analysis (when given) colours kernels by their roles, as the window does.
QString exportTracePicture(const Trace& trace, const TimelineIndex& index, const TraceAnalysis* analysis,
                           const TimelinePicture& picture);

} // namespace attnscope::ui
