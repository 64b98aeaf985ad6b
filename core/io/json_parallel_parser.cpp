// SPDX-License-Identifier: MIT
#include "core/io/json_parallel_parser.h"

#include "core/io/json_text.h"

#include <cstring>

namespace attnscope::json {

ParallelEventParser::ParallelEventParser(unsigned threads, std::size_t usualChunkBytes)
    : m_usualBytes(usualChunkBytes + 1 + kPadding) {
    m_workers.reserve(threads);
    for (unsigned i = 0; i < threads; ++i)
        m_workers.push_back(std::make_unique<Worker>());
    for (auto& w : m_workers)
        w->thread = std::thread([this, worker = w.get()] { run(*worker); });
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

void ParallelEventParser::submit(const char* data, std::size_t from, std::size_t to, std::uint64_t offset,
                                 std::uint32_t chunkIndex) {
    Chunk chunk;
    {
        std::unique_lock lock(m_mutex);
        m_room.wait(lock, [&] { return m_queue.size() < queueLimit(); });
        // After an error nothing more is read: wait for the chunks in flight, then report the
        // earliest error, as a single reader would have stopped there.
        if (!m_errors.empty()) {
            m_idle.wait(lock, [&] { return m_pending == 0; });
            throw LoadError(m_errors.begin()->second);
        }
        // Any spare fits a usual chunk; an unusually long one takes a buffer of its own.
        if (!m_spare.empty()) {
            chunk.buffer = std::move(m_spare.back());
            m_spare.pop_back();
        }
    }
    if (chunk.buffer.size() < to - from + 1 + kPadding)
        chunk.buffer = BigBuffer(std::max(to - from + 1 + kPadding, m_usualBytes));
    std::memcpy(chunk.buffer.data() + 1, data + from, to - from);
    chunk.length = to - from;
    chunk.offset = offset + from - 1; // file offset of buffer byte 0
    chunk.index = chunkIndex;
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(chunk));
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
            worker.parser.parseChunk(chunk.buffer.data(), 1, 1 + chunk.length, chunk.buffer.size(),
                                     chunk.offset, chunk.index);
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
