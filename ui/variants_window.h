// SPDX-License-Identifier: MIT
#pragma once

// File → Compare Variants: any number of traces side by side, as the post compares its six variants.
// The table (a row per implementation of each trace: calls, kernels per call against the expected
// call, time per call, ratios to the baseline, what the trace revealed), the time per call by role as a
// bar per variant, the roofline with each trace in a marker of its own, and the traces' timelines one
// under another, each whole, or lined up at their n-th attention call. Traces are added, removed,
// reordered and one is the baseline; a row opens its trace in the main window. The table exports as
// CSV or Markdown, the charts as PNG, SVG or PDF. A trace that cannot be read keeps its row, with why.
#include "core/report/compare.h"
#include "kernels/whatif.h"

#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <vector>

class QChartView;
class QLabel;
class QScrollArea;
class QSpinBox;
class QSplitter;
class QTableWidget;
class QTabWidget;
class QVBoxLayout;

namespace attnscope {
struct Document;
}

namespace attnscope::ui {

class JobRunner;
struct ChartInput;
class TimelineView;

class VariantsWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit VariantsWindow(QWidget* parent = nullptr);
    ~VariantsWindow() override;

    // Opens the files (each on a worker thread of its own) and adds them after the ones there.
    void addTraces(const QStringList& paths);
    void removeTrace(int index);
    void moveTrace(int index, int to);
    void setBaseline(int index);
    bool loading() const;
    int traceCount() const { return int(m_entries.size()); }

    const Comparison& comparison() const { return m_comparison; }
    QTableWidget* table() const { return m_table; }
    std::vector<TimelineView*> timelines() const;
    // Lines the timelines up at each one's n-th attention call (from 1), those that have one; false when a
    // trace has fewer. said: the status line, naming each trace left as it was and the calls it has.
    bool alignCalls(int n, QString* said = nullptr);
    void fitAll();
    // The table as CSV or Markdown (by the suffix), a chart ("breakdown" or "roofline") as PNG, SVG or
    // PDF; "" or what went wrong.
    QString exportTable(const QString& path) const;
    QString exportChart(const QString& kind, const QString& path, QSize size = QSize(1200, 700)) const;
    // A what-if's answer (Try the Alternatives): the trace at recordedPath's rows of impl learn what the run
    // beside it measured (kernels::learnWhatIf: attention by hand's time at stake, measured here); the
    // baseline is the call as it was, measured here, as whatif's; each saving and its spread over the
    // rounds is said above the table, as whatif prints it. The run's own findings are left out, as whatif
    // leaves them out: each implementation was pinned on purpose, and a finding of the run counts the calls
    // of all of them (10 calls beside a row of 5).
    void learnWhatIf(kernels::WhatIfAnswer answer);
    QLabel* savingsText() const { return m_savings; }

Q_SIGNALS:
    // Every trace added so far is loaded (or failed) and shown.
    void compared();
    // A row was double-clicked: open its trace.
    void openRequested(const QString& path);

private:
    struct Entry {
        QString path;
        std::shared_ptr<const Document> doc;
        QString error;
        bool loading = true;
        int id = 0; // the job's
    };
    void rebuild();
    void fillTable();
    void fitTableRoom(); // the splitter gives the table its rows (up to half the window)
    void fillTimelines();
    // Each timeline as tall as the Timelines tab has room for all of them (100 to 180 px): three traces
    // at 768 px high are all on show, none below the fold.
    void fitTimelineHeights();
    // The timelines' name columns as wide as the widest, so their time axes line up.
    void alignLabelColumns();
    bool eventFilter(QObject* watched, QEvent* event) override;
    int selectedTrace() const;
    // The opened traces as the roofline's inputs, lettered by place among them ("A: naive.json").
    std::vector<ChartInput> rooflineInputs() const;

    std::vector<Entry> m_entries;
    std::vector<kernels::WhatIfAnswer> m_learned;
    int m_baseline = 0;
    std::string m_baselineImpl; // the baseline trace's row, when not its first (a what-if's as it was)
    int m_nextId = 0;
    Comparison m_comparison;
    JobRunner* m_jobs = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_shapeWarning = nullptr; // the calls compared are not the same work
    QLabel* m_savings = nullptr;      // what a what-if measured, against the call as it was
    QTableWidget* m_table = nullptr;
    QSplitter* m_split = nullptr;
    QTabWidget* m_tabs = nullptr;
    QChartView* m_breakdown = nullptr;
    QChartView* m_roofline = nullptr;
    QScrollArea* m_timelineScroll = nullptr;
    QWidget* m_timelineBox = nullptr;
    QVBoxLayout* m_timelineLayout = nullptr;
    std::vector<TimelineView*> m_views;
    QSpinBox* m_call = nullptr;
};

} // namespace attnscope::ui
