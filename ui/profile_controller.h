// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/trace.h"
#include "kernels/program_profile.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

class QTimer;

namespace attnscope::ui {

class JobRunner;
class ProgramPanel;

// A user's program profiled live (the Program panel, or `attnscope profile -- COMMAND` with a display):
// starts it (after this machine's CPU roofs are measured, the first time only: measured beside the
// program they would come out low), takes its finished steps ~10 times a second, and turns the steps so
// far into a document on a worker — the processes' steps joined, several processes as the ranks of one
// job, the analysis with them — so the window gets each step's calls and findings as they come and the
// UI thread only shows them. The panel shows the program's output, and how it ended as one status line.
class ProfileController : public QObject {
    Q_OBJECT
public:
    ProfileController(ProgramPanel* panel, QObject* parent = nullptr);
    ~ProfileController() override;

    // Returns why it cannot start ("" when it starts).
    QString start(kernels::ProfileConfig config);
    void stop();
    // From start until the window has the program's last steps.
    bool running() const { return m_active; }
    // A file opened meanwhile takes the view: the program goes on, its steps are no longer shown.
    void releaseView() { m_ownsView = false; }
    QString name() const { return m_name; } // "python train.py"

Q_SIGNALS:
    // The program's steps so far, as a document with its analysis; first: the first one shown.
    void snapshot(std::shared_ptr<const Document> document, bool first);
    void status(const QString& text);
    // The program could not start: why. (How a started one ended is a status, whatever it was.)
    void failed(const QString& why);
    void finished();

private:
    void launch();
    void tick();
    void build(bool complete);
    void end();

    ProgramPanel* m_panel;
    JobRunner* m_jobs;
    QTimer* m_timer;
    std::unique_ptr<kernels::ProfileConfig> m_config;
    std::unique_ptr<kernels::ProgramProfile> m_profile;
    std::vector<kernels::ProfiledStep> m_pending; // taken, not yet in a snapshot
    std::size_t m_stepCount = 0;
    QString stepCounts() const;
    std::shared_ptr<kernels::ProfileSnapshots> m_snapshots;
    QString m_name;
    QStringList m_notices;
    bool m_building = false;
    bool m_completeShown = false; // the snapshot of every step, after the program ended, went out
    bool m_shown = false;
    bool m_ownsView = false;
    bool m_active = false;
    bool m_stopRequested = false; // Stop was pressed: the end is the user's, not the program's
};

} // namespace attnscope::ui
