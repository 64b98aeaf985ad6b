// SPDX-License-Identifier: MIT
#pragma once

#include "core/trace.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>

namespace attnscope::ui {

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
    void loaded(std::shared_ptr<const attnscope::Trace> trace, double seconds);
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
