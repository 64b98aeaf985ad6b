// SPDX-License-Identifier: MIT
#pragma once

// Counter tracks: a counter series (Chrome 'C' events, PyTorch's "[memory]" totals, AttnScope's own
// runs' memory) drawn as a step line under its process, its value and unit on hover.
#include "core/model/trace.h"
#include "time_viewport.h"

#include <QColor>
#include <QRect>
#include <QString>

#include <optional>

class QPainter;

namespace attnscope::ui {

// A value with the series' unit: "1.003 GB" for bytes, "12.5" without a unit.
QString counterValueText(const CounterSeries& series, double value);

// The smallest and largest value of the series (0, 0 when it has none).
std::pair<double, double> counterRange(const CounterSeries& series);

// The sample in force at time t: the last one at or before it.
std::optional<std::size_t> counterSampleAt(const CounterSeries& series, TimeNs t);

// The label column's second line: "0 B – 1.2 GB" (low, high: counterRange, when already known).
QString counterRangeText(const CounterSeries& series, double low, double high);
QString counterRangeText(const CounterSeries& series);

// Draws the series as a filled step line in `area`, scaled from min(0, low) to high (its range),
// for the time the viewport shows (several samples on one pixel column: a stroke over their range),
// from its first sample to `until` (the trace's end), which the last value holds to.
void paintCounter(QPainter& p, const CounterSeries& series, double low, double high, const QRect& area,
                  const TimeViewport& viewport, TimeNs until, QColor color);

} // namespace attnscope::ui
