// SPDX-License-Identifier: MIT
#include "main_window.h"

#include "attention_panel.h"
#include "charts.h"
#include "details_panel.h"
#include "document_controller.h"
#include "find_bar.h"
#include "find_controller.h"
#include "findings_panel.h"
#include "job_runner.h"
#include "kernel_table_panel.h"
#include "navigation_keys.h"
#include "notes_panel.h"
#include "on_screen.h"
#include "profile_controller.h"
#include "program_panel.h"
#include "ranks_panel.h"
#include "recent_files.h"
#include "run_controller.h"
#include "run_panel.h"
#include "timeline_view.h"
#include "trace_header.h"
#include "whatif_controller.h"
#include "wrapped_line.h"

#include "kernels/run_session.h"

#include "core/document/document.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>

namespace attnscope::ui {

// The window built top to bottom as it looks: the centre, the docks, the controllers and their wiring
// to the views, the status bar, the menus, then the saved layout.
MainWindow::MainWindow() {
    setWindowTitle(tr("AttnScope"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    buildCentre();
    buildDocks();
    m_documents = new DocumentController(this);
    m_run = new RunController(m_runPanel, this);
    m_profile = new ProfileController(m_programPanel, this);
    m_find = new FindController(m_findBar, m_timeline, this);

    connectDocuments();
    connectRuns();
    connectProfile();
    connectViews();
    buildStatusBar();
    buildMenus();

    QSettings settings;
    restoreFittingGeometry(settings.value("window/rect").toRect(),
                           settings.value("window/maximized").toBool());
    m_layoutRestored = restoreState(settings.value("window/state").toByteArray());
    m_ranksDock->hide(); // shown by a job's ranks, not by a layout saved while one was open
    m_kernels->restoreColumnState(settings.value("window/kernelTableColumns").toByteArray());
    m_header->setText(tr("No trace open. File → Open, or drop a trace file here."));
    statusBar()->showMessage(tr("%1 · drag to pan · click selects · Shift+drag selects a range · Ctrl+F find")
                                 .arg(navigationHint()));
    m_timeline->setFocus();
}

// A geometry saved on a larger screen, or after the window had grown, would put the status bar and tabs
// off the screen; so would 1400×860 on a 1366×768 laptop. The window's own rectangle is kept, not
// saveGeometry's: restoreGeometry moves a window at the screen's top down by a title bar it guesses
// (20 pixels where there is none), so that each start opened lower than the last had closed.
void MainWindow::restoreFittingGeometry(const QRect& saved, bool maximized) {
    const QScreen* on = screen() ? screen() : QGuiApplication::primaryScreen();
    const QRect available = on ? on->availableGeometry() : QRect();
    if (saved.isValid() && (available.isEmpty() || available.contains(saved))) {
        setGeometry(saved);
        if (maximized) setWindowState(windowState() | Qt::WindowMaximized);
        return;
    }
    // The first start: most of a large screen (1400×860 was a small window on 1920×1080), the whole of
    // a small one.
    const QSize most = available.isEmpty() ? QSize() : available.size() * 0.85;
    resizeWithinScreen(this, QSize(1400, 860).expandedTo(most));
    if (!available.isEmpty()) move(available.topLeft());
}

// Centre: trace facts, find bar, timeline.
void MainWindow::buildCentre() {
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_header = new WrappedLine(central);
    m_header->setObjectName("traceHeader");
    m_header->setTextFormat(Qt::PlainText); // file contents are never markup
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setContentsMargins(6, 3, 6, 3);
    m_findBar = new FindBar(central);
    m_findBar->hide();
    m_timeline = new TimelineView(central);
    new NavigationKeys(m_timeline);
    layout->addWidget(m_header);
    layout->addWidget(m_findBar);
    layout->addWidget(m_timeline, 1);
    setCentralWidget(central);
}

void MainWindow::buildDocks() {
    // Right: details of the selected event, and the Run panel. Bottom: kernels by name (over the
    // selected range when there is one), the charts, and the ranks of a job.
    m_details = new DetailsPanel(this);
    QDockWidget* detailsDock = addDock(tr("Details"), "detailsDock", m_details, Qt::RightDockWidgetArea);
    // The right column runs the window's full height: Details and Findings need it more than the
    // bottom docks need the width.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    // Below Details: what is wrong in the trace on show, each place one click from the timeline (split
    // off before Details shares its place with the Run panel: a dock split from a tabbed one is a tab).
    m_findings = new FindingsPanel(this);
    splitDockWidget(detailsDock, addDock(tr("Findings"), "findingsDock", m_findings, Qt::RightDockWidgetArea),
                    Qt::Vertical);
    m_kernels = new KernelTablePanel(this);
    QDockWidget* tableDock = addDock(tr("Kernels"), "kernelsDock", m_kernels, Qt::BottomDockWidgetArea);
    m_charts = new ChartsPanel(this);
    QDockWidget* chartsDock = addDock(tr("Charts"), "chartsDock", m_charts, Qt::BottomDockWidgetArea);
    tabifyDockWidget(tableDock, chartsDock);
    connect(chartsDock, &QDockWidget::visibilityChanged, m_charts, [this](bool shown) {
        if (shown) m_charts->tabShown();
    });
    // Beside them: the attention calls per implementation (the post's closing table).
    m_attention = new AttentionPanel(this);
    m_whatIf = new WhatIfController(this);
    QDockWidget* attentionDock =
        addDock(tr("Attention"), "attentionDock", m_attention, Qt::BottomDockWidgetArea);
    tabifyDockWidget(chartsDock, attentionDock);
    connect(attentionDock, &QDockWidget::visibilityChanged, m_attention, [this](bool shown) {
        if (shown) m_attention->tabShown();
    });
    m_ranks = new RanksPanel(this);
    m_ranksDock = addDock(tr("Ranks"), "ranksDock", m_ranks, Qt::BottomDockWidgetArea);
    tabifyDockWidget(attentionDock, m_ranksDock);
    m_ranksDock->hide();
    tableDock->raise();
    // The Run and Program panels in scroll areas: their forms are taller and wider than the dock needs to
    // be, and a dock's minimum is the window's (a window that cannot shrink below a laptop's screen).
    auto scrolled = [this](QWidget* panel) {
        auto* scroll = new QScrollArea(this);
        scroll->setWidget(panel);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        return scroll;
    };
    m_runPanel = new RunPanel(this);
    QDockWidget* runDock = addDock(tr("Run"), "runDock", scrolled(m_runPanel), Qt::RightDockWidgetArea);
    tabifyDockWidget(runDock, detailsDock);
    // Beside the Run panel: the user's own program, profiled.
    m_programPanel = new ProgramPanel(this);
    tabifyDockWidget(
        runDock, addDock(tr("Program"), "programDock", scrolled(m_programPanel), Qt::RightDockWidgetArea));
    // Beside Details: what people noted in the trace, kept beside it.
    m_notes = new NotesPanel(this);
    tabifyDockWidget(detailsDock, addDock(tr("Notes"), "notesDock", m_notes, Qt::RightDockWidgetArea));
    detailsDock->raise();
}

// A progress bar and Cancel for loads and saves, shown while one is under way.
void MainWindow::buildStatusBar() {
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(240);
    m_cancel = new QPushButton(tr("Cancel"), this);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->hide();
    m_cancel->hide();
    m_saves = new JobRunner(this);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_saving)
            m_saves->cancel("save");
        else
            m_documents->cancelLoad();
    });
}

MainWindow::~MainWindow() {
    finishSaving();
}

QDockWidget* MainWindow::addDock(const QString& title, const char* name, QWidget* widget,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
}

std::shared_ptr<const Document> MainWindow::document() const {
    return m_documents->document();
}

std::shared_ptr<const Trace> MainWindow::trace() const {
    const auto doc = document();
    return doc ? doc->trace : nullptr;
}

std::shared_ptr<const TraceAnalysis> MainWindow::analysis() const {
    const auto doc = document();
    return doc ? doc->analysis : nullptr;
}

QTableView* MainWindow::kernelTable() const {
    return m_kernels->table();
}

KernelTableModel* MainWindow::kernelModel() const {
    return m_kernels->model();
}

bool MainWindow::loading() const {
    return m_documents->loading();
}

bool MainWindow::running() const {
    return m_run->running();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/rect", normalGeometry());
    settings.setValue("window/maximized", isMaximized());
    settings.setValue("window/state", saveState());
    settings.setValue("window/kernelTableColumns", m_kernels->columnState());
    finishSaving();
    QMainWindow::closeEvent(event);
}

void MainWindow::openFile(const QString& path) {
    m_run->releaseView(); // a file opened during a run takes the view; the run goes on
    m_profile->releaseView();
    m_documents->openFile(path);
    m_recentMenu->remember(QFileInfo(path).absoluteFilePath());
}

void MainWindow::comeForward() {
    if (isMinimized()) showNormal();
    show();
    raise();
    activateWindow();
}

void MainWindow::openRanks(const QStringList& paths) {
    if (paths.size() == 1) return openFile(paths.front());
    if (paths.isEmpty()) return;
    m_run->releaseView();
    m_profile->releaseView();
    m_documents->openRanks(paths);
}

void MainWindow::openEmbeddedSample() {
    QFile sample(":/samples/attention_sample.json");
    if (!sample.open(QIODevice::ReadOnly)) return;
    m_run->releaseView();
    m_profile->releaseView();
    m_documents->openBytes(sample.readAll(), QStringLiteral("attention_sample.json (embedded)"));
}

QDockWidget* MainWindow::bottomDockShown() const {
    for (const char* name : {"kernelsDock", "chartsDock", "attentionDock", "ranksDock"})
        if (auto* dock = findChild<QDockWidget*>(name);
            dock && !dock->isFloating() && !dock->visibleRegion().isEmpty())
            return dock;
    return nullptr;
}

void MainWindow::raiseAttentionUnlessMoved() {
    auto* attention = findChild<QDockWidget*>("attentionDock");
    if (!attention || bottomDockShown() != m_bottomShown) return; // the user chose a dock while it ran
    attention->raise();
    m_bottomShown = attention;
}

void MainWindow::startRun(kernels::RunConfig config, kernels::BackendChoice backend) {
    m_bottomShown = bottomDockShown();
    const QString problem = m_run->start(std::move(config), backend);
    if (problem.isEmpty()) return;
    if (m_screenshotPath.isEmpty()) return warn(tr("Cannot run"), problem);
    // Asked for a picture of a run that cannot start: say why and end (no dialog waits for a user).
    std::fprintf(stderr, "attnscope: cannot run: %s\n", qPrintable(problem));
    QTimer::singleShot(0, this, [] { QApplication::exit(1); });
}

void MainWindow::stopRun() {
    m_run->stop();
}

void MainWindow::showDocument(bool sameRun) {
    const auto doc = document();
    const QString name = m_documents->name();
    m_header->setText(traceHeaderText(name, *doc->summary));
    if (sameRun) {
        // A later snapshot of the same run: what the user selected, folded and zoomed to stays.
        m_timeline->updateTrace(doc->trace, doc->index);
        m_details->updateTrace(doc->trace, m_timeline->selected());
    } else {
        m_details->setTrace(doc->trace);
        m_timeline->setTrace(doc->trace, doc->index);
        m_ranksDock->setVisible(doc->ranks != nullptr);
        if (doc->ranks) {
            m_ranks->showReport(*doc->ranks);
            m_ranksDock->raise();
            m_bottomShown = m_ranksDock;
        }
        m_notes->setDocument(doc, m_documents->path());
        if (QString problem = m_notes->problem(); !problem.isEmpty()) {
            problem[0] = problem[0].toUpper();
            warn(tr("Notes left out"), problem);
        }
        setWindowTitle(tr("%1 — AttnScope").arg(name));
        statusBar()->showMessage(tr("Loaded %1 in %2 s").arg(name).arg(doc->totalSeconds, 0, 'f', 2));
    }
    m_find->setTrace(doc->trace);
    // Another document: no kernel stays selected (the table keeps the rows of kernels with the same names
    // in place, but the timeline's highlight is of the document it had).
    if (!sameRun) m_kernels->table()->clearSelection();
    if (doc->analysis) return showAnalysis(); // a profiled program's snapshots come with theirs
    m_kernels->show(doc.get(), m_timeline->range());
    m_details->setAnalysis(nullptr);
    m_attention->showAnalysis(nullptr, nullptr);
    m_findings->showPending(true);
    m_charts->setInputs({});
    if (!m_run->running()) m_documents->analyse(); // a run's are analysed when it ends
}

void MainWindow::showAnalysis() {
    const auto doc = document();
    m_kernels->show(doc.get(), m_timeline->range()); // by name and role now
    m_details->setAnalysis(doc->analysis);
    m_findings->showFindings(doc->findings, doc->trace->startNs(), QString::fromStdString(doc->findingsNote));
    m_attention->showAnalysis(doc->trace, doc->analysis);
    m_timeline->setAnalysis(doc->analysis);
    m_notes->updateDocument(doc); // notes on calls and findings placed
    m_charts->setInputs({{doc->trace.get(), doc->analysis.get(), m_documents->name()}});
    // What the panels' new texts ask of the layout (a note a line shorter, a column wider) is done now,
    // before the window's paint: not after it, with the panels it moved painted a second time.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    Q_EMIT analysisReady();
}

void MainWindow::showLoadFailed(const QString& name, const QString& message) {
    statusBar()->showMessage(tr("Could not open %1: %2").arg(name, message));
    if (m_screenshotPath.isEmpty()) {
        warn(tr("Could not open trace"), tr("%1 could not be opened.").arg(name), message);
    } else {
        // No one is at the window to read a message box: the reason goes to stderr, and the
        // screenshot's exit status says the file was not opened.
        std::fprintf(stderr, "attnscope: %s: %s\n", qPrintable(name), qPrintable(message));
        m_screenshotFailed = true;
    }
}

void MainWindow::loadEnded() {
    m_progress->hide();
    m_cancel->hide();
    Q_EMIT loadFinished();
    screenshotIfAsked();
}

void MainWindow::screenshotIfAsked() {
    if (m_screenshotPath.isEmpty()) return;
    // The charts and the details' roofline follow the analysis: the picture waits for it.
    if (document() && !analysis() && m_documents->analysing()) {
        connect(this, &MainWindow::analysisReady, this, &MainWindow::screenshotIfAsked,
                Qt::SingleShotConnection);
        return;
    }
    const QString path = m_screenshotPath;
    m_screenshotPath.clear();
    QTimer::singleShot(100, this, [this, path] {
        m_timeline->finishFrame(); // a live snapshot's frame drawn now, not the one before it
        const bool ok = grab().save(path);
        if (!ok) qWarning("could not save screenshot to %s", qPrintable(path));
        QApplication::exit(ok && !m_screenshotFailed ? 0 : 1);
    });
}

void MainWindow::highlightTableSelection() {
    if (!trace()) return;
    const std::vector<StringId> names = m_kernels->selectedNames();
    if (names.empty()) return m_timeline->setHighlight(m_find->highlight());
    std::vector<std::uint8_t> mask(trace()->strings().size(), 0);
    for (StringId name : names)
        mask[name.value] = 1;
    m_timeline->setHighlight(std::move(mask));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (m_layoutRestored) return;
    m_layoutRestored = true;
    // A first start: the kernel table, charts and ranks share the bottom, tall enough for a chart.
    if (auto* bottom = findChild<QDockWidget*>("kernelsDock"))
        resizeDocks({bottom}, {std::max(300, height() * 2 / 5)}, Qt::Vertical);
    // On the right the findings get the larger part: their list, explanation and places.
    auto* findings = findChild<QDockWidget*>("findingsDock");
    auto* details = findChild<QDockWidget*>("detailsDock");
    if (findings && details) resizeDocks({findings, details}, {height() / 2, height() / 4}, Qt::Vertical);
    // And the right column a third of the window (460 px of 1400): the findings' titles and their time at
    // stake readable. Its panels scroll, so nothing in them holds it wider, or narrower.
    if (findings) resizeDocks({findings}, {std::clamp(width() / 3, 320, 560)}, Qt::Horizontal);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    // One file opens as itself; several as the ranks of one job.
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    openRanks(paths);
}

} // namespace attnscope::ui
