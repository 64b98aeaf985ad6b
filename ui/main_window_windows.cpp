// SPDX-License-Identifier: MIT
// The windows the main window opens beside itself: Compare With, Compare Variants, a job's, and the
// what-if runs of a call.
#include "main_window.h"

#include "compare_window.h"
#include "document_controller.h"
#include "job_window.h"
#include "variants_window.h"
#include "whatif_controller.h"

#include "core/document/document.h"

#include <QStatusBar>

#include <cstdio>

namespace attnscope::ui {

CompareWindow* MainWindow::compareWith(const QString& path) {
    if (!document()) return nullptr;
    auto* window = new CompareWindow(document(), m_documents->name(), this);
    window->setWindowFlag(Qt::Window);
    window->show();
    window->openB(path);
    return window;
}

QString MainWindow::tryAlternatives(const QString& impl, std::vector<std::string> tries, int repeat) {
    return m_whatIf->start(document(), impl, std::move(tries), repeat);
}

QString MainWindow::callImplOfFinding(const QString& id) const {
    const auto doc = document();
    if (!doc || !doc->findings || !doc->analysis) return {};
    const auto call = callOfFinding(*doc->findings, *doc->analysis, id.toStdString());
    return call ? QString::fromStdString(doc->analysis->calls[*call].impl) : QString();
}

VariantsWindow* MainWindow::compareVariants(const QStringList& paths) {
    auto* window = new VariantsWindow(this);
    window->setWindowFlag(Qt::Window);
    connect(window, &VariantsWindow::openRequested, this, &MainWindow::openFile);
    window->show();
    window->addTraces(paths);
    return window;
}

JobWindow* MainWindow::openJob(const QStringList& paths) {
    auto* window = new JobWindow(this);
    window->setWindowFlag(Qt::Window);
    const QString problem = window->openRecords(paths);
    if (window->report().records.empty() && window->report().failed.empty()) {
        delete window;
        std::fprintf(stderr, "attnscope: the job could not be read: %s\n", qPrintable(problem));
        warn(tr("Job"), tr("The job could not be read."), problem);
        return nullptr;
    }
    if (!problem.isEmpty()) statusBar()->showMessage(problem, 10000);
    // A rank opened from the job is shown here: this window comes to the front (it may be behind the job's).
    connect(window, &JobWindow::openRequested, this, [this](const QString& path) {
        openFile(path);
        comeForward();
    });
    connect(window, &JobWindow::openRanksRequested, this, [this](const QStringList& paths) {
        openRanks(paths);
        comeForward();
    });
    window->show();
    return window;
}

} // namespace attnscope::ui
