// SPDX-License-Identifier: MIT
#include "job_runner.h"

namespace attnscope::ui {

JobRunner::~JobRunner() {
    // Jobs hold only shared pointers to what they read and write; they must end before the program.
    for (auto& [thread, job] : std::exchange(m_jobs, {})) {
        thread->wait();
        delete thread;
    }
}

bool JobRunner::running(const std::string& kind) const {
    const auto current = m_generation.find(kind);
    for (const auto& [thread, job] : m_jobs)
        if (job.first == kind && current != m_generation.end() && job.second == current->second) return true;
    return false;
}

void JobRunner::forget(QThread* thread) {
    m_jobs.erase(thread);
    thread->deleteLater();
}

} // namespace attnscope::ui
