// SPDX-License-Identifier: MIT
#include "roofline_names.h"

#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QPen>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

namespace attnscope::ui {

namespace {

// Whether a line from a to b passes through r.
bool crosses(const QRectF& r, QPointF a, QPointF b) {
    if (r.contains(a) || r.contains(b)) return true;
    const QLineF line(a, b);
    const QLineF edges[] = {{r.topLeft(), r.topRight()},
                            {r.topRight(), r.bottomRight()},
                            {r.bottomRight(), r.bottomLeft()},
                            {r.bottomLeft(), r.topLeft()}};
    return std::any_of(std::begin(edges), std::end(edges), [&](const QLineF& e) {
        return line.intersects(e, nullptr) == QLineF::BoundedIntersection;
    });
}

} // namespace

// lines: the roofs, each a polyline in the axes' units; no name is put across one. dots: every point drawn
// (its place in the axes' units, its marker's size); no name is put over one.
void nameBeside(QChart* chart, QAbstractSeries* series, const std::vector<PointName>& names,
                const std::vector<std::vector<QPointF>>& lines,
                const std::vector<std::pair<QPointF, double>>& dots) {
    std::vector<QGraphicsSimpleTextItem*> items;
    std::vector<QGraphicsLineItem*> leaders; // a name placed off its point's side is joined to it
    for (const PointName& n : names) {
        auto* item = new QGraphicsSimpleTextItem(n.text, chart);
        item->setBrush(QColor(40, 40, 40));
        item->setZValue(10);
        item->setData(kNameKindKey, n.roof      ? QStringLiteral("roof")
                                    : n.biggest ? QStringLiteral("biggest")
                                                : QStringLiteral("point"));
        items.push_back(item);
        auto* leader = new QGraphicsLineItem(chart);
        leader->setPen(QPen(QColor(110, 110, 110), 1));
        leader->setZValue(9);
        leader->setVisible(false);
        leaders.push_back(leader);
    }
    auto place = [chart, series, names, items, leaders, lines, dots] {
        const QRectF plot = chart->plotArea();
        std::vector<std::vector<QPointF>> drawn; // the roofs in pixels
        for (const auto& line : lines) {
            drawn.emplace_back();
            for (const QPointF& p : line)
                drawn.back().push_back(chart->mapToPosition(p, series));
        }
        auto onALine = [&](const QRectF& c) {
            for (const auto& line : drawn)
                for (std::size_t k = 1; k < line.size(); ++k)
                    if (crosses(c, line[k - 1], line[k])) return true;
            return false;
        };
        std::vector<QRectF> markers;
        for (const auto& [value, size] : dots) {
            const QPointF at = chart->mapToPosition(value, series);
            markers.emplace_back(at.x() - size / 2, at.y() - size / 2, size, size);
        }
        auto crossesALine = [&](QPointF a, QPointF b) {
            const QLineF leader(a, b);
            for (const auto& line : drawn)
                for (std::size_t k = 1; k < line.size(); ++k)
                    if (leader.intersects(QLineF(line[k - 1], line[k]), nullptr) ==
                        QLineF::BoundedIntersection)
                        return true;
            return false;
        };
        auto overADot = [&](const QRectF& c) {
            return std::any_of(markers.begin(), markers.end(),
                               [&](const QRectF& m) { return m.intersects(c); });
        };
        std::vector<QRectF> taken;
        for (const PointName& n : names) {
            const QPointF at = chart->mapToPosition(n.value, series);
            taken.emplace_back(at.x() - n.markerSize / 2, at.y() - n.markerSize / 2, n.markerSize,
                               n.markerSize);
        }
        // The first clear place for item i with its text as set, if any.
        // reach: 0 beside its point; 1 further off, joined by a line that crosses no roof; 2 the line may
        // cross a roof (a point on a roof, between two roofs near the plot's edge). Only the biggest
        // point's name goes further than beside it, after every form of its name was tried there.
        auto placeFor = [&](std::size_t i, int reach) -> std::optional<QRectF> {
            const QPointF at = chart->mapToPosition(names[i].value, series);
            if (!plot.contains(at)) return std::nullopt;
            const QSizeF box = items[i]->boundingRect().size();
            const double r = names[i].markerSize / 2 + 4, w = box.width(), h = box.height();
            // Beside, then above and below, then at the corners: the first place inside the plot that no
            // other point or name takes and no roof crosses. A name with no such place is not drawn (its
            // point's tooltip names it): names that overlap are read as neither.
            const QRectF beside[] = {{QPointF(at.x() + r, at.y() - h / 2), box},
                                     {QPointF(at.x() - r - w, at.y() - h / 2), box},
                                     {QPointF(at.x() - w / 2, at.y() - r - h), box},
                                     {QPointF(at.x() - w / 2, at.y() + r), box},
                                     {QPointF(at.x() + r, at.y() - r - h), box},
                                     {QPointF(at.x() + r, at.y() + r), box},
                                     {QPointF(at.x() - r - w, at.y() - r - h), box},
                                     {QPointF(at.x() - r - w, at.y() + r), box},
                                     // a line further off, where a roof or a ridge is in the way nearer
                                     {QPointF(at.x() - r - w, at.y() - r - 2 * h), box},
                                     {QPointF(at.x() - r - w, at.y() + r + h), box},
                                     {QPointF(at.x() + r, at.y() - r - 2 * h), box},
                                     {QPointF(at.x() + r, at.y() + r + h), box}};
            // A roof's name sits above the roof (under it are the points): ending at its place, where a
            // rising roof stays under it, else over its place or to its right.
            const QRectF above[] = {{QPointF(at.x() - w, at.y() - r - h), box},
                                    {QPointF(at.x() - w / 2, at.y() - r - h), box},
                                    {QPointF(at.x(), at.y() - r - h), box},
                                    {QPointF(at.x() - w, at.y() - r - 2 * h), box},
                                    // just over the roof, either side of its mark: where the highest roof's
                                    // headroom is less than a name and a gap (a small export, a low dock)
                                    {QPointF(at.x() - r - w, at.y() - h - 1), box},
                                    {QPointF(at.x() + r, at.y() - h - 1), box},
                                    {QPointF(at.x() + r, at.y() + r), box}}; // under a flat roof, right of it
            const auto choices =
                names[i].roof ? std::span<const QRectF>(above) : std::span<const QRectF>(beside);
            // A name nearer another point than its own would be read as that point's.
            auto distance = [](const QRectF& c, QPointF p) {
                const double dx = std::max({c.left() - p.x(), 0.0, p.x() - c.right()});
                const double dy = std::max({c.top() - p.y(), 0.0, p.y() - c.bottom()});
                return std::hypot(dx, dy);
            };
            auto nearestIsOwn = [&](const QRectF& c) {
                const double own = distance(c, at);
                for (std::size_t j = 0; j < names.size(); ++j)
                    if (j != i && !names[j].roof && distance(c, taken[j].center()) < own) return false;
                return true;
            };
            const auto clear = std::find_if(choices.begin(), choices.end(), [&](const QRectF& c) {
                return plot.contains(c) && !onALine(c) && !overADot(c) &&
                       std::none_of(taken.begin(), taken.end(),
                                    [&](const QRectF& t) { return t != taken[i] && t.intersects(c); }) &&
                       (names[i].roof || nearestIsOwn(c));
            });
            if (clear != choices.end()) return *clear;
            if (reach == 0) return std::nullopt;
            // The biggest point's name, further off in rings around it up to five lines away, its line
            // crossing no other name: the first clear place, nearest first.
            for (const double d : {2 * h, 3.5 * h, 5 * h})
                for (int k = 0; k < 16; ++k) {
                    const double angle = k * 3.14159265358979 / 8;
                    const QPointF centre(at.x() + std::cos(angle) * (d + w / 2),
                                         at.y() - std::sin(angle) * (d + h / 2));
                    const QRectF c(centre - QPointF(w / 2, h / 2), box);
                    // The line from the marker's edge crosses no roof.
                    const QLineF toName(at, c.center());
                    const QPointF from =
                        toName.pointAt(std::min(1.0, (names[i].markerSize / 2 + 2) / toName.length()));
                    if (plot.contains(c) && !onALine(c) && !overADot(c) &&
                        (reach == 2 || !crossesALine(from, c.center())) &&
                        std::none_of(taken.begin(), taken.end(), [&](const QRectF& t) {
                            return t.intersects(c) || (t != taken[i] && crosses(t, at, c.center()));
                        }))
                        return c;
                }
            return std::nullopt;
        };
        for (std::size_t i = 0; i < names.size(); ++i) {
            // The whole name, else the first shorter form that finds room beside its point; the biggest
            // point's then further off.
            std::optional<QRectF> place;
            for (const int reach : {0, 1, 2}) {
                if (reach > 0 && !names[i].biggest) break;
                items[i]->setText(names[i].text);
                place = placeFor(i, reach);
                for (const QString& form : names[i].shorter) {
                    if (place) break;
                    items[i]->setText(form);
                    place = placeFor(i, reach);
                }
                if (place) break;
            }
            items[i]->setVisible(place.has_value());
            leaders[i]->setVisible(false);
            if (!place) continue;
            items[i]->setPos(place->topLeft());
            taken.push_back(*place);
            // Off the marker's side (more than a gap away): a line from the marker's edge to the name.
            const QPointF at = chart->mapToPosition(names[i].value, series);
            const QPointF nearest(std::clamp(at.x(), place->left(), place->right()),
                                  std::clamp(at.y(), place->top(), place->bottom()));
            const QLineF toName(at, nearest);
            if (!names[i].roof && toName.length() > names[i].markerSize / 2 + 8) {
                QLineF line = toName;
                line.setP1(toName.pointAt(std::min(0.9, names[i].markerSize / 2 / toName.length())));
                leaders[i]->setLine(line);
                leaders[i]->setVisible(true);
            }
        }
    };
    QObject::connect(chart, &QChart::plotAreaChanged, chart, place);
    place();
}

} // namespace attnscope::ui
