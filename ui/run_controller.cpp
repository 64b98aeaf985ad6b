// SPDX-License-Identifier: MIT
#include "run_controller.h"

#include "job_runner.h"
#include "run_panel.h"

#include "core/analysis/machine_roofs.h"
#include "core/document/document.h"
#include "core/io/trace_append.h"

#include "kernels/cuda_backend.h"
#include "kernels/run_session.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>

namespace attnscope::ui {

RunController::RunController(RunPanel* panel, QObject* parent) : QObject(parent), m_panel(panel) {
    m_timer = new QTimer(this);
    m_timer->setInterval(33); // records reach the view in batches, ~30 times a second
    connect(m_timer, &QTimer::timeout, this, &RunController::tick);
    m_jobs = new JobRunner(this);
}

RunController::~RunController() = default;

bool RunController::ended() const {
    return !m_run || (!m_launched && !m_active) || m_run->finished(); // (stopped before it started)
}

QString RunController::name() const {
    if (m_run && m_run->config().backend == kernels::Backend::Torch) return tr("PyTorch run");
    return m_run && m_run->config().backend == kernels::Backend::Cuda ? tr("CUDA run") : tr("CPU run");
}

QString RunController::start(kernels::RunConfig config, kernels::BackendChoice backend) {
    if (m_active) return tr("A run is under way");
    std::string notice;
    const std::string problem = kernels::chooseBackend(config, backend, notice);
    if (!problem.empty())
        return QString::fromStdString(problem) +
               (backend == kernels::BackendChoice::Cuda && config.backend != kernels::Backend::Cuda
                    ? tr(". Choose the CPU backend.")
                    : QString());
    const QString note = notice.empty() ? QString() : QString::fromStdString(notice) + ". ";
    m_run = std::make_unique<kernels::RunSession>(config);
    m_batches.clear();
    m_trace = std::make_shared<TraceAppender>();
    m_events = 0;
    m_building = false;
    m_notices.clear();
    m_shown = false;
    m_ownsView = true;
    m_active = true;
    m_snapshotDue = false;
    m_launched = false;
    m_panel->setRunning(true);
    const QString running = note + (config.backend == kernels::Backend::Torch ? tr("Starting PyTorch…")
                                    : config.backend == kernels::Backend::Cuda
                                        ? tr("Running on the GPU…")
                                        : tr("Running on %1 CPU workers…").arg(m_run->workers()));
    if (config.backend == kernels::Backend::Cuda) {
        launch(running);
        return {};
    }
    // Each snapshot is analysed, its CPU kernels held to this machine's roofs: measured first (once, then
    // cached), not while the run's workers hold the cores.
    m_panel->setState(note + tr("Measuring this machine's CPU roofs before the run starts…"));
    m_jobs->start<bool>(
        "roofs", [] { return cpuRoofs().measuredNow; }, [this, running](bool) { launch(running); },
        [this, running](const QString&) { launch(running); });
    return {};
}

void RunController::launch(const QString& state) {
    if (!m_active) return; // stopped while the roofs were measured
    m_launched = true;
    m_startMs = QDateTime::currentMSecsSinceEpoch();
    m_run->start();
    m_timer->start();
    m_panel->setState(state);
}

void RunController::stop() {
    if (!m_active) return;
    if (!m_launched) { // nothing ran yet
        m_active = false;
        m_panel->setRunning(false);
        m_panel->setState(tr("Run stopped before it started"));
        Q_EMIT status(tr("Run stopped before it started"));
        Q_EMIT finished();
        return;
    }
    m_run->stop(); // ends after the call under way; the timer sees the end
    m_panel->setState(tr("Stopping after the call under way…"));
}

void RunController::tick() {
    if (!m_run || !m_active) return;
    const bool ended = m_run->finished(); // read before draining: nothing is queued after the end
    std::vector<kernels::RunEvent> batch = m_run->takeEvents();
    if (!batch.empty()) {
        m_events += batch.size();
        m_batches.push_back(std::make_shared<const std::vector<kernels::RunEvent>>(std::move(batch)));
        m_snapshotDue = true;
    }
    if (m_snapshotDue && m_ownsView && !m_building) build(ended);
    const QString counts = countsText();
    // What the run said about itself (PyTorch's version, implementations not available here), all kept.
    const std::vector<std::string> notices = m_run->takeNotices();
    for (const std::string& line : notices)
        m_notices << QString::fromStdString(line);
    if (!notices.empty()) m_panel->setState(m_notices.join('\n'));
    if (!ended) {
        Q_EMIT status(tr("Running: %1").arg(counts));
        return;
    }
    m_timer->stop();
    if (m_building || (m_snapshotDue && m_ownsView)) return; // the last snapshot comes first; then end()
    end();
}

// The run so far as a document, on a worker: the records since the last snapshot are appended to the
// run's growing trace, whose snapshots share what came before; the UI thread only shows what comes back.
void RunController::build(bool final) {
    m_snapshotDue = false;
    m_building = true;
    const auto batches = std::move(m_batches);
    m_batches.clear();
    const kernels::Backend backend = m_run->config().backend;
    const std::string device = m_run->deviceName(), name = this->name().toStdString();
    m_jobs->start<std::shared_ptr<const Document>>(
        "snapshot",
        [batches, backend, device, name, trace = m_trace] {
            // The new records as a trace, appended to the run's so far (their correlation ids are the
            // run's own: a launch before and its kernel now find each other).
            if (!batches.empty()) trace->append(*kernels::buildRunTrace(batches, backend, device), 0);
            // With its analysis: roles, calls, verdicts and findings of the run so far (the run's traces
            // are small: a few records per kernel and worker).
            DocumentOptions options;
            return openDocument(DocumentSource::built(trace->snapshot(), name), options);
        },
        [this, final](std::shared_ptr<const Document> doc) {
            m_building = false;
            if (m_ownsView) {
                const bool first = !m_shown;
                m_shown = true;
                Q_EMIT snapshot(std::move(doc), first, final);
            }
            if (m_active && !m_timer->isActive()) tick(); // the run ended meanwhile
        },
        [this](const QString& why) {
            m_building = false;
            m_notices << tr("The run so far could not be shown: %1").arg(why);
            if (m_active && !m_timer->isActive()) tick();
        });
}

// "12000 records, 3400 records/s, 0 dropped": the run so far.
QString RunController::countsText() const {
    const double seconds = std::max(0.001, double(QDateTime::currentMSecsSinceEpoch() - m_startMs) / 1000.0);
    return tr("%1 records, %2 records/s, %3 dropped")
        .arg(m_events)
        .arg(double(m_events) / seconds, 0, 'f', 0)
        .arg(m_run->dropped());
}

void RunController::end() {
    m_active = false;
    m_panel->setRunning(false);
    const QString counts = countsText();
    const QString error = QString::fromStdString(m_run->error());
    const QString how = !error.isEmpty()   ? tr("Run failed: %1").arg(error)
                        : m_run->stopped() ? tr("Run stopped: %1").arg(counts)
                                           : tr("Run finished: %1").arg(counts);
    m_panel->setState(m_notices.isEmpty() ? how : m_notices.join('\n') + '\n' + how);
    Q_EMIT status(how);
    if (!error.isEmpty()) Q_EMIT failed(error);
    Q_EMIT finished();
}

} // namespace attnscope::ui
