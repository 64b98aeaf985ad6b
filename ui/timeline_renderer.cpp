// SPDX-License-Identifier: MIT
#include "timeline_renderer.h"
#include "core/report/format.h"

#include "counter_tracks.h"
#include "qt_text.h"

#include "core/model/demangle.h"

#include <QFontMetrics>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QThreadPool>

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <thread>

namespace attnscope::ui {

namespace {

// The renderers' second scanning thread, one for the process and kept between frames (Tracy's task pool):
// a thread started at every frame cost its start at 60 frames a second.
QThreadPool& scanPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        p->setMaxThreadCount(1);
        p->setExpiryTimeout(-1);
        return p;
    }();
    return *pool;
}

QRgb faded(QRgb c, QRgb background) {
    auto mix = [](int a, int b) { return (a + 3 * b) / 4; };
    return qRgb(mix(qRed(c), qRed(background)), mix(qGreen(c), qGreen(background)),
                mix(qBlue(c), qBlue(background)));
}

void drawArrow(QPainter& p, QPointF from, QPointF to) {
    QPainterPath path(from);
    const double dy = (to.y() - from.y()) / 2;
    path.cubicTo(from + QPointF(0, dy), to - QPointF(0, dy), to);
    p.drawPath(path);
    const double head = 6;
    const double sign = to.y() >= from.y() ? -1 : 1;
    QPolygonF tip;
    tip << to << to + QPointF(-head / 2, sign * head) << to + QPointF(head / 2, sign * head);
    p.setBrush(p.pen().color());
    p.drawPolygon(tip);
    p.setBrush(Qt::NoBrush);
}

struct Ticks {
    TimeNs step = 1;
    std::vector<TimeNs> times; // multiples of step from the trace's start, inside the window
};

// Ruler ticks far enough apart for their labels.
Ticks ticks(const TimelineScene& scene, const QFontMetrics& fm) {
    const TimeViewport& vp = scene.viewport;
    Ticks t;
    t.step = rulerStep(vp.nsPerPixel(), fm.horizontalAdvance(QStringLiteral("+000.000 ms")) * 1.3);
    const TimeNs base = scene.trace->startNs();
    const TimeNs rel = vp.start() - base;
    // The first multiple of step at or after the window's start (rounding up on both sides of 0).
    for (TimeNs tick = base + (rel >= 0 ? (rel + t.step - 1) / t.step : -((-rel) / t.step)) * t.step;
         tick <= vp.end(); tick += t.step)
        t.times.push_back(tick);
    return t;
}

} // namespace

TimelineStyle TimelineStyle::from(const QPalette& palette, const QFont& font) {
    TimelineStyle s;
    s.background = palette.color(QPalette::Base);
    s.text = palette.color(QPalette::Text);
    s.dimText = palette.color(QPalette::PlaceholderText);
    s.grid = s.text;
    s.grid.setAlpha(28);
    s.header = palette.color(QPalette::AlternateBase);
    s.labelColumn = palette.color(QPalette::Window);
    s.selection = s.text;
    s.highlight = QColor(255, 196, 0);
    s.range = palette.color(QPalette::Highlight);
    s.range.setAlpha(48);
    s.counter = QColor(0, 137, 123); // teal: no role's hue, readable on light and dark bases
    s.font = font;
    const QFontMetrics fm(font);
    s.metrics.laneHeight = fm.height() + 5;
    s.metrics.headerHeight = fm.height() + 8;
    s.metrics.trackGap = std::max(2, fm.height() / 5);
    s.rulerHeight = fm.height() + 10;
    s.labelWidth = fm.averageCharWidth() * 32;
    return s;
}

TimeNs rulerStep(double nsPerPixel, double minPixels) {
    const double raw = std::max(1.0, nsPerPixel * minPixels);
    const double pow10 = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * pow10 >= raw) return TimeNs(std::llround(m * pow10));
    return TimeNs(std::llround(10 * pow10));
}

const QString& TimelineRenderer::label(const Trace& trace, StringId name) {
    auto [it, added] = m_names.try_emplace(name.value);
    if (added) {
        const std::string_view text = shortKernelName(trace.str(name));
        it->second = qs(text);
    }
    return it->second;
}

void TimelineRenderer::Boxes::add(QRgb color, const QRect& r) {
    if (!lastBatch || color != lastColor) {
        lastBatch = &byColor[color];
        lastColor = color;
    }
    // Neighbours of one colour on one lane merge: a dense zoomed-out lane is a few long blocks.
    if (!lastBatch->empty()) {
        QRect& last = lastBatch->back();
        if (last.top() == r.top() && last.height() == r.height() && r.left() <= last.right() + 1 &&
            r.right() >= last.left()) {
            last.setRight(std::max(last.right(), r.right()));
            return;
        }
    }
    lastBatch->push_back(r);
}

namespace {

// The image a painter writes into, when boxes can be written there as pixels: a raster image of
// 32-bit pixels, painted without rotation or shear.
QImage* directTarget(QPainter& p) {
    QImage* image = p.device()->devType() == QInternal::Image ? static_cast<QImage*>(p.device()) : nullptr;
    const QTransform tx = p.deviceTransform();
    const bool ok = image &&
                    (image->format() == QImage::Format_ARGB32_Premultiplied ||
                     image->format() == QImage::Format_RGB32 || image->format() == QImage::Format_ARGB32) &&
                    tx.type() <= QTransform::TxScale && tx.m11() > 0 && tx.m22() > 0;
    return ok ? image : nullptr;
}

} // namespace

void TimelineRenderer::flushBoxes(QPainter& p, QImage* direct, const QRect& clip) {
    // Into a raster image (the widget's frame, PNG exports, the benchmark), boxes are written as
    // rows of pixels: a zoomed-out frame is tens of thousands of 1-pixel blocks, and QPainter
    // spends ~250 ns on each. Vector devices (SVG, PDF) get real rectangles.
    if (direct) {
        const QTransform tx = p.deviceTransform();
        const QRect deviceClip = tx.mapRect(QRectF(clip)).toAlignedRect().intersected(direct->rect());
        const qsizetype stride = direct->bytesPerLine() / 4;
        auto* bits = reinterpret_cast<quint32*>(direct->bits());
        for (Boxes& boxes : m_boxes)
            for (auto& [color, rects] : boxes.byColor) {
                const quint32 pixel = color | 0xff000000u; // opaque: premultiplied or not, the same
                for (const QRect& r : rects) {
                    const QRect d = tx.mapRect(QRectF(r)).toAlignedRect().intersected(deviceClip);
                    for (int y = d.top(); y <= d.bottom(); ++y)
                        std::fill_n(bits + y * stride + d.left(), d.width(), pixel);
                }
                rects.clear();
            }
    } else {
        p.save();
        p.setClipRect(clip);
        p.setPen(Qt::NoPen);
        for (Boxes& boxes : m_boxes)
            for (auto& [color, rects] : boxes.byColor) {
                if (rects.empty()) continue;
                p.setBrush(QColor::fromRgb(color));
                p.drawRects(rects.data(), int(rects.size()));
                rects.clear();
            }
        p.restore();
    }
    for (Boxes& boxes : m_boxes)
        boxes.lastBatch = nullptr;
}

void TimelineRenderer::scanLane(const TimelineScene& scene, const TimelineStyle& style, const LaneRecord& job,
                                Boxes& out) {
    const TrackId track = job.track;
    const int y = job.y;
    const TimelineIndex::Lane lane = scene.index->lane(track, job.depth);
    if (lane.size() == 0) return;
    const EventColumns& c = scene.trace->track(track).events;
    const TimeViewport& vp = scene.viewport;
    const double width = vp.width();
    const int left = style.labelWidth;
    const int h = style.metrics.laneHeight - 2;
    const TimeNs t1 = vp.end();
    const QRgb background = style.background.rgb();
    const bool fading = scene.highlight != nullptr;
    const int minLabel = m_minLabelWidth;
    auto colorOf = [&](std::uint32_t i) {
        QRgb color = m_colors.color(c, i);
        if (fading && !(c.name[i].value < scene.highlight->size() && (*scene.highlight)[c.name[i].value]))
            color = faded(color, background);
        return color;
    };

    for (std::size_t k = lane.firstEndingAfter(vp.start()); k < lane.size();) {
        const std::uint32_t i = lane[k];
        const TimeNs s = c.start[i];
        if (s > t1) break;
        const TimeNs duration = c.duration[i];
        const double x0 = vp.timeToX(s), x1 = vp.timeToX(s + duration);
        if (x1 - x0 >= 1.0) {
            const int a = int(std::floor(std::max(x0, -2.0)));
            const int b = int(std::ceil(std::min(x1, width + 2)));
            const int w = std::max(1, b - a - (b - a >= 4 ? 1 : 0)); // a hair of space between neighbours
            const QRect r(left + a, y + 1, w, h);
            const QRgb color = colorOf(i);
            out.add(color, r);
            if (w >= minLabel) out.labels.push_back({r, c.name[i], color});
            ++k;
            continue;
        }
        // Sub-pixel: fold every event that starts in this pixel into one block.
        const double px = std::floor(x0);
        const TimeNs next = vp.nextPixelStart(s);
        std::size_t j = lane.firstStartingFrom(k + 1, next);
        if (j - 1 > k && vp.timeToX(lane.end(j - 1)) - vp.timeToX(lane.start(j - 1)) >= 1.0)
            --j; // a wide event that starts in this pixel is drawn as itself
        const double blockEnd = std::min(std::max(px + 1, std::ceil(vp.timeToX(lane.end(j - 1)))), width + 2);
        const int a = int(std::max(px, -2.0));
        if (duration == 0 && (c.flags[i] & kInstant)) // flags only read for what may be an instant
            out.add(colorOf(i), QRect(left + a - 1, y + 1, 3, h));
        else
            out.add(colorOf(i), QRect(left + a, y + 1, std::max(1, int(blockEnd) - a), h));
        k = j;
    }
}

std::optional<int> TimelineRenderer::laneY(const TimelineScene& scene, const TimelineStyle& style,
                                           TrackId track, std::uint16_t depth) {
    const auto row = scene.layout->rowOfTrack(track);
    if (!row) return std::nullopt;
    return style.rulerHeight + scene.layout->rows()[*row].y - scene.scrollY +
           depth * style.metrics.laneHeight;
}

void TimelineRenderer::paint(QPainter& p, QSize size, const TimelineScene& scene,
                             const TimelineStyle& style) {
    // The legend has a strip of its own under the tracks, so it never hides an event.
    const int strip = scene.legend && scene.trace ? legendHeight(style, size.width()) : 0;
    paintTracks(p, QSize(size.width(), size.height() - strip), scene, style);
    if (strip) paintLegend(p, QRect(0, size.height() - strip, size.width(), strip), style);
}

const std::vector<EventRef>& TimelineRenderer::unexpectedKernels(const TraceAnalysis& analysis) {
    if (m_unexpectedOf != &analysis) {
        m_unexpectedOf = &analysis;
        m_unexpected.clear();
        for (const AttentionCall& call : analysis.calls)
            for (std::uint32_t k : call.unexpected)
                m_unexpected.push_back(analysis.kernels[k].event);
        std::sort(m_unexpected.begin(), m_unexpected.end());
        m_unexpected.erase(std::unique(m_unexpected.begin(), m_unexpected.end()), m_unexpected.end());
    }
    return m_unexpected;
}

// One frame drawn back to front: the rows' records (timeline_tracks.h) collected, then painted kind by
// kind, then what lies over them (folds, the selection, the range), the label column and the ruler.
void TimelineRenderer::paintTracks(QPainter& p, QSize size, const TimelineScene& scene,
                                   const TimelineStyle& style) {
    const int w = size.width(), h = size.height();
    const int top = style.rulerHeight, left = style.labelWidth;
    const TimeViewport& vp = scene.viewport;
    p.save();
    p.setFont(style.font);
    p.fillRect(QRect(0, 0, w, h), style.background);
    if (!scene.trace) {
        p.restore();
        return;
    }
    const QFontMetrics fm(style.font);

    // Grid.
    p.setPen(style.grid);
    for (TimeNs t : ticks(scene, fm).times) {
        const int x = left + int(std::lround(vp.timeToX(t)));
        p.drawLine(x, top, x, h);
    }

    // The visible rows' records, then the header bands under everything else.
    const std::vector<TimelineRow>& rows = scene.layout->rows();
    auto firstRow = std::partition_point(
        rows.begin(), rows.end(), [&](const TimelineRow& r) { return r.y + r.height <= scene.scrollY; });
    const int laneHeight = style.metrics.laneHeight;
    const FrameGeometry geometry{left, top, w, h, laneHeight, style.metrics.trackGap};
    m_frame.clear();
    for (auto it = firstRow; it != rows.end() && top + it->y - scene.scrollY < h; ++it)
        timelineTrack(it->kind).collect(*it, top + it->y - scene.scrollY, geometry, m_frame);
    p.setClipRect(QRect(left, top, w - left, h - top));
    for (const QRect& band : m_frame.headerBands)
        p.fillRect(band, style.header);
    // Scanning lanes is mostly waiting on memory: into a raster image, every other lane is scanned
    // on a second thread (each lane's boxes are its own; the painter is only used after both end).
    m_minLabelWidth = fm.averageCharWidth() * 4;
    QImage* direct = directTarget(p);
    const std::vector<LaneRecord>& lanes = m_frame.lanes;
    auto scan = [&](std::size_t first, Boxes& out) {
        for (std::size_t j = first; j < lanes.size(); j += 2)
            scanLane(scene, style, lanes[j], out);
    };
    if (direct && lanes.size() >= 2 && std::thread::hardware_concurrency() > 1) {
        std::promise<void> scanned;
        scanPool().start([&] {
            scan(1, m_boxes[1]);
            scanned.set_value();
        });
        scan(0, m_boxes[0]);
        scanned.get_future().wait();
    } else {
        scan(0, m_boxes[0]);
        scan(1, m_boxes[0]);
    }
    flushBoxes(p, direct, QRect(left, top, w - left, h - top));

    // Labels on boxes wide enough for a few characters.
    for (Boxes& boxes : m_boxes) {
        for (const LabelBox& box : boxes.labels) {
            const QString& text = label(*scene.trace, box.name);
            const QRect r = box.rect.intersected(QRect(left, top, w - left, h - top)).adjusted(3, 0, -2, 0);
            if (r.width() < fm.averageCharWidth() * 3) continue;
            p.setPen(isDark(box.fill) ? Qt::white : Qt::black);
            const QString shown = fm.horizontalAdvance(text) <= r.width()
                                      ? text
                                      : fm.elidedText(text, Qt::ElideRight, r.width());
            p.drawText(r, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextSingleLine, shown);
        }
        boxes.labels.clear();
    }

    for (const CounterRecord& c : m_frame.counters)
        paintCounter(p, scene.trace->counters()[c.row->counter], c.row->low, c.row->high, c.area, vp,
                     scene.trace->endNs(), style.counter);

    if (scene.folds) paintFolds(p, QSize(w, h), scene, style);

    // Kernels their call was not expected to run: a dashed outline, so the mismatch stands out. Outlines
    // that would overlap on a lane are drawn as one (zoomed out, many fall on the same pixels).
    if (scene.analysis && !scene.folds) {
        // Two 1-pixel dashed rectangles, one inside the other: the raster engine draws thin pens on a
        // fast path, where a thicker pen's dashes are each stroked as a polygon (~1 ms a frame zoomed out).
        QPen dashed(QColor(230, 120, 0), 1);
        dashed.setDashPattern({6, 3});
        p.setPen(dashed);
        p.setBrush(Qt::NoBrush);
        auto outline = [&p](const QRectF& r) {
            p.drawRect(r);
            if (r.width() > 2) p.drawRect(r.adjusted(1, 1, -1, -1));
        };
        std::optional<QRectF> pending;
        for (const EventRef e : unexpectedKernels(*scene.analysis)) {
            const Track& track = scene.trace->track(e.track);
            if (track.end(e.index) < vp.start() || track.events.start[e.index] > vp.end()) continue;
            const auto y = laneY(scene, style, e.track, track.events.depth[e.index]);
            if (!y) continue;
            const double x0 = vp.timeToX(track.events.start[e.index]);
            const double x1 = std::max(vp.timeToX(track.end(e.index)), x0 + 3);
            if (x1 < -4 || x0 > w + 4) continue;
            const QRectF r(left + std::max(x0, -4.0), *y + 0.5, std::min(x1, w + 4.0) - std::max(x0, -4.0),
                           laneHeight - 1);
            if (pending && pending->y() == r.y() && r.left() <= pending->right() + 1) {
                pending->setRight(std::max(pending->right(), r.right()));
                continue;
            }
            if (pending) outline(*pending);
            pending = r;
        }
        if (pending) outline(*pending);
    }

    // The selected event, and its links (launch → kernel).
    if (scene.selected) {
        const EventRef e = *scene.selected;
        const Track& track = scene.trace->track(e.track);
        if (auto y = laneY(scene, style, e.track, track.events.depth[e.index])) {
            const double x0 = vp.timeToX(track.events.start[e.index]);
            const double x1 = std::max(vp.timeToX(track.end(e.index)), x0 + 3);
            const QRectF r(left + std::max(x0, -4.0), *y + 1, std::min(x1, w + 4.0) - std::max(x0, -4.0),
                           laneHeight - 2);
            p.setPen(QPen(style.selection, 2));
            p.drawRect(r);
        }
        if (scene.links) paintLinks(p, scene, style);
    }

    if (scene.range) {
        const double a = std::max(-4.0, vp.timeToX(scene.range->from)),
                     b = std::min(w + 4.0, vp.timeToX(scene.range->to));
        QColor edge = style.range;
        edge.setAlpha(220);
        p.fillRect(QRectF(left + a, top, std::max(1.0, b - a), h - top), style.range);
        p.setPen(QPen(edge, 1));
        p.drawLine(QPointF(left + a, top), QPointF(left + a, h));
        p.drawLine(QPointF(left + b, top), QPointF(left + b, h));
    }

    // The label column.
    p.setClipRect(QRect(0, top, left, h - top));
    p.fillRect(QRect(0, top, left, h - top), style.labelColumn);
    QFont bold = style.font;
    bold.setBold(true);
    const LabelPainting labels{scene.trace, &style, bold, fm, left, laneHeight, top};
    for (auto it = firstRow; it != rows.end() && top + it->y - scene.scrollY < h; ++it)
        timelineTrack(it->kind).paintLabel(p, *it, top + it->y - scene.scrollY, labels);
    p.setClipping(false);
    p.setPen(style.grid);
    p.drawLine(left, top, left, h);

    paintRuler(p, size, scene, style);
    p.restore();
}

void TimelineRenderer::paintLinks(QPainter& p, const TimelineScene& scene, const TimelineStyle& style) {
    const Trace& trace = *scene.trace;
    const int laneHeight = style.metrics.laneHeight;
    p.setPen(QPen(style.selection, 1.5));
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setClipRect(QRect(style.labelWidth, style.rulerHeight, int(scene.viewport.width()), 1 << 20));
    for (const auto& [from, to] : *scene.links) {
        const Track& ft = trace.track(from.track);
        const Track& tt = trace.track(to.track);
        const auto fy = laneY(scene, style, from.track, ft.events.depth[from.index]);
        const auto ty = laneY(scene, style, to.track, tt.events.depth[to.index]);
        if (!fy || !ty) continue;
        // From where the source ends (or where the target starts, if that is earlier) to the target's start.
        const TimeNs leave =
            std::max(ft.events.start[from.index], std::min(ft.end(from.index), tt.events.start[to.index]));
        const double fx = style.labelWidth + std::clamp(scene.viewport.timeToX(leave), -1e6, 1e6);
        const double tx =
            style.labelWidth + std::clamp(scene.viewport.timeToX(tt.events.start[to.index]), -1e6, 1e6);
        const bool down = *ty > *fy;
        drawArrow(p, QPointF(fx, *fy + (down ? laneHeight - 1 : 1)),
                  QPointF(tx, *ty + (down ? 1 : laneHeight - 1)));
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setClipping(false);
}

void TimelineRenderer::paintRuler(QPainter& p, QSize size, const TimelineScene& scene,
                                  const TimelineStyle& style) {
    const int w = size.width(), top = style.rulerHeight, left = style.labelWidth;
    const TimeViewport& vp = scene.viewport;
    const QFontMetrics fm(style.font);
    p.fillRect(QRect(0, 0, w, top), style.labelColumn);
    p.setPen(style.grid);
    p.drawLine(0, top - 1, w, top - 1);
    const Ticks t = ticks(scene, fm);
    p.setClipRect(QRect(left, 0, w - left, top));
    p.setPen(style.text);
    for (TimeNs tick : t.times) {
        const int x = left + int(std::lround(vp.timeToX(tick)));
        p.drawLine(x, top - 6, x, top - 1);
        // A label the right edge would cut is left out (its tick stays): "+0.(" reads as a number.
        const QString label = qs(formatOffset(tick - scene.trace->startNs(), t.step));
        if (x + 3 + fm.horizontalAdvance(label) <= w) p.drawText(QPoint(x + 3, top - 7), label);
    }
    // Find results: one tick per pixel that holds a match.
    if (scene.matches && !scene.matches->empty()) {
        const std::vector<EventRef>& m = *scene.matches;
        const Trace& trace = *scene.trace;
        auto startOf = [&](const EventRef& e) { return trace.track(e.track).events.start[e.index]; };
        auto from = [&](TimeNs t) {
            return std::partition_point(m.begin(), m.end(),
                                        [&](const EventRef& e) { return startOf(e) < t; });
        };
        p.setPen(QPen(style.highlight, 2));
        for (auto it = from(vp.start()); it != m.end() && startOf(*it) <= vp.end();) {
            const double x = std::floor(vp.timeToX(startOf(*it)));
            p.drawLine(QPointF(left + x + 0.5, 1), QPointF(left + x + 0.5, top - 2));
            const TimeNs next = vp.nextPixelStart(startOf(*it));
            it = std::partition_point(it, m.end(), [&](const EventRef& e) { return startOf(e) < next; });
        }
    }
    // Notes: a flag of the note's colour at its start (one per pixel).
    if (scene.notes)
        for (const TimelineScene::NoteFlag& n : *scene.notes) {
            if (n.ns < vp.start() || n.ns > vp.end()) continue;
            const double x = left + std::floor(vp.timeToX(n.ns)) + 0.5;
            p.setPen(QPen(n.colour.darker(150), 1));
            p.drawLine(QPointF(x, 2), QPointF(x, top - 1));
            const QPointF flag[] = {{x, 2}, {x + 7, 5}, {x, 8}};
            p.setBrush(n.colour);
            p.drawPolygon(flag, 3);
            p.setBrush(Qt::NoBrush);
        }
    // The selected range's length, over it.
    if (scene.range) {
        const double a = vp.timeToX(scene.range->from), b = vp.timeToX(scene.range->to);
        const QString text = QString::fromStdString(formatDuration(scene.range->length()));
        const int tw = fm.horizontalAdvance(text) + 10;
        const double mid = std::clamp((a + b) / 2, tw / 2.0, vp.width() - tw / 2.0);
        const QRectF box(left + mid - tw / 2.0, 2, tw, top - 4);
        p.fillRect(box, style.background);
        p.setPen(style.text);
        p.drawRect(box);
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.setClipping(false);
    p.setPen(style.dimText);
    p.drawText(
        QRect(6, 0, left - 10, top), Qt::AlignVCenter | Qt::TextSingleLine,
        fm.elidedText(QString::fromStdString(formatDuration(TimeNs(vp.span()))) + QStringLiteral(" shown"),
                      Qt::ElideRight, left - 10));
}

} // namespace attnscope::ui
