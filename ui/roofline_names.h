// SPDX-License-Identifier: MIT
#pragma once

// The roofline's names (roofline_chart.cpp): its roofs' and its points' names, placed clear of each other,
// of the roofs and of the points.
#include <QChart>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

namespace attnscope::ui {

// Names beside points, placed in pixels once the chart is laid out (and again whenever its plot
// moves): right of the marker, else left of it, else above it, whichever first stays inside the plot
// and clear of the other named markers and the names placed before it.
struct PointName {
    QPointF value; // in the axes' units
    double markerSize;
    QString text;
    bool roof = false;   // a roof's name: above its place first, placed before the points' names
    QStringList shorter; // where the whole name finds no room: shorter forms, tried in turn
    // The point that holds the most time: where nothing beside it is clear, its name goes further off,
    // joined to it by a line (the one point a reader must not have to hover to name).
    bool biggest = false;
};
// The item's data key that says which name a text is (tests read it): "roof", "biggest" or "point".
constexpr int kNameKindKey = 0;

// lines: the roofs, each a polyline in the axes' units; no name is put across one. dots: every point drawn
// (its place in the axes' units, its marker's size); no name is put over one.
void nameBeside(QChart* chart, QAbstractSeries* series, const std::vector<PointName>& names,
                const std::vector<std::vector<QPointF>>& lines,
                const std::vector<std::pair<QPointF, double>>& dots);

} // namespace attnscope::ui
