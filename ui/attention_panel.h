// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/model/trace.h"

#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;

namespace attnscope::ui {

// The Attention dock: the trace's attention calls per implementation, the post's closing table read
// from the trace — calls, kernels, kernel time, host time and bytes per call, and the kernel time by
// verdict (the analysis' ImplCalls, as `summary` prints them). A row opens its first call's host range
// (or first kernel) on the timeline.
class AttentionPanel : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPanel(QWidget* parent = nullptr);
    // The analysis of the trace on show, or null while there is none.
    // Filled at once, or when its tab is brought up while it is behind another one (tabShown).
    void showAnalysis(std::shared_ptr<const Trace> trace, std::shared_ptr<const TraceAnalysis> analysis);
    void tabShown();
    QTableWidget* table() const { return m_table; }

Q_SIGNALS:
    void callActivated(attnscope::EventRef event);
    // "Try the Alternatives…" on a row: the implementation whose first call is to be run again.
    void alternativesRequested(const QString& impl);
    // "Add Note on a Call…" on a row: a note pinned to a call of that implementation.
    void noteRequested(const QString& impl);

private:
    void fill();
    bool m_stale = false; // the table is not of the analysis given last
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const TraceAnalysis> m_analysis;
    QLabel* m_note = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace attnscope::ui
