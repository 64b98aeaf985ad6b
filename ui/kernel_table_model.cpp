// SPDX-License-Identifier: MIT
#include "kernel_table_model.h"
#include "core/report/format.h"

#include "qt_text.h"

#include <QTextDocument>

#include <map>

namespace attnscope::ui {

void KernelTableModel::setRows(std::vector<KernelStats> rows, TimeNs totalKernelNs, bool inRange) {
    const bool headers = inRange != m_inRange;
    // The kernels shown already, by name and role, where they are; a row that is not there ends the search.
    std::map<std::pair<std::string_view, int>, std::size_t> where;
    for (std::size_t r = 0; r < rows.size(); ++r)
        where.emplace(std::pair<std::string_view, int>(rows[r].name, rows[r].role ? int(*rows[r].role) : -1),
                      r);
    std::vector<std::size_t> order;
    std::vector<bool> taken(rows.size(), false);
    for (const KernelStats& k : m_rows) {
        const auto it = where.find({k.name, k.role ? int(*k.role) : -1});
        if (it == where.end() || taken[it->second]) break;
        order.push_back(it->second);
        taken[it->second] = true;
    }
    if (m_rows.empty() || order.size() < m_rows.size() || where.size() != rows.size()) {
        beginResetModel();
        m_rows = std::move(rows);
        m_totalKernelNs = totalKernelNs;
        m_inRange = inRange;
        endResetModel();
    } else {
        // The same kernels with new numbers (a live profile's next snapshot, another range): changed in
        // place, so the view keeps its selection, scroll and sort and repaints once; kernels new to the
        // table come after them.
        const std::size_t before = m_rows.size();
        for (std::size_t r = 0; r < before; ++r)
            m_rows[r] = std::move(rows[order[r]]);
        m_totalKernelNs = totalKernelNs;
        m_inRange = inRange;
        Q_EMIT dataChanged(index(0, 0), index(int(before) - 1, ColumnCount - 1));
        if (rows.size() > before) {
            beginInsertRows({}, int(before), int(rows.size()) - 1);
            for (std::size_t r = 0; r < rows.size(); ++r)
                if (!taken[r]) m_rows.push_back(std::move(rows[r]));
            endInsertRows();
        }
    }
    if (headers) Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

std::optional<KernelRole> KernelTableModel::roleAt(int row) const {
    return m_rows[std::size_t(row)].role;
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
        case Role: {
            const auto r = roleAt(index.row());
            if (!r) return QString();
            return qs(roleLabel(*r));
        }
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
            return qs(formatPercent(share / 100));
        }
        }
        return {};
    case Qt::ToolTipRole:
        // Tooltips would take "<...>" in C++ names for markup; convert to escaped plain text.
        if (column == Name) return plainTip(QString::fromStdString(k.name));
        return {};
    case Qt::TextAlignmentRole:
        if (column != Name && column != Role) return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Count:
            return tr("Instances in the trace, warm-up calls included; on AttnScope's CPU runs each worker's "
                      "share of a kernel is one (the Attention dock counts a call's kernel once)");
        case Total:
            return m_inRange ? tr("Time of these kernels inside the selected range")
                             : tr("Time of all instances");
        case Mean:
        case Min:
        case Max:
            return m_inRange ? tr("Of the whole kernels that overlap the range, not their clipped parts")
                             : QVariant();
        case Share:
            return m_inRange ? tr("Share of the kernel time inside the range")
                             : tr("Share of all kernel time");
        }
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Name:
        return tr("Kernel");
    case Role:
        return tr("Role");
    case Count:
        return tr("Count");
    case Total:
        return m_inRange ? tr("In range") : tr("Total");
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

void KernelFilterProxy::setNameFilter(const QString& text) {
    m_name = text;
    invalidateFilter();
}

void KernelFilterProxy::setRoleFilter(std::optional<KernelRole> role) {
    m_role = role;
    invalidateFilter();
}

bool KernelFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    auto* model = qobject_cast<const KernelTableModel*>(sourceModel());
    if (!model || sourceParent.isValid()) return true;
    if (m_role && model->roleAt(sourceRow) != m_role) return false;
    return m_name.isEmpty() || QString::fromStdString(model->rows()[std::size_t(sourceRow)].name)
                                   .contains(m_name, Qt::CaseInsensitive);
}

} // namespace attnscope::ui
