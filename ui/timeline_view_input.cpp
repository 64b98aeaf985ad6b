// SPDX-License-Identifier: MIT
// The timeline's input: keys, the mouse (click, drag to pan, Shift+drag for a range, the label column's
// edge), the wheel, and the tooltips of events and counters.
#include "core/report/format.h"
#include "qt_text.h"
#include "timeline_view.h"

#include "counter_tracks.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace attnscope::ui {

namespace {
constexpr int kDragThreshold = 4; // pixels before a press becomes a drag
} // namespace

double TimelineView::cursorX() const {
    const QPoint pos = mapFromGlobal(QCursor::pos());
    const double x = pos.x() - m_style.labelWidth;
    if (rect().contains(pos) && x >= 0 && x < m_viewport.width()) return x;
    return m_viewport.width() / 2;
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    if (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) {
        QWidget::keyPressEvent(event);
        return;
    }
    if (const std::optional<NavigationAction> action = navigationActionFor(event->key())) {
        navigate(*action, cursorX());
        event->accept();
        return;
    }
    switch (event->key()) {
    case Qt::Key_Escape:
        if (m_range)
            setRange(std::nullopt);
        else
            selectEvent(std::nullopt);
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    setFocus(Qt::MouseFocusReason);
    if (event->button() == Qt::BackButton) {
        back();
        return;
    }
    if (event->button() == Qt::ForwardButton) {
        forward();
        return;
    }
    if (event->button() != Qt::LeftButton || !m_trace) return;
    m_pressPos = m_lastPos = event->position().toPoint();
    if (onLabelEdge(m_pressPos)) {
        m_drag = Drag::LabelEdge;
    } else if ((event->modifiers() & Qt::ShiftModifier) && m_pressPos.x() >= m_style.labelWidth) {
        m_drag = Drag::Range;
        m_rangeAnchor = m_viewport.xToTime(m_pressPos.x() - m_style.labelWidth);
    } else {
        m_drag = Drag::PanOrClick;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::LabelEdge) {
        setLabelWidth(pos.x());
        return;
    }
    if (m_drag == Drag::None) {
        if (onLabelEdge(pos))
            setCursor(Qt::SplitHCursor);
        else
            unsetCursor();
    }
    if (m_drag == Drag::PanOrClick && (pos - m_pressPos).manhattanLength() > kDragThreshold) {
        noteNavigation(true);
        m_drag = Drag::Panning;
        setCursor(Qt::ClosedHandCursor);
    }
    if (m_drag == Drag::Panning) {
        const QPoint d = pos - m_lastPos;
        m_viewport.panPixels(-d.x());
        setScrollY(m_scrollY - d.y());
        navigated();
    } else if (m_drag == Drag::Range) {
        const TimeNs t =
            m_viewport.xToTime(std::clamp(pos.x() - m_style.labelWidth, 0, int(m_viewport.width())));
        setRange(TimeRange{std::min(t, m_rangeAnchor), std::max(t, m_rangeAnchor)});
    }
    m_lastPos = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const Drag drag = m_drag;
    m_drag = Drag::None;
    unsetCursor();
    if (drag == Drag::Range && m_range && m_range->length() == 0) setRange(std::nullopt);
    if (drag != Drag::PanOrClick) return;
    const QPoint pos = event->position().toPoint();
    if (pos.y() >= m_style.rulerHeight && pos.y() < tracksBottom()) {
        if (auto row = m_layout.rowAt(pos.y() - m_style.rulerHeight + m_scrollY)) {
            const TimelineRow& r = m_layout.rows()[*row];
            if (r.kind == TimelineRow::Kind::Group) {
                setCollapsed(r.process, !r.collapsed);
                return;
            }
        }
    }
    selectEvent(eventAt(pos));
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    const double x = std::clamp(event->position().x() - m_style.labelWidth, 0.0, m_viewport.width());
    if (event->modifiers() & Qt::ControlModifier) {
        zoomBy(std::pow(kZoomStep, delta.y() / 120.0), x);
    } else if ((event->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
        const int d = delta.x() ? delta.x() : delta.y();
        panBy(-d / 120.0 * m_viewport.width() * kWheelPanFraction);
    } else {
        setScrollY(m_scrollY - delta.y() / 120 * 3 * m_style.metrics.laneHeight);
    }
    event->accept();
}

QString TimelineView::counterTipAt(QPoint pos) const {
    if (!m_trace || pos.x() < m_style.labelWidth || pos.y() < m_style.rulerHeight ||
        pos.y() >= tracksBottom())
        return {};
    const auto row = m_layout.rowAt(pos.y() - m_style.rulerHeight + m_scrollY);
    if (!row || m_layout.rows()[*row].kind != TimelineRow::Kind::Counter) return {};
    const CounterSeries& series = m_trace->counters()[m_layout.rows()[*row].counter];
    const TimeNs t = m_viewport.xToTime(pos.x() - m_style.labelWidth);
    const auto sample = counterSampleAt(series, t);
    if (!sample) return QStringLiteral("%1: no value yet").arg(QString::fromStdString(series.name));
    return QStringLiteral("%1: %2\nsince +%3")
        .arg(QString::fromStdString(series.name), counterValueText(series, series.value[*sample]),
             QString::fromStdString(formatDuration(series.time[*sample] - m_trace->startNs())));
}

bool TimelineView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        // Over the track-name column: the whole name, which the column may cut.
        if (m_trace && help->pos().x() < m_style.labelWidth && help->pos().y() >= m_style.rulerHeight)
            if (auto row = m_layout.rowAt(help->pos().y() - m_style.rulerHeight + m_scrollY)) {
                QString text = m_layout.rows()[*row].label;
                if (m_layout.rows()[*row].kind == TimelineRow::Kind::Counter)
                    text += QStringLiteral("\n") +
                            counterRangeText(m_trace->counters()[m_layout.rows()[*row].counter]);
                QToolTip::showText(help->globalPos(), plainTip(text), this);
                return true;
            }
        // Over a counter: its value at that time.
        if (const QString tip = counterTipAt(help->pos()); !tip.isEmpty()) {
            QToolTip::showText(help->globalPos(), plainTip(tip), this);
            return true;
        }
        if (auto e = eventAt(help->pos())) {
            const Track& t = m_trace->track(e->track);
            const std::string name(m_trace->str(t.events.name[e->index]));
            const std::string text = name + "\n" + formatDuration(t.events.duration[e->index]);
            // Names from files are plain text: escaped, never markup.
            QToolTip::showText(help->globalPos(), plainTip(QString::fromStdString(text)), this);
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace attnscope::ui
