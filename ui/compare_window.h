// SPDX-License-Identifier: MIT
#pragma once

// File → Compare: the trace on show (A) against a second one (B). A table per role and per kernel
// name with count, total time in each, delta and ratio, sorted by absolute delta, regressions in
// red; the time by role of each trace; and the two timelines one above the other on a shared time
// axis, aligned at their starts or at the events selected in each (Align Selections).
#include "core/report/diff.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QTableWidget;

namespace attnscope {
struct Document;
}

namespace attnscope::ui {

class JobRunner;

class ChartsPanel;
class TimelineView;

class CompareWindow : public QMainWindow {
    Q_OBJECT
public:
    CompareWindow(std::shared_ptr<const Document> a, QString nameA, QWidget* parent = nullptr);
    ~CompareWindow() override;

    // Opens B from a file, completes both documents' analyses and compares them, on a worker thread.
    void openB(const QString& path);
    bool loading() const;
    // The analyses the compare window shows, once B is open and compared.
    const TraceAnalysis* analysisA() const;
    const TraceAnalysis* analysisB() const;

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
    void setB(std::shared_ptr<const Document> a, std::shared_ptr<const Document> b, QString nameB);
    void follow(TimelineView* from, TimelineView* to, TimeNs shift);
    // Both timelines over both traces' time at the current offset: Fit All shows each trace whole.
    void shareExtent();
    void fillTable();

    std::shared_ptr<const Document> m_a, m_b;

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
