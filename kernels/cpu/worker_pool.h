// SPDX-License-Identifier: MIT
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace attnscope::kernels {

// A fixed set of worker threads that split a range of items between them, for the CPU kernels:
// worker w always takes the w-th contiguous share, so each worker's part of a kernel is one
// timed span on its own track. run() returns when every worker has finished its share.
class WorkerPool {
public:
    explicit WorkerPool(unsigned workers = std::thread::hardware_concurrency());
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    unsigned size() const { return unsigned(m_threads.size()); }
    // fn(worker, begin, end) for each worker's share of [0, items); workers with no share are not called.
    void run(std::size_t items, const std::function<void(unsigned, std::size_t, std::size_t)>& fn);

private:
    void loop(unsigned worker);

    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_start, m_done;
    const std::function<void(unsigned, std::size_t, std::size_t)>* m_fn = nullptr;
    std::size_t m_items = 0;
    std::size_t m_generation = 0;
    unsigned m_pending = 0;
    bool m_stop = false;
};

} // namespace attnscope::kernels
