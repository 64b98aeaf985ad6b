// SPDX-License-Identifier: MIT
// Navigating the timeline: keys, the View menu, the wheel, drags and the zoom history, wherever the focus is.
#include "timeline_test_support.h"

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

TEST(TimelineView, KeysZoomPanFitAndWalkTheHistory) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    TimelineView& v = win.view();
    v.setFocus();
    const TimeViewport all = v.viewport();
    QTest::keyClick(&v, Qt::Key_W);
    EXPECT_NEAR(v.viewport().span(), all.span() * 0.8, 1);
    QTest::keyClick(&v, Qt::Key_S);
    EXPECT_NEAR(v.viewport().span(), all.span(), 2);
    QTest::keyClick(&v, Qt::Key_W);
    QTest::keyClick(&v, Qt::Key_W);
    const TimeViewport zoomed = v.viewport();
    QTest::keyClick(&v, Qt::Key_D);
    EXPECT_NEAR(double(v.viewport().start() - zoomed.start()), 0.15 * zoomed.width() * zoomed.nsPerPixel(),
                2);
    QTest::keyClick(&v, Qt::Key_A);
    EXPECT_NEAR(double(v.viewport().start() - zoomed.start()), 0, 2);
    QTest::keyClick(&v, Qt::Key_0);
    EXPECT_EQ(v.viewport(), all);
    // Back returns to where the view was before fitting all; forward undoes that.
    ASSERT_TRUE(v.back());
    EXPECT_NEAR(v.viewport().span(), zoomed.span(), 2);
    ASSERT_TRUE(v.forward());
    EXPECT_EQ(v.viewport(), all);
    // Ctrl+wheel zooms at the cursor; a plain drag pans.
    const QPoint at(v.style().labelWidth + 300, 200);
    QWheelEvent wheel(QPointF(at), QPointF(v.mapToGlobal(at)), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    const TimeNs under = v.viewport().xToTime(300);
    QApplication::sendEvent(&v, &wheel);
    EXPECT_NEAR(v.viewport().span(), all.span() * 0.8, 2);
    EXPECT_NEAR(double(v.viewport().xToTime(300) - under), 0, v.viewport().nsPerPixel() + 1);
    const TimeViewport before = v.viewport();
    drag(&v, at, at + QPoint(-100, 0));
    EXPECT_NEAR(double(v.viewport().start() - before.start()), 100 * before.nsPerPixel(),
                before.nsPerPixel() + 1);
}

// The View menu lists every navigation key with its hint, and its entry does what the key does.
TEST(TimelineView, TheViewMenuAndTheKeysAreOneTable) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    TimelineView& v = win.view();
    QMenu* view = nullptr;
    for (QAction* a : win.w.menuBar()->actions())
        if (a->text() == "&View") view = a->menu();
    ASSERT_NE(view, nullptr);
    for (const NavigationKey& k : navigationKeys()) {
        QAction* entry = nullptr;
        for (QAction* a : view->actions())
            if (a->text() == QString::fromLatin1(k.command) + '\t' + QString::fromLatin1(k.hint)) entry = a;
        ASSERT_NE(entry, nullptr) << k.command;
        v.fitAll();
        v.zoomBy(0.5); // room to pan both ways
        entry->trigger();
        const TimeViewport byMenu = v.viewport();
        v.fitAll();
        v.zoomBy(0.5);
        v.setFocus();
        v.navigate(k.action);
        EXPECT_EQ(v.viewport(), byMenu) << k.command;
        EXPECT_EQ(navigationActionFor(k.key), k.action) << k.command;
    }
    EXPECT_EQ(navigationActionFor(Qt::Key_Q), std::nullopt);
    // The status bar's hint is read off the same table.
    EXPECT_EQ(navigationHint(), QString::fromUtf8("W/S zoom · A/D pan · F fit · 0 fit all"));
}

// The navigation keys steer the timeline wherever the focus is in the window (a Details link, the
// kernel table, a dock's tab), except in a text field, where they are text.
TEST(TimelineView, NavigationKeysWorkWheneverTheFocusIsNotInATextField) {
    Window win;
    ASSERT_TRUE(waitForTrace(win.w));
    TimelineView& v = win.view();
    auto* table = win.w.findChild<QTableView*>();
    ASSERT_NE(table, nullptr);
    const double all = v.viewport().span();
    table->setFocus();
    QTest::keyClick(table, Qt::Key_W);
    EXPECT_NEAR(v.viewport().span(), all * 0.8, 1) << "W in the kernel table";
    QTest::keyClick(table, Qt::Key_0);
    EXPECT_NEAR(v.viewport().span(), all, 2) << "0 in the kernel table";
    // A Details link button after it was clicked.
    const auto kernels = gpuKernels(win.trace());
    ASSERT_FALSE(kernels.empty());
    v.selectEvent(kernels.front());
    QApplication::processEvents();
    QPushButton* link = nullptr;
    for (QPushButton* b : win.w.details()->findChildren<QPushButton*>())
        if (b->isVisible()) link = b;
    if (link) {
        link->setFocus();
        QTest::keyClick(link, Qt::Key_S);
        EXPECT_GT(v.viewport().span(), all * 1.05) << "S on a Details link";
        QTest::keyClick(link, Qt::Key_0);
    }
    // The find bar's field keeps its letters.
    FindBar* bar = win.w.findBar();
    bar->activate();
    const double before = v.viewport().span();
    QTest::keyClicks(bar->edit(), "wasd0");
    EXPECT_EQ(bar->edit()->text(), "wasd0");
    EXPECT_DOUBLE_EQ(v.viewport().span(), before);
    // With a modifier the keys are someone else's (Ctrl+S saves).
    table->setFocus();
    QTest::keyClick(table, Qt::Key_W, Qt::ControlModifier);
    EXPECT_DOUBLE_EQ(v.viewport().span(), before);
}
