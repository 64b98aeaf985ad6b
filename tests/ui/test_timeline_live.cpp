// SPDX-License-Identifier: MIT
// The timeline of a live profile: each snapshot's frame drawn on a worker, and a call folded to one block per
// track.
#include "timeline_test_support.h"

#include "core/io/trace_loader.h"
#include "core/io/trace_merge.h"

#include <QThread>

#include <gtest/gtest.h>

#include <algorithm>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

// A live profile's next snapshot: the view's frame is drawn on a worker. The window's paint shows the
// frame before it at once (the UI thread does not draw a million events' lanes); the worker's frame, once
// drawn, is the one the view draws itself. A zoom made while a worker draws is drawn by the view, and the
// worker's frame, of the view before the zoom, is never shown.
TEST(TimelineView, ALiveSnapshotsFrameIsDrawnOnAWorker) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto steps = cutByTime(*loadTraceFile(path), 4);
    auto document = [](std::shared_ptr<const Trace> trace) {
        return openDocument(DocumentSource::built(std::move(trace), "steps"));
    };
    const auto first = document(mergeSteps({steps[0], steps[1]}));
    const auto second = document(mergeSteps({steps[0], steps[1], steps[2]}));
    const auto third = document(mergeSteps(steps));
    TimelineView view;
    view.resize(1200, 600);
    view.show();
    view.setTrace(first->trace, first->index);
    view.repaint();
    ASSERT_FALSE(view.drawingAhead());
    const QImage before = view.frame();
    // What the view draws itself of a view: the worker's frame must be the same, pixel for pixel.
    auto drawnHere = [&] {
        view.finishFrame();
        view.repaint();
        return view.frame();
    };
    auto workerDone = [&] {
        for (int turn = 0; turn < 500 && view.drawingAhead(); ++turn)
            QTest::qWait(5);
        QApplication::processEvents(); // the paint that shows it
    };

    view.updateTrace(second->trace, second->index);
    view.repaint();
    EXPECT_TRUE(view.drawingAhead());
    EXPECT_EQ(view.frame(), before); // the frame before, till the worker's is drawn
    workerDone();
    ASSERT_FALSE(view.drawingAhead());
    const QImage fromWorker = view.frame();
    EXPECT_NE(fromWorker, before);
    EXPECT_EQ(fromWorker, drawnHere());

    // A zoom while the worker draws the next snapshot's frame: the view's own frame of the zoom stays.
    view.updateTrace(third->trace, third->index);
    view.repaint();
    ASSERT_TRUE(view.drawingAhead());
    const double span = view.viewport().span();
    view.zoomBy(0.25);
    ASSERT_LT(view.viewport().span(), span);
    view.repaint(); // drawn here: the zoom came after the worker's view
    const QImage zoomed = view.frame();
    workerDone();
    EXPECT_EQ(view.frame(), zoomed);
    EXPECT_EQ(zoomed, drawnHere());

    // The worker's frame drawn and handed over, and a zoom before the paint that would show it: the
    // paint draws the zoom.
    view.updateTrace(second->trace, second->index);
    view.repaint();
    for (int turn = 0; turn < 500 && view.drawingAhead(); ++turn) {
        QThread::msleep(5);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::MetaCall); // the hand-over, not the paint
    }
    ASSERT_FALSE(view.drawingAhead());
    view.zoomBy(0.5);
    view.repaint();
    const QImage shown = view.frame();
    EXPECT_EQ(shown, drawnHere());

    // Resized before the snapshot's paint: the view draws its new size itself (the last frame is the
    // old size).
    view.updateTrace(third->trace, third->index);
    view.resize(900, 500);
    view.repaint();
    EXPECT_EQ(view.frame().size(), (QSizeF(view.size()) * view.devicePixelRatioF()).toSize());
    const QImage resized = view.frame();
    workerDone();
    EXPECT_EQ(view.frame(), resized);
    EXPECT_EQ(resized, drawnHere());

    // A screenshot's frame (finishFrame) is the view's own drawing, whether a worker was to draw it and
    // has not started (no paint since the snapshot) or is drawing it now.
    view.fitAll(); // each snapshot shown whole: the third's last step is to be seen
    view.updateTrace(second->trace, second->index);
    view.finishFrame();
    view.repaint();
    EXPECT_FALSE(view.drawingAhead());
    const QImage finishedBefore = view.frame();
    EXPECT_EQ(finishedBefore, drawnHere());
    view.updateTrace(third->trace, third->index);
    view.repaint();
    view.finishFrame();
    view.repaint();
    const QImage finishedDuring = view.frame();
    EXPECT_NE(finishedDuring, finishedBefore);
    workerDone();
    EXPECT_EQ(view.frame(), finishedDuring);
    EXPECT_EQ(finishedDuring, drawnHere());
}

// Fold Attention Calls draws one block per call on each track it ran on: a PyTorch CPU trace's naive call
// (its op kernels at several depths: aten::bmm under aten::matmul, aten::mul at the top) is one block, on the
// lane of its outermost kernel, from its first kernel's start to its last one's end.
TEST(TimelineView, AFoldedCallIsOneBlockPerTrack) {
    std::string events;
    auto op = [&](const char* name, int ts, int dur, const char* dims) {
        events += std::string(events.empty() ? "" : ",") + R"({"ph":"X","cat":"cpu_op","name":")" + name +
                  R"(","pid":7,"tid":7,"ts":)" + std::to_string(1000 + ts) + R"(,"dur":)" +
                  std::to_string(dur) + R"(,"args":{"Input Dims":)" + dims +
                  R"(,"Input type":["float","float"]}})";
    };
    for (int c = 0; c < 2; ++c) {
        const int t = 2000 * c;
        op("aten::matmul", t, 300, "[[1,4,512,64],[1,4,64,512]]");
        op("aten::bmm", t + 10, 280, "[[4,512,64],[4,64,512]]");
        op("aten::mul", t + 310, 60, "[[1,4,512,512],[]]");
        op("aten::softmax", t + 380, 200, "[[1,4,512,512],[],[]]");
        op("aten::_softmax", t + 382, 195, "[[1,4,512,512],[],[]]");
        op("aten::matmul", t + 590, 300, "[[1,4,512,512],[1,4,512,64]]");
        op("aten::bmm", t + 600, 280, "[[4,512,512],[4,512,64]]");
    }
    const auto trace =
        loadText(R"({"schemaVersion":1,"deviceProperties":[],"traceEvents":[)" + events + "]}");
    const TraceAnalysis a = analyzeTrace(*trace);
    ASSERT_EQ(a.calls.size(), 2u);
    const std::vector<FoldedCall> folds = foldedCalls(*trace, a, ColorMode::Role);
    ASSERT_EQ(folds.size(), 2u);
    for (std::size_t i = 0; i < folds.size(); ++i) {
        EXPECT_EQ(folds[i].start, a.calls[i].start);
        EXPECT_EQ(folds[i].end, a.calls[i].end);
        EXPECT_EQ(folds[i].depth, 0u); // aten::mul's lane, the outermost of the call's kernels
    }
}
