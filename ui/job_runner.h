// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace attnscope::ui {

// What a job sees of its runner: whether to stop, and where to report progress.
class JobControl {
public:
    bool cancelled() const { return m_cancel.load(); }
    // The flag a loader polls (LoadOptions::cancel).
    const std::atomic<bool>* cancelFlag() const { return &m_cancel; }
    // A fraction done, from the worker thread; throttled to 20 a second on its way to the UI thread.
    void progress(double fraction);

private:
    friend class JobRunner;
    std::atomic<bool> m_cancel{false};
    std::function<void(double)> m_report; // set by the runner: posts to the UI thread
    std::chrono::steady_clock::time_point m_lastReport{};
};

// The one way the UI runs background work, after hotspot's job tracker: a job runs on a worker
// thread of its own and hands its result back on the UI thread; each job has a kind ("load",
// "analysis"), and starting a job makes every older job of its kind stale, so a slow result never
// overwrites a newer one (a generation counter per kind). A job that throws reports the message; one
// that was cancelled reports that. Destroying the runner cancels the jobs under way and waits for
// them; their results are dropped.
class JobRunner : public QObject {
    Q_OBJECT
public:
    // What a job's callbacks are told on the UI thread (only while it is the newest of its kind).
    template <class Result> struct Callbacks {
        std::function<void(Result)> done;
        std::function<void(QString)> failed = {};
        std::function<void()> cancelled = {};
        std::function<void(double)> progress = {};
    };

    explicit JobRunner(QObject* parent = nullptr) : QObject(parent) {}
    ~JobRunner() override;

    // Runs work(control) on a worker thread; then, on this object's thread, done(result), failed(why)
    // or cancelled() — unless a newer job of the same kind started meanwhile.
    template <class Result>
    void start(const std::string& kind, std::function<Result(JobControl&)> work,
               Callbacks<Result> callbacks) {
        const int generation = ++m_generation[kind];
        auto control = std::make_shared<JobControl>();
        auto result = std::make_shared<Result>();
        auto error = std::make_shared<QString>();
        if (callbacks.progress)
            control->m_report = [this, kind, generation, report = callbacks.progress](double f) {
                QMetaObject::invokeMethod(
                    this,
                    [this, kind, generation, report, f] {
                        if (generation == m_generation[kind]) report(f);
                    },
                    Qt::QueuedConnection);
            };
        QThread* thread = QThread::create([work = std::move(work), control, result, error] {
            try {
                *result = work(*control);
            } catch (const std::exception& e) {
                *error = QString::fromUtf8(e.what());
            }
        });
        thread->setObjectName(QString::fromStdString(kind)); // the worker's name, as tools show it
        m_jobs[thread] = {kind, generation, control};
        connect(thread, &QThread::finished, this,
                [this, thread, kind, generation, control, result, error, callbacks = std::move(callbacks)] {
                    forget(thread);
                    if (generation != m_generation[kind]) return; // a newer job of this kind runs
                    if (control->cancelled()) {
                        if (callbacks.cancelled) callbacks.cancelled();
                    } else if (!error->isEmpty()) {
                        if (callbacks.failed) callbacks.failed(*error);
                    } else {
                        callbacks.done(std::move(*result));
                    }
                });
        thread->start(QThread::LowPriority);
    }
    // The same for work that needs neither cancellation nor progress.
    template <class Result>
    void start(const std::string& kind, std::function<Result()> work, std::function<void(Result)> done,
               std::function<void(QString)> failed = {}) {
        start<Result>(
            kind, [work = std::move(work)](JobControl&) { return work(); },
            Callbacks<Result>{std::move(done), std::move(failed)});
    }

    // Asks the jobs of this kind under way to stop; they report cancelled() when they do.
    void cancel(const std::string& kind);
    // Makes the jobs of this kind under way stale: their results will be dropped.
    void invalidate(const std::string& kind) { ++m_generation[kind]; }
    // Whether a job of this kind whose result would still be used is under way.
    bool running(const std::string& kind) const;

private:
    struct Job {
        std::string kind;
        int generation = 0;
        std::shared_ptr<JobControl> control;
    };
    void forget(QThread* thread);
    std::map<std::string, int> m_generation;
    std::map<QThread*, Job> m_jobs; // under way
};

} // namespace attnscope::ui
