// SPDX-License-Identifier: MIT
#include "counter_tracks.h"
#include "core/report/format.h"

#include "qt_text.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace attnscope::ui {

QString counterValueText(const CounterSeries& series, double value) {
    if (!series.unit.empty()) return qs(formatRate(value, series.unit));
    return QString::number(value, 'g', 6);
}

std::pair<double, double> counterRange(const CounterSeries& series) {
    if (series.value.empty()) return {0, 0};
    const auto [lo, hi] = std::minmax_element(series.value.begin(), series.value.end());
    return {*lo, *hi};
}

std::optional<std::size_t> counterSampleAt(const CounterSeries& series, TimeNs t) {
    const auto it = std::upper_bound(series.time.begin(), series.time.end(), t);
    if (it == series.time.begin()) return std::nullopt;
    return std::size_t(it - series.time.begin()) - 1;
}

QString counterRangeText(const CounterSeries& series, double low, double high) {
    return QStringLiteral("%1 – %2").arg(counterValueText(series, low), counterValueText(series, high));
}

QString counterRangeText(const CounterSeries& series) {
    const auto [low, high] = counterRange(series);
    return counterRangeText(series, low, high);
}

void paintCounter(QPainter& p, const CounterSeries& series, double low, double high, const QRect& area,
                  const TimeViewport& viewport, TimeNs until, QColor color) {
    if (series.time.empty() || area.height() < 3) return;
    const double base = std::min(0.0, low), span = high > base ? high - base : 1.0;
    const double bottom = area.bottom() - 1.0, height = area.height() - 3.0;
    auto yOf = [&](double v) { return bottom - (v - base) / span * height; };
    // From the sample in force at the left edge to the first one past the right edge, one step per
    // pixel column: the samples on one column draw a vertical stroke from the lowest to the highest.
    const std::size_t first = counterSampleAt(series, viewport.start()).value_or(0);
    auto xOf = [&](TimeNs t) {
        return area.left() + std::clamp(viewport.timeToX(t), 0.0, double(area.width()));
    };
    QPainterPath line;
    double lastX = xOf(series.time[first]), lastY = yOf(series.value[first]);
    bool started = false;
    auto stepTo = [&](double x, double y) {
        if (!started) {
            line.moveTo(lastX, lastY);
            started = true;
        }
        line.lineTo(x, lastY);
        line.lineTo(x, y);
        lastX = x;
        lastY = y;
    };
    for (std::size_t i = first + 1; i < series.time.size(); ++i) {
        const double x = xOf(series.time[i]);
        const double y = yOf(series.value[i]);
        // Samples on the pixel column of the previous step: a vertical stroke there covers them all.
        if (started && x - lastX < 1) {
            line.lineTo(lastX, y);
            lastY = y;
        } else {
            stepTo(x, y);
        }
        if (series.time[i] > viewport.end()) break;
    }
    if (!started) line.moveTo(lastX, lastY);
    // The last value holds until the trace ends.
    const double right = std::max(lastX, xOf(until));
    line.lineTo(right, lastY);
    QPainterPath fill = line;
    fill.lineTo(right, yOf(base));
    fill.lineTo(xOf(series.time[first]), yOf(base));
    fill.closeSubpath();
    p.save();
    p.setClipRect(area);
    p.setRenderHint(QPainter::Antialiasing, false);
    QColor shade = color;
    shade.setAlpha(70);
    p.fillPath(fill, shade);
    p.setPen(QPen(color, 1.2));
    p.drawPath(line);
    p.restore();
}

} // namespace attnscope::ui
