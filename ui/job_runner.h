// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <QThread>

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace attnscope::ui {

// The one way the UI runs background work, after hotspot's job tracker: a job runs on a worker
// thread of its own and hands its result back on the UI thread; each job has a kind ("analysis",
// "load"), and starting a job makes every older job of its kind stale, so a slow result never
// overwrites a newer one (a generation counter per kind). A job that throws reports the message.
// Destroying the runner waits for the jobs under way; their stale results are dropped.
class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject* parent = nullptr) : QObject(parent) {}
    ~JobRunner() override;

    // Runs work() on a worker thread, then done(result) on this object's thread — unless a newer job
    // of the same kind started meanwhile. failed(message) instead when work() throws.
    template <class Result>
    void start(const std::string& kind, std::function<Result()> work, std::function<void(Result)> done,
               std::function<void(QString)> failed = {}) {
        const int generation = ++m_generation[kind];
        auto result = std::make_shared<Result>();
        auto error = std::make_shared<QString>();
        QThread* thread = QThread::create([work = std::move(work), result, error] {
            try {
                *result = work();
            } catch (const std::exception& e) {
                *error = QString::fromUtf8(e.what());
            }
        });
        m_jobs[thread] = {kind, generation};
        connect(thread, &QThread::finished, this,
                [this, thread, kind, generation, result, error, done = std::move(done),
                 failed = std::move(failed)] {
                    forget(thread);
                    if (generation != m_generation[kind]) return; // a newer job of this kind runs
                    if (!error->isEmpty()) {
                        if (failed) failed(*error);
                    } else {
                        done(std::move(*result));
                    }
                });
        thread->start(QThread::LowPriority);
    }

    // Makes the jobs of this kind under way stale: their results will be dropped.
    void invalidate(const std::string& kind) { ++m_generation[kind]; }
    // Whether a job of this kind whose result would still be used is under way.
    bool running(const std::string& kind) const;

private:
    void forget(QThread* thread);
    std::map<std::string, int> m_generation;
    std::map<QThread*, std::pair<std::string, int>> m_jobs; // under way: kind and generation
};

} // namespace attnscope::ui
