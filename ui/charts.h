// SPDX-License-Identifier: MIT
#pragma once

// The "why" charts, with Qt Charts: time by role per implementation (or per trace), the roofline
// (the device's roofs, one point per kernel name sized by its total time, coloured by role, with
// tooltips), and the share of kernel time by role. Each is exportable as PNG, SVG or PDF.
#include "core/analysis/analysis.h"

#include <QPointF>
#include <QSize>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

class QChart;
class QChartView;
class QTabWidget;

namespace attnscope {
struct Document;
struct Comparison;
} // namespace attnscope

namespace attnscope::ui {

enum class ChartKind { Breakdown, Roofline, Share };
std::optional<ChartKind> chartKindNamed(const QString& name); // "breakdown", "roofline", "share"
QString chartKindName(ChartKind kind);

// One trace to chart, with its analysis and the name it goes by (its file name).
struct ChartInput {
    const Trace* trace = nullptr;
    const TraceAnalysis* analysis = nullptr;
    QString label;
};

// The letter a chart input goes by in tips and labels (and a compared trace on its timeline): "A", "B",
// … "Z", then "27", "28", …
QString inputLetter(std::size_t i);

// A new chart (the caller owns it). Breakdown has a bar per implementation of attention found in
// the trace (AttnScope's runs, or fused vs naive calls) plus the kernels outside calls, or with
// several inputs a bar per trace.
QChart* makeChart(ChartKind kind, const std::vector<ChartInput>& inputs);

// Variants side by side (attnscope compare, the Compare Variants window): a bar per row of the
// comparison — an implementation of a trace — its kernel time per attention call stacked by role.
QChart* makeComparisonChart(const Comparison& comparison);

// The tooltip of the point under `position` (chart coordinates), or "" when none is there.
QString chartTipAt(QChart* chart, QPointF position);
// Shows each point's tooltip as the pointer moves over a chart view (whichever chart it shows): the
// Charts dock's and Compare Variants'.
void showChartTips(QChartView* view);

// Draws the chart into a file (PNG at scale × size, SVG or PDF by suffix); "" or what went wrong.
QString exportChart(QChart* chart, QSize size, double scale, const QString& path);

// `attnscope export FILE --chart KIND OUT`: the trace analyzed (own CPU runs with the CPU's roofs).
QString exportTraceChart(const Document& doc, ChartKind kind, QSize size, double scale, const QString& path);

// The Charts dock: a tab per chart for the trace on screen.
class ChartsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ChartsPanel(QWidget* parent = nullptr);
    // The charts are drawn for these inputs when they are seen: the tab on show at once when the panel
    // is, each other tab when it is brought up (a live profile's snapshots redraw one chart, not three,
    // and none while the panel is hidden or behind another tab of its dock area).
    void setInputs(const std::vector<ChartInput>& inputs);
    ChartKind currentKind() const;
    QChart* currentChart(); // drawn for the inputs
    // Its dock's tab was brought up: the tab on show is drawn if it is not of the inputs yet.
    void tabShown() { drawCurrent(); }
    const std::vector<ChartInput>& inputs() const { return m_inputs; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void drawCurrent();
    QTabWidget* m_tabs = nullptr;
    std::vector<QChartView*> m_views;
    std::vector<bool> m_stale; // per tab: its chart is not of the inputs
    std::vector<ChartInput> m_inputs;
};

} // namespace attnscope::ui
