// SPDX-License-Identifier: MIT
// The timeline's row kinds (timeline_tracks.h): the records each collects before a frame is painted,
// and a group's header text.
#include "ui/timeline_tracks.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;

namespace {
const FrameGeometry kFrame{240, 24, 1000, 600, 18, 3}; // left, top, width, height, lane, gap
}

TEST(TimelineTracks, EachKindCollectsItsRecords) {
    FrameRecords out;
    TimelineRow group;
    group.kind = TimelineRow::Kind::Group;
    group.height = 22;
    timelineTrack(group.kind).collect(group, 30, kFrame, out);
    ASSERT_EQ(out.headerBands.size(), 1u);
    EXPECT_EQ(out.headerBands[0], QRect(240, 30, 760, 22));

    TimelineRow track;
    track.kind = TimelineRow::Kind::Track;
    track.track = TrackId(4);
    track.lanes = 3;
    timelineTrack(track.kind).collect(track, 100, kFrame, out);
    ASSERT_EQ(out.lanes.size(), 3u);
    for (std::uint16_t d = 0; d < 3; ++d) {
        EXPECT_EQ(out.lanes[d].track, TrackId(4));
        EXPECT_EQ(out.lanes[d].depth, d);
        EXPECT_EQ(out.lanes[d].y, 100 + 18 * d);
    }
    // Lanes above the ruler or below the frame are not scanned.
    out.clear();
    track.lanes = 50;
    timelineTrack(track.kind).collect(track, -30, kFrame, out);
    ASSERT_FALSE(out.lanes.empty());
    EXPECT_EQ(out.lanes.front().depth, (24 + 30) / 18);
    EXPECT_LT(out.lanes.back().y, 600);
    EXPECT_GE(out.lanes.back().y + 18, 600);

    TimelineRow counter;
    counter.kind = TimelineRow::Kind::Counter;
    counter.height = 40;
    out.clear();
    timelineTrack(counter.kind).collect(counter, 200, kFrame, out);
    ASSERT_EQ(out.counters.size(), 1u);
    EXPECT_EQ(out.counters[0].row, &counter);
    EXPECT_EQ(out.counters[0].area, QRect(240, 200, 760, 40 - 3)); // the gap to the next row stays clear
    EXPECT_TRUE(out.headerBands.empty() && out.lanes.empty());
}

TEST(TimelineTracks, AGroupsHeaderSaysWhetherItIsFolded) {
    TimelineRow group;
    group.kind = TimelineRow::Kind::Group;
    group.label = QStringLiteral("GPU 0");
    EXPECT_EQ(groupHeaderText(group), QString::fromUtf8("▾ GPU 0"));
    group.collapsed = true;
    EXPECT_EQ(groupHeaderText(group), QString::fromUtf8("▸ GPU 0"));
}

// A tall track scrolled part way keeps its name in view: at the top of the screen while any lane of it is
// on screen, then up with its last lane; a track whose top is on screen has it at its top.
TEST(TimelineTracks, ATallTracksNameStaysInViewWhileTheTrackDoes) {
    const QFont font;
    LabelPainting l{nullptr, nullptr, font, QFontMetrics(font), 200, 20, 30};
    EXPECT_EQ(l.labelY(100, 200), 100);    // on screen: at its top
    EXPECT_EQ(l.labelY(-100, 400), 30);    // its top scrolled off, most of it on screen
    EXPECT_EQ(l.labelY(-100, 145), 25);    // only its last lane left: with it
    EXPECT_EQ(l.labelY(-100, 200, 2), 30); // a counter's two lines
    EXPECT_EQ(l.labelY(-100, 150, 2), 10);
}
