// SPDX-License-Identifier: MIT
#include "main_window.h"

#include "kernel_table_model.h"
#include "trace_load_job.h"

#include "core/summary.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace attnscope::ui {

namespace {
constexpr int kMaxRecent = 10;
}

MainWindow::MainWindow() {
    setWindowTitle(tr("AttnScope"));
    setAcceptDrops(true);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    m_header = new QLabel(central);
    m_header->setTextFormat(Qt::PlainText); // file contents are never markup
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    m_filter = new QLineEdit(central);
    m_filter->setPlaceholderText(tr("Filter kernels by name"));
    m_filter->setClearButtonEnabled(true);
    m_model = new KernelTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(KernelTableModel::SortRole);
    m_proxy->setFilterKeyColumn(KernelTableModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table = new QTableView(central);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(KernelTableModel::Name, QHeaderView::Stretch);
    layout->addWidget(m_header);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    setCentralWidget(central);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(240);
    m_cancel = new QPushButton(tr("Cancel"), this);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->hide();
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_job) m_job->cancel();
    });

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        QSettings settings;
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open trace"), settings.value("lastOpenDir").toString(),
                                         tr("Traces (*.json *.json.gz *.gz);;All files (*)"));
        if (path.isEmpty()) return;
        settings.setValue("lastOpenDir", QFileInfo(path).absolutePath());
        openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Sample"), this, &MainWindow::openEmbeddedSample);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About AttnScope"), this, [this] {
        QMessageBox::about(this, tr("About AttnScope"),
                           tr("AttnScope %1\nA profiler for transformer attention.").arg(ATTNSCOPE_VERSION));
    });
    rebuildRecentMenu();

    QSettings settings;
    if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1200, 720);
    restoreState(settings.value("window/state").toByteArray());
    m_header->setText(tr("No trace open. File → Open, or drop a trace file here."));
}

MainWindow::~MainWindow() = default;

bool MainWindow::loading() const { return !m_job.isNull(); }

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::openFile(const QString& path) {
    startJob(new TraceLoadJob(path, {}, QFileInfo(path).fileName(), this));
    rememberRecent(QFileInfo(path).absoluteFilePath());
}

void MainWindow::openEmbeddedSample() {
    QFile sample(":/samples/attention_sample.json");
    if (!sample.open(QIODevice::ReadOnly)) return;
    startJob(
        new TraceLoadJob({}, sample.readAll(), QStringLiteral("attention_sample.json (embedded)"), this));
}

void MainWindow::startJob(TraceLoadJob* job) {
    // One load at a time: a new one replaces the old, which is cancelled; the open trace stays.
    if (m_job) m_job->deleteLater();
    m_job = job;
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(tr("Loading %1…").arg(job->displayName()));
    connect(job, &TraceLoadJob::progress, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(job, &TraceLoadJob::loaded, this,
            [this, job](std::shared_ptr<const Trace> trace, double seconds) {
                showTrace(std::move(trace), seconds, job->displayName());
                loadEnded();
            });
    connect(job, &TraceLoadJob::failed, this, [this, job](const QString& message) {
        loadEnded();
        statusBar()->showMessage(tr("Could not open %1").arg(job->displayName()));
        if (m_screenshotPath.isEmpty()) {
            // Window-modal and not blocking: the open trace stays usable behind it.
            auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not open trace"),
                                        tr("%1 could not be opened.").arg(job->displayName()), QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->setTextFormat(Qt::PlainText);
            box->setInformativeText(message);
            box->open();
        }
    });
    connect(job, &TraceLoadJob::cancelled, this, [this] {
        loadEnded();
        statusBar()->showMessage(tr("Load cancelled"), 5000);
    });
    job->start();
}

void MainWindow::loadEnded() {
    m_progress->hide();
    m_cancel->hide();
    if (m_job) m_job->deleteLater();
    m_job = nullptr;
    Q_EMIT loadFinished();
    if (!m_screenshotPath.isEmpty()) {
        const QString path = m_screenshotPath;
        m_screenshotPath.clear();
        QTimer::singleShot(100, this, [this, path] {
            const bool ok = grab().save(path);
            if (!ok) qWarning("could not save screenshot to %s", qPrintable(path));
            QApplication::exit(ok ? 0 : 1);
        });
    }
}

void MainWindow::showTrace(std::shared_ptr<const Trace> trace, double seconds, const QString& name) {
    m_trace = std::move(trace);
    const TraceSummary s = summarize(*m_trace, 0);
    QString devices;
    for (const DeviceSummary& d : s.devices)
        devices += tr("\n%1 (device %2): %3 kernels, busy %4")
                       .arg(QString::fromStdString(d.name), QString::fromStdString(d.id))
                       .arg(d.kernels)
                       .arg(QString::fromStdString(formatDuration(d.busyNs)));
    QString warnings;
    for (const std::string& w : s.warnings)
        warnings += tr("\nwarning: %1").arg(QString::fromStdString(w));
    m_header->setText(tr("%1  (%2)\n%3 events · span %4 · %5 kernels, %6 of kernel time%7%8")
                          .arg(name, QString::fromStdString(s.format))
                          .arg(s.events)
                          .arg(QString::fromStdString(formatDuration(s.spanNs)))
                          .arg(s.kernelCount)
                          .arg(QString::fromStdString(formatDuration(s.kernelNs)), devices, warnings));
    m_model->setSummary(s);
    setWindowTitle(tr("%1 — AttnScope").arg(name));
    statusBar()->showMessage(tr("Loaded %1 in %2 s").arg(name).arg(seconds, 0, 'f', 2));
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
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openFile(urls.first().toLocalFile());
}

} // namespace attnscope::ui
