// SPDX-License-Identifier: MIT
#include "attention_panel.h"

#include "on_screen.h"
#include "qt_text.h"
#include "table_fit.h"

#include "core/report/format.h"
#include "core/report/summary.h"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace attnscope::ui {

namespace {

QTableWidgetItem* cell(const QString& text, bool number) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

AttentionPanel::AttentionPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::PlainText);
    layout->addWidget(m_note);
    m_table = new QTableWidget(0, 10, this);
    // The figures' titles on two lines: ten columns fit a dock beside the findings at 1366 pixels.
    m_table->setHorizontalHeaderLabels({tr("Implementation"), tr("Calls"), tr("Kernels\n/ call"),
                                        tr("Expected"), tr("Calls\noff"), tr("Kernel time\n/ call"),
                                        tr("Host time\n/ call"), tr("Backward\n/ call"), tr("Bytes\n/ call"),
                                        tr("Kernel time by verdict")});
    m_table->horizontalHeaderItem(5)->setToolTip(
        tr("The time the call's kernels ran, workers or streams running at once counted once: the "
           "figure `compare` prints and its chart's bars add up to."));
    m_table->horizontalHeaderItem(6)->setToolTip(tr(
        "The call's own range on the host: its attention op or record_function range. \"-\" where the calls "
        "have none: AttnScope's own runs (the kernel time is the call's), kernels launched from no op."));
    m_table->horizontalHeaderItem(7)->setToolTip(tr(
        "Training: the time the kernels of the call's backward pass ran (the gradients autograd computed "
        "for its ops: both GEMMs' and the softmax's, or SDPA's backward op), over the calls whose backward "
        "the trace holds. No call of its own, but the call's time. Shown only for a trace with one."));
    m_table->horizontalHeaderItem(8)->setToolTip(
        tr("Bytes the call's kernels moved, over the calls whose every kernel has a cost. \"-\" where some "
           "kernel of each call has none (an op whose inputs AttnScope does not model)."));
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    keepProseColumnsFitted(m_table, 1); // the verdicts wrap rather than run off to the right
    layout->addWidget(m_table);
    connect(m_table, &QTableWidget::cellActivated, this, [this](int row, int) {
        if (!m_analysis || row < 0 || std::size_t(row) >= m_analysis->tables.implCalls.size()) return;
        const std::string& impl = m_analysis->tables.implCalls[std::size_t(row)].impl;
        for (const AttentionCall& call : m_analysis->calls) {
            if (call.impl != impl || call.kernels.empty()) continue;
            Q_EMIT callActivated(call.scope ? *call.scope : m_analysis->kernels[call.kernels.front()].event);
            return;
        }
    });
    // A row's menu: run its first call again on this machine, as it was and as the alternatives; a note
    // on its call (the one selected on the timeline, else its first).
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const int row = m_table->rowAt(at.y());
        if (!m_analysis || row < 0 || std::size_t(row) >= m_analysis->tables.implCalls.size()) return;
        const QString impl = qs(m_analysis->tables.implCalls[std::size_t(row)].impl);
        QMenu menu(this);
        menu.addAction(tr("Try the Alternatives on %1's Shape…").arg(impl), this,
                       [this, impl] { Q_EMIT alternativesRequested(impl); });
        menu.addAction(tr("Add Note on a %1 Call…").arg(impl), this,
                       [this, impl] { Q_EMIT noteRequested(impl); });
        menu.exec(m_table->viewport()->mapToGlobal(at));
    });
    showAnalysis(nullptr, nullptr);
}

void AttentionPanel::showAnalysis(std::shared_ptr<const Trace> trace,
                                  std::shared_ptr<const TraceAnalysis> analysis) {
    m_trace = std::move(trace);
    m_analysis = std::move(analysis);
    m_stale = true;
    if (!behindAnotherTab(this)) fill(); // else when its tab is brought up (a live profile's snapshots)
}

void AttentionPanel::tabShown() {
    if (m_stale) fill();
}

void AttentionPanel::fill() {
    m_stale = false;
    m_table->setRowCount(0);
    if (!m_analysis) {
        m_note->setText(
            tr("The attention calls of the trace on show, per implementation, once it is analysed."));
        fitProseColumns(m_table, 1); // with no rows: each title whole
        return;
    }
    const auto& rows = m_analysis->tables.implCalls;
    m_note->setText(
        rows.empty()
            ? tr("No attention calls in this trace.")
            : tr("%1 per implementation: per call, what its kernels did and how long the "
                 "host took (its attention op or record_function range). Double-click a "
                 "row to see its first call.")
                  .arg(qs(formatCount(m_analysis->calls.size(), "attention call", "attention calls"))));
    // Each implementation's first call held to a shape, in one pass over the calls.
    std::map<std::string, const AttentionCall*> shaped;
    for (const AttentionCall& call : m_analysis->calls)
        if (!call.shapeText.empty()) shaped.try_emplace(call.impl, &call);
    m_table->setRowCount(int(rows.size()));
    for (int r = 0; r < int(rows.size()); ++r) {
        const ImplCalls& a = rows[std::size_t(r)];
        const auto host = a.hostNsPerCall();
        const auto bytes = a.bytesPerCall();
        QTableWidgetItem* implCell = cell(QString::fromStdString(a.impl), false);
        implCell->setToolTip(qs(callsNote(a)));
        m_table->setItem(r, 0, implCell);
        m_table->setItem(r, 1, cell(QString::number(a.calls), true));
        m_table->setItem(r, 2, cell(QString::number(a.kernelsPerCall(), 'f', 1), true));
        // Against the expected call (call_shapes.txt): its kernels per call, and the calls that ran
        // otherwise.
        const auto expected = a.expectedPerCall();
        QTableWidgetItem* expectedCell =
            cell(expected ? QString::number(*expected, 'f', 1) : QStringLiteral("-"), true);
        if (const auto it = shaped.find(a.impl); it != shaped.end())
            expectedCell->setToolTip(tr("%1 = %2").arg(qs(it->second->shapeKey), qs(it->second->shapeText)));
        m_table->setItem(r, 3, expectedCell);
        QTableWidgetItem* off =
            cell(expected ? QString::number(a.mismatchedCalls) : QStringLiteral("-"), true);
        if (a.mismatchedCalls) off->setForeground(QColor(210, 110, 0));
        m_table->setItem(r, 4, off);
        m_table->setItem(r, 5, cell(qs(formatDuration(a.kernelNsPerCall())), true));
        m_table->setItem(r, 6, cell(host ? qs(formatDuration(*host)) : QStringLiteral("-"), true));
        const auto backward = a.backwardNsPerCall();
        QTableWidgetItem* backwardCell =
            cell(backward ? qs(formatDuration(*backward)) : QStringLiteral("-"), true);
        if (backward)
            backwardCell->setToolTip(tr("Over the %1 whose backward pass the trace holds")
                                         .arg(qs(formatCount(a.backwardCalls, "call", "calls"))));
        m_table->setItem(r, 7, backwardCell);
        m_table->setItem(r, 8, cell(bytes ? qs(formatRate(*bytes, "B")) : QStringLiteral("-"), true));
        m_table->setItem(r, 9, cell(QString::fromStdString(verdictMix(a)), false));
    }
    m_table->setColumnHidden(
        7, std::none_of(rows.begin(), rows.end(), [](const ImplCalls& a) { return a.backwardCalls > 0; }));
    fitProseColumns(m_table, 1);
}

} // namespace attnscope::ui
