// SPDX-License-Identifier: MIT
#pragma once

// The JSON reader's parallel driver: chunks of the traceEvents array go to worker threads, each
// parsing into a builder of its own; the builders are merged in file order at the end, so the trace
// is the same as a single-threaded load.
#include "core/io/json_event_parser.h"
#include "core/io/load_error.h"
#include "core/model/block_arena.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace attnscope::json {

// Parses chunks on worker threads, each into a builder of its own, merged at the end. The reading
// thread keeps reading and cutting while they parse.
class ParallelEventParser {
public:
    // Chunks are usually at most `usualChunkBytes`; every buffer is made at least that big, so any
    // spare one fits the next chunk the reader reads.
    ParallelEventParser(unsigned threads, std::size_t usualChunkBytes);

    ~ParallelEventParser();

    // A buffer of at least `bytes` for the reader to fill: a spare one that fits (the workers hand
    // theirs back) or a new one.
    BigBuffer buffer(std::size_t bytes);
    // Hands the buffer to a worker to parse its bytes [from, to) (byte 0 is at file offset `offset`;
    // the byte before `from` and kPadding from `to` are the worker's to use); nothing is copied.
    // Waits while enough chunks are already queued.
    void submit(BigBuffer buffer, std::size_t from, std::size_t to, std::uint64_t offset,
                std::uint32_t chunkIndex);

    // Waits for every chunk, merges what the workers built into main, and throws the error of the
    // earliest chunk that had one, as a single reader would have.
    void finishInto(TraceBuilder& main, bool& kineto);

    // Buffers kept for the next chunks: never more than the queue and the workers held at once, as
    // every spare fits a usual chunk (a spare too small once stayed forever and another was made).
    std::size_t spareBuffers();
    std::size_t queueLimit() const { return 2 * m_workers.size(); }

private:
    struct Chunk {
        BigBuffer buffer;
        std::size_t from = 0, to = 0;
        std::uint64_t offset = 0;
        std::uint32_t index = 0;
    };
    struct Worker {
        TraceBuilder builder;
        EventParser parser{builder};
        std::thread thread;
    };

    void run(Worker& worker);

    std::vector<std::unique_ptr<Worker>> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_room, m_idle;
    std::deque<Chunk> m_queue;
    std::vector<BigBuffer> m_spare;
    std::size_t m_usualBytes;
    std::map<std::uint32_t, LoadError> m_errors;
    std::size_t m_pending = 0;
    bool m_stop = false;
};

} // namespace attnscope::json
