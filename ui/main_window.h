// SPDX-License-Identifier: MIT
#pragma once

#include "core/trace.h"

#include <QMainWindow>
#include <QPointer>

#include <memory>

class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace attnscope::ui {

class KernelTableModel;
class TraceLoadJob;

// The window until the timeline lands (issue 3): what is in the open trace, and its kernels.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow();
    ~MainWindow() override;

    void openFile(const QString& path);
    void openEmbeddedSample();
    // Saves a picture of the window to path once the current load ends, then quits.
    void screenshotWhenLoaded(const QString& path) { m_screenshotPath = path; }
    // The trace on show (null before the first load), and whether a load is under way.
    std::shared_ptr<const Trace> trace() const { return m_trace; }
    bool loading() const;

Q_SIGNALS:
    // A load ended: loaded, failed or cancelled.
    void loadFinished();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void startJob(TraceLoadJob* job);
    void showTrace(std::shared_ptr<const Trace> trace, double seconds, const QString& name);
    void loadEnded();
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();

    std::shared_ptr<const Trace> m_trace;
    QPointer<TraceLoadJob> m_job;
    KernelTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QLabel* m_header = nullptr;
    QLineEdit* m_filter = nullptr;
    QTableView* m_table = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QString m_screenshotPath;
};

} // namespace attnscope::ui
