// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/types.h"

#include <algorithm>
#include <cmath>

namespace attnscope::ui {

// The visible time window of a timeline, and the math between time and pixels. No Qt, so it is
// tested on its own. Times stay int64: epoch nanoseconds (~1.7e18) would lose hundreds of ns in
// a double; only differences from the window's start, which are small, go through doubles.
class TimeViewport {
public:
    static constexpr double kMinSpanNs = 10.0;

    TimeViewport() = default;
    // A viewport over the trace's extent [first, last], showing all of it.
    TimeViewport(TimeNs first, TimeNs last, double widthPx)
        : m_first(first), m_last(std::max(last, first + 1)) {
        setWidth(widthPx);
        fitAll();
    }

    TimeNs start() const { return m_start; }
    double span() const { return m_span; }
    TimeNs end() const { return m_start + TimeNs(std::ceil(m_span)); }
    double width() const { return m_width; }

    void setWidth(double widthPx) { m_width = std::max(1.0, widthPx); }

    double timeToX(TimeNs t) const { return double(t - m_start) * m_width / m_span; }
    TimeNs xToTime(double x) const { return m_start + TimeNs(std::llround(x * m_span / m_width)); }
    // Nanoseconds per pixel.
    double nsPerPixel() const { return m_span / m_width; }
    // The first time after t that falls in a later pixel than t's: always > t, so a loop that walks
    // pixels with it ends even where rounding maps the next pixel's edge back onto t.
    TimeNs nextPixelStart(TimeNs t) const {
        const double x = std::floor(timeToX(t));
        const TimeNs next = m_start + TimeNs(std::ceil((x + 1) * m_span / m_width));
        return std::max(next, t + 1);
    }

    // Zooms by factor (< 1 zooms in) keeping the time under x where it is.
    void zoomAbout(double x, double factor) {
        const TimeNs anchor = xToTime(x);
        const double span = std::clamp(m_span * factor, kMinSpanNs, maxSpan());
        m_start = anchor - TimeNs(std::llround(x / m_width * span));
        m_span = span;
        clampStart();
    }
    void panPixels(double dx) {
        m_start += TimeNs(std::llround(dx * nsPerPixel()));
        clampStart();
    }
    // Shows [from, to] with a margin of `margin` of the window on each side.
    void fit(TimeNs from, TimeNs to, double margin = 0.05) {
        m_span = std::clamp(double(to - from) * (1 + 2 * margin), kMinSpanNs, maxSpan());
        m_start = from + (to - from) / 2 - TimeNs(std::llround(m_span / 2));
        clampStart();
    }
    void fitAll() { fit(m_first, m_last, 0.01); }
    // Shows exactly [from, to], however far past the trace's ends: timelines lined up with others (their
    // n-th calls at one place and one scale) are not pulled back onto their own shorter traces.
    void show(TimeNs from, TimeNs to) {
        m_span = std::max(kMinSpanNs, double(to - from));
        m_start = from;
    }

    bool operator==(const TimeViewport& o) const { return m_start == o.m_start && m_span == o.m_span; }

private:
    // A little beyond the whole trace, never less than the smallest window.
    double maxSpan() const { return std::max(kMinSpanNs, double(m_last - m_first) * 1.1); }
    // The window may overhang the trace by a tenth of its extent, no more.
    void clampStart() {
        const TimeNs slack = (m_last - m_first) / 10;
        const TimeNs lo = m_first - slack;
        const TimeNs hi = m_last + slack - TimeNs(std::llround(m_span));
        m_start = hi < lo ? m_first - TimeNs(std::llround((m_span - double(m_last - m_first)) / 2))
                          : std::clamp(m_start, lo, hi);
    }

    TimeNs m_first = 0, m_last = 1;
    TimeNs m_start = 0;
    double m_span = 1;
    double m_width = 1;
};

} // namespace attnscope::ui
