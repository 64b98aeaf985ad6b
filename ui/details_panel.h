// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/model/trace.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QScrollArea;
class QLineEdit;
class QTableWidget;
class QFormLayout;
class QVBoxLayout;

namespace attnscope::ui {

// What one event is: name (demangled, copyable), category, start, duration, track, every arg, and
// the events linked to it — for a GPU kernel the runtime call that launched it and the CPU op
// around that call — each one click away. Everything from the file is shown as plain text.
class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    // A list of links of one kind (kernels a launch started, flows) shows this many, then "and N more".
    static constexpr int kMaxLinksPerKind = 20;

    explicit DetailsPanel(QWidget* parent = nullptr);

    void setTrace(std::shared_ptr<const Trace> trace);
    QSize sizeHint() const override { return {380, 480}; }
    void showEvent(std::optional<EventRef> event);
    // A newer snapshot of the same growing trace: the event on show stays.
    void updateTrace(std::shared_ptr<const Trace> trace, std::optional<EventRef> event);
    // The analysis of the trace on show (role, cost, roofline of kernels); null until it is done.
    void setAnalysis(std::shared_ptr<const TraceAnalysis> analysis);

    // Text of the shown fields, for tests: "name", "category", "start", "duration", "track", "role",
    // "cost", "roofline".
    QString field(const QString& key) const;
    // Args as shown: key → value.
    QString arg(const QString& key) const;

Q_SIGNALS:
    void linkActivated(attnscope::EventRef event);

private:
    QString fieldText(const QString& key) const; // as the label holds it
    // note: a second line under the link ("one of 1,566 kernels of this graph").
    void addLink(const QString& relation, EventRef event, const QString& note = {});
    void showFacts(EventRef event); // name, category, start, duration, track, correlation
    void showWhy(EventRef event);   // role, cost and roofline rows, shown for analyzed kernels
    void showLinks(EventRef event);
    void showArgs(EventRef event);
    void showOccupancy(EventRef kernel);
    void showCallRange(EventRef event); // an attention call's host range: the call it holds

    std::shared_ptr<const Trace> m_trace;
    QLabel* m_placeholder = nullptr;
    QWidget* m_body = nullptr;
    QLineEdit* m_name = nullptr;
    QLabel* m_category = nullptr;
    QLabel* m_start = nullptr;
    QLabel* m_duration = nullptr;
    QLabel* m_track = nullptr;
    QLabel* m_correlation = nullptr;
    QScrollArea* m_scroll = nullptr;
    QWidget* m_why = nullptr; // the role, cost and roofline rows
    QLabel* m_role = nullptr;
    QLabel* m_cost = nullptr;
    QLabel* m_roofline = nullptr;
    QLabel* m_occupancy = nullptr;
    std::shared_ptr<const TraceAnalysis> m_analysis;
    std::optional<EventRef> m_shown;
    QTableWidget* m_args = nullptr;
    QVBoxLayout* m_links = nullptr;
    QLabel* m_linksTitle = nullptr;
};

// The innermost enclosing event on the same track that is a CPU op ("cpu_op", legacy "Operator"; else the
// innermost enclosing event of any category), for "the CPU op around this launch".
std::optional<EventRef> enclosingOp(const Trace& trace, EventRef event);

} // namespace attnscope::ui
