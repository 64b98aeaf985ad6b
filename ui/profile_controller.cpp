// SPDX-License-Identifier: MIT
#include "profile_controller.h"

#include "job_runner.h"
#include "program_panel.h"
#include "qt_text.h"

#include "core/analysis/machine_roofs.h"
#include "core/report/format.h"
#include "kernels/program_profile.h"

#include <QThreadPool>
#include <QTimer>

namespace attnscope::ui {

ProfileController::ProfileController(ProgramPanel* panel, QObject* parent)
    : QObject(parent), m_panel(panel), m_jobs(new JobRunner(this)), m_timer(new QTimer(this)) {
    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, &ProfileController::tick);
}

ProfileController::~ProfileController() = default; // the program is stopped; the jobs are waited for

QString ProfileController::start(kernels::ProfileConfig config) {
    if (m_active) return tr("A program is being profiled");
    if (config.command.empty()) return tr("Which program?");
    config.captureOutput = true;
    // Named as people say it: "python train.py --epochs 1", each path by its file name.
    QStringList words;
    for (const std::string& a : config.command) {
        const std::size_t slash = a.rfind('/');
        words << qs(a.rfind('-', 0) == 0 || slash == std::string::npos ? a : a.substr(slash + 1));
    }
    m_name = words.join(' ');
    m_config = std::make_unique<kernels::ProfileConfig>(std::move(config));
    m_profile.reset();
    m_pending.clear();
    m_stepCount = 0;
    m_snapshots.reset();
    m_notices.clear();
    m_building = m_shown = m_completeShown = m_stopRequested = false;
    m_ownsView = m_active = true;
    m_panel->clearOutput();
    m_panel->setRunning(true);
    m_panel->setState(tr("Measuring this machine's CPU roofs before the program starts…"));
    // Cached after the first time: then this returns at once.
    m_jobs->start<bool>(
        "roofs", [] { return cpuRoofs().measuredNow; }, [this](bool) { launch(); },
        [this](const QString&) { launch(); });
    return {};
}

void ProfileController::launch() {
    if (!m_active) return; // stopped while the roofs were measured
    m_profile = std::make_unique<kernels::ProgramProfile>(*m_config);
    if (const std::string why = m_profile->start(); !why.empty()) {
        m_active = false;
        m_panel->setRunning(false);
        m_panel->setState(tr("Could not start: %1").arg(qs(why)));
        Q_EMIT failed(qs(why));
        Q_EMIT finished();
        return;
    }
    m_panel->setState(tr("Running %1 (pid %2)…").arg(m_name).arg(m_profile->pid()));
    m_timer->start();
}

void ProfileController::stop() {
    if (!m_active) return;
    if (!m_profile) { // still measuring the roofs: the program never starts
        m_active = false;
        m_panel->setRunning(false);
        m_panel->setState(tr("Stopped before the program started"));
        Q_EMIT finished();
        return;
    }
    m_stopRequested = true;
    m_profile->stop();
    m_panel->setState(
        tr("Stopping %1 (Ctrl+C, then SIGTERM after 5 s): the steps recorded so far are kept…").arg(m_name));
}

void ProfileController::tick() {
    if (!m_profile) return;
    const bool ended = m_profile->finished(); // read first: nothing arrives after the end
    QStringList output;
    for (const std::string& line : m_profile->takeOutput())
        output << qs(line);
    if (!output.isEmpty()) m_panel->appendOutput(output);
    for (const std::string& line : m_profile->takeNotices())
        m_notices << qs(line);
    for (kernels::ProfiledStep& s : m_profile->takeSteps())
        m_pending.push_back(std::move(s)), ++m_stepCount;
    const QString counts = stepCounts();
    if (!ended) {
        m_panel->setState((m_notices.isEmpty() ? QString() : m_notices.join('\n') + '\n') +
                          tr("Running %1: %2").arg(m_name, counts));
        Q_EMIT status(tr("Profiling %1: %2").arg(m_name, counts));
    }
    // After the end, one more snapshot when the last one's findings were not made on every step.
    if (!m_building && m_ownsView && (!m_pending.empty() || (ended && m_shown && !m_completeShown)))
        return build(ended);
    if (ended && !m_building) end();
}

// The steps so far as a document, on a worker: the processes' steps joined (several: the ranks of one
// job) and the whole analysis, so the UI thread only shows it.
void ProfileController::build(bool complete) {
    m_building = true;
    m_completeShown = complete;
    auto steps = std::make_shared<std::vector<kernels::ProfiledStep>>(std::move(m_pending));
    m_pending.clear();
    if (!m_snapshots) m_snapshots = std::make_shared<kernels::ProfileSnapshots>(m_name.toStdString());
    m_jobs->start<std::shared_ptr<const Document>>(
        "snapshot",
        [steps, snapshots = m_snapshots, complete] { return snapshots->add(std::move(*steps), complete); },
        [this](std::shared_ptr<const Document> doc) {
            m_building = false;
            if (m_ownsView) {
                const bool first = !m_shown;
                m_shown = true;
                Q_EMIT snapshot(std::move(doc), first);
            }
            tick();
        },
        [this](const QString& why) {
            m_building = false;
            m_notices << tr("The steps could not be shown: %1").arg(why);
            tick();
        });
}

QString ProfileController::stepCounts() const {
    // The steps recorded, and the start-up slices left out of them (what the findings' "of all N steps" does
    // not count), said the same everywhere.
    const std::size_t leftOut = m_snapshots ? m_snapshots->leftOut() : 0;
    QString out = qs(formatCount(m_stepCount, "step", "steps"));
    if (leftOut)
        out += tr(", of which %1 before the first optimizer step left out")
                   .arg(qs(formatCount(leftOut, "start-up slice", "start-up slices")));
    return out;
}

// How a profile ended, as a status line: a stop, a non-zero exit, a crash are ordinary outcomes, never a
// dialog; the steps recorded are kept whichever way it ended. The traceback is where the program wrote
// it, in the panel's output.
void ProfileController::end() {
    const QString counts = stepCounts(); // before the snapshots are let go
    m_timer->stop();
    m_active = false;
    // What grew the snapshots (each process's steps as appended) is let go once the profile has ended, on
    // a worker half a second after the last snapshot: not kept till the next profile, not freed while the
    // window paints.
    QTimer::singleShot(500, this, [snapshots = std::move(m_snapshots)]() mutable {
        QThreadPool::globalInstance()->start(
            [snapshots = std::move(snapshots)]() mutable { snapshots.reset(); });
    });
    m_panel->setRunning(false);
    const bool clean = m_profile->exitCode() == 0;
    const QString kept = m_stepCount ? tr("kept") : tr("none recorded");
    QString outcome;
    if (m_stopRequested)
        outcome = tr("Stopped %1 after %2; %3").arg(m_name, counts, kept);
    else if (clean)
        outcome = tr("%1 finished: %2 recorded").arg(m_name, counts);
    else
        outcome = tr("%1 %2 after %3; %4").arg(m_name, qs(m_profile->outcome()), counts, kept);
    QStringList said{outcome};
    said << m_notices;
    if (const std::string problem = m_profile->problem(); !problem.empty())
        said << qs(problem);
    else if (!clean && !m_stopRequested && !m_profile->lastWords().empty())
        said << tr("Its last words are at the end of the output below.");
    m_panel->setState(said.join('\n'));
    m_panel->showOutputEnd();
    Q_EMIT status(outcome);
    Q_EMIT finished();
}

} // namespace attnscope::ui
