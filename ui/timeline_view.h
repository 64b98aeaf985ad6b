// SPDX-License-Identifier: MIT
#pragma once

// moc (Qt 6.4) stops at C++20 standard headers it follows through these; it needs none of them.
#ifndef Q_MOC_RUN
#include "navigation_keys.h"
#include "timeline_renderer.h"
#include "zoom_history.h"
#endif

#include <QElapsedTimer>
#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>
#include <set>
#include <vector>

class QScrollBar;

namespace attnscope::ui {

class JobRunner;

// The timeline: tracks grouped by process / GPU, events on lanes, a ruler, a legend. Painted by
// TimelineRenderer (no item per event). Keys and mouse as in Perfetto: W/S zoom at the cursor,
// A/D pan, Ctrl+wheel zoom, wheel scrolls, drag pans, click selects, Shift+drag selects a range,
// F fits the selection, 0 fits all; back/forward walk the zoom history.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    void setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const TimelineIndex> index);
    // A newer snapshot of the same growing trace (a live run): selection, range, folded groups and
    // the view are kept; a view that showed everything keeps showing everything. Its frame is drawn on a
    // worker, the last frame shown till then (the UI thread stays free for the user and the rest of the
    // window); anything that changes the view meanwhile has its frame drawn here, and the worker's dropped.
    void updateTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const TimelineIndex> index);
    // Whether the frame on show waits for one drawn on a worker.
    bool drawingAhead() const { return m_aheadWanted || m_aheadVersion.has_value(); }
    // The next paint draws the frame itself (a screenshot is about to be taken).
    void finishFrame();
    // The frame last painted (for tests).
    const QImage& frame() const { return m_frame; }
    const Trace* trace() const { return m_trace.get(); }

    const TimeViewport& viewport() const { return m_viewport; }
    void setViewport(TimeNs from, TimeNs to);
    // [from, to] exactly, past the trace's ends if need be (lined up with other timelines).
    void showExactly(TimeNs from, TimeNs to);
    // The time the view may show and Fit All shows: the trace's own by default; wider where views
    // share one time axis (Compare: both traces' together), and shown whole.
    void setExtent(TimeNs first, TimeNs last);

    std::optional<EventRef> selected() const { return m_selected; }
    // Selects an event (or none); reveal scrolls and zooms so it can be seen.
    void selectEvent(std::optional<EventRef> event, bool reveal = false);
    std::optional<TimeRange> range() const { return m_range; }
    void setRange(std::optional<TimeRange> range);
    // Names to highlight (by name id; others fade), or an empty mask for none.
    void setHighlight(std::vector<std::uint8_t> names);
    // Find results, ticked on the ruler.
    void setMatches(std::vector<EventRef> matches);
    // People's notes, flagged on the ruler.
    void setNoteFlags(std::vector<TimelineScene::NoteFlag> flags);

    void zoomBy(double factor, std::optional<double> atX = std::nullopt);
    // A navigation key's action (navigation_keys.h); zooms about atX, else the middle.
    void navigate(NavigationAction action, std::optional<double> atX = std::nullopt);
    void panBy(double pixels);
    void fitAll();
    void fitSelection();
    bool back();
    bool forward();
    void setCollapsed(ProcessId process, bool collapsed);
    void setLegendVisible(bool visible);
    // What kernels are coloured by; the analysis (null until done) gives roles and verdicts.
    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return m_colorMode; }
    void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);
    // Draws each attention call of the analysis as one block labelled with its implementation and time.
    void setFoldCalls(bool fold);
    bool foldCalls() const { return m_foldCalls; }
    const std::vector<FoldedCall>& folds() const { return m_folds; }
    // The track-name column's width; the user drags its right edge (kept within a sensible range).
    void setLabelWidth(int pixels);
    int labelWidth() const { return m_style.labelWidth; }
    // Scrolls so that the process's group header is the first row shown.
    void revealProcess(ProcessId process);
    const TimelineLayout& rows() const { return m_layout; }
    QScrollBar* scrollBar() const { return m_scrollBar; }
    const TimelineLayout& layout() const { return m_layout; }
    int tracksBottom() const; // where the tracks end: the legend's strip is below
    // A counter's value under the pointer ("GPU memory allocated: 1.003 GB\nsince +12.3 ms"), or "".
    QString counterTipAt(QPoint pos) const;

    // Where an event's box is on the widget, when it is shown (for tests and tooltips).
    std::optional<QRect> eventRect(EventRef event) const;
    std::optional<EventRef> eventAt(QPoint pos) const;

    // What the timeline shows now, for exports: the scene, its style and the events area's width.
    TimelineScene scene() const;
    const TimelineStyle& style() const { return m_style; }
    const std::set<std::uint32_t>& collapsed() const { return m_collapsed; }
    TimelineRenderer* renderer() { return m_renderer.get(); }

Q_SIGNALS:
    void selectionChanged();
    void rangeChanged();
    // The first frame after setTrace was painted.
    void tracePainted();
    // The time window on show moved or zoomed (noticed when the new frame is painted).
    void viewportChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void restyle();
    void relayout();
    void updateScrollBar();
    void setScrollY(int y);
    void repaintView();
    QRegion withoutScrollBar() const;
    int eventsWidth() const;
    // Before a navigation: remembers where the view was (a burst of steps is one entry).
    void noteNavigation(bool discrete);
    void navigated();
    double cursorX() const;

    // Shows a place from the history (false when there is none).
    bool goTo(const std::optional<ViewPlace>& place);
    // The frame of what the view shows now, drawn on a worker (a live snapshot's); pixels at dpr.
    void drawAhead(QSize pixels, qreal dpr);

    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const TimelineIndex> m_index;
    std::unique_ptr<TimelineRenderer> m_renderer;
    ColorMode m_colorMode = ColorMode::Role;
    bool m_foldCalls = false;
    std::vector<FoldedCall> m_folds;
    TimeNs m_paintedStart = 0; // the viewport of the last frame, for viewportChanged
    double m_paintedSpan = 0;
    std::shared_ptr<const TraceAnalysis> m_analysis;
    void newRenderer(); // for the trace on show, in the colour mode
    TimelineLayout m_layout;
    TimelineStyle m_style;
    TimeViewport m_viewport;
    int m_scrollY = 0;
    QScrollBar* m_scrollBar = nullptr;
    std::set<std::uint32_t> m_collapsed;
    std::optional<EventRef> m_selected;
    std::vector<std::pair<EventRef, EventRef>> m_links; // the selected event's arrows
    std::optional<TimeRange> m_range;
    std::vector<std::uint8_t> m_highlight;
    std::vector<TimelineScene::NoteFlag> m_noteFlags;
    std::vector<EventRef> m_matches;
    ZoomHistory m_history;
    QElapsedTimer m_clock; // the history's time
    bool m_paintPending = false;
    // What the view shows changes its version (repaintView); a frame drawn on a worker is shown only if
    // it is of the version on show.
    std::uint64_t m_version = 0;
    bool m_aheadWanted = false;                  // the next paint has its frame drawn on a worker
    std::optional<std::uint64_t> m_aheadVersion; // the version a worker is drawing
    QImage m_ahead;                              // its frame, once drawn (of the version on show)
    QImage m_back; // the frame before the one on show: a worker draws the next one over it
    JobRunner* m_jobs = nullptr;
    bool m_legend = true;
    bool m_showingAll = true; // fit to the whole trace and not navigated since
    QImage m_frame;

    enum class Drag { None, PanOrClick, Panning, Range, LabelEdge };
    bool onLabelEdge(QPoint pos) const;
    void fitLabelColumn();
    std::optional<int> m_labelWidth; // set by the user; else fitted to the names (fitLabelColumn)
    int m_defaultLabelWidth = 0;     // the narrowest a fitted column is
    Drag m_drag = Drag::None;
    QPoint m_pressPos, m_lastPos;
    TimeNs m_rangeAnchor = 0;
};

} // namespace attnscope::ui
