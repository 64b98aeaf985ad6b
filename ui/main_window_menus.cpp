// SPDX-License-Identifier: MIT
// The window's menus and the commands behind them: open, compare, ranks, save, the exports.
#include "main_window.h"
#include "navigation_keys.h"

#include "core/analysis/resources.h"

#include "file_dialogs.h"
#include "program_panel.h"

#include "charts.h"
#include "document_controller.h"
#include "find_bar.h"
#include "job_runner.h"
#include "kernel_table_panel.h"
#include "notes_panel.h"
#include "recent_files.h"
#include "report_export.h"
#include "timeline_actions.h"
#include "timeline_export.h"
#include "timeline_view.h"
#include "trace_header.h"

#include "core/analysis/resources.h"
#include "core/document/document.h"
#include "core/io/chrome_writer.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>

namespace attnscope::ui {

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        if (const QStringList paths = askTracePaths(this, tr("Open trace"), false); !paths.isEmpty())
            openFile(paths.front());
    });
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("&Compare With…"), this, [this] {
        if (!document())
            return warn(tr("Nothing to compare"), tr("Open a trace first: it is A, the file you pick is B."));
        if (const QStringList paths = askTracePaths(this, tr("Compare with (B)"), false); !paths.isEmpty())
            compareWith(paths.front());
    });
    file->addAction(tr("Compare &Variants…"), this, [this] {
        if (const QStringList paths = askTracePaths(this, tr("Traces to compare side by side"), true);
            !paths.isEmpty())
            compareVariants(paths);
    });
    file->addAction(tr("&Profile a Program…"), this, [this] {
        if (auto* dock = findChild<QDockWidget*>("programDock")) {
            dock->show();
            dock->raise();
        }
        m_programPanel->focusCommand();
    });
    file->addAction(tr("Open Several as &Ranks…"), this, [this] {
        if (const QStringList paths = askTracePaths(this, tr("Open the ranks of one job"), true);
            !paths.isEmpty())
            openRanks(paths);
    });
    file->addAction(tr("Open &Job Records…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("A folder of rank records (attnscope job --map … --records DIR)"));
        if (!dir.isEmpty()) openJob({dir});
    });
    m_recentMenu = new RecentFilesMenu(this);
    connect(m_recentMenu, &RecentFilesMenu::openRequested, this, &MainWindow::openFile);
    file->addMenu(m_recentMenu);
    file->addAction(tr("Open &Sample"), this, &MainWindow::openEmbeddedSample);
    QAction* save = file->addAction(tr("&Save Trace As…"), this, [this] {
        if (!document()) return;
        const QString path =
            askSavePath(this, tr("Save trace"), "run.json.gz", tr("Chrome trace JSON (*.json *.json.gz)"));
        if (!path.isEmpty()) saveTraceInBackground(path);
    });
    save->setShortcut(QKeySequence::Save);
    file->addSeparator();
    // Pictures: PNG at scale 1 or 2, SVG, PDF.
    auto addPictureMenu = [&](const QString& title, const QString& dialogTitle, auto suggestedName,
                              auto write) {
        QMenu* menu = file->addMenu(title);
        for (const auto& [label, format, scale] : {std::tuple{tr("PNG…"), QStringLiteral("png"), 1.0},
                                                   std::tuple{tr("PNG at 2× …"), QStringLiteral("png"), 2.0},
                                                   std::tuple{tr("SVG…"), QStringLiteral("svg"), 1.0},
                                                   std::tuple{tr("PDF…"), QStringLiteral("pdf"), 1.0}})
            menu->addAction(label, this, [=, this, format = format, scale = scale] {
                if (!document()) return;
                saveWithDialog(dialogTitle, suggestedName() + "." + format,
                               tr("%1 files (*.%2)").arg(format.toUpper(), format),
                               [=, this](const QString& path) { return (this->*write)(path, scale); });
            });
    };
    addPictureMenu(
        tr("&Export Timeline"), tr("Export timeline"),
        [this] { return traceBaseName(m_documents->name()) + "-timeline"; }, &MainWindow::exportTimeline);
    addPictureMenu(
        tr("Export &Chart"), tr("Export chart"), [this] { return chartKindName(m_charts->currentKind()); },
        &MainWindow::exportChart);
    file->addAction(tr("Export &Kernel Table as CSV…"), this, [this] {
        saveWithDialog(tr("Export kernel table"), "kernels.csv", tr("CSV files (*.csv)"),
                       [this](const QString& path) { return exportKernelTable(path); });
    });
    file->addAction(tr("Export &Report…"), this, [this] {
        if (!document()) return;
        saveWithDialog(tr("Export report"), traceBaseName(m_documents->name()) + "-report.html",
                       tr("HTML page (*.html);;Markdown, pictures in a folder beside it (*.md);;PDF (*.pdf)"),
                       [this](const QString& path) { return exportReportOf(path); });
    });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const TimelineActions timelineActions = addTimelineActions(view, m_timeline);
    QAction* find = view->addAction(tr("&Find…"), m_findBar, &FindBar::activate);
    find->setShortcut(QKeySequence::Find);
    // The bookmarks of the Notes dock, in time order.
    for (const auto& [label, keys, forward] : {std::tuple{tr("&Next Bookmark"), tr("Ctrl+]"), true},
                                               std::tuple{tr("&Previous Bookmark"), tr("Ctrl+["), false}}) {
        QAction* go = view->addAction(label, this, [this, forward = forward] {
            const TimeViewport& viewport = m_timeline->scene().viewport;
            if (!m_notes->toBookmark(viewport.start(), viewport.end(), forward))
                statusBar()->showMessage(
                    forward ? tr("No bookmark after this") : tr("No bookmark before this"), 3000);
        });
        go->setShortcut(QKeySequence(keys));
    }
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QToolBar* bar = addToolBar(tr("Navigation"));
    bar->setObjectName("navigationToolBar");
    bar->addAction(timelineActions.back);
    bar->addAction(timelineActions.forward);
    bar->addAction(tr("Fit All"), m_timeline, &TimelineView::fitAll);
    bar->addAction(find);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keys and Mouse"), this, [this] { showHelp(HelpTopic::KeysAndMouse); });
    help->addAction(tr("&Your Files (roles, roofs, thresholds, call shapes)"), this,
                    [this] { showHelp(HelpTopic::Files); });
    help->addSeparator();
    help->addAction(tr("&About AttnScope"), this, [this] {
        QMessageBox::about(this, tr("About AttnScope"),
                           tr("AttnScope %1\nA profiler for transformer attention.").arg(ATTNSCOPE_VERSION));
    });
}

QString MainWindow::helpText(HelpTopic topic) {
    if (topic == HelpTopic::KeysAndMouse) {
        QString keys;
        for (const NavigationKey& k : navigationKeys())
            keys += QStringLiteral("  %1\t%2\n").arg(QString::fromLatin1(k.hint), QMenu::tr(k.command));
        return tr("On the timeline (and from any panel that does not take typing):\n%1"
                  "  Esc\tclear the range, else the selection\n\n"
                  "Mouse:\n"
                  "  click\tselect an event (Details shows it); a process's header folds it\n"
                  "  drag\tpan (sideways in time, up and down over the tracks)\n"
                  "  Shift+drag\tselect a time range (F fits it)\n"
                  "  Ctrl+wheel\tzoom around the pointer\n"
                  "  Shift+wheel\tpan in time; the wheel alone scrolls the tracks\n"
                  "  drag names' edge\twiden or narrow the track names' column (its right edge)\n"
                  "  Back / Forward\tthe places you were (the mouse's side buttons, %2 / %3)\n\n"
                  "%4 opens a trace, %5 finds events by name.")
            .arg(keys, QKeySequence(QKeySequence::Back).toString(QKeySequence::NativeText),
                 QKeySequence(QKeySequence::Forward).toString(QKeySequence::NativeText),
                 QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText),
                 QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText));
    }
    // The data AttnScope reads is built in; each file of yours adds to or overrides it, read at start.
    struct File {
        const char* variable;
        const char* name;
        const char* what;
    };
    static constexpr File files[] = {
        {"ATTNSCOPE_KERNEL_ROLES", "kernel_roles.txt", "roles of kernels by name (\"role pattern\" lines)"},
        {"ATTNSCOPE_DEVICE_SPECS", "device_specs.txt",
         "roofs of devices (peak FLOP/s per precision, bandwidth)"},
        {"ATTNSCOPE_FINDINGS", "findings.txt", "the findings' thresholds (\"name value\" lines)"},
        {"ATTNSCOPE_CALL_SHAPES", "call_shapes.txt", "the expected kernels of each attention call"}};
    QString text =
        tr("AttnScope's data is built in; a file of yours adds to it or overrides it, read when "
           "AttnScope starts (the README's \"Why it is slow\" and \"Findings\" give their formats):\n\n");
    for (const File& f : files)
        text += tr("%1 — %2\n  %3 (or the file $%4 names)\n\n")
                    .arg(QString::fromLatin1(f.name), tr(f.what),
                         QString::fromStdString(userDataFile(f.variable, f.name)),
                         QString::fromLatin1(f.variable));
    return text.trimmed();
}

void MainWindow::showHelp(HelpTopic topic) {
    QMessageBox box(this);
    box.setWindowTitle(topic == HelpTopic::KeysAndMouse ? tr("Keys and Mouse") : tr("Your Files"));
    // Lines of "key<TAB>what it does" as a table's rows, so that long keys do not push their text out of
    // line.
    QString html, rows;
    auto endRows = [&] {
        if (!rows.isEmpty()) html += QStringLiteral("<table cellspacing=2>%1</table>").arg(rows);
        rows.clear();
    };
    for (const QString& line : helpText(topic).split('\n')) {
        const qsizetype tab = line.indexOf('\t');
        if (tab >= 0) {
            // The gap as the cell's padding: spaces before the text left its wrapped lines out of line.
            rows += QStringLiteral("<tr><td><b>%1</b></td><td style='padding-left:10px'>%2</td></tr>")
                        .arg(line.left(tab).trimmed().toHtmlEscaped(), line.mid(tab + 1).toHtmlEscaped());
            continue;
        }
        endRows();
        // Each paragraph its own (a blank line separates them in the text): "<br>" after a table left
        // "Mouse:" closer to the table above it than to its own rows.
        if (!line.trimmed().isEmpty())
            html += QStringLiteral("<p style='margin-top:8px; margin-bottom:2px'>%1</p>")
                        .arg(line.toHtmlEscaped());
    }
    endRows();
    box.setTextFormat(Qt::RichText);
    box.setText(html);
    box.exec();
}

QString MainWindow::exportChart(const QString& path, double scale) {
    if (!document()) return tr("no trace is open");
    if (!analysis()) return tr("the analysis of this trace is not done yet");
    // A chart of its own, outside the dock's view (which lays its chart out to its own size).
    const std::unique_ptr<QChart> chart(makeChart(m_charts->currentKind(), m_charts->inputs()));
    return ui::exportChart(chart.get(), QSize(1200, 800), scale, path);
}

Note MainWindow::noteHere(bool bookmark) const {
    const Trace& trace = *document()->trace;
    Note note;
    if (const auto e = m_timeline->selected(); e && !bookmark)
        note = noteOnEvent(trace, *e);
    else if (const auto r = m_timeline->range())
        note = noteOnRange(trace, r->from, r->to);
    else // the stretch on show, within the trace
        note = noteOnRange(trace, std::max(trace.startNs(), m_timeline->scene().viewport.start()),
                           std::min(trace.endNs(), m_timeline->scene().viewport.end()));
    note.bookmark = bookmark;
    return note;
}

std::optional<Note> MainWindow::noteOnCallOf(const QString& impl) const {
    const auto doc = document();
    if (!doc || !doc->analysis) return std::nullopt;
    const TraceAnalysis& a = *doc->analysis;
    const std::string name = impl.toStdString();
    const KernelAnalysis* selected = nullptr;
    if (const auto e = m_timeline->selected()) selected = a.find(*e);
    std::optional<Note> first;
    std::uint64_t ordinal = 0;
    for (std::size_t c = 0; c < a.calls.size(); ++c) {
        const AttentionCall& call = a.calls[c];
        if (call.impl != name) continue;
        Note note = noteOnCall(*doc->trace, name, ordinal++, call.start, call.end);
        if (selected && selected->call == int(c)) return note;
        if (!first) first = std::move(note);
    }
    return first;
}

std::optional<Note> MainWindow::noteOnFindingOf(const QString& id) const {
    const auto doc = document();
    if (!doc || !doc->findings) return std::nullopt;
    const std::string name = id.toStdString();
    for (const Finding& f : *doc->findings) {
        if (f.id != name) continue;
        const Trace& trace = *doc->trace;
        return f.evidence.empty() ? noteOnFinding(trace, name, trace.startNs(), trace.startNs())
                                  : noteOnFinding(trace, name, f.evidence.front().startNs,
                                                  f.evidence.front().startNs + f.evidence.front().durNs);
    }
    return std::nullopt;
}

void MainWindow::askAndAddNote(Note note) {
    if (!document()) return;
    bool ok = false;
    // What it will be pinned to, said in the dialog.
    const QString where = QString::fromStdString(describePlace(note, placeNote(note, *document()), *trace()));
    const QString text =
        note.bookmark
            ? QInputDialog::getText(this, tr("Add Bookmark"), tr("Bookmark of %1, named:").arg(where),
                                    QLineEdit::Normal, {}, &ok)
            : QInputDialog::getMultiLineText(this, tr("Add Note"), tr("Note on %1:").arg(where), {}, &ok);
    if (!ok || text.trimmed().isEmpty()) return;
    note.text = text.toStdString();
    m_notes->add(std::move(note));
}

QString MainWindow::saveTrace(const QString& path) {
    if (!document()) return tr("no trace is open");
    try {
        WriteOptions options; // the notes go with it: into the trace, and as marks Perfetto shows
        if (!m_notes->allNotes().empty()) addNotes(options, m_notes->allNotes(), *document());
        writeChromeTrace(*trace(), path.toStdString(), options);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void MainWindow::saveTraceInBackground(const QString& path) {
    const std::shared_ptr<const Trace> shown = trace();
    if (!shown) return;
    // On a worker: a large trace takes seconds to write; the window stays live, the bar shows how far
    // it got and Cancel leaves no file behind.
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_saving = true;
    statusBar()->showMessage(tr("Saving %1…").arg(path));
    auto ended = [this] {
        m_saving = false;
        m_progress->hide();
        m_cancel->hide();
    };
    WriteOptions notes; // the notes go with it: into the trace, and as marks Perfetto shows
    if (!m_notes->allNotes().empty()) addNotes(notes, m_notes->allNotes(), *document());
    m_saves->start<QString>(
        "save",
        [shown, file = path.toStdString(), notes = std::move(notes)](JobControl& control) {
            WriteOptions options = notes;
            options.progress = [&control](double f) { control.progress(f); };
            options.cancel = control.cancelFlag();
            writeChromeTrace(*shown, file, options);
            return QString();
        },
        JobRunner::Callbacks<QString>{[this, path, ended](QString) {
                                          ended();
                                          statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
                                          Q_EMIT traceSaved(path, QString());
                                      },
                                      [this, path, ended](const QString& error) {
                                          ended();
                                          warn(tr("Could not save"), error);
                                          Q_EMIT traceSaved(path, error);
                                      },
                                      [this, path, ended] {
                                          ended();
                                          statusBar()->showMessage(tr("Save cancelled: no file written"),
                                                                   5000);
                                          Q_EMIT traceSaved(path, tr("cancelled"));
                                      },
                                      [this](double f) { m_progress->setValue(int(f * 1000)); }});
}

void MainWindow::finishSaving() {
    if (!m_saving) return;
    // A save under way is the user's file: the window waits for it instead of cancelling it.
    statusBar()->showMessage(tr("Finishing the save before closing…"));
    QEventLoop loop;
    connect(this, &MainWindow::traceSaved, &loop, &QEventLoop::quit);
    if (m_saving) loop.exec();
}

QString MainWindow::exportTimeline(const QString& path, double scale) {
    if (!document()) return tr("no trace is open");
    TimelineScene scene = m_timeline->scene();
    return ui::exportTimeline(*m_timeline->renderer(), scene, m_timeline->style(),
                              QSize(m_timeline->width(), m_timeline->height()), scale, path);
}

QString MainWindow::exportKernelTable(const QString& path) {
    return m_kernels->exportCsv(path);
}

void MainWindow::saveWithDialog(const QString& title, const QString& suggestedName, const QString& filter,
                                const std::function<QString(const QString&)>& write) {
    const QString path = askSavePath(this, title, suggestedName, filter);
    if (path.isEmpty()) return;
    const QString error = write(path);
    if (!error.isEmpty())
        warn(tr("Could not save"), error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

QString MainWindow::exportReportOf(const QString& path) {
    // Its pictures drawn here, on the window's thread (the charts are graphics-scene items), a step at a
    // time between the progress dialog's turns; Cancel leaves nothing written.
    QProgressDialog progress(tr("Writing the report: its pictures…"), tr("Cancel"), 0, 0, this);
    progress.setWindowTitle(tr("Export Report"));
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    QString missing;
    const QString error = exportReport(
        {{document(), QString::fromStdString(document()->name), m_notes->notes(),
          m_notes->problem().isEmpty() ? std::vector<std::string>{}
                                       : std::vector<std::string>{m_notes->problem().toStdString()}}},
        path,
        [&progress](int done, int total) {
            progress.setMaximum(total);
            progress.setValue(done);
            QCoreApplication::processEvents();
            return !progress.wasCanceled();
        },
        &missing);
    if (error.isEmpty() && !missing.isEmpty()) warn(tr("A picture is left out of the report"), missing);
    return error;
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

} // namespace attnscope::ui
