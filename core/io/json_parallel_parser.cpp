// SPDX-License-Identifier: MIT
#include "core/io/json_parallel_parser.h"

#include "core/io/json_text.h"

#include <algorithm>

namespace attnscope::json {

ParallelEventParser::ParallelEventParser(unsigned threads, std::size_t usualChunkBytes)
    : m_usualBytes(usualChunkBytes + 1 + kPadding) {
    m_workers.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        m_workers.push_back(std::make_unique<Worker>());
    for (auto& w : m_workers) {
        w->parser.reserve(m_usualBytes);
        w->thread = std::thread([this, worker = w.get()] { run(*worker); });
    }
}

ParallelEventParser::~ParallelEventParser() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& w : m_workers)
        if (w->thread.joinable()) w->thread.join();
}

BigBuffer ParallelEventParser::buffer(std::size_t bytes) {
    BigBuffer b;
    {
        std::lock_guard lock(m_mutex);
        if (!m_spare.empty()) {
            b = std::move(m_spare.back());
            m_spare.pop_back();
        }
    }
    // Any spare fits a usual chunk; one too small for an unusually long chunk is let go, not kept.
    if (b.size() < bytes) b = BigBuffer(std::max(bytes, m_usualBytes));
    return b;
}

void ParallelEventParser::submit(BigBuffer buffer, std::size_t from, std::size_t to, std::uint64_t offset,
                                 std::uint32_t chunkIndex) {
    {
        std::unique_lock lock(m_mutex);
        m_room.wait(lock, [&] { return m_queue.size() < queueLimit(); });
        // After an error nothing more is read: wait for the chunks in flight, then report the
        // earliest error, as a single reader would have stopped there.
        if (!m_errors.empty()) {
            m_idle.wait(lock, [&] { return m_pending == 0; });
            throw LoadError(m_errors.begin()->second);
        }
        m_queue.push_back({std::move(buffer), from, to, offset, chunkIndex});
        ++m_pending;
    }
    m_wake.notify_one();
}

std::size_t ParallelEventParser::spareBuffers() {
    std::lock_guard lock(m_mutex);
    return m_spare.size();
}

void ParallelEventParser::finishInto(TraceBuilder& main, bool& kineto) {
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [&] { return m_pending == 0; });
    }
    if (!m_errors.empty()) throw LoadError(m_errors.begin()->second);
    std::vector<TraceBuilder*> builders;
    for (auto& w : m_workers) {
        builders.push_back(&w->builder);
        kineto = kineto || w->parser.sawKinetoCategory();
    }
    main.absorb(builders, unsigned(m_workers.size()));
}

void ParallelEventParser::run(Worker& worker) {
    while (true) {
        Chunk chunk;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_stop) return;
            chunk = std::move(m_queue.front());
            m_queue.pop_front();
        }
        m_room.notify_one();
        std::optional<LoadError> error;
        try {
            worker.parser.parseChunk(chunk.buffer.data(), chunk.from, chunk.to,
                                     chunk.buffer.size() - (chunk.from - 1), chunk.offset, chunk.index);
        } catch (const LoadError& e) {
            error = e;
        } catch (const std::exception& e) {
            error = LoadError(e.what());
        }
        {
            std::lock_guard lock(m_mutex);
            if (error) m_errors.emplace(chunk.index, *error);
            m_spare.push_back(std::move(chunk.buffer));
            if (--m_pending == 0) m_idle.notify_all();
        }
    }
}
} // namespace attnscope::json
