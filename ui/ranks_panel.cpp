// SPDX-License-Identifier: MIT
#include "ranks_panel.h"

#include "qt_text.h"

#include "core/report/summary.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace attnscope::ui {

RanksPanel::RanksPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_note = new QLabel(this);
    m_note->setObjectName("ranksNote");
    m_table = new QTableWidget(this);
    m_table->setObjectName("ranksTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setToolTip(tr("Double-click a rank to show its tracks"));
    layout->addWidget(m_note);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row) {
        if (const QTableWidgetItem* item = m_table->item(row, 0))
            Q_EMIT rankActivated(item->text().toLongLong());
    });
}

void RanksPanel::showReport(const RankReport& report) {
    const QStringList headers = {tr("Rank"),     tr("Kernels"), tr("Kernel time"),
                                 tr("GPU busy"), tr("vs mean"), tr("File")};
    m_table->clear();
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(report.ranks.size()));
    for (int row = 0; row < int(report.ranks.size()); ++row) {
        const RankStats& s = report.ranks[std::size_t(row)];
        const double vs =
            report.meanBusyNs ? 100.0 * (double(s.gpuBusyNs) / double(report.meanBusyNs) - 1) : 0;
        const QStringList cells = {QString::number(s.rank),
                                   QString::number(s.kernels),
                                   qs(formatDuration(s.kernelNs)),
                                   qs(formatDuration(s.gpuBusyNs)),
                                   QStringLiteral("%1%2%").arg(vs >= 0 ? "+" : "").arg(vs, 0, 'f', 1),
                                   QString::fromStdString(s.path)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (s.rank == report.slowestRank) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setToolTip(tr("The slowest rank: the most GPU busy time"));
            }
            m_table->setItem(row, c, item);
        }
    }
    m_note->setText(tr("GPU busy spread %1% (max − min over mean) · the slowest rank is %2")
                        .arg(100 * report.spread(), 0, 'f', 1)
                        .arg(report.slowestRank));
}

} // namespace attnscope::ui
