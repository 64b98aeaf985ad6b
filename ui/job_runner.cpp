// SPDX-License-Identifier: MIT
#include "job_runner.h"

namespace attnscope::ui {

void JobControl::progress(double fraction) {
    const auto now = std::chrono::steady_clock::now();
    if (!m_report || now - m_lastReport < std::chrono::milliseconds(50)) return;
    m_lastReport = now;
    m_report(fraction);
}

JobRunner::~JobRunner() {
    // Jobs hold only shared pointers to what they read and write; they must end before the program.
    for (auto& [thread, job] : m_jobs)
        job.control->m_cancel = true;
    for (auto& [thread, job] : std::exchange(m_jobs, {})) {
        thread->wait();
        delete thread;
    }
}

void JobRunner::cancel(const std::string& kind) {
    for (auto& [thread, job] : m_jobs)
        if (job.kind == kind) job.control->m_cancel = true;
}

bool JobRunner::running(const std::string& kind) const {
    const auto current = m_generation.find(kind);
    for (const auto& [thread, job] : m_jobs)
        if (job.kind == kind && current != m_generation.end() && job.generation == current->second)
            return true;
    return false;
}

void JobRunner::forget(QThread* thread) {
    m_jobs.erase(thread);
    thread->deleteLater();
}

} // namespace attnscope::ui
