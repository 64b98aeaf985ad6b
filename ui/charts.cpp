// SPDX-License-Identifier: MIT
#include "charts.h"

#include "chart_parts.h"
#include "core/report/format.h"
#include "on_screen.h"

#include "core/document/document.h"
#include "core/report/compare.h"

#include "qt_text.h"
#include "timeline_export.h"
#include "timeline_renderer.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPieSeries>
#include <QPieSlice>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <numeric>

namespace attnscope::ui {

namespace {

QChart* stackedBars(const std::vector<QString>& bars,
                    const std::vector<std::array<double, std::size_t(KernelRole::Count)>>& ns,
                    const QString& title, const QString& empty);

// Time per role for each bar: the implementations of one trace, or one bar per trace. Each bar's
// total is written under it.
QChart* breakdown(const std::vector<ChartInput>& inputs) {
    using RoleTimes = std::array<double, std::size_t(KernelRole::Count)>;
    std::vector<QString> bars;
    std::vector<RoleTimes> ns;
    auto bar = [&](const QString& name) -> RoleTimes& {
        for (std::size_t i = 0; i < bars.size(); ++i)
            if (bars[i] == name) return ns[i];
        bars.push_back(name);
        ns.push_back({});
        return ns.back();
    };
    for (const ChartInput& in : inputs)
        for (const ImplRoleTimes& group : in.analysis->tables.roleTimes) {
            QString name = inputs.size() > 1    ? in.label
                           : group.impl.empty() ? QObject::tr("outside attention")
                                                : QString::fromStdString(group.impl);
            // An implementation's calls, each as long as the Attention dock and `compare` say (its workers or
            // streams at once counted once), above the bar's total summed over them.
            if (inputs.size() == 1 && !group.impl.empty())
                for (const ImplCalls& calls : in.analysis->tables.implCalls)
                    if (calls.impl == group.impl && calls.calls)
                        name += QObject::tr("\n%1: %2 each")
                                    .arg(qs(formatCount(calls.calls, "call", "calls")),
                                         qs(formatDuration(calls.kernelNsPerCall())));
            RoleTimes& times = bar(name);
            for (std::size_t r = 0; r < times.size(); ++r)
                times[r] += double(group.times.ns[r]);
        }
    return stackedBars(bars, ns, QObject::tr("Kernel time by role, summed over streams and workers"),
                       QObject::tr("no kernels in this trace"));
}

// Bars of kernel time per role, with each bar's total under it.
QChart* stackedBars(const std::vector<QString>& bars,
                    const std::vector<std::array<double, std::size_t(KernelRole::Count)>>& ns,
                    const QString& title, const QString& empty) {
    double maxNs = 0;
    for (const auto& times : ns)
        maxNs = std::max(maxNs, std::accumulate(times.begin(), times.end(), 0.0));
    const DurationUnit axisUnit = durationUnit(std::max(maxNs, 1e3)); // µs at the least
    const double unit = axisUnit.ns;
    auto* series = new QStackedBarSeries;
    for (int r = 0; r < int(KernelRole::Count); ++r) {
        bool any = false;
        for (const auto& times : ns)
            any = any || times[std::size_t(r)] > 0;
        if (!any) continue;
        auto* set = new QBarSet(roleText(KernelRole(r)));
        set->setColor(EventColors::roleColor(KernelRole(r)));
        for (const auto& times : ns)
            *set << times[std::size_t(r)] / unit;
        series->append(set);
    }
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    for (std::size_t i = 0; i < bars.size(); ++i)
        // On lines of their own, the trace, its implementation and its time: one line of them was cut to
        // "h100_…json.gz · fl…" under a third of the width (the axis draws its labels as HTML).
        x->append(QStringLiteral("%1<br>%2")
                      .arg(bars[i].toHtmlEscaped().replace('\n', QStringLiteral("<br>")),
                           qs(formatDuration(TimeNs(std::accumulate(ns[i].begin(), ns[i].end(), 0.0))))));
    auto* y = new QValueAxis;
    // The unit alone (the title says what is measured): a low chart still shows all of it.
    y->setTitleText(qs(axisUnit.name));
    y->setRange(0, std::max(maxNs / unit, 1e-9) * 1.05);
    y->applyNiceNumbers(); // round ticks: 0, 10, 20 … instead of 0, 10.4, 20.8
    y->setLabelFormat("%g");
    y->setLabelsVisible(maxNs > 0); // no ticks of nothing ("1.5e-09 µs")
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    if (bars.empty()) addTitleLine(chart, empty);
    return chart;
}

QChart* share(const std::vector<ChartInput>& inputs) {
    std::array<double, std::size_t(KernelRole::Count)> ns{};
    double total = 0;
    for (const ChartInput& in : inputs) {
        const attnscope::RoleTimes times = in.analysis->tables.allRoleTimes();
        for (std::size_t r = 0; r < ns.size(); ++r) {
            ns[r] += double(times.ns[r]);
            total += double(times.ns[r]);
        }
    }
    auto* series = new QPieSeries;
    for (int r = 0; r < int(KernelRole::Count); ++r) {
        if (ns[std::size_t(r)] <= 0) continue;
        const double pct = 100 * ns[std::size_t(r)] / total;
        QPieSlice* slice =
            series->append(QStringLiteral("%1 %2").arg(roleText(KernelRole(r)), qs(formatPercent(pct / 100))),
                           ns[std::size_t(r)]);
        slice->setColor(EventColors::roleColor(KernelRole(r)));
        // No labels on the slices: drawn outside the pie, a small slice's went off a short chart's top
        // ("fused attention 8.5%" gone at the dock's default height); the legend names every slice with its
        // share, and the legend is never cut.
    }
    series->setPieSize(0.8);
    auto* chart = new QChart;
    chart->setTitle(inputs.size() > 1 ? QObject::tr("Share of kernel time by role, both traces together")
                                      : QObject::tr("Share of kernel time by role"));
    chart->addSeries(series);
    if (total <= 0) addTitleLine(chart, QObject::tr("no kernels in this trace"));
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
    if (inputs.empty() || !inputs.front().trace || !inputs.front().analysis) {
        // No trace yet, or its analysis still running: said, not a blank white box.
        chart = new QChart;
        chart->setTitle(QObject::tr("No trace analysed yet"));
    } else if (kind == ChartKind::Breakdown)
        chart = breakdown(inputs);
    else if (kind == ChartKind::Roofline)
        chart = rooflineChart(inputs);
    else
        chart = share(inputs);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setAnimationOptions(QChart::NoAnimation);
    return chart;
}

QString chartTipAt(QChart* chart, QPointF position) {
    QString tip;
    double best = 0;
    for (QAbstractSeries* series : chart->series()) {
        auto* scatter = qobject_cast<QScatterSeries*>(series);
        if (!scatter || !scatter->isVisible()) continue;
        const QStringList tips = scatter->property(kTipsProperty).toStringList();
        const QList<QPointF> points = scatter->points();
        const double reach = scatter->markerSize() / 2 + 3;
        for (qsizetype i = 0; i < points.size() && i < tips.size(); ++i) {
            const QPointF at = chart->mapToPosition(points[i], scatter);
            const double distance = std::hypot(at.x() - position.x(), at.y() - position.y());
            if (distance <= reach && (tip.isEmpty() || distance < best)) {
                tip = tips[i];
                best = distance;
            }
        }
    }
    return tip;
}

QString inputLetter(std::size_t i) {
    return i < 26 ? QString(QChar(char16_t(u'A' + i))) : QString::number(i + 1);
}

QChart* makeComparisonChart(const Comparison& comparison) {
    std::vector<QString> bars;
    std::vector<std::array<double, std::size_t(KernelRole::Count)>> ns;
    const std::vector<std::string> labels = traceLabels(comparison);
    bool opening = false;
    std::vector<std::size_t> withoutCalls; // read, with no attention call: no bar, and the title says so
    for (std::size_t t = 0; t < comparison.traces.size(); ++t) {
        opening = opening || comparison.traces[t].opening;
        const auto& rows = comparison.traces[t].rows;
        if (!rows.empty() &&
            std::none_of(rows.begin(), rows.end(), [](const CompareRow& r) { return r.calls.calls; }))
            withoutCalls.push_back(t);
        for (const CompareRow& row : rows) {
            if (!row.calls.calls) continue;
            bars.push_back(QStringLiteral("%1\n%2").arg(qs(labels[t]), qs(row.impl)));
            ns.push_back(row.roleNsPerCall()); // as tall as the table's kernel time per call
        }
    }
    QString title = QObject::tr("Kernel time per attention call by role");
    if (!bars.empty() && !withoutCalls.empty())
        title += withoutCalls.size() == 1
                     ? QObject::tr(" · %1 left out: no attention call").arg(qs(labels[withoutCalls[0]]))
                     : QObject::tr(" · %1 traces left out: no attention call").arg(withoutCalls.size());
    if (!bars.empty() || opening)
        return stackedBars(bars, ns, title,
                           opening ? QObject::tr("opening the traces…")
                                   : QObject::tr("no attention call in these traces"));
    // No trace has an attention call (a job's ranks of a recommender model): each trace's kernel time by
    // role, whole, so the chart still compares them.
    for (std::size_t t = 0; t < comparison.traces.size(); ++t)
        for (const CompareRow& row : comparison.traces[t].rows) {
            bars.push_back(qs(labels[t]));
            std::array<double, std::size_t(KernelRole::Count)> whole{};
            for (std::size_t r = 0; r < whole.size(); ++r)
                whole[r] = double(row.roles.ns[r]);
            ns.push_back(whole);
        }
    return stackedBars(bars, ns, QObject::tr("Kernel time by role · no attention call in these traces"),
                       QObject::tr("no kernels in these traces"));
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
        view->setMouseTracking(true);
        view->viewport()->installEventFilter(this);
        m_views.push_back(view);
        m_tabs->addTab(view, kind == ChartKind::Breakdown  ? tr("Breakdown")
                             : kind == ChartKind::Roofline ? tr("Roofline")
                                                           : tr("Share"));
    }
    m_stale.assign(m_views.size(), false);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { drawCurrent(); });
}

void ChartsPanel::setInputs(const std::vector<ChartInput>& inputs) {
    m_inputs = inputs;
    m_stale.assign(m_views.size(), true);
    if (isVisible() && !behindAnotherTab(this)) drawCurrent();
}

namespace {

// A chart in a low, wide dock (a laptop's bottom dock is ~250 pixels high) keeps its plot's height with its
// legend to the right: under it, the legend and the title left the axes no room for their ticks.
void fitLegend(QChartView* view, ChartKind kind) {
    QChart* chart = view->chart();
    if (!chart || !chart->legend() || kind == ChartKind::Share) return; // the pie keeps its own
    const QSize at = view->viewport()->size();
    const Qt::Alignment want =
        at.height() < 360 && at.width() > 2 * at.height() ? Qt::AlignRight : Qt::AlignBottom;
    if (chart->legend()->alignment() != want) chart->legend()->setAlignment(want);
}

} // namespace

void ChartsPanel::drawCurrent() {
    const std::size_t i = std::size_t(currentKind());
    if (i >= m_views.size() || !m_stale[i]) return;
    m_stale[i] = false;
    QChart* old = m_views[i]->chart();
    m_views[i]->setChart(makeChart(ChartKind(i), m_inputs));
    fitLegend(m_views[i], ChartKind(i));
    old->deleteLater(); // the view gave it back; events for it may still be on their way
}

void ChartsPanel::showEvent(QShowEvent* event) {
    drawCurrent();
    QWidget::showEvent(event);
}

bool ChartsPanel::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize)
        for (std::size_t k = 0; k < m_views.size(); ++k)
            if (m_views[k]->viewport() == watched) fitLegend(m_views[k], ChartKind(k));
    // Tooltips found by distance from each point's centre (Qt Charts' own hover signal did not
    // reach a tooltip reliably); the nearest point within its marker wins.
    if (event->type() == QEvent::MouseMove || event->type() == QEvent::ToolTip) {
        for (QChartView* view : m_views) {
            if (view->viewport() != watched) continue;
            const QPoint at = event->type() == QEvent::MouseMove ? static_cast<QMouseEvent*>(event)->pos()
                                                                 : static_cast<QHelpEvent*>(event)->pos();
            const QString tip = chartTipAt(view->chart(), view->mapToScene(at));
            if (tip.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(view->viewport()->mapToGlobal(at), tip, view->viewport());
            return event->type() == QEvent::ToolTip;
        }
    }
    return QWidget::eventFilter(watched, event);
}

ChartKind ChartsPanel::currentKind() const {
    return ChartKind(std::max(0, m_tabs->currentIndex()));
}

QChart* ChartsPanel::currentChart() {
    drawCurrent();
    return m_views[std::size_t(currentKind())]->chart();
}

} // namespace attnscope::ui
