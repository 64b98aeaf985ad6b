// SPDX-License-Identifier: MIT
// The timeline's calls folded into one box each, and its legend: what each colour means.
#include "core/report/format.h"
#include "timeline_renderer.h"

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

std::vector<FoldedCall> foldedCalls(const Trace& trace, const TraceAnalysis& analysis, ColorMode mode) {
    std::vector<FoldedCall> out;
    for (const AttentionCall& call : analysis.calls) {
        // One block per track the call's kernels are on (a CPU run's workers each have one), on the lane of
        // its outermost kernel there: a PyTorch CPU trace's op kernels sit at several depths, and one call is
        // one block, not one per depth.
        struct Lane {
            std::uint16_t depth;
            TimeNs start, end;
        };
        std::map<std::uint32_t, Lane> lanes;
        for (std::uint32_t k : call.kernels) {
            const EventRef e = analysis.kernels[k].event;
            const Track& t = trace.track(e.track);
            const Lane here{t.events.depth[e.index], t.events.start[e.index], t.end(e.index)};
            auto [it, added] = lanes.try_emplace(e.track.value, here);
            if (!added) {
                it->second.depth = std::min(it->second.depth, here.depth);
                it->second.start = std::min(it->second.start, here.start);
                it->second.end = std::max(it->second.end, here.end);
            }
        }
        const KernelRole role = call.kernels.size() == 1 ? KernelRole::FusedAttention : KernelRole::QkGemm;
        // In verdict mode a call takes the verdict that holds most of its kernels' time.
        const QColor color =
            (mode == ColorMode::Verdict ? EventColors::verdictColor(analysis.dominantVerdict(trace, call))
                                        : EventColors::roleColor(role))
                .darker(115);
        const QString label = QStringLiteral("%1 · %2").arg(
            QString::fromStdString(call.impl), QString::fromStdString(formatDuration(call.duration())));
        for (const auto& [track, lane] : lanes)
            out.push_back({TrackId{track}, lane.depth, lane.start, lane.end, label, color.rgb()});
    }
    return out;
}

void TimelineRenderer::paintFolds(QPainter& p, QSize size, const TimelineScene& scene,
                                  const TimelineStyle& style) {
    const TimeViewport& vp = scene.viewport;
    const QFontMetrics fm(style.font);
    const int left = style.labelWidth, laneHeight = style.metrics.laneHeight;
    for (const FoldedCall& f : *scene.folds) {
        if (f.end < vp.start() || f.start > vp.end()) continue;
        const auto y = laneY(scene, style, f.track, f.depth);
        if (!y || *y + laneHeight < style.rulerHeight || *y > size.height()) continue;
        const double x0 = std::max(-4.0, vp.timeToX(f.start)),
                     x1 = std::min(vp.width() + 4, vp.timeToX(f.end));
        const QRectF r(left + x0, *y + 1, std::max(2.0, x1 - x0), laneHeight - 2);
        p.fillRect(r, QColor::fromRgb(f.color));
        p.setPen(QColor::fromRgb(f.color).darker(150));
        p.drawRect(r);
        const QRectF text = r.adjusted(3, 0, -2, 0);
        if (text.width() < fm.averageCharWidth() * 3) continue;
        p.setPen(isDark(f.color) ? Qt::white : Qt::black);
        p.drawText(text, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextSingleLine,
                   fm.elidedText(f.label, Qt::ElideRight, int(text.width())));
    }
}

std::vector<std::pair<QString, QColor>> TimelineRenderer::legendEntries() const {
    std::vector<std::pair<QString, QColor>> entries;
    if (m_colors.mode() == ColorMode::Role)
        for (int r = 0; r < int(KernelRole::Count); ++r)
            entries.emplace_back(qs(roleLabel(KernelRole(r))), EventColors::roleColor(KernelRole(r)));
    else if (m_colors.mode() == ColorMode::Verdict)
        for (Verdict v : kVerdictsShown)
            entries.emplace_back(qs(verdictName(v)), EventColors::verdictColor(v));
    return entries; // by name: a colour per name, nothing to key
}

QString TimelineRenderer::legendTitle() const {
    // The legend says what the colours mean: the two modes share no colour, but a reader should not
    // have to remember which mode is on.
    return m_colors.mode() == ColorMode::Role ? QStringLiteral("Colour: role")
                                              : QStringLiteral("Colour: verdict");
}

// The legend's title and entries laid out left to right in rows of `width`: where each starts (x, row).
std::vector<QPoint> TimelineRenderer::legendPlaces(const TimelineStyle& style, int width, int& rows) const {
    const QFontMetrics fm(style.font);
    QFont bold = style.font;
    bold.setBold(true);
    const int swatch = fm.height() - 4, gap = 16;
    std::vector<int> widths{QFontMetrics(bold).horizontalAdvance(legendTitle())};
    for (const auto& [label, color] : legendEntries())
        widths.push_back(swatch + 4 + fm.horizontalAdvance(label));
    std::vector<QPoint> places;
    int x = 8, row = 0;
    for (int w : widths) {
        if (x > 8 && x + w > width - 8) {
            x = 8;
            ++row;
        }
        places.emplace_back(x, row);
        x += w + gap;
    }
    rows = row + 1;
    return places;
}

int TimelineRenderer::legendHeight(const TimelineStyle& style, int width) const {
    if (legendEntries().empty()) return 0;
    int rows = 0;
    legendPlaces(style, width, rows);
    return rows * QFontMetrics(style.font).height() + 8;
}

void TimelineRenderer::paintLegend(QPainter& p, const QRect& strip, const TimelineStyle& style) {
    const QFontMetrics fm(style.font);
    const auto entries = legendEntries();
    int rows = 0;
    const std::vector<QPoint> places = legendPlaces(style, strip.width(), rows);
    const int swatch = fm.height() - 4;
    p.save();
    p.fillRect(strip, style.background);
    p.setPen(style.grid);
    p.drawLine(strip.topLeft(), strip.topRight());
    auto top = [&](const QPoint& place) { return strip.top() + 4 + place.y() * fm.height(); };
    QFont bold = style.font;
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(style.text);
    p.drawText(QRect(places[0].x(), top(places[0]), strip.width(), fm.height()), Qt::AlignVCenter,
               legendTitle());
    p.setFont(style.font);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const QPoint& place = places[i + 1];
        const int y = top(place);
        p.fillRect(QRect(place.x(), y + 2, swatch, swatch), entries[i].second);
        p.setPen(style.text);
        p.drawText(QRect(place.x() + swatch + 4, y, strip.width(), fm.height()), Qt::AlignVCenter,
                   entries[i].first);
    }
    p.restore();
}

} // namespace attnscope::ui
