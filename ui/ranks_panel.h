// SPDX-License-Identifier: MIT
#pragma once

#include "core/report/ranks.h"

#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace attnscope::ui {

// The Ranks dock: per rank of a job its kernels, kernel time and GPU busy time against the mean,
// the slowest rank in bold; double-clicking a rank asks to show its tracks; Compare Selected Ranks asks
// for the selected ranks' files side by side (Compare Variants).
class RanksPanel : public QWidget {
    Q_OBJECT
public:
    explicit RanksPanel(QWidget* parent = nullptr);
    void showReport(const RankReport& report);
    QTableWidget* table() const { return m_table; }
    QPushButton* compareButton() const { return m_compare; }

Q_SIGNALS:
    void rankActivated(std::int64_t rank);
    void compareRequested(const QStringList& paths);

private:
    QLabel* m_note = nullptr;
    QTableWidget* m_table = nullptr;
    QPushButton* m_compare = nullptr;
    std::vector<std::string> m_paths; // per row
};

} // namespace attnscope::ui
