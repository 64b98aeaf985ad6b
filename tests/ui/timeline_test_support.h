// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the timeline tests: a window of a known size, mouse drags and clicks, a trace's kernels.
#include "core/document/document.h"
#include "core/report/format.h"
#include "core/report/summary.h"
#include "support/test_support.h"
#include "ui/counter_tracks.h"
#include "ui/details_panel.h"
#include "ui/find_bar.h"
#include "ui/kernel_table_model.h"
#include "ui/main_window.h"
#include "ui/qt_text.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>
#include <gtest/gtest.h>

namespace attnscope::test {

using namespace attnscope;
using namespace attnscope::ui;

// A window of a known size showing the embedded sample (or a file).
struct Window {
    MainWindow w;
    explicit Window(const std::string& path = {}) {
        w.resize(1400, 900);
        w.show();
        if (path.empty())
            w.openEmbeddedSample();
        else
            w.openFile(QString::fromStdString(path));
    }
    TimelineView& view() { return *w.timeline(); }
    const Trace& trace() { return *w.trace(); }
    QImage frame() { return view().grab().toImage(); }
};

inline void sendMouse(QWidget* target, QEvent::Type type, QPoint pos, Qt::MouseButton button,
                      Qt::MouseButtons buttons, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    QMouseEvent event(type, QPointF(pos), QPointF(target->mapToGlobal(pos)), button, buttons, modifiers);
    QApplication::sendEvent(target, &event);
}

inline void drag(QWidget* target, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    sendMouse(target, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton, modifiers);
    for (int step = 1; step <= 4; ++step)
        sendMouse(target, QEvent::MouseMove, from + (to - from) * step / 4, Qt::NoButton, Qt::LeftButton,
                  modifiers);
    sendMouse(target, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton, modifiers);
}

inline void click(QWidget* target, QPoint at) {
    drag(target, at, at);
}

// The GPU kernels of a trace, in start order.
inline std::vector<EventRef> gpuKernels(const Trace& t) {
    std::vector<EventRef> out;
    for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti)
        for (std::uint32_t i = 0; i < t.tracks()[ti].size(); ++i)
            if (isKernelCategory(t.str(t.tracks()[ti].events.category[i]))) out.push_back({TrackId(ti), i});
    return out;
}

inline std::string nameOf(const Trace& t, EventRef e) {
    return std::string(t.str(t.track(e.track).events.name[e.index]));
}

} // namespace attnscope::test
