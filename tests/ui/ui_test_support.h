// SPDX-License-Identifier: MIT
#pragma once

#include "ui/main_window.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QSize>
#include <QTableWidget>

#include <gtest/gtest.h>

#include <string>

namespace attnscope::test {

// Runs the event loop while busy() holds (work on worker threads hands its results back through it),
// up to timeoutMs; whether it ended.
template <class Busy> bool waitWhile(Busy busy, int timeoutMs = 30000) {
    QElapsedTimer timer;
    timer.start();
    while (busy() && timer.elapsed() < timeoutMs)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    QApplication::processEvents();
    return !busy();
}

// Runs the event loop until the window's load ends (the load itself is on a worker thread).
inline bool waitForLoad(ui::MainWindow& w, int timeoutMs = 30000) {
    return waitWhile([&] { return w.loading(); }, timeoutMs);
}

// The same, and a trace is on show.
inline bool waitForTrace(ui::MainWindow& w) {
    return waitForLoad(w) && w.trace();
}

} // namespace attnscope::test

namespace attnscope::test {

// Runs the event loop until the analysis of the trace on show is ready (it has a thread of its own).
inline bool waitForAnalysis(ui::MainWindow& w, int timeoutMs = 30000) {
    QElapsedTimer timer;
    timer.start();
    while (!w.analysis() && timer.elapsed() < timeoutMs)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    return w.analysis() != nullptr;
}

} // namespace attnscope::test

namespace attnscope::test {

// Runs the event loop until pred() holds (timers included: the find bar waits for typing to pause,
// which under valgrind takes far longer than on a bare machine).
template <typename Pred> bool waitUntil(Pred pred, int timeoutMs = 30000) {
    QElapsedTimer timer;
    timer.start();
    while (!pred() && timer.elapsed() < timeoutMs)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    return pred();
}

} // namespace attnscope::test

namespace attnscope::test {

// Shows the window at a size, opens the embedded sample and waits until it is on show.
inline bool showEmbeddedSample(ui::MainWindow& w, QSize size) {
    w.resize(size);
    w.show();
    w.openEmbeddedSample();
    return waitForTrace(w);
}

// Shows the window at a size, opens a trace file and waits until it is on show and analysed.
inline bool openAndAnalyse(ui::MainWindow& w, const std::string& path, QSize size = {1400, 900}) {
    w.resize(size);
    w.show();
    w.openFile(QString::fromStdString(path));
    return waitForTrace(w) && waitForAnalysis(w);
}

} // namespace attnscope::test

namespace attnscope::test {

// Every column of `t` within its viewport, each title whole, and each cell's text inside its cell
// (prose wrapped in a taller row, never cut at the right or under the next row); a hidden column's too
// little to hold.
inline void expectEveryCellWhole(QTableWidget* t) {
    EXPECT_LE(t->horizontalHeader()->length(), t->viewport()->width());
    const QFontMetrics fm = t->horizontalHeader()->fontMetrics();
    for (int c = 0; c < t->columnCount(); ++c) {
        if (t->isColumnHidden(c)) continue;
        for (const QString& line : t->horizontalHeaderItem(c)->text().split('\n')) // a title may have two
            EXPECT_GE(t->columnWidth(c), fm.horizontalAdvance(line)) << c;
        for (int r = 0; r < t->rowCount(); ++r) {
            const QTableWidgetItem* item = t->item(r, c);
            if (!item || item->text().isEmpty() || t->columnSpan(r, c) > 1) continue;
            const QRect cell = t->visualItemRect(item);
            const QRect needed = QFontMetrics(item->font()).boundingRect(QRect(0, 0, cell.width() - 6, 100000),
                                                                         Qt::TextWordWrap, item->text());
            EXPECT_LE(needed.width(), cell.width()) << r << "," << c << " " << qPrintable(item->text());
            EXPECT_LE(needed.height(), cell.height()) << r << "," << c << " " << qPrintable(item->text());
        }
    }
}

} // namespace attnscope::test
