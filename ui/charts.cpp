// SPDX-License-Identifier: MIT
#include "charts.h"

#include "core/document/document.h"

#include "qt_text.h"
#include "timeline_export.h"
#include "timeline_renderer.h"

#include "core/model/demangle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QGraphicsScene>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPieSeries>
#include <QPieSlice>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>
#include <map>

namespace attnscope::ui {

namespace {

QString roleText(KernelRole r) {
    return qs(roleLabel(r));
}

bool isKernel(const Trace& t, EventRef e) {
    return isKernelCategory(t.str(t.track(e.track).events.category[e.index]));
}

TimeNs durationOf(const Trace& t, EventRef e) {
    return t.track(e.track).events.duration[e.index];
}

// Time per role for each bar: the implementations of one trace, or one bar per trace.
QChart* breakdown(const std::vector<ChartInput>& inputs) {
    std::vector<QString> bars;
    std::vector<std::array<double, std::size_t(KernelRole::Count)>> ms;
    auto bar = [&](const QString& name) -> std::array<double, std::size_t(KernelRole::Count)>& {
        for (std::size_t i = 0; i < bars.size(); ++i)
            if (bars[i] == name) return ms[i];
        bars.push_back(name);
        ms.push_back({});
        return ms.back();
    };
    for (const ChartInput& in : inputs) {
        for (const KernelAnalysis& k : in.analysis->kernels) {
            if (!isKernel(*in.trace, k.event)) continue;
            QString name = in.label;
            if (inputs.size() == 1)
                name = k.call >= 0 ? QString::fromStdString(in.analysis->calls[std::size_t(k.call)].impl)
                                   : QObject::tr("outside attention");
            bar(name)[std::size_t(k.role)] += double(durationOf(*in.trace, k.event)) / 1e6;
        }
    }
    auto* series = new QStackedBarSeries;
    for (int r = 0; r < int(KernelRole::Count); ++r) {
        bool any = false;
        for (const auto& m : ms)
            any = any || m[std::size_t(r)] > 0;
        if (!any) continue;
        auto* set = new QBarSet(roleText(KernelRole(r)));
        set->setColor(EventColors::roleColor(KernelRole(r)));
        for (const auto& m : ms)
            *set << m[std::size_t(r)];
        series->append(set);
    }
    auto* chart = new QChart;
    chart->setTitle(QObject::tr("Kernel time by role"));
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    for (const QString& b : bars)
        x->append(b);
    auto* y = new QValueAxis;
    y->setTitleText(QObject::tr("kernel time (ms, summed over streams and workers)"));
    y->setLabelFormat("%.3g");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    return chart;
}

QChart* share(const std::vector<ChartInput>& inputs) {
    std::array<double, std::size_t(KernelRole::Count)> ns{};
    double total = 0;
    for (const ChartInput& in : inputs)
        for (const KernelAnalysis& k : in.analysis->kernels)
            if (isKernel(*in.trace, k.event)) {
                ns[std::size_t(k.role)] += double(durationOf(*in.trace, k.event));
                total += double(durationOf(*in.trace, k.event));
            }
    auto* series = new QPieSeries;
    for (int r = 0; r < int(KernelRole::Count); ++r) {
        if (ns[std::size_t(r)] <= 0) continue;
        const double pct = 100 * ns[std::size_t(r)] / total;
        QPieSlice* slice = series->append(
            QStringLiteral("%1 %2%").arg(roleText(KernelRole(r))).arg(pct, 0, 'f', 1), ns[std::size_t(r)]);
        slice->setColor(EventColors::roleColor(KernelRole(r)));
        slice->setLabelVisible(pct >= 2);
    }
    auto* chart = new QChart;
    chart->setTitle(QObject::tr("Share of kernel time by role"));
    chart->addSeries(series);
    return chart;
}

// Long on purpose: one chart's parts in the order Qt Charts needs them (axes before the series
// attached to them, roofs before the points drawn over them).
QChart* roofline(const std::vector<ChartInput>& inputs) {
    auto* chart = new QChart;
    const ChartInput& in = inputs.front();
    const TraceAnalysis& a = *in.analysis;
    // Points: one per kernel name with a known cost (its kernels' FLOPs over their time), on the roofs
    // its kernels were held to.
    struct Point {
        KernelRole role = KernelRole::Other;
        double flops = 0, bytes = 0, ns = 0;
        Precision precision = Precision::Unknown;
        bool gpu = true;
    };
    std::map<std::string, Point> byName;
    double totalNs = 0;
    for (const KernelAnalysis& k : a.kernels) {
        if (k.cost == CostSource::Unknown || k.bytes <= 0 || !isKernel(*in.trace, k.event)) continue;
        Point& p =
            byName[std::string(in.trace->str(in.trace->track(k.event.track).events.name[k.event.index]))];
        p.role = k.role;
        p.flops += k.flops;
        p.bytes += k.bytes;
        p.ns += double(durationOf(*in.trace, k.event));
        p.precision = k.precision;
        p.gpu = k.verdict != Verdict::Unknown || !a.cpuShare;
        totalNs += double(durationOf(*in.trace, k.event));
    }
    const DeviceSpec* spec = a.device ? &*a.device : a.cpuShare ? &*a.cpuShare : nullptr;
    if (a.cpuShare && !a.device) spec = &*a.cpuShare;
    chart->setTitle(spec ? QObject::tr("Roofline · %1%2")
                               .arg(QString::fromStdString(spec->name),
                                    spec->raised.empty()
                                        ? QString()
                                        : QStringLiteral(" · ") + QString::fromStdString(spec->raised))
                         : QObject::tr("Roofline · no roofs known for this trace's device"));
    auto* x = new QLogValueAxis;
    x->setTitleText(QObject::tr("arithmetic intensity (FLOP/byte)"));
    x->setBase(10);
    x->setLabelFormat("%g");
    // Rates in the unit a person reads for this device (GFLOP/s for a CPU, TFLOP/s for a GPU), so the
    // decades read 1, 10, 100 instead of 1e+10.
    const double unit = spec && spec->peak(Precision::F16) >= 1e12 ? 1e12 : 1e9;
    const QString unitName = unit == 1e12 ? QStringLiteral("TFLOP/s") : QStringLiteral("GFLOP/s");
    auto* y = new QLogValueAxis;
    y->setTitleText(QObject::tr("achieved (%1)").arg(unitName));
    y->setBase(10);
    y->setLabelFormat("%g");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double xMin = 0.1, xMax = 1000, yMin = 1e9, yMax = 1e15;
    if (spec) yMin = spec->peak(Precision::F32) / 1e4;
    if (spec) {
        yMax = spec->peak(Precision::F16) * 2;
        // The memory roof and each precision's compute roof present among the points.
        std::map<Precision, bool> precisions{{Precision::F32, true}};
        for (const auto& [name, p] : byName)
            if (p.precision != Precision::Unknown) precisions[p.precision] = true;
        for (const auto& [precision, unused] : precisions) {
            const double peak = spec->peak(precision);
            auto* roof = new QLineSeries;
            roof->setName(QObject::tr("%1 roof (%2, %3)")
                              .arg(QString::fromUtf8(precisionName(precision).data()),
                                   qs(formatRate(peak, "FLOP/s")), qs(formatRate(spec->bandwidth, "B/s"))));
            const double ridge = peak / spec->bandwidth;
            roof->append(xMin, spec->bandwidth * xMin / unit);
            roof->append(ridge, peak / unit);
            roof->append(xMax * 100, peak / unit);
            QPen pen(precision == Precision::F32 ? QColor(90, 90, 90) : QColor(30, 30, 30));
            pen.setWidthF(1.5);
            if (precision == Precision::F32 && precisions.size() > 1) pen.setStyle(Qt::DashLine);
            roof->setPen(pen);
            chart->addSeries(roof);
            roof->attachAxis(x);
            roof->attachAxis(y);
        }
    }
    // Qt 6.4 draws no scatter point given a size of its own: points are sized in three classes by
    // the name's share of the costed kernel time, a series per role and class (one legend entry per role).
    constexpr double kSizes[] = {8, 14, 22};
    struct Cloud {
        QScatterSeries* series = nullptr;
        std::vector<QString> tips;
    };
    std::map<std::pair<KernelRole, int>, Cloud> clouds;
    for (const auto& [name, p] : byName) {
        const double intensity = p.flops / p.bytes, achieved = p.flops / (p.ns * 1e-9);
        const double share = p.ns / std::max(1.0, totalNs);
        const int sizeClass = share >= 0.2 ? 2 : share >= 0.02 ? 1 : 0;
        Cloud& c = clouds[{p.role, sizeClass}];
        if (!c.series) {
            c.series = new QScatterSeries;
            c.series->setName(roleText(p.role));
            c.series->setColor(EventColors::roleColor(p.role));
            c.series->setBorderColor(EventColors::roleColor(p.role).darker(140));
            c.series->setMarkerSize(kSizes[sizeClass]);
        }
        xMin = std::min(xMin, intensity / 2);
        xMax = std::max(xMax, intensity * 2);
        yMin = std::min(yMin, achieved / 2);
        c.series->append(intensity, achieved / unit);
        const std::string shortName(shortKernelName(name));
        c.tips.push_back(
            QObject::tr("%1\n%2 · %3 · %4% of the costed kernel time\n%5 FLOP/byte, %6, %7\ntotal %8")
                .arg(QString::fromStdString(shortName), roleText(p.role),
                     QString::fromUtf8(precisionName(p.precision).data()))
                .arg(100 * share, 0, 'f', 1)
                .arg(intensity, 0, 'g', 4)
                .arg(qs(formatRate(achieved, "FLOP/s")), qs(formatRate(p.bytes / (p.ns * 1e-9), "B/s")),
                     qs(formatDuration(TimeNs(p.ns)))));
    }
    std::map<KernelRole, bool> inLegend;
    for (auto& [key, cloud] : clouds) {
        QScatterSeries* s = cloud.series;
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        if (inLegend[key.first])
            for (QLegendMarker* m : chart->legend()->markers(s))
                m->setVisible(false);
        inLegend[key.first] = true;
        QObject::connect(s, &QScatterSeries::hovered, s,
                         [s, tips = cloud.tips](const QPointF& point, bool state) {
                             if (!state) return QToolTip::hideText();
                             const auto pts = s->points();
                             for (qsizetype i = 0; i < pts.size(); ++i)
                                 if (pts[i] == point)
                                     QToolTip::showText(QCursor::pos(), tips[std::size_t(i)]);
                         });
    }
    x->setRange(xMin, xMax);
    y->setRange(yMin / unit, yMax / unit);
    return chart;
}

} // namespace

std::optional<ChartKind> chartKindNamed(const QString& name) {
    if (name == "breakdown") return ChartKind::Breakdown;
    if (name == "roofline") return ChartKind::Roofline;
    if (name == "share") return ChartKind::Share;
    return std::nullopt;
}

QString chartKindName(ChartKind kind) {
    switch (kind) {
    case ChartKind::Breakdown:
        return QStringLiteral("breakdown");
    case ChartKind::Roofline:
        return QStringLiteral("roofline");
    default:
        return QStringLiteral("share");
    }
}

QChart* makeChart(ChartKind kind, const std::vector<ChartInput>& inputs) {
    QChart* chart = nullptr;
    if (inputs.empty() || !inputs.front().trace || !inputs.front().analysis)
        chart = new QChart;
    else if (kind == ChartKind::Breakdown)
        chart = breakdown(inputs);
    else if (kind == ChartKind::Roofline)
        chart = roofline(inputs);
    else
        chart = share(inputs);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setAnimationOptions(QChart::NoAnimation);
    return chart;
}

QString exportChart(QChart* chart, QSize size, double scale, const QString& path) {
    // A chart draws through a graphics scene: give it one of the picture's size.
    QGraphicsScene scene;
    const bool owned = !chart->scene();
    if (owned) scene.addItem(chart);
    const QRectF before = chart->geometry();
    chart->resize(size);
    chart->scene()->setSceneRect(QRectF(QPointF(0, 0), size));
    // The chart lays out its series' items from posted events: let them run before drawing.
    QCoreApplication::processEvents();
    const QString error = exportPicture(size, scale, path, chart->title(), [&](QPainter& p, QSize at) {
        p.setRenderHint(QPainter::Antialiasing);
        chart->scene()->render(&p, QRectF(QPointF(0, 0), at), QRectF(QPointF(0, 0), at));
    });
    if (owned)
        scene.removeItem(chart);
    else
        chart->setGeometry(before);
    return error;
}

QString exportTraceChart(const Document& doc, ChartKind kind, QSize size, double scale, const QString& path) {
    std::unique_ptr<QChart> chart(makeChart(kind, {{doc.trace.get(), doc.analysis.get(), QString()}}));
    return exportChart(chart.get(), size, scale, path);
}

ChartsPanel::ChartsPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs);
    for (ChartKind kind : {ChartKind::Breakdown, ChartKind::Roofline, ChartKind::Share}) {
        auto* view = new QChartView(makeChart(kind, {}), this);
        view->setRenderHint(QPainter::Antialiasing);
        m_views.push_back(view);
        m_tabs->addTab(view, kind == ChartKind::Breakdown  ? tr("Breakdown")
                             : kind == ChartKind::Roofline ? tr("Roofline")
                                                           : tr("Share"));
    }
}

void ChartsPanel::setInputs(const std::vector<ChartInput>& inputs) {
    m_inputs = inputs;
    for (std::size_t i = 0; i < m_views.size(); ++i) {
        QChart* old = m_views[i]->chart();
        m_views[i]->setChart(makeChart(ChartKind(i), inputs));
        old->deleteLater(); // the view gave it back; events for it may still be on their way
    }
}

ChartKind ChartsPanel::currentKind() const {
    return ChartKind(std::max(0, m_tabs->currentIndex()));
}

QChart* ChartsPanel::currentChart() const {
    return m_views[std::size_t(currentKind())]->chart();
}

} // namespace attnscope::ui
