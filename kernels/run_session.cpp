// SPDX-License-Identifier: MIT
// The run's thread: the backend it runs behind RunHooks, and the records, notices and errors handed
// to whoever watches the run.
#include "kernels/run_session.h"

#include "kernels/cpu/blas.h"
#include "kernels/cpu_backend.h"
#include "kernels/cuda_backend.h"
#include "kernels/torch_backend.h"

#include <algorithm>

namespace attnscope::kernels {

void prepareRuns() {
    chooseBlasKernels();
    pointNvtxAtCupti();
}

RunSession::RunSession(RunConfig config) : m_config(std::move(config)) {
    m_workers = m_config.threads ? m_config.threads : std::max(1u, std::thread::hardware_concurrency());
}

RunSession::~RunSession() {
    stop();
    wait();
}

void RunSession::start() {
    if (m_thread.joinable()) return; // one run per session
    m_thread = std::thread([this] {
        try {
            run();
        } catch (const std::exception& e) {
            // Out of memory at the shape, mostly; the viewer and the command line say so.
            std::lock_guard lock(m_mutex);
            m_error = e.what();
        }
        m_finished = true;
    });
}

std::string RunSession::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void RunSession::wait() {
    if (m_thread.joinable()) m_thread.join();
}

std::string RunSession::deviceName() const {
    std::lock_guard lock(m_mutex);
    return m_deviceName;
}

std::vector<std::string> RunSession::takeNotices() {
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    out.swap(m_notices);
    return out;
}

std::map<std::string, std::string> RunSession::unavailable() const {
    std::lock_guard lock(m_mutex);
    return m_unavailable;
}

std::vector<RunEvent> RunSession::takeEvents() {
    std::lock_guard lock(m_mutex);
    std::vector<RunEvent> out;
    out.swap(m_queue);
    return out;
}

RunHooks RunSession::hooks() {
    RunHooks hooks;
    hooks.events = [this](std::vector<RunEvent>&& batch) {
        std::lock_guard lock(m_mutex);
        m_recorded += batch.size();
        m_queue.insert(m_queue.end(), std::make_move_iterator(batch.begin()),
                       std::make_move_iterator(batch.end()));
    };
    hooks.notice = [this](const std::string& text) {
        std::lock_guard lock(m_mutex);
        m_notices.push_back(text);
    };
    hooks.dropped = [this](std::uint64_t total) { m_dropped = total; };
    hooks.stopRequested = [this] { return m_stop.load(); };
    hooks.unavailable = [this](const std::string& impl, const std::string& reason) {
        std::lock_guard lock(m_mutex);
        m_unavailable[impl] = reason;
        m_notices.push_back(impl + ": not available here: " + reason);
    };
    hooks.device = [this](const std::string& name) {
        std::lock_guard lock(m_mutex);
        m_deviceName = name;
    };
    return hooks;
}

void RunSession::run() {
    const RunHooks h = hooks();
    if (m_config.backend == Backend::Cuda) h.device(probeCuda().deviceName);
    const std::string why = m_config.backend == Backend::Cpu    ? runCpu(m_config, m_workers, h)
                            : m_config.backend == Backend::Cuda ? runCuda(m_config, h)
                                                                : runTorch(m_config, h);
    if (!why.empty()) {
        std::lock_guard lock(m_mutex);
        m_error = why;
    }
}

} // namespace attnscope::kernels
