// SPDX-License-Identifier: MIT
#include "main_window.h"

#include "charts.h"
#include "compare_window.h"
#include "details_panel.h"
#include "find_bar.h"
#include "job_runner.h"
#include "kernel_table_model.h"
#include "navigation_keys.h"
#include "qt_text.h"
#include "run_panel.h"
#include "timeline_export.h"
#include "timeline_view.h"

#include "kernels/cpu/cpu_peak.h"
#include "kernels/cuda_backend.h"
#include "kernels/run_session.h"

#include "core/io/atomic_file.h"
#include "core/io/chrome_writer.h"
#include "core/report/summary.h"
#include "core/io/trace_loader.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QChart>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>

namespace attnscope::ui {

namespace {
constexpr int kMaxRecent = 10;
} // namespace

MainWindow::MainWindow() {
    m_jobs = new JobRunner(this);
    setWindowTitle(tr("AttnScope"));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    // Centre: trace facts, find bar, timeline.
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_header = new QLabel(central);
    m_header->setTextFormat(Qt::PlainText); // file contents are never markup
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    m_header->setContentsMargins(6, 3, 6, 3);
    m_findBar = new FindBar(central);
    m_findBar->hide();
    m_timeline = new TimelineView(central);
    new NavigationKeys(m_timeline);
    layout->addWidget(m_header);
    layout->addWidget(m_findBar);
    layout->addWidget(m_timeline, 1);
    setCentralWidget(central);

    // Right: details of the selected event.
    m_details = new DetailsPanel(this);
    auto* detailsDock = new QDockWidget(tr("Details"), this);
    detailsDock->setObjectName("detailsDock");
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);

    // Bottom: kernels by name, over the selected range when there is one.
    auto* tablePanel = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tablePanel);
    tableLayout->setContentsMargins(4, 4, 4, 4);
    m_tableTitle = new QLabel(tablePanel);
    m_tableTitle->setTextFormat(Qt::PlainText);
    m_filter = new QLineEdit(tablePanel);
    m_filter->setPlaceholderText(tr("Filter kernels by name"));
    m_filter->setClearButtonEnabled(true);
    m_roleFilter = new QComboBox(tablePanel);
    m_roleFilter->setObjectName("roleFilter");
    m_roleFilter->addItem(tr("All roles"));
    for (int r = 0; r < int(KernelRole::Count); ++r) {
        m_roleFilter->addItem(qs(roleLabel(KernelRole(r))), r);
    }
    m_roleFilter->setToolTip(tr("Show the kernels of one role (known once the analysis is done)"));
    m_model = new KernelTableModel(this);
    m_proxy = new KernelFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(KernelTableModel::SortRole);
    m_table = new QTableView(tablePanel);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(KernelTableModel::Name, QHeaderView::Stretch);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_tableTitle, 1);
    filterRow->addWidget(m_roleFilter);
    filterRow->addWidget(m_filter, 1);
    tableLayout->addLayout(filterRow);
    tableLayout->addWidget(m_table, 1);
    auto* tableDock = new QDockWidget(tr("Kernels"), this);
    tableDock->setObjectName("kernelsDock");
    tableDock->setWidget(tablePanel);
    addDockWidget(Qt::BottomDockWidgetArea, tableDock);
    m_charts = new ChartsPanel(this);
    auto* chartsDock = new QDockWidget(tr("Charts"), this);
    chartsDock->setObjectName("chartsDock");
    chartsDock->setWidget(m_charts);
    addDockWidget(Qt::BottomDockWidgetArea, chartsDock);
    tabifyDockWidget(tableDock, chartsDock);
    m_ranksTable = new QTableWidget(this);
    m_ranksTable->setObjectName("ranksTable");
    m_ranksTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ranksTable->horizontalHeader()->setStretchLastSection(true);
    m_ranksTable->verticalHeader()->hide();
    m_ranksTable->setToolTip(tr("Double-click a rank to show its tracks"));
    connect(m_ranksTable, &QTableWidget::cellDoubleClicked, this, [this](int row) {
        const QTableWidgetItem* item = m_ranksTable->item(row, 0);
        if (!item || !m_loaded) return;
        revealRank(item->text().toLongLong());
    });
    m_ranksDock = new QDockWidget(tr("Ranks"), this);
    m_ranksDock->setObjectName("ranksDock");
    auto* ranksPanel = new QWidget(this);
    auto* ranksLayout = new QVBoxLayout(ranksPanel);
    ranksLayout->setContentsMargins(4, 4, 4, 4);
    m_ranksNote = new QLabel(ranksPanel);
    m_ranksNote->setObjectName("ranksNote");
    ranksLayout->addWidget(m_ranksNote);
    ranksLayout->addWidget(m_ranksTable, 1);
    m_ranksDock->setWidget(ranksPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_ranksDock);
    tabifyDockWidget(chartsDock, m_ranksDock);
    m_ranksDock->hide();
    tableDock->raise();
    m_runPanel = new RunPanel(this);
    auto* runDock = new QDockWidget(tr("Run"), this);
    runDock->setObjectName("runDock");
    runDock->setWidget(m_runPanel);
    addDockWidget(Qt::RightDockWidgetArea, runDock);
    tabifyDockWidget(runDock, detailsDock);
    connect(m_runPanel, &RunPanel::runRequested, this,
            [this] { startRun(m_runPanel->config(), m_runPanel->backend()); });
    connect(m_runPanel, &RunPanel::stopRequested, this, &MainWindow::stopRun);
    m_runTimer = new QTimer(this);
    m_runTimer->setInterval(33); // records reach the view in batches, ~30 times a second
    connect(m_runTimer, &QTimer::timeout, this, &MainWindow::runTick);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &KernelFilterProxy::setNameFilter);
    connect(m_roleFilter, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant role = m_roleFilter->currentData();
        m_proxy->setRoleFilter(role.isValid() ? std::optional(KernelRole(role.toInt())) : std::nullopt);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::highlightTableSelection);
    connect(m_table, &QTableView::activated, this, &MainWindow::showLongestInstance);

    connect(m_timeline, &TimelineView::selectionChanged, this,
            [this] { m_details->showEvent(m_timeline->selected()); });
    connect(m_timeline, &TimelineView::rangeChanged, this, &MainWindow::updateKernelTable);
    connect(m_details, &DetailsPanel::linkActivated, this,
            [this](EventRef e) { m_timeline->selectEvent(e, true); });
    connect(m_findBar, &FindBar::searchChanged, this, &MainWindow::runFind);
    connect(m_findBar, &FindBar::next, this, [this] { stepFind(+1); });
    connect(m_findBar, &FindBar::previous, this, [this] { stepFind(-1); });
    connect(m_findBar, &FindBar::closed, this, [this] {
        runFind({});
        m_timeline->setFocus();
    });

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(240);
    m_cancel = new QPushButton(tr("Cancel"), this);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->hide();
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, this, [this] { m_jobs->cancel("load"); });

    buildMenus();
    rebuildRecentMenu();

    QSettings settings;
    if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1400, 860);
    m_layoutRestored = restoreState(settings.value("window/state").toByteArray());
    m_table->horizontalHeader()->restoreState(settings.value("window/kernelTableColumns").toByteArray());
    m_header->setText(tr("No trace open. File → Open, or drop a trace file here."));
    statusBar()->showMessage(tr("W/S zoom · A/D pan · drag to pan · click selects · Shift+drag selects a "
                                "range · F fit · 0 fit all · Ctrl+F find"));
    m_timeline->setFocus();
}

MainWindow::~MainWindow() = default; // the job runner waits for the jobs under way

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        QSettings settings;
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open trace"), settings.value("lastOpenDir").toString(),
                                         tr("Traces (*.json *.json.gz *.gz *.sqlite);;All files (*)"));
        if (path.isEmpty()) return;
        settings.setValue("lastOpenDir", QFileInfo(path).absolutePath());
        openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("&Compare With…"), this, [this] {
        if (!m_loaded)
            return warn(tr("Nothing to compare"), tr("Open a trace first: it is A, the file you pick is B."));
        QSettings settings;
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Compare with (B)"), settings.value("lastOpenDir").toString(),
            tr("Traces (*.json *.json.gz *.gz *.sqlite);;All files (*)"));
        if (path.isEmpty()) return;
        compareWith(path);
    });
    file->addAction(tr("Open Several as &Ranks…"), this, [this] {
        QSettings settings;
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, tr("Open the ranks of one job"), settings.value("lastOpenDir").toString(),
            tr("Traces (*.json *.json.gz *.gz *.sqlite);;All files (*)"));
        if (paths.isEmpty()) return;
        settings.setValue("lastOpenDir", QFileInfo(paths.front()).absolutePath());
        openRanks(paths);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Sample"), this, &MainWindow::openEmbeddedSample);
    QAction* save = file->addAction(tr("&Save Trace As…"), this, [this] {
        if (!m_loaded) return;
        saveWithDialog(tr("Save trace"), "run.json.gz", tr("Chrome trace JSON (*.json *.json.gz)"),
                       [this](const QString& path) { return saveTrace(path); });
    });
    save->setShortcut(QKeySequence::Save);
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("&Export Timeline"));
    exportMenu->addAction(tr("PNG…"), this, [this] { exportTimelineDialog("png", 1); });
    exportMenu->addAction(tr("PNG at 2× …"), this, [this] { exportTimelineDialog("png", 2); });
    exportMenu->addAction(tr("SVG…"), this, [this] { exportTimelineDialog("svg", 1); });
    exportMenu->addAction(tr("PDF…"), this, [this] { exportTimelineDialog("pdf", 1); });
    QMenu* chartMenu = file->addMenu(tr("Export &Chart"));
    for (const auto& [label, format, scale] : {std::tuple{tr("PNG…"), QStringLiteral("png"), 1.0},
                                               std::tuple{tr("PNG at 2× …"), QStringLiteral("png"), 2.0},
                                               std::tuple{tr("SVG…"), QStringLiteral("svg"), 1.0},
                                               std::tuple{tr("PDF…"), QStringLiteral("pdf"), 1.0}})
        chartMenu->addAction(label, this, [this, format = format, scale = scale] {
            if (!m_loaded) return;
            saveWithDialog(tr("Export chart"), chartKindName(m_charts->currentKind()) + "." + format,
                           tr("%1 files (*.%2)").arg(format.toUpper(), format),
                           [this, scale](const QString& path) { return exportChart(path, scale); });
        });
    file->addAction(tr("Export &Kernel Table as CSV…"), this, &MainWindow::exportKernelTableDialog);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    // The single-letter keys belong to the timeline (typing in the find box must not zoom); the menu
    // shows them and works from anywhere.
    QMenu* view = menuBar()->addMenu(tr("&View"));
    auto add = [&](QMenu* menu, const QString& text, const QString& keyHint, auto fn) {
        QAction* a = menu->addAction(keyHint.isEmpty() ? text : text + '\t' + keyHint, this, fn);
        return a;
    };
    add(view, tr("Zoom In"), "W", [this] { m_timeline->zoomBy(0.8); });
    add(view, tr("Zoom Out"), "S", [this] { m_timeline->zoomBy(1.25); });
    add(view, tr("Pan Left"), "A", [this] { m_timeline->panBy(-m_timeline->viewport().width() * 0.15); });
    add(view, tr("Pan Right"), "D", [this] { m_timeline->panBy(m_timeline->viewport().width() * 0.15); });
    add(view, tr("Fit Selection"), "F", [this] { m_timeline->fitSelection(); });
    add(view, tr("Fit All"), "0", [this] { m_timeline->fitAll(); });
    view->addSeparator();
    QAction* back = view->addAction(tr("Back"), this, [this] { m_timeline->back(); });
    back->setShortcut(QKeySequence::Back);
    QAction* forward = view->addAction(tr("Forward"), this, [this] { m_timeline->forward(); });
    forward->setShortcut(QKeySequence::Forward);
    QAction* find = view->addAction(tr("&Find…"), this, [this] { m_findBar->activate(); });
    find->setShortcut(QKeySequence::Find);
    add(view, tr("Clear Range"), "Esc", [this] { m_timeline->setRange(std::nullopt); });
    view->addSeparator();
    QAction* legend = view->addAction(tr("Legend"));
    legend->setCheckable(true);
    legend->setChecked(QSettings().value("view/legend", true).toBool());
    m_timeline->setLegendVisible(legend->isChecked());
    connect(legend, &QAction::toggled, this, [this](bool on) {
        m_timeline->setLegendVisible(on);
        QSettings().setValue("view/legend", on);
    });
    QAction* fold = view->addAction(tr("Fold Attention Calls"));
    fold->setCheckable(true);
    fold->setToolTip(tr("Each attention call as one block labelled with its implementation and time"));
    connect(fold, &QAction::toggled, this, [this](bool on) { m_timeline->setFoldCalls(on); });
    QMenu* colours = view->addMenu(tr("Colour Kernels By"));
    auto* colourGroup = new QActionGroup(this);
    const int savedMode = QSettings().value("view/colorMode", 0).toInt();
    for (const auto& [label, mode] :
         {std::pair{tr("Role"), ColorMode::Role}, std::pair{tr("Roofline Verdict"), ColorMode::Verdict},
          std::pair{tr("Name"), ColorMode::Name}}) {
        QAction* a = colours->addAction(label, this, [this, mode = mode] {
            m_timeline->setColorMode(mode);
            QSettings().setValue("view/colorMode", int(mode));
        });
        a->setCheckable(true);
        a->setChecked(int(mode) == savedMode);
        colourGroup->addAction(a);
    }
    m_timeline->setColorMode(ColorMode(std::clamp(savedMode, 0, 2)));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QToolBar* bar = addToolBar(tr("Navigation"));
    bar->setObjectName("navigationToolBar");
    bar->addAction(back);
    bar->addAction(forward);
    bar->addAction(tr("Fit All"), this, [this] { m_timeline->fitAll(); });
    bar->addAction(find);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About AttnScope"), this, [this] {
        QMessageBox::about(this, tr("About AttnScope"),
                           tr("AttnScope %1\nA profiler for transformer attention.").arg(ATTNSCOPE_VERSION));
    });
}

bool MainWindow::loading() const {
    return m_jobs->running("load");
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("window/kernelTableColumns", m_table->horizontalHeader()->saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::openFile(const QString& path) {
    startLoad(path, {}, QFileInfo(path).fileName());
    rememberRecent(QFileInfo(path).absoluteFilePath());
}

void MainWindow::openRanks(const QStringList& paths) {
    if (paths.size() == 1) return openFile(paths.front());
    if (paths.isEmpty()) return;
    m_runOwnsView = false;
    m_jobs->cancel("load"); // the ranks replace a load under way
    struct Ranks {
        std::shared_ptr<const LoadedTrace> loaded;
        RankReport report;
    };
    std::vector<std::string> files;
    for (const QString& p : paths)
        files.push_back(p.toStdString());
    m_progress->setRange(0, 0); // busy: no progress to report
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(tr("Loading %1 ranks…").arg(paths.size()));
    const QString name =
        tr("%1 ranks: %2").arg(paths.size()).arg(QFileInfo(paths.front()).fileName() + ", …");
    JobRunner::Callbacks<Ranks> callbacks;
    callbacks.done = [this, name](Ranks ranks) {
        showTrace(ranks.loaded, name);
        showRankReport(&ranks.report);
        loadEnded();
    };
    callbacks.failed = [this](const QString& error) {
        loadEnded();
        statusBar()->showMessage(tr("Could not open the ranks"));
        if (m_screenshotPath.isEmpty()) warn(tr("Could not open the ranks"), error);
    };
    callbacks.cancelled = [this] {
        loadEnded();
        statusBar()->showMessage(tr("Load cancelled"), 5000);
    };
    m_jobs->start<Ranks>(
        "load",
        [files](JobControl& control) {
            const auto t0 = std::chrono::steady_clock::now();
            LoadOptions options;
            options.cancel = control.cancelFlag();
            std::vector<RankInput> inputs;
            for (const std::string& f : files)
                inputs.push_back({f, loadTraceFile(f, options)});
            auto loaded = std::make_shared<LoadedTrace>();
            loaded->trace = mergeRanks(inputs);
            loaded->loadSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            loaded->index = std::make_shared<const TimelineIndex>(*loaded->trace);
            loaded->summary = summarize(*loaded->trace, 0);
            loaded->totalSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return Ranks{std::move(loaded), rankReport(inputs)};
        },
        std::move(callbacks));
}

void MainWindow::showRankReport(const RankReport* report) {
    m_ranksDock->setVisible(report != nullptr);
    if (!report) return;
    const QStringList headers = {tr("Rank"),     tr("Kernels"), tr("Kernel time"),
                                 tr("GPU busy"), tr("vs mean"), tr("File")};
    m_ranksTable->clear();
    m_ranksTable->setColumnCount(int(headers.size()));
    m_ranksTable->setHorizontalHeaderLabels(headers);
    m_ranksTable->setRowCount(int(report->ranks.size()));
    for (int row = 0; row < int(report->ranks.size()); ++row) {
        const RankStats& s = report->ranks[std::size_t(row)];
        const double vs =
            report->meanBusyNs ? 100.0 * (double(s.gpuBusyNs) / double(report->meanBusyNs) - 1) : 0;
        const QStringList cells = {QString::number(s.rank),
                                   QString::number(s.kernels),
                                   qs(formatDuration(s.kernelNs)),
                                   qs(formatDuration(s.gpuBusyNs)),
                                   QStringLiteral("%1%2%").arg(vs >= 0 ? "+" : "").arg(vs, 0, 'f', 1),
                                   QString::fromStdString(s.path)};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (s.rank == report->slowestRank) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setToolTip(tr("The slowest rank: the most GPU busy time"));
            }
            m_ranksTable->setItem(row, c, item);
        }
    }
    m_ranksNote->setText(tr("GPU busy spread %1% (max − min over mean) · the slowest rank is %2")
                             .arg(100 * report->spread(), 0, 'f', 1)
                             .arg(report->slowestRank));
    m_ranksDock->raise();
}

CompareWindow* MainWindow::compareWith(const QString& path) {
    if (!m_loaded) return nullptr;
    auto* window = new CompareWindow(m_loaded, windowTitle().section(QStringLiteral(" — "), 0, 0), this);
    window->setWindowFlag(Qt::Window);
    window->show();
    window->openB(path);
    return window;
}

void MainWindow::openEmbeddedSample() {
    QFile sample(":/samples/attention_sample.json");
    if (!sample.open(QIODevice::ReadOnly)) return;
    startLoad({}, sample.readAll(), QStringLiteral("attention_sample.json (embedded)"));
}

void MainWindow::startLoad(const QString& path, const QByteArray& bytes, const QString& name) {
    // A file opened during a run takes the view; the run goes on (Stop ends it) without showing.
    m_runOwnsView = false;
    // One load at a time: a new one replaces the old, which is cancelled; the open trace stays.
    m_jobs->cancel("load");
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(tr("Loading %1…").arg(name));
    const std::string file = path.toStdString(), display = name.toStdString();
    JobRunner::Callbacks<std::shared_ptr<const LoadedTrace>> callbacks;
    callbacks.done = [this, name](std::shared_ptr<const LoadedTrace> loaded) {
        showTrace(std::move(loaded), name);
        showRankReport(nullptr);
        loadEnded();
    };
    callbacks.failed = [this, name](const QString& message) {
        loadEnded();
        statusBar()->showMessage(tr("Could not open %1").arg(name));
        if (m_screenshotPath.isEmpty())
            warn(tr("Could not open trace"), tr("%1 could not be opened.").arg(name), message);
    };
    callbacks.cancelled = [this] {
        loadEnded();
        statusBar()->showMessage(tr("Load cancelled"), 5000);
    };
    callbacks.progress = [this](double f) { m_progress->setValue(int(f * 1000)); };
    m_jobs->start<std::shared_ptr<const LoadedTrace>>(
        "load",
        [file, bytes, display](JobControl& control) { return loadForViews(file, bytes, display, control); },
        std::move(callbacks));
}

void MainWindow::loadEnded() {
    m_progress->setRange(0, 1000);
    m_progress->hide();
    m_cancel->hide();
    Q_EMIT loadFinished();
    screenshotIfAsked();
}

void MainWindow::screenshotIfAsked() {
    if (m_screenshotPath.isEmpty()) return;
    // The charts and the details' roofline follow the analysis: the picture waits for it.
    if (m_loaded && !m_analysis && m_jobs->running("analysis")) {
        connect(this, &MainWindow::analysisReady, this, &MainWindow::screenshotIfAsked,
                Qt::SingleShotConnection);
        return;
    }
    const QString path = m_screenshotPath;
    m_screenshotPath.clear();
    QTimer::singleShot(100, this, [this, path] {
        const bool ok = grab().save(path);
        if (!ok) qWarning("could not save screenshot to %s", qPrintable(path));
        QApplication::exit(ok ? 0 : 1);
    });
}

void MainWindow::showHeader(const QString& name) {
    const TraceSummary& s = m_loaded->summary;
    QString devices;
    for (const DeviceSummary& d : s.devices) {
        // Kineto's GPUs are keyed by their index ("0"); other keys name themselves ("GPU 0", "r1:0").
        const QString id = qs(d.id);
        const bool index =
            !id.isEmpty() && std::all_of(id.begin(), id.end(), [](QChar c) { return c.isDigit(); });
        // GPUs as the timeline names them ("GPU 0 · NVIDIA H100 …"); other devices by name (key).
        QString gpu = index ? tr("GPU %1").arg(id) : id;
        if (!index && !id.startsWith(QStringLiteral("GPU ")))
            gpu = d.name.empty() ? id : tr("%1 (%2)").arg(qs(d.name), id);
        else if (!d.name.empty() && qs(d.name) != gpu)
            gpu += QStringLiteral(" · ") + qs(d.name);
        devices +=
            tr(" · %1: %2, busy %3")
                .arg(gpu, qs(formatCount(d.kernels, "kernel", "kernels")), qs(formatDuration(d.busyNs)));
    }
    QString warnings;
    for (const std::string& w : s.warnings)
        warnings += tr("\nwarning: %1").arg(qs(w));
    m_header->setText(tr("%1 (%2) · %3 · span %4 · %5, %6 of kernel time%7%8")
                          .arg(name, qs(s.format), qs(formatCount(s.events, "event", "events")),
                               qs(formatDuration(s.spanNs)),
                               qs(formatCount(s.kernelCount, "kernel", "kernels")),
                               qs(formatDuration(s.kernelNs)), devices, warnings));
}

void MainWindow::showTrace(std::shared_ptr<const LoadedTrace> loaded, const QString& name) {
    m_loaded = std::move(loaded);
    showHeader(name);
    m_matches.clear();
    m_findBar->setCount(0, 0);
    m_details->setTrace(m_loaded->trace);
    m_timeline->setTrace(m_loaded->trace, m_loaded->index);
    if (!m_findBar->text().isEmpty()) runFind(m_findBar->text());
    startAnalysis();
    setWindowTitle(tr("%1 — AttnScope").arg(name));
    statusBar()->showMessage(tr("Loaded %1 in %2 s").arg(name).arg(m_loaded->totalSeconds, 0, 'f', 2));
}

void MainWindow::updateKernelTable() {
    if (!m_loaded) {
        m_model->setRows({}, 0);
        return;
    }
    const auto range = m_timeline->range();
    if (!range) {
        m_model->setRows(m_loaded->summary.topKernels, m_loaded->summary.kernelNs);
        m_tableTitle->setText(tr("All kernels: %1, %2")
                                  .arg(qs(formatCount(m_loaded->summary.topKernels.size(), "name", "names")),
                                       qs(formatDuration(m_loaded->summary.kernelNs))));
        return;
    }
    std::vector<KernelStats> rows =
        kernelStatsInRange(*m_loaded->trace, *m_loaded->index, range->from, range->to);
    TimeNs total = 0;
    std::uint64_t count = 0;
    for (const KernelStats& k : rows) {
        total += k.totalNs;
        count += k.count;
    }
    const TimeNs base = m_loaded->trace->startNs();
    m_tableTitle->setText(tr("Range +%1 … +%2 (%3): %4, %5 in range")
                              .arg(qs(formatDuration(range->from - base)),
                                   qs(formatDuration(range->to - base)), qs(formatDuration(range->length())),
                                   qs(formatCount(count, "kernel", "kernels")), qs(formatDuration(total))));
    m_model->setRows(std::move(rows), total, true);
}

void MainWindow::highlightTableSelection() {
    if (!m_loaded) return;
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        m_timeline->setHighlight(m_findBar->text().isEmpty()
                                     ? std::vector<std::uint8_t>{}
                                     : namesContaining(*m_loaded->trace, m_findBar->text().toStdString()));
        return;
    }
    std::vector<std::uint8_t> mask(m_loaded->trace->strings().size(), 0);
    for (const QModelIndex& index : rows)
        mask[m_model->nameIdAt(m_proxy->mapToSource(index).row()).value] = 1;
    m_timeline->setHighlight(std::move(mask));
}

void MainWindow::showLongestInstance(const QModelIndex& index) {
    if (!m_loaded || !index.isValid()) return;
    const StringId name = m_model->nameIdAt(m_proxy->mapToSource(index).row());
    const auto range = m_timeline->range();
    const Trace& trace = *m_loaded->trace;
    std::optional<EventRef> longest;
    TimeNs longestNs = -1;
    for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
        const Track& track = trace.tracks()[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (track.events.name[i] != name) continue;
            if (range && (track.events.start[i] >= range->to || track.end(i) <= range->from)) continue;
            if (track.events.duration[i] > longestNs) {
                longestNs = track.events.duration[i];
                longest = EventRef{TrackId(t), i};
            }
        }
    }
    if (longest) m_timeline->selectEvent(*longest, true);
}

bool MainWindow::running() const {
    return m_runActive;
}

void MainWindow::startRun(kernels::RunConfig config, const QString& backend) {
    if (running()) return;
    std::string notice;
    const std::string problem = kernels::chooseBackend(config, backend.toStdString(), notice);
    if (!problem.empty()) {
        warn(tr("Cannot run"),
             QString::fromStdString(problem) + (backend == "cuda" && config.backend != "cuda"
                                                    ? tr(". Choose the CPU backend.")
                                                    : QString()));
        return;
    }
    const QString note = notice.empty() ? QString() : QString::fromStdString(notice) + ". ";
    m_run = std::make_unique<kernels::RunSession>(config);
    m_runEvents.clear();
    m_runShown = false;
    m_runOwnsView = true;
    m_runActive = true;
    m_runSnapshotDue = false;
    m_runStartMs = m_nextSnapshotMs = QDateTime::currentMSecsSinceEpoch();
    m_run->start();
    m_runTimer->start();
    m_runPanel->setRunning(true);
    m_runPanel->setState(note + (config.backend == "cuda"
                                     ? tr("Running on the GPU…")
                                     : tr("Running on %1 CPU workers…").arg(m_run->workers())));
}

void MainWindow::stopRun() {
    if (running()) {
        m_run->stop(); // ends after the call under way; the timer sees the end
        m_runPanel->setState(tr("Stopping after the call under way…"));
    }
}

void MainWindow::runTick() {
    if (!m_run) return;
    const bool ended = m_run->finished(); // read before draining: nothing is queued after the end
    std::vector<kernels::RunEvent> batch = m_run->takeEvents();
    if (!batch.empty()) {
        m_runEvents.insert(m_runEvents.end(), std::make_move_iterator(batch.begin()),
                           std::make_move_iterator(batch.end()));
        m_runSnapshotDue = true;
    }
    // A snapshot rebuilds the whole run's trace on this thread: for long runs it is spaced out so
    // it never takes more than a quarter of the window's time (short runs: every tick).
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (m_runSnapshotDue && m_runOwnsView && (ended || now >= m_nextSnapshotMs)) {
        m_runSnapshotDue = false;
        showRunSnapshot();
        const qint64 cost = QDateTime::currentMSecsSinceEpoch() - now;
        m_nextSnapshotMs = now + 4 * cost;
    }
    const double seconds = std::max(0.001, (now - m_runStartMs) / 1000.0);
    const QString counts = tr("%1 records, %2 records/s, %3 dropped")
                               .arg(m_runEvents.size())
                               .arg(double(m_runEvents.size()) / seconds, 0, 'f', 0)
                               .arg(m_run->dropped());
    for (const std::string& line : m_run->takeNotices())
        m_runPanel->setState(QString::fromStdString(line));
    if (!ended) {
        statusBar()->showMessage(tr("Running: %1").arg(counts));
        return;
    }
    m_runTimer->stop();
    m_runActive = false;
    m_runPanel->setRunning(false);
    const QString error = QString::fromStdString(m_run->error());
    const QString how = !error.isEmpty()   ? tr("Run failed: %1").arg(error)
                        : m_run->stopped() ? tr("Run stopped: %1").arg(counts)
                                           : tr("Run finished: %1").arg(counts);
    m_runPanel->setState(how);
    statusBar()->showMessage(how);
    if (!error.isEmpty() && m_screenshotPath.isEmpty()) {
        warn(tr("Run failed"), error);
    }
    Q_EMIT runFinished();
    screenshotIfAsked();
}

void MainWindow::showRunSnapshot() {
    auto loaded = std::make_shared<LoadedTrace>();
    loaded->trace = kernels::buildRunTrace(m_runEvents, m_run->config().backend, m_run->deviceName());
    loaded->index = std::make_shared<const TimelineIndex>(*loaded->trace);
    loaded->summary = summarize(*loaded->trace, 0);
    if (!m_runShown) {
        m_runShown = true;
        showTrace(std::move(loaded), m_run->config().backend == "cuda" ? tr("CUDA run") : tr("CPU run"));
        return;
    }
    // Later snapshots of the same run: what the user selected, folded and zoomed to stays.
    m_loaded = std::move(loaded);
    showHeader(m_run->config().backend == "cuda" ? tr("CUDA run") : tr("CPU run"));
    m_timeline->updateTrace(m_loaded->trace, m_loaded->index);
    m_details->updateTrace(m_loaded->trace, m_timeline->selected());
    updateKernelTable();
    // The charts and the roofline follow the finished run (not every snapshot).
    if (m_run && m_run->finished()) startAnalysis();
}

void MainWindow::startAnalysis() {
    m_jobs->invalidate("analysis");
    m_analysis.reset();
    m_model->setRoles({});
    m_details->setAnalysis(nullptr);
    m_charts->setInputs({});
    // A run is analyzed when it ends: measuring the CPU's roofs would disturb it.
    if (!m_loaded || (m_runActive && m_run && !m_run->finished())) return;
    struct Analysed {
        std::shared_ptr<const TraceAnalysis> analysis;
        std::vector<std::optional<KernelRole>> roles;
    };
    auto trace = m_loaded->trace;
    m_jobs->start<Analysed>(
        "analysis",
        [trace] {
            auto analysis = std::make_shared<const TraceAnalysis>(kernels::analyzeWithMachineRoofs(*trace));
            return Analysed{analysis, classesByName(*trace, *analysis).role};
        },
        [this, trace](Analysed result) {
            // A newer trace (or snapshot) replaced this one meanwhile: its own analysis follows.
            if (!m_loaded || m_loaded->trace != trace) return;
            m_analysis = std::move(result.analysis);
            m_model->setRoles(std::move(result.roles));
            m_details->setAnalysis(m_analysis);
            m_timeline->setAnalysis(m_analysis);
            m_charts->setInputs(
                {{trace.get(), m_analysis.get(), windowTitle().section(QStringLiteral(" — "), 0, 0)}});
            Q_EMIT analysisReady();
        });
}

QString MainWindow::exportChart(const QString& path, double scale) {
    if (!m_loaded) return tr("no trace is open");
    if (!m_analysis) return tr("the analysis of this trace is not done yet");
    // A chart of its own, outside the dock's view (which lays its chart out to its own size).
    const std::unique_ptr<QChart> chart(makeChart(m_charts->currentKind(), m_charts->inputs()));
    return ui::exportChart(chart.get(), QSize(1200, 800), scale, path);
}

QString MainWindow::saveTrace(const QString& path) {
    if (!m_loaded) return tr("no trace is open");
    try {
        writeChromeTrace(*m_loaded->trace, path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void MainWindow::runFind(const QString& text) {
    if (!m_loaded || text.isEmpty()) {
        m_matches.clear();
        m_timeline->setMatches({});
        m_timeline->setHighlight({});
        m_findBar->setCount(0, 0);
        return;
    }
    const std::string needle = text.toStdString();
    m_matches = findEvents(*m_loaded->trace, needle);
    m_timeline->setMatches(m_matches);
    m_timeline->setHighlight(namesContaining(*m_loaded->trace, needle));
    m_findBar->setCount(0, int(m_matches.size()));
}

void MainWindow::stepFind(int direction) {
    if (m_matches.empty()) return;
    // From the selected match, or from the window's start when none is selected.
    const auto current = m_timeline->selected();
    auto it = current ? std::find(m_matches.begin(), m_matches.end(), *current) : m_matches.end();
    std::size_t next;
    if (it != m_matches.end()) {
        const std::size_t i = std::size_t(it - m_matches.begin()), n = m_matches.size();
        next = direction > 0 ? (i + 1) % n : (i + n - 1) % n;
    } else {
        const Trace& trace = *m_loaded->trace;
        const TimeNs from = m_timeline->viewport().start();
        auto first = std::partition_point(m_matches.begin(), m_matches.end(), [&](const EventRef& e) {
            return trace.track(e.track).events.start[e.index] < from;
        });
        next = first == m_matches.end() ? 0 : std::size_t(first - m_matches.begin());
        if (direction < 0) next = (next + m_matches.size() - 1) % m_matches.size();
    }
    m_timeline->selectEvent(m_matches[next], true);
    m_findBar->setCount(int(next) + 1, int(m_matches.size()));
}

QString MainWindow::exportTimeline(const QString& path, double scale) {
    if (!m_loaded) return tr("no trace is open");
    TimelineScene scene = m_timeline->scene();
    return ui::exportTimeline(*m_timeline->renderer(), scene, m_timeline->style(),
                              QSize(m_timeline->width(), m_timeline->height()), scale, path);
}

QString MainWindow::exportKernelTable(const QString& path) {
    std::vector<KernelStats> rows;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        rows.push_back(m_model->rows()[std::size_t(m_proxy->mapToSource(m_proxy->index(r, 0)).row())]);
    try {
        AtomicFile file(path.toStdString(), false);
        file.write(formatKernelCsv(rows, m_model->totalKernelNs()));
        file.commit();
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (m_layoutRestored) return;
    m_layoutRestored = true;
    // A first start: the kernel table, charts and ranks share the bottom, tall enough for a chart.
    if (auto* bottom = findChild<QDockWidget*>("kernelsDock"))
        resizeDocks({bottom}, {std::max(300, height() * 2 / 5)}, Qt::Vertical);
}

void MainWindow::revealRank(std::int64_t rank) {
    // Its GPUs first (they come first in the layout), else its first process.
    const Trace& trace = *m_loaded->trace;
    std::optional<ProcessId> first;
    for (std::uint32_t p = 0; p < trace.processes().size(); ++p) {
        const ProcessInfo& info = trace.processes()[p];
        if (info.rank != rank) continue;
        if (!first || (info.isGpu && !trace.process(*first).isGpu)) first = ProcessId(p);
    }
    if (first) m_timeline->revealProcess(*first);
    m_timeline->setFocus();
}

QString traceBaseName(const QString& fileName) {
    QString base = QFileInfo(fileName).fileName();
    for (const char* suffix : {".gz", ".json", ".sqlite", ".nsys-rep", ".pt.trace"})
        if (base.endsWith(QLatin1String(suffix), Qt::CaseInsensitive) &&
            base.size() > int(std::strlen(suffix)))
            base.chop(int(std::strlen(suffix)));
    return base;
}

void MainWindow::exportTimelineDialog(const QString& format, double scale) {
    if (!m_loaded) return;
    const QString base = traceBaseName(windowTitle().section(QStringLiteral(" — "), 0, 0));
    saveWithDialog(tr("Export timeline"), base + "-timeline." + format,
                   tr("%1 files (*.%2)").arg(format.toUpper(), format),
                   [this, scale](const QString& path) { return exportTimeline(path, scale); });
}

void MainWindow::exportKernelTableDialog() {
    saveWithDialog(tr("Export kernel table"), "kernels.csv", tr("CSV files (*.csv)"),
                   [this](const QString& path) { return exportKernelTable(path); });
}

void MainWindow::saveWithDialog(const QString& title, const QString& suggestedName, const QString& filter,
                                const std::function<QString(const QString&)>& write) {
    QSettings settings;
    const QString path = QFileDialog::getSaveFileName(
        this, title, QDir(settings.value("lastExportDir").toString()).filePath(suggestedName), filter);
    if (path.isEmpty()) return;
    settings.setValue("lastExportDir", QFileInfo(path).absolutePath());
    const QString error = write(path);
    if (!error.isEmpty())
        warn(tr("Could not save"), error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

void MainWindow::warn(const QString& title, const QString& text, const QString& details) {
    // Window-modal and not blocking: what is on show stays usable behind it. Plain text: messages
    // quote file contents.
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::PlainText);
    if (!details.isEmpty()) box->setInformativeText(details);
    box->open();
}

void MainWindow::rememberRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
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
