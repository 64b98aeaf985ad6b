// SPDX-License-Identifier: MIT
#pragma once

#include "core/summary.h"
#include "core/timeline_index.h"
#include "core/trace.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>

namespace attnscope::ui {

// A loaded trace with what the views need, all made on the worker thread.
struct LoadedTrace {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const TimelineIndex> index;
    TraceSummary summary;    // all kernels
    double loadSeconds = 0;  // reading the file
    double totalSeconds = 0; // and indexing it
};

// Loads one trace on a worker thread. Progress is throttled and delivered queued on the UI thread;
// the finished trace arrives as an immutable snapshot. Deleting the job cancels and joins.
class TraceLoadJob : public QObject {
    Q_OBJECT
public:
    // path empty and bytes given: load from memory (the embedded sample).
    TraceLoadJob(QString path, QByteArray bytes, QString displayName, QObject* parent = nullptr);
    ~TraceLoadJob() override;

    void start();
    void cancel() { m_cancel = true; }
    QString displayName() const { return m_displayName; }

Q_SIGNALS:
    void progress(double fraction);
    void loaded(std::shared_ptr<const attnscope::ui::LoadedTrace> loaded);
    void failed(QString message);
    void cancelled();

private:
    QString m_path;
    QByteArray m_bytes;
    QString m_displayName;
    std::atomic<bool> m_cancel{false};
    std::thread m_thread;
};

} // namespace attnscope::ui
