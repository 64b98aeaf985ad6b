// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

class QTimer;

namespace attnscope::kernels {
struct RunConfig;
enum class BackendChoice : std::uint8_t;
struct RunEvent;
class RunSession;
} // namespace attnscope::kernels

namespace attnscope::ui {

class RunPanel;

// A live run of attention workloads: starts the run session, drains its records ~30 times a second,
// and hands the window a trace of the run so far (a snapshot) — spaced out for long runs so that
// rebuilding it never takes more than a quarter of the UI thread's time. The Run panel shows its state.
class RunController : public QObject {
    Q_OBJECT
public:
    RunController(RunPanel* panel, QObject* parent = nullptr);
    ~RunController() override;

    // Returns the reason when the run cannot start, else "".
    QString start(kernels::RunConfig config, kernels::BackendChoice backend);
    void stop();
    // From start until the window has taken the run's last records.
    bool running() const { return m_active; }
    // Whether the run ended (finished, stopped or failed), or none was started.
    bool ended() const;
    // A file opened during the run takes the view: snapshots stop (the run goes on until Stop).
    void releaseView() { m_ownsView = false; }
    QString name() const; // "CPU run", "CUDA run"

Q_SIGNALS:
    // The run so far; first: its first snapshot, final: the run has ended.
    void snapshot(std::shared_ptr<const Trace> trace, bool first, bool final);
    void status(const QString& text);
    void failed(const QString& error);
    // The run ended: finished, stopped or failed.
    void finished();

private:
    void tick();

    RunPanel* m_panel;
    std::unique_ptr<kernels::RunSession> m_run;
    std::vector<kernels::RunEvent> m_events;
    QStringList m_notices; // the run's notices so far
    QTimer* m_timer = nullptr;
    qint64 m_startMs = 0;
    qint64 m_nextSnapshotMs = 0; // no new snapshot of the run before this
    bool m_snapshotDue = false;  // records arrived since the last snapshot
    bool m_shown = false;        // the run's first snapshot went out
    bool m_ownsView = false;     // false once a file was opened during the run
    bool m_active = false;
};

} // namespace attnscope::ui
