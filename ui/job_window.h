// SPDX-License-Identifier: MIT
#pragma once

// File → Open Job: a job of many ranks from its rank records (`summary --format rank`, made by `job --map`
// where the traces lie): what `attnscope job` prints, as a window. The job's spread and findings across
// ranks on top; a heat map of ranks × measures (each measure against its median: a slow rank stands out as
// a hot column whatever the job's size); and the rank table, sortable by any measure. A click on the heat
// map finds its rank in the table; a double-click on a row opens that rank's trace in the main window, and
// the selected rows open together as the ranks of one job.
#include "core/report/job_report.h"

#include <QMainWindow>
#include <QStringList>

class QLabel;
class QStandardItemModel;
class QSortFilterProxyModel;
class QTableView;

namespace attnscope::ui {

class JobHeatMap;

class JobWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit JobWindow(QWidget* parent = nullptr);

    // Reads the records (files of JSON lines, or folders of them) and shows the job; "" or what went
    // wrong (a record that cannot be read is said; two records of one rank refuse the job).
    QString openRecords(const QStringList& paths);
    void showReport(JobReport report);

    const JobReport& report() const { return m_report; }
    QTableView* table() const { return m_table; }
    JobHeatMap* heatMap() const { return m_heat; }
    // The rank on the table's row `row` as sorted now (-1: none).
    std::int64_t rankAtRow(int row) const;
    void selectRank(std::int64_t rank);
    // The selected ranks' traces, in rank order.
    QStringList selectedPaths() const;

Q_SIGNALS:
    void openRequested(const QString& path);
    void openRanksRequested(const QStringList& paths);

private:
    void openSelected();
    // The job's findings, the first five or (after "… N more" is clicked) all of them.
    void showFindings();
    JobReport m_report;
    bool m_allFindings = false;
    QStringList m_problems; // records that could not be read, said in the header
    QLabel* m_header = nullptr;
    QLabel* m_findings = nullptr;
    JobHeatMap* m_heat = nullptr;
    QTableView* m_table = nullptr;
    QStandardItemModel* m_model = nullptr;
    QSortFilterProxyModel* m_sorted = nullptr;
};

// Ranks across, measures down; each cell the rank's value against the measure's median (white at the
// median, red above it, blue below, full colour at twice or half of it). Painted from the report alone.
class JobHeatMap : public QWidget {
    Q_OBJECT
public:
    explicit JobHeatMap(QWidget* parent = nullptr);
    void setReport(const JobReport* report);
    static QStringList measureNames();
    // The rank under a point of the widget (-1: none).
    std::int64_t rankAt(QPoint p) const;
    // Where the cells are: the measures' names to the left, the straggler and slow ranks' marks above,
    // the ranks' numbers and the legend below.
    QRect plotRect() const;
    // The ranks whose numbers are written under their columns: every one where there is room, else every
    // n-th (n a 1-2-5 step), the first and the last; the hovered rank's is written too.
    std::vector<std::int64_t> labelledRanks() const;
    std::int64_t hoveredRank() const { return m_hover; }
    // What the hovered rank's tooltip says: its values against each measure's median, whether it is the
    // straggler or slow ("" for none).
    QString tipOf(std::int64_t rank) const;
    QSize sizeHint() const override;

Q_SIGNALS:
    void rankClicked(std::int64_t rank);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override; // tooltips

private:
    void showTip(QPoint at);
    QRectF columnRect(std::size_t k) const; // rank k's column (by position) over every measure
    const JobReport* m_report = nullptr;
    std::int64_t m_hover = -1;
};

} // namespace attnscope::ui
