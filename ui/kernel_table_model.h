// SPDX-License-Identifier: MIT
#pragma once

#include "core/summary.h"

#include <QAbstractTableModel>

namespace attnscope::ui {

// Kernels of a trace by name: count, total, mean, min, max and share of GPU kernel time.
class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Count, Total, Mean, Min, Max, Share, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;
    // Rows and the GPU kernel time their shares are of.
    void setRows(std::vector<KernelStats> rows, TimeNs totalKernelNs);
    const std::vector<KernelStats>& rows() const { return m_rows; }
    TimeNs totalKernelNs() const { return m_totalKernelNs; }
    StringId nameIdAt(int row) const { return m_rows[std::size_t(row)].nameId; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // Sorting uses the raw numbers under this role.
    static constexpr int SortRole = Qt::UserRole + 1;

private:
    std::vector<KernelStats> m_rows;
    TimeNs m_totalKernelNs = 0;
};

} // namespace attnscope::ui
