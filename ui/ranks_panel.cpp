// SPDX-License-Identifier: MIT
#include "ranks_panel.h"
#include "core/report/format.h"

#include "qt_text.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace attnscope::ui {

RanksPanel::RanksPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_note = new QLabel(this);
    m_note->setObjectName("ranksNote");
    m_note->setWordWrap(true); // the straggler sentence is long: on one line it held the window's docks apart
    m_table = new QTableWidget(this);
    m_table->setObjectName("ranksTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setToolTip(tr("Double-click a rank to show its tracks"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_compare = new QPushButton(tr("Compare Selected Ranks"), this);
    m_compare->setToolTip(tr("The selected ranks' files side by side (select two or more)"));
    m_compare->setEnabled(false);
    auto* top = new QHBoxLayout;
    top->addWidget(m_note, 1);
    top->addWidget(m_compare);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_compare->setEnabled(m_table->selectionModel()->selectedRows().size() >= 2); });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        QStringList paths;
        for (const QModelIndex& row : m_table->selectionModel()->selectedRows())
            if (std::size_t(row.row()) < m_paths.size())
                paths << QString::fromStdString(m_paths[std::size_t(row.row())]);
        if (paths.size() >= 2) Q_EMIT compareRequested(paths);
    });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row) {
        if (const QTableWidgetItem* item = m_table->item(row, 0))
            Q_EMIT rankActivated(item->text().toLongLong());
    });
}

void RanksPanel::showReport(const RankReport& report) {
    const QStringList headers = {tr("Rank"),         tr("Kernels"),         tr("Kernel time"), tr("GPU busy"),
                                 tr("Compute busy"), tr("Compute vs mean"), tr("Waited"),      tr("File")};
    m_table->clear();
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(report.ranks.size()));
    m_paths.clear();
    for (int row = 0; row < int(report.ranks.size()); ++row) {
        const RankStats& s = report.ranks[std::size_t(row)];
        m_paths.push_back(s.path);
        const double vs =
            report.meanComputeNs ? 100.0 * (double(s.computeBusyNs) / double(report.meanComputeNs) - 1) : 0;
        const QStringList cells = {
            QString::number(s.rank),
            QString::number(s.kernels),
            qs(formatDuration(s.kernelNs)),
            qs(formatDuration(s.gpuBusyNs)),
            qs(formatDuration(s.computeBusyNs)),
            QStringLiteral("%1%2").arg(vs >= 0 ? "+" : "", qs(formatPercent(vs / 100))),
            report.collectives ? qs(formatDuration(s.waitNs)) : QStringLiteral("—"),
            QString::fromStdString(s.path)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (s.rank == report.slowestRank) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setToolTip(tr("The slowest rank: %1").arg(qs(report.slowestWhy())));
            }
            m_table->setItem(row, c, item);
        }
    }
    m_table->resizeColumnsToContents(); // every title and figure whole; the file name takes what is left
    // Compute busy time leaves out the communication kernels, whose time is mostly waiting for the
    // last rank; "waited" is that wait, from a rank's arrival at each collective to the last one's.
    QString note = tr("Compute busy spread %1 (max − min over mean)").arg(qs(formatPercent(report.spread())));
    if (report.collectives)
        note += tr(" · the slowest: %1").arg(qs(report.stragglerSentence()));
    else if (report.ranks.size() > 1)
        note += tr(" · the slowest rank is %1: it %2 (no collective matched on every rank)")
                    .arg(report.slowestRank)
                    .arg(qs(report.slowestWhy()));
    m_note->setText(note);
}

} // namespace attnscope::ui
