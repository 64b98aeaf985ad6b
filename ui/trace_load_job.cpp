// SPDX-License-Identifier: MIT
#include "trace_load_job.h"

#include "core/trace_loader.h"

#include <QMetaObject>
#include <QPointer>

#include <chrono>

namespace attnscope::ui {

TraceLoadJob::TraceLoadJob(QString path, QByteArray bytes, QString displayName, QObject* parent)
    : QObject(parent), m_path(std::move(path)), m_bytes(std::move(bytes)),
      m_displayName(std::move(displayName)) {}

TraceLoadJob::~TraceLoadJob() {
    m_cancel = true;
    if (m_thread.joinable()) m_thread.join();
}

void TraceLoadJob::start() {
    QPointer<TraceLoadJob> self(this);
    m_thread = std::thread([this, self] {
        using clock = std::chrono::steady_clock;
        const auto t0 = clock::now();
        auto lastReport = t0;
        // Everything reaches the UI thread queued; the job may be gone by then, hence the QPointer.
        auto post = [self](auto fn) {
            QMetaObject::invokeMethod(
                self.data(),
                [self, fn] {
                    if (self) fn(self.data());
                },
                Qt::QueuedConnection);
        };
        LoadOptions options;
        options.cancel = &m_cancel;
        options.progress = [&](std::uint64_t done, std::uint64_t total) {
            const auto now = clock::now();
            if (total == 0 || now - lastReport < std::chrono::milliseconds(50)) return;
            lastReport = now;
            const double fraction = double(done) / double(total);
            post([fraction](TraceLoadJob* job) { Q_EMIT job->progress(fraction); });
        };
        try {
            std::shared_ptr<const Trace> trace;
            const std::string name = m_displayName.toStdString();
            if (m_path.isEmpty()) {
                auto source =
                    openMemorySource(std::string_view(m_bytes.constData(), std::size_t(m_bytes.size())));
                trace = readJsonTrace(*source, name, options);
            } else {
                trace = loadTraceFile(m_path.toStdString(), options);
            }
            auto loaded = std::make_shared<LoadedTrace>();
            loaded->loadSeconds = std::chrono::duration<double>(clock::now() - t0).count();
            loaded->trace = trace;
            loaded->index = std::make_shared<const TimelineIndex>(*trace);
            loaded->summary = summarize(*trace, 0);
            loaded->totalSeconds = std::chrono::duration<double>(clock::now() - t0).count();
            std::shared_ptr<const LoadedTrace> result = std::move(loaded);
            post([result](TraceLoadJob* job) { Q_EMIT job->loaded(result); });
        } catch (const LoadCancelled&) {
            post([](TraceLoadJob* job) { Q_EMIT job->cancelled(); });
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            post([message](TraceLoadJob* job) { Q_EMIT job->failed(message); });
        }
    });
}

} // namespace attnscope::ui
