// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"
#include "core/document/notes.h"

#include <QMainWindow>

#include <cstdint>
#include <functional>
#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QDockWidget;
class QTableView;

namespace attnscope::kernels {
struct RunConfig;
struct ProfileConfig;
enum class BackendChoice : std::uint8_t;
} // namespace attnscope::kernels

namespace attnscope {
struct Document;
}

namespace attnscope::ui {

class AttentionPanel;
class ChartsPanel;
class JobWindow;
class CompareWindow;
class VariantsWindow;
class WhatIfController;
class DetailsPanel;
class DocumentController;
class JobRunner;
class FindBar;
class FindingsPanel;
class NotesPanel;
class FindController;
class KernelTablePanel;
class KernelTableModel;
class RanksPanel;
class RecentFilesMenu;
class ProfileController;
class ProgramPanel;
class RunController;
class RunPanel;
class TimelineView;

// The window: the timeline in the middle, the details of the selected event on the right, the
// kernel table below (over the selected range when there is one), find with Ctrl+F. It holds the
// layout, the menus and the wiring; the document on show and its loading belong to the
// DocumentController, a live run to the RunController, find to the FindController.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow();
    ~MainWindow() override;

    void openFile(const QString& path);
    // Opens several files as the ranks of one job: one timeline grouped per rank, and the Ranks
    // dock with each rank's GPU busy time and the spread.
    void openRanks(const QStringList& paths);
    // Shown, raised and active: what another window (the Job window) opened is seen here.
    void comeForward();
    // File → Compare With: the trace on show (A) against the file (B), in a window of its own.
    CompareWindow* compareWith(const QString& path);
    // File → Compare Variants: the files side by side in a window of its own; a row opens its trace here.
    VariantsWindow* compareVariants(const QStringList& paths);
    // A job of many ranks from its rank records (files or folders): the Job window, its rows opening
    // their traces here; null (with why said) when no record could be read.
    JobWindow* openJob(const QStringList& paths);
    void openEmbeddedSample();
    // Runs attention workloads on a worker thread; the kernels appear on the timeline as they are
    // collected (a snapshot every ~33 ms), and the finished run is a trace like a loaded one.
    // chooseBackend: without a device CUDA is refused with the reason.
    void startRun(kernels::RunConfig config, kernels::BackendChoice backend);
    void stopRun();
    bool running() const;
    RunPanel* runPanel() const { return m_runPanel; }
    // Profiles the user's own program (the Program panel, `attnscope profile -- COMMAND`): its steps
    // open as they are written, each snapshot with its analysis; a file opened meanwhile takes the view.
    void startProfile(kernels::ProfileConfig config);
    void stopProfile();
    bool profiling() const;
    ProgramPanel* programPanel() const { return m_programPanel; }
    // Saves what is on show as Chrome trace JSON (gzipped for .gz). Empty on success, else the error.
    QString saveTrace(const QString& path);
    // The same on a worker, with progress in the status bar and Cancel (File ▸ Save Trace As…);
    // traceSaved says how it ended ("" when saved, "cancelled", else the error).
    void saveTraceInBackground(const QString& path);
    // Waits for a background save under way to end (closing and destroying the window do).
    void finishSaving();
    // Saves a picture of the window to path once the current load ends, then quits.
    void screenshotWhenLoaded(const QString& path) { m_screenshotPath = path; }
    // The trace on show (null before the first load), and whether a load is under way.
    std::shared_ptr<const Trace> trace() const;
    std::shared_ptr<const Document> document() const;
    bool loading() const;

    TimelineView* timeline() const { return m_timeline; }
    DetailsPanel* details() const { return m_details; }
    FindingsPanel* findings() const { return m_findings; }
    NotesPanel* notes() const { return m_notes; }
    // A note (or a bookmark) on the selected event, else on the selected stretch, else on the one on show.
    Note noteHere(bool bookmark) const;
    // A note on a call of impl (the one the selected kernel is in, else its first), or on a finding (at
    // its first place); none when the analysis has no such call or finding.
    std::optional<Note> noteOnCallOf(const QString& impl) const;
    std::optional<Note> noteOnFindingOf(const QString& id) const;
    // Asks for the note's text (a bookmark's name), saying where it will be pinned, and adds it.
    void askAndAddNote(Note note);
    AttentionPanel* attention() const { return m_attention; }
    WhatIfController* whatIf() const { return m_whatIf; }
    // Runs the first call of impl again on this machine with PyTorch, as it was and as the alternatives
    // (tries; empty: all), then compares them with the trace in Compare Variants: "" when it started, else
    // why nothing runs. The docks' menus ask first what to run (WhatIfController::askAndStart).
    QString tryAlternatives(const QString& impl, std::vector<std::string> tries = {}, int repeat = 5);
    // The implementation of the attention call a finding's first place in a call is in; "" none.
    QString callImplOfFinding(const QString& id) const;
    FindBar* findBar() const { return m_findBar; }
    QTableView* kernelTable() const;
    KernelTableModel* kernelModel() const;

    // File → Export: the timeline as the window shows it (PNG at scale 1 or 2, SVG, PDF), and the
    // kernel table as it is sorted and filtered. Empty on success, else the error.
    QString exportTimeline(const QString& path, double scale = 1);
    QString exportKernelTable(const QString& path);
    QString exportReportOf(const QString& path); // File → Export Report…
    // The chart on show in the Charts dock (PNG at scale 1 or 2, SVG, PDF; 1200×800).
    QString exportChart(const QString& path, double scale = 1);
    // What the Help menu says of a topic: the keys and mouse, or where the user's data files go.
    enum class HelpTopic { KeysAndMouse, Files };
    static QString helpText(HelpTopic topic);

    ChartsPanel* charts() const { return m_charts; }
    // The analysis of the trace on show (roles, calls, costs, roofline), once its thread is done.
    std::shared_ptr<const TraceAnalysis> analysis() const;

    // The saved place and size (the window's own, without the title bar and borders; maximized as it was)
    // when they fit the screen the window is on; else the default size, no larger than that screen, at its
    // top left.
    void restoreFittingGeometry(const QRect& saved, bool maximized = false);

Q_SIGNALS:
    // The analysis of the trace on show is ready.
    void analysisReady();
    // A load ended: loaded, failed or cancelled.
    void loadFinished();
    // A run ended: finished, stopped or failed.
    void runFinished();
    // A profiled program ended (or could not start) and its last steps are on show.
    void profileFinished();
    // A background save ended: error "" when saved, "cancelled", else why not.
    void traceSaved(const QString& path, const QString& error);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void showHelp(HelpTopic topic);
    QDockWidget* addDock(const QString& title, const char* name, QWidget* widget, Qt::DockWidgetArea area);
    void buildMenus();
    void buildCentre();
    void buildDocks();
    void connectDocuments();
    void connectRuns();
    void connectProfile();
    void connectViews();
    void buildStatusBar();
    void showDocument(bool sameRun);
    QDockWidget* bottomDockShown() const; // the Kernels, Charts, Attention or Ranks dock on show
    void raiseAttentionUnlessMoved();
    void showAnalysis();
    void showLoadFailed(const QString& name, const QString& message);
    void loadEnded();
    void screenshotIfAsked();
    void highlightTableSelection();
    // Asks where (file_dialogs.h), writes with `write` (which returns an error or ""), and says how it went.
    void saveWithDialog(const QString& title, const QString& suggestedName, const QString& filter,
                        const std::function<QString(const QString&)>& write);
    void warn(const QString& title, const QString& text, const QString& details = {});

    DocumentController* m_documents = nullptr;
    RunController* m_run = nullptr;
    ProfileController* m_profile = nullptr;
    FindController* m_find = nullptr;
    ChartsPanel* m_charts = nullptr;
    TimelineView* m_timeline = nullptr;
    DetailsPanel* m_details = nullptr;
    FindBar* m_findBar = nullptr;
    KernelTablePanel* m_kernels = nullptr;
    FindingsPanel* m_findings = nullptr;
    NotesPanel* m_notes = nullptr;
    AttentionPanel* m_attention = nullptr;
    WhatIfController* m_whatIf = nullptr;
    RanksPanel* m_ranks = nullptr;
    QDockWidget* m_ranksDock = nullptr;
    RunPanel* m_runPanel = nullptr;
    ProgramPanel* m_programPanel = nullptr;
    QLabel* m_header = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    JobRunner* m_saves = nullptr; // "save": Save Trace As… on a worker
    bool m_saving = false;
    bool m_screenshotFailed = false; // --screenshot: what was asked for could not be opened
    RecentFilesMenu* m_recentMenu = nullptr;
    QString m_screenshotPath;
    bool m_layoutRestored = false; // a saved dock layout was restored: its sizes stay
    // The bottom dock AttnScope last put on show (a run's or profile's start, its Ranks): a run that ends
    // raises the Attention dock only when the user has not picked another since.
    QDockWidget* m_bottomShown = nullptr;
};

} // namespace attnscope::ui
