// SPDX-License-Identifier: MIT
// Viewport math as tables: time ↔ pixel, zoom about a point, pan, fit, clamping.
#include "ui/time_viewport.h"
#include "ui/timeline_renderer.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;

namespace {
// Epoch nanoseconds, as Kineto traces have them: a double alone could not hold these exactly.
constexpr TimeNs kEpoch = 1'700'000'000'000'000'000;
} // namespace

TEST(TimeViewport, TimeAndPixelsRoundTrip) {
    struct Case {
        TimeNs first, last;
        double width;
        TimeNs t;
    };
    const Case cases[] = {
        {0, 1'000'000, 1000, 500'000},
        {kEpoch, kEpoch + 10'000, 1920, kEpoch + 1234},
        {kEpoch, kEpoch + 1, 800, kEpoch},
        {-5000, 5000, 333, 17},
    };
    for (const Case& c : cases) {
        TimeViewport vp(c.first, c.last, c.width);
        const double x = vp.timeToX(c.t);
        EXPECT_NEAR(double(vp.xToTime(x) - c.t), 0.0, std::max(1.0, vp.nsPerPixel()))
            << c.first << " " << c.t;
        // Times are whole nanoseconds: zoomed in past 1 ns per pixel, a pixel maps to the nearest one.
        EXPECT_NEAR(vp.timeToX(vp.xToTime(100)), 100.0, std::max(1.0, 1 / vp.nsPerPixel()));
    }
}

TEST(TimeViewport, FitAllShowsTheWholeTraceWithASmallMargin) {
    const TimeViewport vp(kEpoch, kEpoch + 8'000'000, 1600);
    EXPECT_LT(vp.start(), kEpoch);
    EXPECT_GT(vp.end(), kEpoch + 8'000'000);
    EXPECT_NEAR(vp.span(), 8'000'000 * 1.02, 1.0);
    EXPECT_GT(vp.timeToX(kEpoch), 0);
    EXPECT_LT(vp.timeToX(kEpoch + 8'000'000), 1600);
}

TEST(TimeViewport, ZoomKeepsTheTimeUnderTheCursor) {
    struct Case {
        double x, factor;
    };
    const Case cases[] = {{0, 0.5}, {800, 0.8}, {1599, 0.1}, {400, 1.25}, {1200, 0.001}};
    for (const Case& c : cases) {
        TimeViewport vp(kEpoch, kEpoch + 1'000'000'000, 1600);
        vp.zoomAbout(800, 0.01); // start from inside, away from the clamps
        const TimeNs before = vp.xToTime(c.x);
        const double span = vp.span();
        vp.zoomAbout(c.x, c.factor);
        EXPECT_NEAR(vp.span(), std::max(span * c.factor, TimeViewport::kMinSpanNs), 1e-6 * span) << c.x;
        EXPECT_NEAR(double(vp.xToTime(c.x) - before), 0.0, std::max(1.0, vp.nsPerPixel()))
            << c.x << " " << c.factor;
    }
}

TEST(TimeViewport, ZoomStopsAtTheLimits) {
    TimeViewport vp(0, 1'000'000, 1000);
    for (int i = 0; i < 200; ++i)
        vp.zoomAbout(500, 0.5);
    EXPECT_DOUBLE_EQ(vp.span(), TimeViewport::kMinSpanNs);
    for (int i = 0; i < 200; ++i)
        vp.zoomAbout(500, 2);
    EXPECT_DOUBLE_EQ(vp.span(), 1'000'000 * 1.1);
    // Zoomed all the way out, the trace sits in the middle of the window.
    EXPECT_NEAR(double(vp.start() + TimeNs(vp.span() / 2)), 500'000.0, 1.0);
}

// Walking a window pixel by pixel (find ticks, folded blocks) must always move forward: zoomed in
// to a few ns per pixel, rounding once mapped the next pixel's edge back onto the same time and the
// ruler's find ticks looped for ever.
TEST(TimeViewport, NextPixelStartAlwaysMovesForwardToTheNextPixel) {
    for (const double span : {3558.0, 1000.0, 37.0, TimeViewport::kMinSpanNs, 1e6}) {
        for (const double width : {1000.0, 1321.0, 1600.0}) {
            TimeViewport vp(kEpoch, kEpoch + 1'000'000'000, width);
            vp.fit(kEpoch + 16'400'123, kEpoch + 16'400'123 + TimeNs(span), 0);
            int steps = 0;
            double lastPixel = -1;
            for (TimeNs t = vp.start(); t <= vp.end() && steps <= int(width) + 2; ++steps) {
                const TimeNs next = vp.nextPixelStart(t);
                ASSERT_GT(next, t) << span << " ns over " << width << " px";
                const double pixel = std::floor(vp.timeToX(t));
                EXPECT_GT(pixel, lastPixel);
                lastPixel = pixel;
                t = next;
            }
            EXPECT_LE(steps, int(width) + 2) << "one step per pixel at most";
        }
    }
}

TEST(TimeViewport, PanIsClampedToTheTraceAndATenthBeyond) {
    struct Case {
        double pixels;
        TimeNs expectStart;
    };
    // 1 µs trace shown 100 ns wide on 1000 px: 0.1 ns per pixel.
    const Case cases[] = {{1000, 100}, {-1'000'000, -100}, {1'000'000, 1000}};
    for (const Case& c : cases) {
        TimeViewport vp(0, 1000, 1000);
        vp.fit(0, 100, 0);
        vp.panPixels(c.pixels);
        EXPECT_EQ(vp.start(), c.expectStart) << c.pixels;
        EXPECT_DOUBLE_EQ(vp.span(), 100);
    }
}

TEST(TimeViewport, FitShowsARangeWithItsMargin) {
    TimeViewport vp(kEpoch, kEpoch + 1'000'000'000, 1000);
    vp.fit(kEpoch + 5000, kEpoch + 6000, 0.05);
    EXPECT_DOUBLE_EQ(vp.span(), 1100);
    EXPECT_EQ(vp.start(), kEpoch + 4950);
    // A zero-length event still gets the smallest window, centred on it.
    vp.fit(kEpoch + 7000, kEpoch + 7000, 0);
    EXPECT_DOUBLE_EQ(vp.span(), TimeViewport::kMinSpanNs);
    EXPECT_EQ(vp.start(), kEpoch + 7000 - 5);
}

TEST(Ruler, StepsAreOneTwoFive) {
    struct Case {
        double nsPerPixel, minPixels;
        TimeNs step;
    };
    const Case cases[] = {
        {1, 100, 100}, {1.5, 100, 200}, {30, 100, 5000}, {1e6, 80, 100'000'000}, {0.001, 100, 1}};
    for (const Case& c : cases)
        EXPECT_EQ(rulerStep(c.nsPerPixel, c.minPixels), c.step) << c.nsPerPixel;
}
