// SPDX-License-Identifier: MIT
// The zoom history without a widget: entries, bursts, the limit, and forward forgotten on a new step.
#include "ui/zoom_history.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;

namespace {
ViewPlace at(TimeNs start, int scroll = 0) {
    return {TimeViewport(start, start + 1000, 100), scroll};
}
} // namespace

TEST(ZoomHistory, BackAndForwardWalkThePlacesLeft) {
    ZoomHistory h;
    EXPECT_FALSE(h.back(at(0)));
    h.leave(at(0), true, 0);
    h.leave(at(100), true, 10);
    EXPECT_TRUE(h.canGoBack());
    EXPECT_FALSE(h.canGoForward());
    EXPECT_EQ(h.back(at(200)), at(100)); // from 200, back to 100
    EXPECT_EQ(h.back(at(100)), at(0));
    EXPECT_FALSE(h.back(at(0)));
    EXPECT_EQ(h.forward(at(0)), at(100));
    EXPECT_EQ(h.forward(at(100)), at(200));
    EXPECT_FALSE(h.forward(at(200)));
    // A new step after going back forgets what was forward.
    ASSERT_TRUE(h.back(at(200)));
    h.leave(at(100), true, 2000);
    EXPECT_FALSE(h.canGoForward());
}

TEST(ZoomHistory, ABurstOfStepsIsOneEntryAndScrollCounts) {
    ZoomHistory h;
    h.leave(at(0), false, 0);
    h.leave(at(10), false, ZoomHistory::kBurstMs / 2); // a wheel spun: same burst
    h.leave(at(20), false, ZoomHistory::kBurstMs);     // still within kBurstMs of the last step
    h.leave(at(25), false, 2 * ZoomHistory::kBurstMs); // exactly kBurstMs after it: the same burst
    EXPECT_EQ(h.back(at(30)), at(0));
    EXPECT_FALSE(h.back(at(0)));
    ZoomHistory g;
    g.leave(at(0), false, 0);
    g.leave(at(10), false, 10 * ZoomHistory::kBurstMs);    // a pause: a new entry
    g.leave(at(10), true, 10 * ZoomHistory::kBurstMs);     // the same place twice is one entry
    g.leave(at(10, 50), true, 10 * ZoomHistory::kBurstMs); // scrolled: another place
    EXPECT_EQ(g.back(at(99)), at(10, 50));
    EXPECT_EQ(g.back(at(10, 50)), at(10));
    EXPECT_EQ(g.back(at(10)), at(0));
}

TEST(ZoomHistory, KeepsTheNewestEntriesOnly) {
    ZoomHistory h;
    for (TimeNs i = 0; i < TimeNs(ZoomHistory::kMostEntries) + 20; ++i)
        h.leave(at(i), true, i);
    std::size_t steps = 0;
    ViewPlace here = at(-1);
    while (auto there = h.back(here)) {
        here = *there;
        ++steps;
    }
    EXPECT_EQ(steps, ZoomHistory::kMostEntries);
    EXPECT_EQ(here, at(20)); // the oldest 20 were dropped
}
