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

namespace attnscope {
struct Document;
class TraceAppender;
} // namespace attnscope

namespace attnscope::ui {

class JobRunner;
class RunPanel;

// A live run of attention workloads: starts the run session, drains its records ~30 times a second,
// and hands the window a document of the run so far (a snapshot), built on a worker from the batches
// of records it shares with the run (one build at a time: the next takes what arrived meanwhile), so
// the UI thread only shows it. The Run panel shows its state.
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
    // The run so far, analysed (roles, calls, verdicts, findings); first: its first snapshot, final: the
    // run has ended.
    void snapshot(std::shared_ptr<const Document> document, bool first, bool final);
    void status(const QString& text);
    void failed(const QString& error);
    // The run ended: finished, stopped or failed.
    void finished();

private:
    void launch(const QString& state); // the run itself, once the CPU's roofs are known
    void tick();
    void build(bool final);
    void end();
    QString countsText() const;

    RunPanel* m_panel;
    std::unique_ptr<kernels::RunSession> m_run;
    // Taken since the last snapshot; the snapshot appends them to the run's growing trace.
    std::vector<std::shared_ptr<const std::vector<kernels::RunEvent>>> m_batches;
    std::shared_ptr<TraceAppender> m_trace;
    std::uint64_t m_events = 0;
    QStringList m_notices; // the run's notices so far
    QTimer* m_timer = nullptr;
    JobRunner* m_jobs = nullptr;
    qint64 m_startMs = 0;
    bool m_launched = false;    // the run session started (after the roofs)
    bool m_snapshotDue = false; // records arrived since the last snapshot
    bool m_building = false;    // a snapshot is being built
    bool m_shown = false;       // the run's first snapshot went out
    bool m_ownsView = false;    // false once a file was opened during the run
    bool m_active = false;
};

} // namespace attnscope::ui
