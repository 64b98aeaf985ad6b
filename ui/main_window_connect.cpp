// SPDX-License-Identifier: MIT
// The main window's wiring: documents, runs, a program's profile and the views, each to the others.
#include "main_window.h"
#include "notes_panel.h"

#include "attention_panel.h"
#include "charts.h"
#include "compare_window.h"
#include "details_panel.h"
#include "document_controller.h"
#include "find_bar.h"
#include "find_controller.h"
#include "findings_panel.h"
#include "job_runner.h"
#include "job_window.h"
#include "kernel_table_panel.h"
#include "navigation_keys.h"
#include "on_screen.h"
#include "profile_controller.h"
#include "program_panel.h"
#include "ranks_panel.h"
#include "recent_files.h"
#include "run_controller.h"
#include "run_panel.h"
#include "timeline_view.h"
#include "trace_header.h"
#include "variants_window.h"
#include "whatif_controller.h"

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
#include <QMessageBox>
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

void MainWindow::connectDocuments() {
    connect(m_documents, &DocumentController::loadStarted, this,
            [this](const QString& name, bool measurable) {
                m_progress->setRange(0, measurable ? 1000 : 0); // ranks: busy, no progress to report
                m_progress->setValue(0);
                m_progress->show();
                m_cancel->show();
                statusBar()->showMessage(tr("Loading %1…").arg(name));
            });
    connect(m_documents, &DocumentController::loadProgress, this,
            [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(m_documents, &DocumentController::documentChanged, this, &MainWindow::showDocument);
    connect(m_documents, &DocumentController::analysed, this, &MainWindow::showAnalysis);
    connect(m_documents, &DocumentController::loadFailed, this, &MainWindow::showLoadFailed);
    connect(m_documents, &DocumentController::loadCancelled, this,
            [this] { statusBar()->showMessage(tr("Load cancelled"), 5000); });
    connect(m_documents, &DocumentController::loadEnded, this, &MainWindow::loadEnded);
}

void MainWindow::connectRuns() {
    connect(m_runPanel, &RunPanel::runRequested, this,
            [this] { startRun(m_runPanel->config(), m_runPanel->backend()); });
    connect(m_runPanel, &RunPanel::stopRequested, this, &MainWindow::stopRun);
    connect(m_run, &RunController::snapshot, this, [this](std::shared_ptr<const Document> doc, bool first) {
        m_profile->releaseView();
        m_documents->showOpened(std::move(doc), m_run->name(), !first);
    });
    connect(m_run, &RunController::status, this,
            [this](const QString& text) { statusBar()->showMessage(text); });
    connect(m_run, &RunController::failed, this, [this](const QString& error) {
        if (m_screenshotPath.isEmpty()) warn(tr("Run failed"), error);
    });
    connect(m_run, &RunController::finished, this, [this] {
        m_documents->analyse(); // its snapshots come analysed: this is for one whose view was taken over
        // The finished run opens into its implementations side by side: the Attention dock's table,
        // each against its expected call (unless the user picked another dock while it ran).
        raiseAttentionUnlessMoved();
        Q_EMIT runFinished();
        screenshotIfAsked();
    });
}

void MainWindow::connectProfile() {
    connect(m_programPanel, &ProgramPanel::profileRequested, this, [this] {
        QString problem;
        kernels::ProfileConfig config = m_programPanel->config(&problem);
        if (!problem.isEmpty()) return warn(tr("Cannot profile"), problem);
        startProfile(std::move(config));
    });
    connect(m_programPanel, &ProgramPanel::stopRequested, this, &MainWindow::stopProfile);
    connect(m_profile, &ProfileController::snapshot, this,
            [this](std::shared_ptr<const Document> doc, bool first) {
                m_run->releaseView();
                m_documents->showOpened(std::move(doc), m_profile->name(), !first);
            });
    connect(m_profile, &ProfileController::status, this,
            [this](const QString& text) { statusBar()->showMessage(text); });
    connect(m_profile, &ProfileController::failed, this, [this](const QString& why) {
        if (m_screenshotPath.isEmpty())
            warn(tr("Cannot profile"), tr("%1 could not start.").arg(m_profile->name()), why);
    });
    connect(m_profile, &ProfileController::finished, this, [this] {
        if (document() && analysis()) raiseAttentionUnlessMoved();
        Q_EMIT profileFinished();
        screenshotIfAsked();
    });
}

void MainWindow::startProfile(kernels::ProfileConfig config) {
    m_bottomShown = bottomDockShown();
    if (auto* dock = findChild<QDockWidget*>("programDock")) dock->raise();
    m_programPanel->setConfig(config);
    const QString problem = m_profile->start(std::move(config));
    if (problem.isEmpty()) return;
    if (m_screenshotPath.isEmpty()) return warn(tr("Cannot profile"), problem);
    std::fprintf(stderr, "attnscope: cannot profile: %s\n", qPrintable(problem));
    QTimer::singleShot(0, this, [] { QApplication::exit(1); });
}

void MainWindow::stopProfile() {
    m_profile->stop();
}

bool MainWindow::profiling() const {
    return m_profile->running();
}

// The views follow each other: a table row or a finding selects on the timeline, a selection shows
// in Details, a range narrows the kernel table.
void MainWindow::connectViews() {
    connect(m_kernels, &KernelTablePanel::selectionChanged, this, &MainWindow::highlightTableSelection);
    connect(m_kernels, &KernelTablePanel::nameActivated, this, [this](StringId name) {
        // Its longest instance (in the range, if one is selected), selected and brought into view.
        const auto range = m_timeline->range();
        if (const auto e = longestEventNamed(*trace(), name, range ? range->from : 0, range ? range->to : 0))
            m_timeline->selectEvent(*e, true);
    });
    connect(m_ranks, &RanksPanel::compareRequested, this,
            [this](const QStringList& paths) { compareVariants(paths); });
    connect(m_ranks, &RanksPanel::rankActivated, this, [this](std::int64_t rank) {
        if (!trace()) return;
        if (const auto p = firstProcessOfRank(*trace(), rank)) m_timeline->revealProcess(*p);
        m_timeline->setFocus();
    });
    connect(m_timeline, &TimelineView::selectionChanged, this,
            [this] { m_details->showEvent(m_timeline->selected()); });
    connect(m_timeline, &TimelineView::rangeChanged, this,
            [this] { m_kernels->show(document().get(), m_timeline->range()); });
    connect(m_details, &DetailsPanel::linkActivated, this,
            [this](EventRef e) { m_timeline->selectEvent(e, true); });
    connect(m_findings, &FindingsPanel::evidenceActivated, this, [this](EventRef e, qint64 from, qint64 to) {
        m_timeline->selectEvent(e, true);
        if (from < to)
            m_timeline->setViewport(from, to); // the place with what makes it one (a gap and its neighbours)
        else
            m_timeline->fitSelection();
    });
    connect(m_notes, &NotesPanel::jump, this, [this](std::optional<EventRef> e, qint64 from, qint64 to) {
        if (e) m_timeline->selectEvent(e, true);
        const TimeNs pad = std::max<TimeNs>((to - from) / 4, 1000);
        m_timeline->setViewport(from - pad, to + pad);
    });
    connect(m_notes, &NotesPanel::said, this,
            [this](const QString& text) { statusBar()->showMessage(text, 30000); });
    connect(m_notes, &NotesPanel::placesChanged, this, [this] {
        std::vector<TimelineScene::NoteFlag> flags;
        for (std::size_t i = 0; i < m_notes->notes().size(); ++i) // the live ones, as listed
            if (m_notes->places()[i].placed)
                flags.push_back({m_notes->places()[i].fromNs,
                                 QColor(QString::fromStdString(m_notes->notes()[i].colour))});
        m_timeline->setNoteFlags(std::move(flags));
    });
    connect(m_notes, &NotesPanel::addRequested, this, [this](bool bookmark) {
        if (document()) askAndAddNote(noteHere(bookmark));
    });
    connect(m_attention, &AttentionPanel::noteRequested, this, [this](const QString& impl) {
        if (auto note = noteOnCallOf(impl)) askAndAddNote(std::move(*note));
    });
    connect(m_findings, &FindingsPanel::noteRequested, this, [this](const QString& id) {
        if (auto note = noteOnFindingOf(id)) askAndAddNote(std::move(*note));
    });
    // A call's alternatives, from the Attention dock's row or a finding about the call: what to run is asked.
    auto tryAlternativesOf = [this](const QString& impl) {
        if (const QString why = m_whatIf->askAndStart(document(), impl); !why.isEmpty())
            QMessageBox::information(this, tr("Try the Alternatives"), why);
    };
    connect(m_attention, &AttentionPanel::alternativesRequested, this, tryAlternativesOf);
    connect(m_findings, &FindingsPanel::alternativesRequested, this, tryAlternativesOf);
    m_findings->setCallImplOf([this](const QString& id) { return callImplOfFinding(id); });
    connect(
        m_whatIf, &WhatIfController::finished, this, [this](const QStringList& paths, const QString& notes) {
            compareVariants(paths)->learnWhatIf(m_whatIf->learned());
            // The Findings dock, the summary and the report learn it too: one answer in every view.
            if (auto taught = m_whatIf->taught(document()))
                m_documents->showOpened(std::move(taught), m_documents->name(), true);
            statusBar()->showMessage(notes.isEmpty()
                                         ? tr("The alternatives, measured on this machine, beside the trace")
                                         : tr("Measured on this machine; %1").arg(notes),
                                     20000);
        });
    connect(m_whatIf, &WhatIfController::failed, this, [this](const QString& why) {
        QMessageBox::warning(this, tr("Try the Alternatives"), tr("The run stopped: %1").arg(why));
    });
    connect(m_whatIf, &WhatIfController::cancelled, this,
            [this] { statusBar()->showMessage(tr("Trying the alternatives was cancelled"), 10000); });
    connect(m_attention, &AttentionPanel::callActivated, this, [this](EventRef e) {
        m_timeline->selectEvent(e, true);
        m_timeline->fitSelection();
    });
}

} // namespace attnscope::ui
