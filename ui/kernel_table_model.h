// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/report/summary.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <optional>

namespace attnscope::ui {

// Kernels of a trace by name (and, once analysed, by role: a name whose kernels play several roles is
// a row per role): count, total, mean, min, max and share of kernel time. Over a selected range the
// total is the time inside the range, while mean, min and max stay those of the whole kernels that
// overlap it; the headers say which.
class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Role, Count, Total, Mean, Min, Max, Share, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;
    // Rows and the kernel time their shares are of; inRange: the rows are a range's.
    void setRows(std::vector<KernelStats> rows, TimeNs totalKernelNs, bool inRange = false);
    const std::vector<KernelStats>& rows() const { return m_rows; }
    TimeNs totalKernelNs() const { return m_totalKernelNs; }
    bool inRange() const { return m_inRange; }
    StringId nameIdAt(int row) const { return m_rows[std::size_t(row)].nameId; }
    std::optional<KernelRole> roleAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // Sorting uses the raw numbers under this role.
    static constexpr int SortRole = Qt::UserRole + 1;

private:
    std::vector<KernelStats> m_rows;
    TimeNs m_totalKernelNs = 0;
    bool m_inRange = false;
};

// The kernel table's rows that match a name filter (case-insensitive substring) and a role.
class KernelFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setNameFilter(const QString& text);
    void setRoleFilter(std::optional<KernelRole> role);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_name;
    std::optional<KernelRole> m_role;
};

} // namespace attnscope::ui
