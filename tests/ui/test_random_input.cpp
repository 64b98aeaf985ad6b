// SPDX-License-Identifier: MIT
// Random input, as a user in a hurry gives it: thousands of seeded clicks, drags, wheel turns,
// navigation keys, finds with typed text, history steps and dock tab clicks on real traces. The window
// must stay alive and keep answering (a hang fails the test by its timeout), and its memory must
// stay flat. A failure prints the seed and the action that was running, to replay it.
#include "support/test_support.h"
#include "ui/details_panel.h"
#include "ui/find_bar.h"
#include "ui/main_window.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMouseEvent>
#include <QPushButton>
#include <QTabBar>
#include <QTest>
#include <QWheelEvent>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

std::size_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * std::size_t(sysconf(_SC_PAGESIZE));
}

class Monkey {
public:
    Monkey(MainWindow& w, std::uint32_t seed) : m_w(w), m_rng(seed) {}

    // One random action; returns what it was, for the failure message.
    std::string act() {
        closePopups();
        switch (pick(12)) {
        case 0:
        case 1:
            return clickSomewhere();
        case 2:
            return dragOnTimeline();
        case 3:
            return wheelOnTimeline();
        case 4:
        case 5:
            return navigationKey();
        case 6:
            return find();
        case 7:
            return history();
        case 8:
            return clickTab();
        case 9:
            return clickDetailsLink();
        case 10:
            return clickTimelineEvent();
        default:
            return clickSomewhere();
        }
    }

private:
    int pick(int n) { return int(m_rng() % std::uint32_t(n)); }

    static void closePopups() {
        while (QWidget* popup = QApplication::activePopupWidget())
            popup->close();
    }

    static void mouse(QWidget* target, QEvent::Type type, QPoint pos, Qt::MouseButton button,
                      Qt::MouseButtons buttons, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
        QMouseEvent event(type, QPointF(pos), QPointF(target->mapToGlobal(pos)), button, buttons, modifiers);
        QApplication::sendEvent(target, &event);
    }

    void clickAt(QWidget* target, QPoint pos, bool twice = false) {
        mouse(target, QEvent::MouseButtonPress, pos, Qt::LeftButton, Qt::LeftButton);
        mouse(target, QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton);
        if (twice) {
            mouse(target, QEvent::MouseButtonDblClick, pos, Qt::LeftButton, Qt::LeftButton);
            mouse(target, QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton);
        }
    }

    // A click on whatever is under a random point of the window, but the menu bar (menus and their
    // file dialogs are modal) and the Run dock (a run is another test's business).
    std::string clickSomewhere() {
        const QPoint p(pick(m_w.width()), pick(m_w.height()));
        QWidget* target = m_w.childAt(p);
        if (!target || target == m_w.menuBar() || m_w.menuBar()->isAncestorOf(target))
            return "click (skipped)";
        if (auto* run = m_w.findChild<QDockWidget*>("runDock");
            run && (run == target || run->isAncestorOf(target)))
            return "click (skipped: run dock)";
        clickAt(target, target->mapFrom(&m_w, p), pick(5) == 0);
        return "click at " + std::to_string(p.x()) + "," + std::to_string(p.y()) + " on " +
               target->metaObject()->className();
    }

    QPoint inTimeline() {
        TimelineView& v = *m_w.timeline();
        return {pick(v.width()), pick(v.height())};
    }

    std::string dragOnTimeline() {
        TimelineView& v = *m_w.timeline();
        const QPoint from = inTimeline(), to = inTimeline();
        const auto modifiers = pick(3) == 0 ? Qt::ShiftModifier : Qt::NoModifier;
        mouse(&v, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton, modifiers);
        for (int step = 1; step <= 3; ++step)
            mouse(&v, QEvent::MouseMove, from + (to - from) * step / 3, Qt::NoButton, Qt::LeftButton,
                  modifiers);
        mouse(&v, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton, modifiers);
        return std::string(modifiers ? "shift-" : "") + "drag on the timeline";
    }

    std::string wheelOnTimeline() {
        TimelineView& v = *m_w.timeline();
        const QPoint at = inTimeline();
        const Qt::KeyboardModifiers modifiers[] = {Qt::NoModifier, Qt::ControlModifier, Qt::ShiftModifier};
        const auto m = modifiers[pick(3)];
        const int steps = (pick(2) ? 1 : -1) * (1 + pick(4)) * 120;
        QWheelEvent wheel(QPointF(at), QPointF(v.mapToGlobal(at)), QPoint(), QPoint(0, steps), Qt::NoButton,
                          m, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&v, &wheel);
        return "wheel " + std::to_string(steps) + " with modifiers " + std::to_string(int(m));
    }

    QWidget* focused() {
        QWidget* f = QApplication::focusWidget();
        if (!f || f->window() != &m_w) f = m_w.focusWidget();
        return f ? f : m_w.timeline();
    }

    std::string navigationKey() {
        const Qt::Key keys[] = {Qt::Key_W, Qt::Key_A,      Qt::Key_S,      Qt::Key_D, Qt::Key_F,
                                Qt::Key_0, Qt::Key_Escape, Qt::Key_Return, Qt::Key_W, Qt::Key_W};
        const Qt::Key key = keys[pick(10)];
        const int times = 1 + pick(8);
        QWidget* target = focused();
        for (int i = 0; i < times; ++i)
            QTest::keyClick(target, key);
        return "key " + std::to_string(int(key)) + " x" + std::to_string(times) + " to " +
               target->metaObject()->className();
    }

    std::string find() {
        static const char* const texts[] = {"s",      "as",     "flash", "gemm", "SOFTMAX",
                                            "kernel", "aten::", "x",     "zz"};
        const std::string text = texts[pick(9)];
        FindBar* bar = m_w.findBar();
        QTest::keyClick(focused(), Qt::Key_F, Qt::ControlModifier);
        if (!bar->isVisible()) bar->activate();
        bar->edit()->selectAll();
        QTest::keyClicks(bar->edit(), QString::fromStdString(text));
        // Let the search run, then step through a few matches.
        waitUntil([&] { return bar->countText().endsWith("matches") || bar->countText() == "no matches"; },
                  3000);
        const int steps = pick(4);
        for (int i = 0; i < steps; ++i)
            QTest::keyClick(bar->edit(), Qt::Key_Return, pick(3) == 0 ? Qt::ShiftModifier : Qt::NoModifier);
        if (pick(3) == 0) QTest::keyClick(bar->edit(), Qt::Key_Escape);
        return "find '" + text + "', " + std::to_string(steps) + " steps";
    }

    std::string history() {
        const bool back = pick(2) == 0;
        QTest::keyClick(focused(), back ? Qt::Key_Left : Qt::Key_Right, Qt::AltModifier);
        return back ? "Alt+Left" : "Alt+Right";
    }

    std::string clickTab() {
        QList<QTabBar*> bars;
        for (QTabBar* bar : m_w.findChildren<QTabBar*>())
            if (bar->isVisible() && bar->count() > 0) bars.push_back(bar);
        if (bars.isEmpty()) return "tab (none)";
        QTabBar* bar = bars[pick(int(bars.size()))];
        const int tab = pick(bar->count());
        if (bar->tabText(tab) == "Run") return "tab (skipped: Run)";
        clickAt(bar, bar->tabRect(tab).center());
        return "tab '" + bar->tabText(tab).toStdString() + "'";
    }

    std::string clickDetailsLink() {
        QList<QPushButton*> links;
        for (QPushButton* b : m_w.details()->findChildren<QPushButton*>())
            if (b->isVisible()) links.push_back(b);
        if (links.isEmpty()) return clickTimelineEvent();
        QPushButton* link = links[pick(int(links.size()))];
        clickAt(link, link->rect().center());
        return "details link '" + link->text().toStdString() + "'";
    }

    // A click where an event is: the first kernel of a random row, if shown.
    std::string clickTimelineEvent() {
        TimelineView& v = *m_w.timeline();
        for (int tries = 0; tries < 20; ++tries) {
            const QPoint p(v.labelWidth() + pick(std::max(1, v.width() - v.labelWidth())), pick(v.height()));
            if (v.eventAt(p)) {
                clickAt(&v, p);
                return "click on an event";
            }
        }
        return "click on an event (none found)";
    }

    MainWindow& m_w;
    std::mt19937 m_rng;
};

// Drives the window through `actions` random actions; checks it answers between them.
void runMonkey(MainWindow& w, std::uint32_t seed, int actions) {
    Monkey monkey(w, seed);
    std::size_t warmRss = 0;
    QElapsedTimer clock;
    for (int i = 0; i < actions; ++i) {
        clock.restart();
        const std::string what = monkey.act();
        QApplication::processEvents();
        ASSERT_LT(clock.elapsed(), 20000)
            << "seed " << seed << ", action " << i << ": " << what << " took " << clock.elapsed() << " ms";
        ASSERT_TRUE(w.isVisible()) << "seed " << seed << ", action " << i << ": " << what;
        if (i == actions / 5) warmRss = residentBytes();
        if (i % 250 == 0) {
            // The window answers: it paints a frame of the timeline on request.
            const QImage frame = w.timeline()->grab().toImage();
            ASSERT_FALSE(frame.isNull()) << "seed " << seed << ", action " << i << ": " << what;
        }
    }
    const std::size_t endRss = residentBytes();
    std::printf(
        "random input, seed %u: %d actions, resident memory %.1f MB after warm-up, %.1f MB at the end\n",
        seed, actions, double(warmRss) / 1e6, double(endRss) / 1e6);
    // Flat: a leak of a widget or a frame per action would add far more than this over the run.
    EXPECT_LT(double(endRss), double(warmRss) + 64e6) << "seed " << seed;
}

std::uint32_t seedFromEnvironment(std::uint32_t fallback) {
    const char* s = std::getenv("ATTNSCOPE_TEST_RANDOM_SEED");
    return s ? std::uint32_t(std::strtoul(s, nullptr, 10)) : fallback;
}

} // namespace

TEST(RandomInput, TheWindowSurvivesThousandsOfActionsOnAnH100Trace) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    w.openFile(QString::fromStdString(path));
    ASSERT_TRUE(waitForTrace(w));
    ASSERT_TRUE(waitForAnalysis(w));
    runMonkey(w, seedFromEnvironment(12), 2500);
}

TEST(RandomInput, TheWindowSurvivesThousandsOfActionsOnTwoRanks) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    w.openRanks({QString::fromStdString(r0), QString::fromStdString(r1)});
    ASSERT_TRUE(waitForTrace(w));
    ASSERT_TRUE(waitForAnalysis(w));
    runMonkey(w, seedFromEnvironment(7), 1500);
}
