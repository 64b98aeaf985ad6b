// SPDX-License-Identifier: MIT
#include "worker_pool.h"

#include <algorithm>

namespace attnscope::kernels {

WorkerPool::WorkerPool(unsigned workers) {
    workers = std::max(1u, workers);
    for (unsigned w = 0; w < workers; ++w)
        m_threads.emplace_back([this, w] { loop(w); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_start.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

void WorkerPool::run(std::size_t items, const std::function<void(unsigned, std::size_t, std::size_t)>& fn) {
    std::unique_lock lock(m_mutex);
    m_fn = &fn;
    m_items = items;
    m_pending = size();
    ++m_generation;
    m_start.notify_all();
    m_done.wait(lock, [this] { return m_pending == 0; });
    m_fn = nullptr;
}

namespace {

// A new thread starts with a copy of its creator's vector registers. If the creator left the
// upper halves of the AVX registers in use (Qt's start-up does), every SSE instruction of the
// new thread pays for mixing the two encodings; the exp() calls of the softmax ran 20× slower
// in the window than on the command line. Clearing them once at the start sets that right.
__attribute__((target("avx"))) void clearUpperAvx() {
    __builtin_ia32_vzeroupper();
}

} // namespace

void WorkerPool::loop(unsigned worker) {
    if (__builtin_cpu_supports("avx")) clearUpperAvx();
    std::size_t seen = 0;
    for (;;) {
        std::unique_lock lock(m_mutex);
        m_start.wait(lock, [&] { return m_stop || m_generation != seen; });
        if (m_stop) return;
        seen = m_generation;
        const auto* fn = m_fn;
        const std::size_t items = m_items, workers = size();
        lock.unlock();
        const std::size_t begin = items * worker / workers, end = items * (worker + 1) / workers;
        if (begin < end) (*fn)(worker, begin, end);
        lock.lock();
        if (--m_pending == 0) m_done.notify_one();
    }
}

} // namespace attnscope::kernels
