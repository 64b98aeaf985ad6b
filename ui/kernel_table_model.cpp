// SPDX-License-Identifier: MIT
#include "kernel_table_model.h"

#include <QTextDocument>

namespace attnscope::ui {

void KernelTableModel::setRows(std::vector<KernelStats> rows, TimeNs totalKernelNs) {
    beginResetModel();
    m_rows = std::move(rows);
    m_totalKernelNs = totalKernelNs;
    endResetModel();
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const KernelStats& k = m_rows[std::size_t(index.row())];
    const int column = index.column();
    // Durations: sorted by their nanoseconds, shown for people.
    auto duration = [&](TimeNs ns) -> QVariant {
        if (role == SortRole) return qlonglong(ns);
        return QString::fromStdString(formatDuration(ns));
    };
    switch (role) {
    case SortRole:
    case Qt::DisplayRole:
        switch (column) {
        // Names from files are shown as plain text: item views never interpret them as rich text.
        case Name:
            return QString::fromStdString(k.name);
        case Count:
            return qulonglong(k.count);
        case Total:
            return duration(k.totalNs);
        case Mean:
            return duration(k.meanNs());
        case Min:
            return duration(k.minNs);
        case Max:
            return duration(k.maxNs);
        case Share: {
            const double share = m_totalKernelNs ? 100.0 * double(k.totalNs) / double(m_totalKernelNs) : 0.0;
            if (role == SortRole) return share;
            return QString::number(share, 'f', 1) + " %";
        }
        }
        return {};
    case Qt::ToolTipRole:
        // Tooltips would take "<...>" in C++ names for markup; convert to escaped plain text.
        if (column == Name) return Qt::convertFromPlainText(QString::fromStdString(k.name));
        return {};
    case Qt::TextAlignmentRole:
        if (column != Name) return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Name:
        return tr("Kernel");
    case Count:
        return tr("Count");
    case Total:
        return tr("Total");
    case Mean:
        return tr("Mean");
    case Min:
        return tr("Min");
    case Max:
        return tr("Max");
    case Share:
        return tr("Share");
    }
    return {};
}

} // namespace attnscope::ui
