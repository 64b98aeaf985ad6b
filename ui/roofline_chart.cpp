// SPDX-License-Identifier: MIT
// The roofline chart: the analysis' points (kernel_tables.h) under the roofs they were held to.
#include "chart_parts.h"
#include "roofline_names.h"
#include "timeline_renderer.h"

#include "core/analysis/analysis.h"
#include "core/model/demangle.h"
#include "core/report/format.h"

#include <QFontMetricsF>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace attnscope::ui {

namespace {

// One roofline point: the analysis' point (kernel_tables.h) of one input, costed, with FLOPs (a kernel that
// only moves bytes, a copy, has a bandwidth in the table but no place on a FLOP/s axis).
struct RoofPoint {
    std::string name;
    std::size_t input = 0;
    const RooflinePoint* p = nullptr;
    double ns() const { return double(p->costedNs); }
    double intensity() const { return p->intensity(); }
};

std::vector<RoofPoint> roofPoints(const ChartInput& in, std::size_t input) {
    std::vector<RoofPoint> out;
    for (const RooflinePoint& p : in.analysis->tables.roofline)
        if (p.costed && p.flops > 0) out.push_back({std::string(in.trace->str(p.name)), input, &p});
    return out;
}

// The tooltip of a point: everything the point stands for, and its share of each roof.
QString roofTip(const RoofPoint& rp, double shareOfTime, const QString& inputLabel) {
    const RooflinePoint& p = *rp.p;
    QString tip = QObject::tr("%1%2\n%3 · %4 · %5 of the costed kernel time · %6")
                      .arg(inputLabel.isEmpty() ? QString() : inputLabel + QStringLiteral(": "),
                           qs(shortKernelName(rp.name)), roleText(p.role), qs(precisionName(p.precision)),
                           qs(formatPercent(shareOfTime)), qs(formatDuration(p.costedNs)));
    // The kernels of the name whose cost is known, where some are not: the table's total is all of them.
    if (p.costedCount < p.count)
        tip += QObject::tr("\n%1 of its %2 kernels costed (%3 of its %4): the rates are theirs")
                   .arg(p.costedCount)
                   .arg(p.count)
                   .arg(qs(formatDuration(p.costedNs)), qs(formatDuration(p.totalNs)));
    tip += QObject::tr("\n%1, %2 · %3 FLOP/byte")
               .arg(qs(formatRate(p.flops, "FLOP")), qs(formatRate(p.bytes, "B")))
               .arg(p.intensity(), 0, 'g', 4);
    tip += QObject::tr("\nachieved %1, %2")
               .arg(qs(formatRate(p.flopsPerSec, "FLOP/s")), qs(formatRate(p.bytesPerSec, "B/s")));
    tip += QObject::tr("\n%1 of the %2 compute roof, %3 of the memory roof")
               .arg(qs(formatPercent(p.computeShare)), qs(precisionName(p.precision)),
                    qs(formatPercent(p.memoryShare)));
    return tip;
}

// A one-point series marking a place on the roofs (the ridge); its name is placed with the points' names.
QScatterSeries* roofMark(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QPointF at, QColor color,
                         double size) {
    auto* s = new QScatterSeries;
    s->append(at);
    s->setColor(color);
    s->setBorderColor(color.darker(140));
    s->setMarkerSize(size);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    for (QLegendMarker* m : chart->legend()->markers(s))
        m->setVisible(false);
    return s;
}

// The roofline chart, built in the order Qt Charts needs its parts: the title, the axes, the roofs,
// then the points drawn over them with their names, then the axes' ranges. With several inputs
// (Compare) every trace's points share the first one's roofs, each trace in a marker of its own: A as
// circles, B as squares, C as diamonds, D as triangles, E as stars, F as pentagons (then again).
class RooflineChart {
public:
    explicit RooflineChart(const std::vector<ChartInput>& inputs)
        : m_inputs(inputs), m_a(*inputs.front().analysis) {
        // The roofs a trace's kernels were held to (the GPU's, else the CPU's share): a trace on other
        // roofs than the first's is left off, not drawn under roofs that are not its own.
        auto roofsName = [](const TraceAnalysis& a) {
            return a.device ? a.device->name : a.cpuShare ? a.cpuShare->name : std::string();
        };
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            m_drawn.push_back(i == 0 || roofsName(*inputs[i].analysis) == roofsName(m_a));
            if (!m_drawn.back()) {
                const std::string other = roofsName(*inputs[i].analysis);
                m_otherRoofs << QStringLiteral("%1 (%2)").arg(
                    inputs[i].label, other.empty() ? QObject::tr("no roofs") : QString::fromStdString(other));
                continue;
            }
            for (RoofPoint& p : roofPoints(inputs[i], i))
                m_points.push_back(std::move(p));
            // The trace's kernels as the summary counts them (copies and memsets are not kernels).
            for (const RooflinePoint& p : inputs[i].analysis->tables.roofline) {
                m_kernels += p.count;
                m_bytesOnly += p.costed && p.flops <= 0;
            }
        }
        m_spec = m_a.device ? &*m_a.device : m_a.cpuShare ? &*m_a.cpuShare : nullptr;
        // Rates in the unit a person reads for this device (GFLOP/s for a CPU, TFLOP/s for a GPU), so
        // the decades read 1, 10, 100 instead of 1e+10.
        const SiPrefix rateUnit =
            siPrefix(m_spec ? std::clamp(m_spec->peak(Precision::F16), 1e9, 1e12) : 1e9);
        m_unit = rateUnit.scale;
        m_unitName = qs(rateUnit.prefix) + QStringLiteral("FLOP/s");
        for (const RoofPoint& p : m_points) {
            m_totalNs += p.ns();
            m_xMin = std::min(m_xMin, p.intensity() / 3);
            m_xMax = std::max(m_xMax, p.intensity() * 3);
            m_yMin = std::min(m_yMin, p.p->flopsPerSec / 3);
        }
    }

    QChart* build() {
        m_chart = new QChart;
        addTitle();
        addAxes();
        if (m_spec) addRoofs();
        addPoints();
        addNames();
        m_x->setRange(m_xMin, m_xMax);
        m_y->setRange(m_yMin / m_unit, m_yMax / m_unit);
        // Why nothing is drawn, as it is: no kernels, no roofs for the device, or no costs.
        bool costed = false;
        for (const KernelAnalysis& k : m_a.kernels)
            costed = costed || k.cost != CostSource::Unknown;
        // (Without roofs the title has said why once.)
        if (m_points.empty() && m_bytesOnly == 0 && (m_kernels == 0 || m_spec || !costed))
            addTitleLine(m_chart,
                         m_kernels == 0 ? QObject::tr("no kernels in this trace")
                         : m_kernels == 1
                             ? QObject::tr("none of its 1 kernel could be costed: the op that launched "
                                           "it carries no input shapes AttnScope models")
                             : QObject::tr("none of its %1 could be costed: the ops that "
                                           "launched them carry no input shapes AttnScope "
                                           "models")
                                   .arg(qs(formatCount(m_kernels, "kernel", "kernels"))));
        return m_chart;
    }

private:
    // Qt 6.4 draws no scatter point given a size of its own: points are sized in three classes by the
    // name's share of the costed kernel time.
    static constexpr double kSizes[] = {8, 14, 22};
    // Each input's marker, and the sign the title shows for it.
    static constexpr std::array<QScatterSeries::MarkerShape, 6> kShapes = {
        QScatterSeries::MarkerShapeCircle,
        QScatterSeries::MarkerShapeRectangle,
        QScatterSeries::MarkerShapeRotatedRectangle,
        QScatterSeries::MarkerShapeTriangle,
        QScatterSeries::MarkerShapeStar,
        QScatterSeries::MarkerShapePentagon};
    static constexpr const char16_t* kShapeSigns[] = {u"\u25CF", u"\u25A0", u"\u25C6",
                                                      u"\u25B2", u"\u2605", u"\u2B1F"};
    static QString letter(std::size_t i) { return inputLetter(i); }
    int sizeClass(double ns) const { return ns >= 0.2 * m_totalNs ? 2 : ns >= 0.02 * m_totalNs ? 1 : 0; }
    QPointF at(const RoofPoint& p) const { return {p.intensity(), p.p->flopsPerSec / m_unit}; }

    void addTitle() {
        // The roofs' device, or once why there are none (the device the specs do not know, a CPU not
        // measured): "no roofs known" had been said three times over on an MI250 trace.
        const std::string why = m_a.deviceNote.empty() || m_kernels == 0 ? m_a.cpuNote : m_a.deviceNote;
        m_chart->setTitle(
            m_spec ? QObject::tr("Roofline · %1").arg(QString::fromStdString(m_spec->name)).toHtmlEscaped()
                   : QObject::tr("Roofline"));
        // In Compare, which sign is which trace, on the title's own line when it fits there (each line
        // of the title is a line less of the plot in a low dock).
        if (m_inputs.size() > 1) {
            QStringList keys;
            for (std::size_t i = 0; i < m_inputs.size(); ++i)
                if (m_drawn[i])
                    keys << QStringLiteral("%1 %2").arg(QString::fromUtf16(kShapeSigns[i % kShapes.size()]),
                                                        m_inputs[i].label); // "A: name"
            const QString line = keys.join(QStringLiteral(" · "));
            if (m_chart->title().size() + 3 + line.size() <= kTitleLineChars)
                m_chart->setTitle(m_chart->title() + QStringLiteral(" · ") + line.toHtmlEscaped());
            else
                addTitleLine(m_chart, line);
        }
        if (m_a.beyondRoof() && m_spec)
            addTitleLine(m_chart, QObject::tr("%1 left off: %2") // the reason says "faster than …"
                                      .arg(qs(formatCount(m_a.beyondRoof(), "kernel", "kernels")),
                                           QString::fromStdString(beyondRoofReason(*m_spec))));
        else if (!m_spec && m_kernels > 0)
            addTitleLine(m_chart, why.empty() ? QObject::tr("no roofs known for this trace's device")
                                              : QString::fromStdString(why));
        if (m_bytesOnly > 0)
            addTitleLine(m_chart,
                         QObject::tr("%1 only moving bytes (no FLOPs): in the table, not on this chart")
                             .arg(qs(formatCount(m_bytesOnly, "name", "names"))));
        if (!m_otherRoofs.isEmpty())
            addTitleLine(m_chart, QObject::tr("left off, held to other roofs than these: %1")
                                      .arg(m_otherRoofs.join(QStringLiteral(", "))));
    }

    void addAxes() {
        m_x = new QLogValueAxis;
        m_x->setTitleText(QObject::tr("arithmetic intensity (FLOP/byte)"));
        m_x->setBase(10);
        m_x->setLabelFormat("%g");
        m_y = new QLogValueAxis;
        m_y->setTitleText(m_unitName); // achieved; short, so a low chart still shows all of it
        m_y->setBase(10);
        m_y->setLabelFormat("%g");
        m_chart->addAxis(m_x, Qt::AlignBottom);
        m_chart->addAxis(m_y, Qt::AlignLeft);
        // A tick every decade where the plot is tall enough for their labels, else every second or third:
        // Qt drops the labels that would overlap, which left uneven ticks (1000, 10, 0.1, 0.01, 0.0001).
        QLogValueAxis* y = m_y;
        QChart* chart = m_chart;
        QObject::connect(chart, &QChart::plotAreaChanged, y, [y](const QRectF& plot) {
            const double decades = std::log10(std::max(10.0, y->max() / std::max(1e-300, y->min())));
            const double room = plot.height() / decades, line = QFontMetricsF(y->labelsFont()).height() * 1.5;
            const double base = room >= line ? 10 : room * 2 >= line ? 100 : 1000;
            if (y->base() != base) y->setBase(base);
        });
    }

    // The memory roof and each precision's compute roof present among the points, the ridge (where the
    // roofs meet) marked and labelled with the roof's rate.
    void addRoofs() {
        const DeviceSpec& spec = *m_spec;
        m_yMin = std::min(m_yMin, spec.peak(Precision::F32) / 1e4);
        std::map<Precision, bool> precisions{{Precision::F32, true}};
        for (const RoofPoint& p : m_points)
            precisions[p.p->precision] = true;
        double highest = 0;
        for (const auto& [precision, unused] : precisions)
            highest = std::max(highest, spec.peak(precision));
        m_yMax = highest * 3;
        m_xMax = std::max(m_xMax, highest / spec.bandwidth * 3);
        for (const auto& [precision, unused] : precisions) {
            const double peak = spec.peak(precision);
            const double ridge = peak / spec.bandwidth;
            auto* roof = new QLineSeries;
            roof->setName(QObject::tr("%1 roof (%2, %3)")
                              .arg(qs(precisionName(precision)), qs(formatRate(peak, "FLOP/s")),
                                   qs(formatRate(spec.bandwidth, "B/s"))));
            // Inside the axes: the plot clips lines on screen, but an SVG export draws them whole.
            const double from = std::max(m_xMin, m_yMin / spec.bandwidth);
            roof->append(from, spec.bandwidth * from / m_unit);
            roof->append(ridge, peak / m_unit);
            roof->append(m_xMax, peak / m_unit);
            const QColor color = precision == Precision::F32 ? QColor(90, 90, 90) : QColor(30, 30, 30);
            QPen pen(color);
            pen.setWidthF(1.5);
            if (precision == Precision::F32 && precisions.size() > 1) pen.setStyle(Qt::DashLine);
            roof->setPen(pen);
            m_chart->addSeries(roof);
            roof->attachAxis(m_x);
            roof->attachAxis(m_y);
            m_roofLines.push_back(
                {{from, spec.bandwidth * from / m_unit}, {ridge, peak / m_unit}, {m_xMax, peak / m_unit}});
            roofMark(m_chart, m_x, m_y, {ridge, peak / m_unit}, color, 7);
            m_roofNames.push_back(
                {{ridge, peak / m_unit},
                 7,
                 QObject::tr("%1 %2 · ridge %3 FLOP/B")
                     .arg(qs(precisionName(precision)), qs(formatRate(peak, "FLOP/s")))
                     .arg(ridge, 0, 'g', 3),
                 true,
                 // where the whole name finds no room, the roof's figure alone
                 {QObject::tr("%1 %2").arg(qs(precisionName(precision)), qs(formatRate(peak, "FLOP/s")))}});
            if (!m_mapping) m_mapping = roof;
        }
        // The memory roof's own name, on its slope a decade in from the left.
        const double x = m_xMin * 10;
        m_roofNames.push_back({{x, spec.bandwidth * x / m_unit},
                               1,
                               QObject::tr("memory %1").arg(qs(formatRate(spec.bandwidth, "B/s"))),
                               true,
                               {}});
    }

    // A series per role, size class and input (one legend entry per role).
    void addPoints() {
        struct Cloud {
            QScatterSeries* series = nullptr;
            QStringList tips;
        };
        std::map<std::tuple<std::size_t, KernelRole, int>, Cloud> clouds;
        for (const RoofPoint& p : m_points) {
            const int size = sizeClass(p.ns());
            Cloud& c = clouds[{p.input, p.p->role, size}];
            if (!c.series) {
                c.series = new QScatterSeries;
                c.series->setName(roleText(p.p->role));
                c.series->setColor(EventColors::roleColor(p.p->role));
                c.series->setBorderColor(EventColors::roleColor(p.p->role).darker(140));
                c.series->setMarkerSize(kSizes[size]);
                c.series->setMarkerShape(kShapes[p.input % kShapes.size()]);
            }
            c.series->append(at(p));
            m_dots.emplace_back(at(p), kSizes[sizeClass(p.ns())]);
            c.tips.push_back(roofTip(p, p.ns() / std::max(1.0, m_totalNs),
                                     m_inputs.size() > 1 ? letter(p.input) : QString()));
        }
        std::set<KernelRole> inLegend; // one entry per role; in Compare the title says which shape is which
        for (auto& [key, cloud] : clouds) {
            QScatterSeries* s = cloud.series;
            m_chart->addSeries(s);
            s->attachAxis(m_x);
            s->attachAxis(m_y);
            if (!inLegend.insert(std::get<1>(key)).second)
                for (QLegendMarker* m : m_chart->legend()->markers(s))
                    m->setVisible(false);
            s->setProperty(kTipsProperty, cloud.tips);
            if (!m_firstCloud) m_firstCloud = s;
        }
    }

    // The names of the points that hold most of the time, beside them; names of points that lie
    // together share one label.
    void addNames() {
        std::vector<const RoofPoint*> biggest;
        for (const RoofPoint& p : m_points)
            biggest.push_back(&p);
        std::sort(biggest.begin(), biggest.end(),
                  [](const RoofPoint* l, const RoofPoint* r) { return l->ns() > r->ns(); });
        std::vector<PointName> labels;
        std::vector<std::vector<std::pair<QString, int>>> named; // per label: each name and its points
        for (std::size_t i = 0; i < biggest.size() && i < 5; ++i) {
            const RoofPoint& p = *biggest[i];
            if (p.ns() < 0.02 * m_totalNs) break;
            QString name = qs(shortKernelName(p.name));
            // A name with a point per role (a naive call's aten::bmm as QKᵀ and PV GEMM) says which it is.
            if (std::count_if(m_points.begin(), m_points.end(),
                              [&](const RoofPoint& o) { return o.name == p.name && o.input == p.input; }) > 1)
                name += QStringLiteral(" (%1)").arg(roleText(p.p->role));
            if (m_inputs.size() > 1) name = letter(p.input) + QStringLiteral(": ") + name;
            const QPointF point = at(p);
            auto near = std::find_if(labels.begin(), labels.end(), [&](const PointName& l) {
                return std::abs(std::log10(l.value.x() / point.x())) < 0.3 &&
                       std::abs(std::log10(l.value.y() / point.y())) < 0.15;
            });
            if (near == labels.end()) {
                labels.push_back({point, kSizes[sizeClass(p.ns())], {}, false, {}, labels.empty()});
                named.push_back({{name, 1}});
                continue;
            }
            // Points together share a label; one name twice is said once, with its count.
            auto& names = named[std::size_t(near - labels.begin())];
            auto same =
                std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
            if (same != names.end())
                ++same->second;
            else
                names.push_back({name, 1});
        }
        for (std::size_t l = 0; l < labels.size(); ++l) {
            QStringList parts;
            for (const auto& [name, count] : named[l])
                parts << (count > 1 ? QStringLiteral("%1 ×%2").arg(name).arg(count) : name);
            labels[l].text = parts.join(QStringLiteral(", "));
            // A long name of one point is cut where it finds no room whole (its tooltip has it whole).
            for (const int chars : {27, 15})
                if (parts.size() == 1 && labels[l].text.size() > chars + 3)
                    labels[l].shorter << labels[l].text.left(chars) + QChar(0x2026);
        }
        // The roofs' names first (a roof's rate is what every point is read against), then the points'
        // around them; a point's name with no clear place is its tooltip's.
        labels.insert(labels.begin(), m_roofNames.begin(), m_roofNames.end());
        if (QAbstractSeries* mapping = m_firstCloud ? m_firstCloud : m_mapping)
            nameBeside(m_chart, mapping, labels, m_roofLines, m_dots);
    }

    const std::vector<ChartInput>& m_inputs;
    const TraceAnalysis& m_a;
    std::vector<RoofPoint> m_points;
    std::uint64_t m_kernels = 0;
    std::uint64_t m_bytesOnly = 0; // costed names with no FLOPs: not on the chart
    QStringList m_otherRoofs;      // the inputs left off: "B: name (their roofs)"
    std::vector<bool> m_drawn;     // per input: on these roofs
    const DeviceSpec* m_spec = nullptr;
    double m_unit = 1e9;
    QString m_unitName;
    double m_xMin = 0.1, m_xMax = 1000, m_yMin = 1e9, m_yMax = 1e15;
    double m_totalNs = 0;
    QChart* m_chart = nullptr;
    QLogValueAxis *m_x = nullptr, *m_y = nullptr;
    QScatterSeries* m_firstCloud = nullptr;
    QAbstractSeries* m_mapping = nullptr; // a roof, to place names by when no point is drawn
    std::vector<PointName> m_roofNames;
    std::vector<std::pair<QPointF, double>> m_dots; // every point drawn, and its marker's size
    std::vector<std::vector<QPointF>> m_roofLines;  // each roof as drawn, in the axes' units
};

} // namespace

QChart* rooflineChart(const std::vector<ChartInput>& inputs) {
    return RooflineChart(inputs).build();
}

} // namespace attnscope::ui
