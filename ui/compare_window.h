// SPDX-License-Identifier: MIT
#pragma once

// File → Compare: the trace on show (A) against a second one (B). A table per role and per kernel
// name with count, total time in each, delta and ratio, sorted by absolute delta, regressions in
// red; the time by role of each trace; and the two timelines one above the other on a shared time
// axis, aligned at their starts or at the events selected in each (Align Selections).
#include "loaded_trace.h"

#include "core/analysis/analysis.h"
#include "core/report/diff.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QTableWidget;

namespace attnscope::ui {

class JobRunner;

class ChartsPanel;
class TimelineView;

class CompareWindow : public QMainWindow {
    Q_OBJECT
public:
    CompareWindow(std::shared_ptr<const LoadedTrace> a, QString nameA, QWidget* parent = nullptr);
    ~CompareWindow() override;

    // Loads B from a file, then analyses both and compares them, on worker threads.
    void openB(const QString& path);
    bool loading() const;
    // The analyses the compare window shows, once B is open and compared.
    const TraceAnalysis* analysisA() const { return m_analysisA.get(); }
    const TraceAnalysis* analysisB() const { return m_analysisB.get(); }

    const TraceDiff& diff() const { return m_diff; }
    QTableWidget* table() const { return m_table; }
    TimelineView* timelineA() const { return m_viewA; }
    TimelineView* timelineB() const { return m_viewB; }
    // B's time minus A's at the same place on the shared axis.
    TimeNs offset() const { return m_offset; }
    // Aligns the events selected in A and B (false when either has none).
    bool alignSelections();

Q_SIGNALS:
    void compared();

private:
    // B loaded: both analysed and compared on a worker, then shown by setB.
    void compareWith(std::shared_ptr<const LoadedTrace> loaded, const QString& name);
    void setB(std::shared_ptr<const LoadedTrace> b, QString nameB);
    void follow(TimelineView* from, TimelineView* to, TimeNs shift);
    void fillTable();

    std::shared_ptr<const LoadedTrace> m_a, m_b;
    std::shared_ptr<const TraceAnalysis> m_analysisA, m_analysisB;

    QString m_nameA, m_nameB;
    TraceDiff m_diff;
    TimeNs m_offset = 0;
    bool m_following = false;
    JobRunner* m_jobs = nullptr;
    TimelineView* m_viewA = nullptr;
    TimelineView* m_viewB = nullptr;
    QLabel* m_labelA = nullptr;
    QLabel* m_labelB = nullptr;
    QLabel* m_summary = nullptr;
    QTableWidget* m_table = nullptr;
    ChartsPanel* m_charts = nullptr;
};

} // namespace attnscope::ui
