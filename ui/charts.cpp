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
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QLegendMarker>
#include <QMouseEvent>
#include <QPainter>
#include <QPieSeries>
#include <QPieSlice>
#include <QScatterSeries>
#include <QSet>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <numeric>

namespace attnscope::ui {

namespace {

// A bar's label: its name (lines split by '\n') and what it holds per call, at length and short; the bar's
// total is written between them.
struct BarLabel {
    QString name;
    QString calls, each; // "3 calls", "72.249 ms each" (each call end to end), or none
    bool operator==(const BarLabel& o) const { return name == o.name; }
};

QChart* stackedBars(const std::vector<BarLabel>& bars,
                    const std::vector<std::array<double, std::size_t(KernelRole::Count)>>& ns,
                    const QString& title, const QString& empty);

// Time per role for each bar: the implementations of one trace, or one bar per trace. Each bar's
// total is written under it.
QChart* breakdown(const std::vector<ChartInput>& inputs) {
    using RoleTimes = std::array<double, std::size_t(KernelRole::Count)>;
    std::vector<BarLabel> bars;
    std::vector<RoleTimes> ns;
    auto bar = [&](const BarLabel& label) -> RoleTimes& {
        for (std::size_t i = 0; i < bars.size(); ++i)
            if (bars[i] == label) return ns[i];
        bars.push_back(label);
        ns.push_back({});
        return ns.back();
    };
    for (const ChartInput& in : inputs)
        for (const ImplRoleTimes& group : in.analysis->tables.roleTimes) {
            BarLabel label{inputs.size() > 1    ? in.label
                           : group.warmup       ? QObject::tr("warm-up calls")
                           : group.impl.empty() ? QObject::tr("outside attention")
                                                : QString::fromStdString(group.impl),
                           {},
                           {}};
            // An implementation's calls, each as long as the Attention dock and `compare` say (its workers or
            // streams at once counted once), under the bar's total summed over them.
            if (inputs.size() == 1 && !group.impl.empty())
                for (const ImplCalls& calls : in.analysis->tables.implCalls)
                    if (calls.impl == group.impl && calls.calls) {
                        label.calls = qs(formatCount(calls.calls, "call", "calls"));
                        label.each = QObject::tr("%1 each").arg(qs(formatDuration(calls.kernelNsPerCall())));
                    }
            RoleTimes& times = bar(label);
            for (std::size_t r = 0; r < times.size(); ++r)
                times[r] += double(group.times.ns[r]);
        }
    return stackedBars(bars, ns, QObject::tr("Kernel time by role, summed over streams and workers"),
                       QObject::tr("no kernels in this trace"));
}

// The labels of bars at each level of detail, the most first: name, total and the calls at length; the
// calls and each one's time end to end on lines of their own (each call's workers or streams at once
// counted once, as the Attention dock and `compare` say, which the bar's total summed over them is not a
// multiple of: never said without "end to end", which a reader took for an arithmetic error); the count
// of calls alone; name and total; the name's lines
// elided in the middle. Qt cuts a label wider than its bar's room and drops its lines after the cut: the
// chart steps down a level whenever its axis says a label was cut (fitBarLabels), so what shows is whole.
QList<QStringList> barLabelLevels(const std::vector<BarLabel>& bars, const std::vector<QString>& totals) {
    QList<QStringList> levels(5);
    auto lines = [](const QStringList& parts) {
        QStringList escaped;
        for (const QString& part : parts)
            if (!part.isEmpty()) escaped << part.toHtmlEscaped();
        return escaped.join(QStringLiteral("<br>"));
    };
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const BarLabel& b = bars[i];
        const QStringList name = b.name.split('\n');
        QStringList elided;
        for (const QString& line : name)
            elided << (line.size() > 14 ? line.left(6) + QStringLiteral("…") + line.right(6) : line);
        const QString endToEnd = b.each.isEmpty() ? QString() : b.each + QObject::tr(" end to end");
        levels[0] << lines(name +
                           QStringList{totals[i], b.calls.isEmpty() ? QString() : b.calls + ", " + endToEnd});
        levels[1] << lines(name + QStringList{totals[i], b.calls, b.each,
                                              b.each.isEmpty() ? QString() : QObject::tr("end to end")});
        levels[2] << lines(name + QStringList{totals[i], b.calls});
        levels[3] << lines(name + QStringList{totals[i]});
        levels[4] << lines(elided + QStringList{totals[i]});
    }
    // A level whose labels two bars share cannot be a category axis' (it keeps one of each).
    QList<QStringList> usable;
    for (const QStringList& level : levels)
        if (QSet<QString>(level.begin(), level.end()).size() == level.size() &&
            (usable.isEmpty() || usable.back() != level))
            usable << level;
    return usable;
}

constexpr const char* kLabelLevels = "attnscopeLabelLevels";
constexpr const char* kLabelLevel = "attnscopeLabelLevel";

void showLabelLevel(QBarCategoryAxis* x, int level) {
    const QList<QStringList> levels = x->property(kLabelLevels).value<QList<QStringList>>();
    if (level < 0 || level >= levels.size()) return;
    x->setProperty(kLabelLevel, level);
    x->setCategories(levels[level]);
}

// While the axis says a label is cut, the next level down: each after the axis has laid out the last (its
// layout is a posted event; the check is posted after it).
void fitBarLabels(QBarCategoryAxis* x) {
    QTimer::singleShot(0, x, [x] {
        const int level = x->property(kLabelLevel).toInt();
        if (!x->labelsTruncated() ||
            level + 1 >= x->property(kLabelLevels).value<QList<QStringList>>().size())
            return;
        showLabelLevel(x, level + 1);
        fitBarLabels(x);
    });
}

// Bars of kernel time per role, with each bar's name, total and calls under it.
QChart* stackedBars(const std::vector<BarLabel>& bars,
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
    std::vector<QString> totals;
    for (const auto& times : ns)
        totals.push_back(qs(formatDuration(TimeNs(std::accumulate(times.begin(), times.end(), 0.0)))));
    x->setProperty(kLabelLevels, QVariant::fromValue(barLabelLevels(bars, totals)));
    showLabelLevel(x, 0);
    QObject::connect(x, &QAbstractAxis::labelsTruncatedChanged, x, [x](bool cut) {
        if (cut) fitBarLabels(x);
    });
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
    if (bars.empty()) {
        // Nothing to draw: the title says why, and no axes of nothing (a low chart drew the empty y axis's
        // title as a stray "⋮").
        addTitleLine(chart, empty);
        x->setVisible(false);
        y->setVisible(false);
    }
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
    // Shares as the Compare table writes them (whole percents that add to 100).
    const std::vector<std::string> shares = wholeShares(std::vector<double>(ns.begin(), ns.end()));
    for (int r = 0; r < int(KernelRole::Count); ++r) {
        if (ns[std::size_t(r)] <= 0) continue;
        QPieSlice* slice =
            // escaped: the legend reads its labels as rich text, where "<1%" was a tag and showed nothing
            series->append(QStringLiteral("%1 %2")
                               .arg(roleText(KernelRole(r)), qs(shares[std::size_t(r)]))
                               .toHtmlEscaped(),
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
    std::vector<BarLabel> bars;
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
            bars.push_back({QStringLiteral("%1\n%2").arg(qs(labels[t]), qs(row.impl)), {}, {}});
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
            bars.push_back({qs(labels[t]), {}, {}});
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
    // The chart lays out its series' items from posted events, and its bars' labels step down a level at a
    // time while cut: let them all run before drawing.
    for (int i = 0; i < 12; ++i)
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
        view->viewport()->installEventFilter(this); // its legend fitted on resize
        showChartTips(view);
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
// legend to the right (under it, the legend and the title left the axes no room for their ticks) and
// with thin margins.
void fitLegend(QChartView* view, ChartKind kind) {
    QChart* chart = view->chart();
    if (!chart || !chart->legend()) return;
    const QSize at = view->viewport()->size();
    // Bars' labels at their most again, then as much as the new width holds.
    for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
        if (auto* x = qobject_cast<QBarCategoryAxis*>(axis); x && x->property(kLabelLevel).toInt() > 0) {
            showLabelLevel(x, 0);
            fitBarLabels(x);
        }
    // Low, the chart gives its frame's margins to the plot: a roofline in a 1366×768 window's bottom dock
    // had a plot 90 pixels high inside a rounded card with 20 pixels around it.
    struct Frame {
        QMargins margins;
        qreal left, top, right, bottom, roundness;
    };
    static const Frame normal = [] {
        QChart fresh;
        Frame f{fresh.margins(), 0, 0, 0, 0, fresh.backgroundRoundness()};
        fresh.layout()->getContentsMargins(&f.left, &f.top, &f.right, &f.bottom);
        return f;
    }();
    const bool low = at.height() < 360;
    chart->setMargins(low ? QMargins(4, 2, 4, 2) : normal.margins);
    if (low)
        chart->layout()->setContentsMargins(0, 0, 0, 0);
    else
        chart->layout()->setContentsMargins(normal.left, normal.top, normal.right, normal.bottom);
    chart->setBackgroundRoundness(low ? 0 : normal.roundness);
    if (kind == ChartKind::Share) return; // the pie keeps its legend where it is
    // To the right only where its entries fit one under another (a roofline's eight roles and its roof
    // ran past the bottom of a 250-pixel dock, "copy" cut off); else under the plot, in rows.
    int entries = 0;
    for (QLegendMarker* m : chart->legend()->markers())
        entries += m->isVisible();
    const bool fitsBeside = entries * QFontMetrics(chart->legend()->font()).height() * 1.7 < at.height() - 8;
    const Qt::Alignment want =
        low && at.width() > 2 * at.height() && fitsBeside ? Qt::AlignRight : Qt::AlignBottom;
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
    return QWidget::eventFilter(watched, event);
}

namespace {

// Tooltips found by distance from each point's centre (Qt Charts' own hover signal did not reach a
// tooltip reliably); the nearest point within its marker wins.
class ChartTips final : public QObject {
public:
    explicit ChartTips(QChartView* view) : QObject(view), m_view(view) {}

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched != m_view->viewport() ||
            (event->type() != QEvent::MouseMove && event->type() != QEvent::ToolTip))
            return false;
        const QPoint at = event->type() == QEvent::MouseMove ? static_cast<QMouseEvent*>(event)->pos()
                                                             : static_cast<QHelpEvent*>(event)->pos();
        const QString tip = chartTipAt(m_view->chart(), m_view->mapToScene(at));
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(m_view->viewport()->mapToGlobal(at), tip, m_view->viewport());
        return event->type() == QEvent::ToolTip;
    }

private:
    QChartView* m_view;
};

} // namespace

void showChartTips(QChartView* view) {
    view->setMouseTracking(true);
    view->viewport()->setMouseTracking(true);
    view->viewport()->installEventFilter(new ChartTips(view));
}

ChartKind ChartsPanel::currentKind() const {
    return ChartKind(std::max(0, m_tabs->currentIndex()));
}

QChart* ChartsPanel::currentChart() {
    drawCurrent();
    return m_views[std::size_t(currentKind())]->chart();
}

} // namespace attnscope::ui
