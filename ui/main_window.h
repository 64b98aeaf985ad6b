// SPDX-License-Identifier: MIT
#pragma once

#include "loaded_trace.h"

#include "core/report/ranks.h"
#include "core/model/trace.h"

#include <QMainWindow>

#include <functional>
#include <memory>

class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QComboBox;
class QDockWidget;
class QTableView;
class QTableWidget;
class QTimer;

namespace attnscope::kernels {
struct RunConfig;
struct RunEvent;
class RunSession;
} // namespace attnscope::kernels

namespace attnscope::ui {

class ChartsPanel;
class CompareWindow;
class DetailsPanel;
class RunPanel;
class FindBar;
class JobRunner;
class KernelFilterProxy;
class KernelTableModel;
class TimelineView;

// The window: the timeline in the middle, the details of the selected event on the right, the
// kernel table below (over the selected range when there is one), find with Ctrl+F.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow();
    ~MainWindow() override;

    void openFile(const QString& path);
    // Opens several files as the ranks of one job: one timeline grouped per rank, and the Ranks
    // dock with each rank's GPU busy time and the spread.
    void openRanks(const QStringList& paths);
    // File → Compare With: the trace on show (A) against the file (B), in a window of its own.
    CompareWindow* compareWith(const QString& path);
    void openEmbeddedSample();
    // Runs attention workloads on a worker thread; the kernels appear on the timeline as they are
    // collected (a snapshot every ~33 ms), and the finished run is a trace like a loaded one.
    // backend: "auto", "cpu" or "cuda" (chooseBackend: without a device "cuda" is refused with the reason).
    void startRun(kernels::RunConfig config, const QString& backend = QStringLiteral("auto"));
    void stopRun();
    bool running() const;
    RunPanel* runPanel() const { return m_runPanel; }
    // Saves what is on show as Chrome trace JSON (gzipped for .gz). Empty on success, else the error.
    QString saveTrace(const QString& path);
    // Saves a picture of the window to path once the current load ends, then quits.
    void screenshotWhenLoaded(const QString& path) { m_screenshotPath = path; }
    // The trace on show (null before the first load), and whether a load is under way.
    std::shared_ptr<const Trace> trace() const { return m_loaded ? m_loaded->trace : nullptr; }
    std::shared_ptr<const LoadedTrace> loaded() const { return m_loaded; }
    bool loading() const;

    TimelineView* timeline() const { return m_timeline; }
    DetailsPanel* details() const { return m_details; }
    FindBar* findBar() const { return m_findBar; }
    QTableView* kernelTable() const { return m_table; }
    KernelTableModel* kernelModel() const { return m_model; }

    // File → Export: the timeline as the window shows it (PNG at scale 1 or 2, SVG, PDF), and the
    // kernel table as it is sorted and filtered. Empty on success, else the error.
    QString exportTimeline(const QString& path, double scale = 1);
    QString exportKernelTable(const QString& path);
    // The chart on show in the Charts dock (PNG at scale 1 or 2, SVG, PDF; 1200×800).
    QString exportChart(const QString& path, double scale = 1);

    ChartsPanel* charts() const { return m_charts; }
    // The analysis of the trace on show (roles, calls, costs, roofline), once its thread is done.
    std::shared_ptr<const TraceAnalysis> analysis() const { return m_analysis; }

Q_SIGNALS:
    // The analysis of the trace on show is ready.
    void analysisReady();
    // A load ended: loaded, failed or cancelled.
    void loadFinished();
    // A run ended: finished, stopped or failed.
    void runFinished();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void revealRank(std::int64_t rank); // the Ranks dock's double-click
    bool m_layoutRestored = false;      // a saved dock layout was restored: its sizes stay
    void buildMenus();
    // Loads the file at path, or the bytes when path is empty, as the trace on show.
    void startLoad(const QString& path, const QByteArray& bytes, const QString& name);
    void showTrace(std::shared_ptr<const LoadedTrace> loaded, const QString& name);
    void showHeader(const QString& name); // what is in m_loaded, in a line or two
    void loadEnded();
    void screenshotIfAsked();
    void runTick();
    void showRunSnapshot();
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void updateKernelTable();
    void highlightTableSelection();
    // A kernel table row activated (double-click, Enter): its longest instance (in the range, if
    // one is selected) is selected and brought into view.
    void showLongestInstance(const QModelIndex& index);
    void runFind(const QString& text);
    void stepFind(int direction);
    void exportTimelineDialog(const QString& format, double scale);
    void exportKernelTableDialog();
    // Asks where (starting in the last export folder), remembers the folder, writes with `write`
    // (which returns an error or ""), and says how it went.
    void saveWithDialog(const QString& title, const QString& suggestedName, const QString& filter,
                        const std::function<QString(const QString&)>& write);
    void warn(const QString& title, const QString& text, const QString& details = {});

    // Analyzes the trace on show on a thread of its own; the charts and details follow when it ends.
    void startAnalysis();

    std::shared_ptr<const LoadedTrace> m_loaded;
    std::shared_ptr<const TraceAnalysis> m_analysis;
    JobRunner* m_jobs = nullptr; // "load" (a file or ranks) and "analysis"
    QTableWidget* m_ranksTable = nullptr;
    QLabel* m_ranksNote = nullptr;
    QDockWidget* m_ranksDock = nullptr;
    void showRankReport(const RankReport* report);
    ChartsPanel* m_charts = nullptr;
    TimelineView* m_timeline = nullptr;
    DetailsPanel* m_details = nullptr;
    FindBar* m_findBar = nullptr;
    std::vector<EventRef> m_matches;
    KernelTableModel* m_model = nullptr;
    KernelFilterProxy* m_proxy = nullptr;
    QComboBox* m_roleFilter = nullptr;
    QLabel* m_header = nullptr;
    QLabel* m_tableTitle = nullptr;
    QLineEdit* m_filter = nullptr;
    QTableView* m_table = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QString m_screenshotPath;

    RunPanel* m_runPanel = nullptr;
    std::unique_ptr<kernels::RunSession> m_run;
    std::vector<kernels::RunEvent> m_runEvents;
    QTimer* m_runTimer = nullptr;
    qint64 m_runStartMs = 0;
    qint64 m_nextSnapshotMs = 0;   // no new snapshot of the run before this
    bool m_runSnapshotDue = false; // records arrived since the last snapshot
    bool m_runShown = false;       // the run's first snapshot is on show (later ones update it in place)
    bool m_runOwnsView = false;    // false once a file was opened during the run
    bool m_runActive = false;      // from startRun until the window has taken the run's last records
};

// A trace file's name without its trace suffixes (.json, .gz, .sqlite, PyTorch's .pt.trace), for the
// names AttnScope suggests when saving what it shows: "rank0.pt.trace.json.gz" -> "rank0".
QString traceBaseName(const QString& fileName);

} // namespace attnscope::ui
