// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/ranks.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace attnscope::ui {

// The Ranks dock: per rank of a job its kernels, kernel time and GPU busy time against the mean,
// the slowest rank in bold; double-clicking a rank asks to show its tracks.
class RanksPanel : public QWidget {
    Q_OBJECT
public:
    explicit RanksPanel(QWidget* parent = nullptr);
    void showReport(const RankReport& report);
    QTableWidget* table() const { return m_table; }

Q_SIGNALS:
    void rankActivated(std::int64_t rank);

private:
    QLabel* m_note = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace attnscope::ui
