// SPDX-License-Identifier: MIT
#include "timeline_view.h"
#include "core/report/format.h"
#include "qt_text.h"

#include "counter_tracks.h"
#include "job_runner.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QStyle>
#include <QTextDocument>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace attnscope::ui {

namespace {

// A frame of the view: the renderer's tracks, ruler and legend, and the label column's colour right of
// the events (under the scroll bar).
void drawFrame(QImage& frame, TimelineRenderer& renderer, const TimelineScene& scene,
               const TimelineStyle& style, QSize widget) {
    QPainter p(&frame);
    const int eventsRight = style.labelWidth + int(scene.viewport.width());
    p.fillRect(QRect(eventsRight, 0, widget.width() - eventsRight, widget.height()), style.labelColumn);
    renderer.paint(p, QSize(eventsRight, widget.height()), scene, style);
}
} // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(320, 160);
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    connect(m_scrollBar, &QScrollBar::valueChanged, this, [this](int v) {
        if (v != m_scrollY) {
            m_scrollY = v;
            repaintView();
        }
    });
    m_clock.start();
    m_jobs = new JobRunner(this);
    restyle();
}

TimelineView::~TimelineView() = default;

void TimelineView::restyle() {
    m_style = TimelineStyle::from(palette(), font());
    m_defaultLabelWidth = m_style.labelWidth;
    if (m_labelWidth) m_style.labelWidth = *m_labelWidth;
    relayout();
}

void TimelineView::setLabelWidth(int pixels) {
    m_labelWidth = std::clamp(pixels, 60, std::max(60, width() / 2));
    m_style.labelWidth = *m_labelWidth;
    updateScrollBar();
    m_paintPending = true;
    repaintView();
}

// Until the user drags it, the label column is as wide as the longest name needs, up to 30% of the view.
void TimelineView::fitLabelColumn() {
    if (m_labelWidth || !m_trace) return;
    m_style.labelWidth = fittedLabelWidth(m_layout, *m_trace, m_style, m_defaultLabelWidth, width() * 3 / 10);
}

bool TimelineView::onLabelEdge(QPoint pos) const {
    return pos.y() >= m_style.rulerHeight && std::abs(pos.x() - m_style.labelWidth) <= 3;
}

void TimelineView::revealProcess(ProcessId process) {
    for (const TimelineRow& r : m_layout.rows())
        if (r.kind == TimelineRow::Kind::Group && r.process == process) {
            setScrollY(r.y);
            return;
        }
}

void TimelineView::relayout() {
    if (m_trace) m_layout.build(*m_trace, m_style.metrics, m_collapsed);
    fitLabelColumn();
    updateScrollBar();
    repaintView();
}

int TimelineView::eventsWidth() const {
    return std::max(1, width() - m_style.labelWidth - m_scrollBar->sizeHint().width());
}

int TimelineView::tracksBottom() const {
    const int strip = m_trace && m_legend && m_renderer
                          ? m_renderer->legendHeight(m_style, m_style.labelWidth + eventsWidth())
                          : 0;
    return height() - strip;
}

void TimelineView::updateScrollBar() {
    const int sb = m_scrollBar->sizeHint().width();
    m_scrollBar->setGeometry(width() - sb, m_style.rulerHeight, sb,
                             std::max(0, tracksBottom() - m_style.rulerHeight));
    const int page = std::max(1, tracksBottom() - m_style.rulerHeight);
    m_scrollBar->setPageStep(page);
    m_scrollBar->setSingleStep(m_style.metrics.laneHeight);
    {
        // Quiet: a range that clamps the bar's old value would say it, and the view would take the clamped
        // value for its own (a new file opened as far down as the last had been scrolled).
        const QSignalBlocker quiet(m_scrollBar);
        m_scrollBar->setRange(0, std::max(0, m_layout.totalHeight() - page + m_style.metrics.laneHeight));
    }
    setScrollY(m_scrollY);
    m_viewport.setWidth(eventsWidth());
}

// The view without its scroll bar: a repaint of the whole widget would repaint the bar too (its style's
// gradients cost as much as a lane of events), and the bar repaints itself when it moves.
void TimelineView::repaintView() {
    ++m_version;
    m_ahead = QImage(); // drawn for the version before
    update(withoutScrollBar());
}

QRegion TimelineView::withoutScrollBar() const {
    return m_scrollBar->isVisible() ? QRegion(rect()).subtracted(m_scrollBar->geometry()) : QRegion(rect());
}

void TimelineView::setScrollY(int y) {
    m_scrollY = std::clamp(y, m_scrollBar->minimum(), m_scrollBar->maximum());
    m_scrollBar->setValue(m_scrollY);
    repaintView();
}

void TimelineView::setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const TimelineIndex> index) {
    m_trace = std::move(trace);
    m_index = std::move(index);
    m_analysis.reset(); // it belonged to the trace before
    m_folds.clear();
    newRenderer();
    m_collapsed.clear();
    m_selected.reset();
    m_links.clear();
    m_range.reset();
    m_highlight.clear();
    m_matches.clear();
    m_history.clear();
    m_scrollY = 0;
    m_showingAll = true;
    if (m_trace) m_viewport = TimeViewport(m_trace->startNs(), m_trace->endNs(), eventsWidth());
    relayout();
    m_paintPending = true;
    Q_EMIT selectionChanged();
    Q_EMIT rangeChanged();
}

void TimelineView::updateTrace(std::shared_ptr<const Trace> trace,
                               std::shared_ptr<const TimelineIndex> index) {
    if (!m_trace || !trace) {
        setTrace(std::move(trace), std::move(index));
        return;
    }
    const TimeViewport before = m_viewport;
    m_trace = std::move(trace);
    m_index = std::move(index);
    m_analysis.reset();
    m_folds.clear();
    newRenderer();
    if (m_selected && (m_selected->track.value >= m_trace->tracks().size() ||
                       m_selected->index >= m_trace->track(m_selected->track).size())) {
        m_selected.reset();
        m_links.clear();
    } else if (m_selected) {
        m_links = m_trace->linksOf(*m_selected);
    }
    m_viewport = TimeViewport(m_trace->startNs(), m_trace->endNs(), eventsWidth());
    if (!m_showingAll) m_viewport.fit(before.start(), before.end(), 0);
    relayout();
    m_aheadWanted = true;
}

void TimelineView::finishFrame() {
    m_aheadWanted = false;
    repaintView(); // a frame a worker draws is of an older version now
}

void TimelineView::drawAhead(QSize pixels, qreal dpr) {
    // What the frame reads, shared or copied: the view goes on changing while the worker draws.
    struct Job {
        std::shared_ptr<const Trace> trace;
        std::shared_ptr<const TimelineIndex> index;
        std::shared_ptr<const TraceAnalysis> analysis;
        TimelineLayout layout;
        std::vector<std::uint8_t> highlight;
        std::vector<EventRef> matches;
        std::vector<TimelineScene::NoteFlag> notes;
        std::vector<FoldedCall> folds;
        std::vector<std::pair<EventRef, EventRef>> links;
        TimelineScene scene;
        TimelineStyle style;
        ColorMode mode;
        QSize widget;
        QImage frame; // the frame before the one on show, drawn over (its pages touched already)
    };
    if (m_back.size() != pixels) m_back = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
    m_back.setDevicePixelRatio(dpr);
    auto job = std::make_shared<Job>(Job{m_trace, m_index, m_analysis, m_layout, m_highlight, m_matches,
                                         m_noteFlags, m_folds, m_links, scene(), m_style, m_colorMode, size(),
                                         std::move(m_back)});
    m_back = QImage();
    TimelineScene& s = job->scene;
    s.trace = job->trace.get();
    s.index = job->index.get();
    s.analysis = job->analysis.get();
    s.layout = &job->layout;
    s.highlight = s.highlight ? &job->highlight : nullptr;
    s.matches = s.matches ? &job->matches : nullptr;
    s.notes = s.notes ? &job->notes : nullptr;
    s.folds = s.folds ? &job->folds : nullptr;
    s.links = s.links ? &job->links : nullptr;
    m_aheadVersion = m_version;
    m_jobs->start<QImage>(
        "frame",
        [job]() mutable {
            QImage frame = std::move(job->frame);
            {
                TimelineRenderer renderer(*job->trace);
                renderer.setColorMode(job->mode, job->analysis.get());
                drawFrame(frame, renderer, job->scene, job->style, job->widget);
            }
            // What it read is let go here: when the view has moved on, this holds the last of an analysis,
            // and the thread's object, which keeps this function, is deleted on the UI thread.
            job.reset();
            return frame;
        },
        [this, version = m_version](QImage frame) {
            if (version != m_aheadVersion) return;
            m_aheadVersion.reset();
            if (version != m_version) return; // the view changed: its own paint drew that
            m_ahead = std::move(frame);
            update(withoutScrollBar()); // not repaintView: the version on show is the frame's
        },
        [this](const QString&) {
            m_aheadVersion.reset();
            repaintView(); // drawn here instead
        });
}

TimelineScene TimelineView::scene() const {
    TimelineScene s;
    s.trace = m_trace.get();
    s.index = m_index.get();
    s.layout = &m_layout;
    s.viewport = m_viewport;
    s.scrollY = m_scrollY;
    s.selected = m_selected;
    s.highlight = m_highlight.empty() ? nullptr : &m_highlight;
    s.matches = m_matches.empty() ? nullptr : &m_matches;
    s.notes = m_noteFlags.empty() ? nullptr : &m_noteFlags;
    s.range = m_range;
    s.links = m_links.empty() ? nullptr : &m_links;
    s.legend = m_legend;
    s.folds = m_folds.empty() ? nullptr : &m_folds;
    s.analysis = m_analysis.get();
    return s;
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    if (!m_trace) {
        p.fillRect(rect(), m_style.background);
        p.setPen(m_style.dimText);
        p.drawText(rect(), Qt::AlignCenter, tr("No trace open: File → Open, or drop a trace file here."));
        return;
    }
    // The frame is drawn into an image of our own, where the renderer writes event boxes as
    // pixels (TimelineRenderer::flushBoxes), then copied to the screen in one go.
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * dpr).toSize();
    if (!m_ahead.isNull() && m_ahead.size() == pixels) {
        m_back = std::move(m_frame);  // the next worker draws over it
        m_frame = std::move(m_ahead); // a worker drew what is on show (drawAhead)
        m_ahead = QImage();
    } else if ((m_aheadWanted || m_aheadVersion == m_version) && m_frame.size() == pixels) {
        // A live snapshot: its frame is drawn on a worker, the last one shown till then.
        if (m_aheadWanted) drawAhead(pixels, dpr);
        m_aheadWanted = false;
        p.drawImage(0, 0, m_frame);
        return;
    } else {
        m_aheadWanted = false;
        m_ahead = QImage();
        if (m_frame.size() != pixels) m_frame = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
        m_frame.setDevicePixelRatio(dpr);
        drawFrame(m_frame, *m_renderer, scene(), m_style, size());
    }
    p.drawImage(0, 0, m_frame);
    if (m_paintPending) {
        m_paintPending = false;
        Q_EMIT tracePainted();
    }
    if (m_viewport.start() != m_paintedStart || m_viewport.span() != m_paintedSpan) {
        m_paintedStart = m_viewport.start();
        m_paintedSpan = m_viewport.span();
        Q_EMIT viewportChanged();
    }
}

void TimelineView::resizeEvent(QResizeEvent*) {
    fitLabelColumn();
    updateScrollBar();
}

void TimelineView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) restyle();
    QWidget::changeEvent(event);
}

void TimelineView::setViewport(TimeNs from, TimeNs to) {
    noteNavigation(true);
    m_viewport.fit(from, to, 0);
    navigated();
}

void TimelineView::showExactly(TimeNs from, TimeNs to) {
    noteNavigation(true);
    m_viewport.show(from, to);
    navigated();
}

void TimelineView::setExtent(TimeNs first, TimeNs last) {
    if (!m_trace) return;
    m_viewport = TimeViewport(first, last, eventsWidth());
    m_showingAll = true;
    navigated();
}

void TimelineView::noteNavigation(bool discrete) {
    if (!m_trace) return;
    m_showingAll = false;
    m_history.leave({m_viewport, m_scrollY}, discrete, m_clock.elapsed());
}

void TimelineView::navigated() {
    repaintView();
}

void TimelineView::navigate(NavigationAction action, std::optional<double> atX) {
    switch (action) {
    case NavigationAction::ZoomIn:
        return zoomBy(kZoomStep, atX);
    case NavigationAction::ZoomOut:
        return zoomBy(1 / kZoomStep, atX);
    case NavigationAction::PanLeft:
        return panBy(-m_viewport.width() * kPanFraction);
    case NavigationAction::PanRight:
        return panBy(m_viewport.width() * kPanFraction);
    case NavigationAction::FitSelection:
        return fitSelection();
    case NavigationAction::FitAll:
        return fitAll();
    }
}

void TimelineView::zoomBy(double factor, std::optional<double> atX) {
    if (!m_trace) return;
    noteNavigation(false);
    m_viewport.zoomAbout(atX.value_or(m_viewport.width() / 2), factor);
    navigated();
}

void TimelineView::panBy(double pixels) {
    if (!m_trace) return;
    noteNavigation(false);
    m_viewport.panPixels(pixels);
    navigated();
}

void TimelineView::fitAll() {
    if (!m_trace) return;
    noteNavigation(true);
    m_viewport.fitAll();
    m_showingAll = true;
    navigated();
}

void TimelineView::fitSelection() {
    if (!m_trace) return;
    if (m_range) {
        noteNavigation(true);
        m_viewport.fit(m_range->from, m_range->to);
    } else if (m_selected) {
        noteNavigation(true);
        const Track& t = m_trace->track(m_selected->track);
        m_viewport.fit(t.events.start[m_selected->index], t.end(m_selected->index));
    } else {
        return;
    }
    navigated();
}

bool TimelineView::back() {
    return goTo(m_history.back({m_viewport, m_scrollY}));
}
bool TimelineView::forward() {
    return goTo(m_history.forward({m_viewport, m_scrollY}));
}

bool TimelineView::goTo(const std::optional<ViewPlace>& place) {
    if (!place) return false;
    m_showingAll = false;
    m_viewport = place->viewport;
    m_viewport.setWidth(eventsWidth());
    setScrollY(place->scrollY);
    navigated();
    return true;
}

void TimelineView::newRenderer() {
    m_renderer = m_trace ? std::make_unique<TimelineRenderer>(*m_trace) : nullptr;
    if (m_renderer) m_renderer->setColorMode(m_colorMode, m_analysis.get());
}

void TimelineView::setColorMode(ColorMode mode) {
    m_colorMode = mode;
    if (m_renderer) m_renderer->setColorMode(m_colorMode, m_analysis.get());
    if (m_foldCalls) setFoldCalls(true); // folded calls take the mode's colours too
    m_paintPending = true;
    updateScrollBar(); // each mode's legend has a height of its own
    repaintView();
}

void TimelineView::setAnalysis(std::shared_ptr<const TraceAnalysis> analysis) {
    m_analysis = std::move(analysis);
    setFoldCalls(m_foldCalls);
    setColorMode(m_colorMode);
}

void TimelineView::setFoldCalls(bool fold) {
    m_foldCalls = fold;
    m_folds = fold && m_analysis && m_trace ? foldedCalls(*m_trace, *m_analysis, m_colorMode)
                                            : std::vector<FoldedCall>{};
    repaintView();
}

void TimelineView::setLegendVisible(bool visible) {
    m_legend = visible;
    updateScrollBar(); // the legend's strip takes room from the tracks
    repaintView();
}

void TimelineView::setCollapsed(ProcessId process, bool collapsed) {
    if (collapsed)
        m_collapsed.insert(process.value);
    else
        m_collapsed.erase(process.value);
    relayout();
}

void TimelineView::selectEvent(std::optional<EventRef> event, bool reveal) {
    m_selected = event;
    m_links = event && m_trace ? m_trace->linksOf(*event) : std::vector<std::pair<EventRef, EventRef>>{};
    if (event && reveal && m_trace) {
        const Track& t = m_trace->track(event->track);
        if (m_collapsed.erase(t.process.value)) relayout();
        const TimeNs s = t.events.start[event->index], e = t.end(event->index);
        const double x0 = m_viewport.timeToX(s), x1 = m_viewport.timeToX(e);
        if (x0 < 0 || x1 > m_viewport.width() || x1 - x0 < 2) {
            noteNavigation(true);
            if (double(e - s) > m_viewport.span() * 0.8 || x1 - x0 < 2)
                m_viewport.fit(s, e, 0.25); // small or wide: fit it, with context around it
            else
                m_viewport.fit(s - TimeNs(m_viewport.span() / 2) + (e - s) / 2,
                               s + TimeNs(m_viewport.span() / 2) + (e - s) / 2, 0);
        }
        if (auto y = TimelineRenderer::laneY(scene(), m_style, event->track, t.events.depth[event->index])) {
            const int top = m_style.rulerHeight;
            if (*y < top || *y + m_style.metrics.laneHeight > tracksBottom())
                setScrollY(m_scrollY + *y - top - (tracksBottom() - top) / 3);
        }
    }
    repaintView();
    Q_EMIT selectionChanged();
}

void TimelineView::setRange(std::optional<TimeRange> range) {
    if (range && range->to < range->from) std::swap(range->from, range->to);
    m_range = range;
    repaintView();
    Q_EMIT rangeChanged();
}

void TimelineView::setHighlight(std::vector<std::uint8_t> names) {
    m_highlight = std::move(names);
    repaintView();
}

void TimelineView::setMatches(std::vector<EventRef> matches) {
    m_matches = std::move(matches);
    repaintView();
}

void TimelineView::setNoteFlags(std::vector<TimelineScene::NoteFlag> flags) {
    m_noteFlags = std::move(flags);
    repaintView();
}

std::optional<QRect> TimelineView::eventRect(EventRef event) const {
    if (!m_trace) return std::nullopt;
    const Track& t = m_trace->track(event.track);
    const auto y = TimelineRenderer::laneY(scene(), m_style, event.track, t.events.depth[event.index]);
    if (!y) return std::nullopt;
    const double x0 = m_viewport.timeToX(t.events.start[event.index]);
    const double x1 = std::max(m_viewport.timeToX(t.end(event.index)), x0 + 1);
    if (x1 < 0 || x0 > m_viewport.width()) return std::nullopt;
    const int a = m_style.labelWidth + int(std::floor(std::max(0.0, x0)));
    const int b = m_style.labelWidth + int(std::ceil(std::min(m_viewport.width(), x1)));
    return QRect(a, *y + 1, std::max(1, b - a), m_style.metrics.laneHeight - 2);
}

std::optional<EventRef> TimelineView::eventAt(QPoint pos) const {
    if (!m_trace || pos.x() < m_style.labelWidth || pos.y() < m_style.rulerHeight ||
        pos.y() >= tracksBottom())
        return std::nullopt;
    const int ly = pos.y() - m_style.rulerHeight + m_scrollY;
    const auto row = m_layout.rowAt(ly);
    if (!row) return std::nullopt;
    const TimelineRow& r = m_layout.rows()[*row];
    if (r.kind != TimelineRow::Kind::Track) return std::nullopt;
    const int lane = (ly - r.y) / m_style.metrics.laneHeight;
    if (lane >= r.lanes) return std::nullopt;
    const double x = pos.x() - m_style.labelWidth;
    const TimeNs t = m_viewport.xToTime(x);
    const TimeNs slack = TimeNs(std::ceil(2 * m_viewport.nsPerPixel()));
    if (auto i = m_index->eventAt(r.track, std::uint16_t(lane), t, slack)) return EventRef{r.track, *i};
    return std::nullopt;
}

} // namespace attnscope::ui
