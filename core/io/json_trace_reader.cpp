// SPDX-License-Identifier: MIT
// Streaming reader for Kineto / Chrome trace JSON. The file passes through one reused buffer:
// the top-level object is walked by hand, and the traceEvents array is cut into chunks of a few
// MB that simdjson On-Demand parses in place (one parser reused over ~4 MB chunks measured 3–6×
// faster than over the whole file, whose index buffers would be faulted in fresh). On the reading
// thread a chunk ends at its last newline (EventParser::parseOpenChunk); chunks for worker threads
// (ParallelEventParser, large traces) end at exact element boundaries found by JsonElementScanner.
#include "core/io/json_event_parser.h"
#include "core/io/json_parallel_parser.h"
#include "core/io/json_scanner.h"
#include "core/io/json_text.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_loader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

namespace attnscope {

namespace {

using namespace json;

class JsonTraceReader {
public:
    JsonTraceReader(ByteSource& source, const LoadOptions& options)
        : m_source(source), m_options(options), m_readBytes(std::max<std::size_t>(options.readBytes, 4096)),
          m_buffer(2 * m_readBytes + kPadding) {
        m_capacity = m_buffer.size() - kPadding;
        m_events.reserve(m_capacity);
    }

    std::shared_ptr<const Trace> read(const std::string& path) {
        m_b.info().path = path;
        fill(m_pos);
        skipSpace();
        if (m_pos == m_end) throw LoadError("the file is empty: no JSON trace in it");
        const char first = buffer()[m_pos];
        if (first == '[') {
            ++m_pos;
            readEventArray();
        } else if (first == '{') {
            ++m_pos;
            readTopLevelObject();
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(first));
            throw LoadError(std::string("not a JSON trace: expected '{' or '[' but found byte ") + hex,
                            offsetOf(m_pos));
        }
        if (const std::string cut = m_source.cutShort(); !cut.empty()) m_b.warn(cut);
        return finish();
    }

private:
    char* buffer() const { return m_buffer.data(); }
    std::uint64_t offsetOf(std::size_t index) const { return m_shift + index; }

    // Moves [keepFrom, end) to the front of the buffer and reads more after it. Returns how far
    // the kept bytes moved, so callers can rebase offsets they hold.
    std::size_t fill(std::size_t keepFrom) {
        const std::size_t delta = keepFrom - 1;
        const std::size_t kept = m_end - keepFrom;
        if (delta) {
            std::memmove(buffer() + 1, buffer() + keepFrom, kept);
            m_shift += delta;
            m_pos -= std::min(m_pos, delta);
            m_end = 1 + kept;
        }
        if (m_eof) return delta;
        if (kept >= kMaxElementBytes)
            throw LoadError("a single value is larger than " + std::to_string(kMaxElementBytes >> 20) +
                                " MiB; refusing to hold it in memory",
                            offsetOf(1));
        if (m_capacity - m_end < m_readBytes) {
            BigBuffer bigger(std::max(m_buffer.size() * 2, m_end + m_readBytes + kPadding));
            std::memcpy(bigger.data(), buffer(), m_end);
            m_buffer = std::move(bigger);
            m_capacity = m_buffer.size() - kPadding;
        }
        const std::size_t got =
            m_source.read(buffer() + m_end, std::min(m_capacity - m_end, 2 * m_readBytes));
        if (got == 0) m_eof = true;
        m_end += got;
        m_b.info().bytesRead += got;
        reportProgress();
        return delta;
    }

    void reportProgress() {
        if (m_options.cancel && m_options.cancel->load(std::memory_order_relaxed)) throw LoadCancelled();
        if (m_options.progress) m_options.progress(m_source.rawPosition(), m_source.rawSize());
    }

    // Makes at least one unread byte available unless at the end. Returns false at the end.
    bool more() {
        while (m_pos >= m_end) {
            if (m_eof) return false;
            fill(m_pos);
        }
        return true;
    }

    void skipSpace() {
        while (more() && isSpace(buffer()[m_pos]))
            ++m_pos;
    }

    std::string readKey() {
        // m_pos is at the opening quote.
        std::string key;
        ++m_pos;
        while (true) {
            if (!more())
                throw LoadError("the file ends inside a key of the top-level object", offsetOf(m_pos));
            const char c = buffer()[m_pos++];
            if (c == '"') return key;
            if (c == '\\') {
                if (!more())
                    throw LoadError("the file ends inside a key of the top-level object", offsetOf(m_pos));
                key.push_back(buffer()[m_pos++]);
                continue;
            }
            if (key.size() > 4096)
                throw LoadError("a top-level key is longer than 4096 bytes", offsetOf(m_pos));
            key.push_back(c);
        }
    }

    // Walks past one JSON value starting at m_pos; returns its text when keep is set.
    std::string skipValue(bool keep, const std::string& key) {
        JsonElementScanner scanner(true);
        std::size_t start = m_pos;
        std::size_t scanFrom = m_pos;
        while (true) {
            const auto r = scanner.scan(buffer(), scanFrom, m_end);
            if (r.lastElementEnd != JsonElementScanner::kNone) {
                std::string text =
                    keep ? std::string(buffer() + start, r.lastElementEnd - start) : std::string();
                m_pos = r.lastElementEnd;
                return text;
            }
            if (r.arrayEnd != JsonElementScanner::kNone)
                throw LoadError("expected a value for top-level key \"" + key + "\"", offsetOf(r.arrayEnd));
            if (m_eof)
                throw LoadError("the file ends inside the value of top-level key \"" + key +
                                    "\" (truncated file)",
                                offsetOf(m_end));
            const std::size_t keepFrom = keep ? start : m_end;
            const std::size_t scanned = m_end;
            const std::size_t delta = fill(keepFrom);
            start -= std::min(start, delta);
            scanFrom = scanned - delta;
        }
    }

    void readTopLevelObject() {
        bool sawEvents = false;
        try {
            readTopLevelEntries(sawEvents);
        } catch (const LoadError& e) {
            // Once events are in, a broken tail costs only what is in it (usually metadata).
            if (!sawEvents) throw;
            m_b.warn(std::string("the rest of the file after traceEvents could not be read: ") + e.what());
        }
        if (!sawEvents) throw LoadError("not a trace: the top-level object has no \"traceEvents\" array");
    }

    void readTopLevelEntries(bool& sawEvents) {
        while (true) {
            skipSpace();
            if (!more()) {
                m_b.warn("the file ends before the top-level object is closed (truncated file)",
                         offsetOf(m_pos));
                break;
            }
            char c = buffer()[m_pos];
            if (c == '}') {
                ++m_pos;
                break;
            }
            if (c == ',') {
                ++m_pos;
                continue;
            }
            if (c != '"')
                throw LoadError(std::string("expected a key in the top-level object, found '") + c + "'",
                                offsetOf(m_pos));
            const std::string key = readKey();
            skipSpace();
            if (!more() || buffer()[m_pos] != ':')
                throw LoadError("expected ':' after top-level key \"" + key + "\"", offsetOf(m_pos));
            ++m_pos;
            skipSpace();
            if (!more())
                throw LoadError("the file ends after top-level key \"" + key + "\"", offsetOf(m_pos));
            if (key == "traceEvents") {
                if (buffer()[m_pos] != '[') {
                    const std::uint64_t at = offsetOf(m_pos);
                    const std::string value = skipValue(true, key);
                    throw LoadError("\"traceEvents\" is not an array (it is " + describeValue(value) + ")",
                                    at);
                }
                ++m_pos;
                const bool complete = readEventArray();
                sawEvents = true;
                if (!complete) return; // truncated inside the array: its warning says so
                continue;
            }
            const bool wanted = key == "deviceProperties" || key == "distributedInfo" ||
                                key == "baseTimeNanoseconds" || key == "schemaVersion" ||
                                key == "displayTimeUnit" || key == "host_name" || key == "attnscopeNotes";
            const std::uint64_t at = offsetOf(m_pos);
            const std::string value = skipValue(wanted, key);
            if (wanted) readTopLevelValue(key, value, at);
        }
        skipSpace();
        if (more()) m_b.warn("bytes after the end of the top-level JSON object ignored", offsetOf(m_pos));
    }

    std::string describeValue(const std::string& text) {
        simdjson::dom::element e;
        if (m_dom.parse(text).get(e)) return "not valid JSON";
        switch (e.type()) {
        case simdjson::dom::element_type::ARRAY:
            return "an array";
        case simdjson::dom::element_type::OBJECT:
            return "an object";
        case simdjson::dom::element_type::STRING:
            return "a string";
        case simdjson::dom::element_type::BOOL:
            return "a boolean";
        case simdjson::dom::element_type::NULL_VALUE:
            return "null";
        default:
            return "a number";
        }
    }

    void readTopLevelValue(const std::string& key, const std::string& text, std::uint64_t at) {
        simdjson::dom::element e;
        if (auto err = m_dom.parse(text).get(e)) {
            m_b.warn("top-level \"" + key + "\" is not valid JSON (" + simdjson::error_message(err) +
                         "); ignored",
                     at);
            return;
        }
        TraceInfo& info = m_b.info();
        if (key == "attnscopeNotes") { // read by the notes' own reader, which says what is wrong in it
            info.notesJson = text;
            return;
        }
        if (key == "baseTimeNanoseconds" || key == "schemaVersion") {
            std::optional<std::int64_t> v;
            if (e.is_int64())
                v = e.get_int64().value_unsafe();
            else if (e.is_uint64())
                v = std::nullopt;
            else if (e.is_string())
                v = parseSigned(e.get_string().value_unsafe());
            if (!v) {
                m_b.warn("top-level \"" + key + "\" is not an integer; ignored", at);
                return;
            }
            (key == "schemaVersion" ? info.schemaVersion : info.baseTimeNs) = *v;
        } else if (key == "displayTimeUnit" || key == "host_name") {
            if (e.is_string())
                (key == "host_name" ? info.hostName : info.displayTimeUnit) =
                    std::string(e.get_string().value_unsafe());
        } else if (key == "distributedInfo") {
            if (!e.is_object()) {
                m_b.warn("top-level \"distributedInfo\" is not an object; ignored", at);
                return;
            }
            DistributedInfo d;
            if (auto r = e["rank"]; !r.error() && r.is_int64()) d.rank = r.get_int64().value_unsafe();
            if (auto w = e["world_size"]; !w.error() && w.is_int64())
                d.worldSize = w.get_int64().value_unsafe();
            if (auto b = e["backend"]; !b.error() && b.is_string())
                d.backend = std::string(b.get_string().value_unsafe());
            m_b.setDistributed(std::move(d));
        } else if (key == "deviceProperties") {
            simdjson::dom::array entries;
            if (e.get_array().get(entries)) {
                m_b.warn("top-level \"deviceProperties\" is not an array; ignored", at);
                return;
            }
            for (simdjson::dom::element entry : entries) {
                if (!entry.is_object()) continue;
                DeviceInfo d;
                auto integer = [&](const char* name) -> std::int64_t {
                    auto v = entry[name];
                    return !v.error() && v.is_int64() ? v.get_int64().value_unsafe() : 0;
                };
                if (auto v = entry["id"]; !v.error() && v.is_int64()) d.id = v.get_int64().value_unsafe();
                if (auto v = entry["name"]; !v.error() && v.is_string())
                    d.name = std::string(v.get_string().value_unsafe());
                d.computeMajor = static_cast<int>(integer("computeMajor"));
                d.computeMinor = static_cast<int>(integer("computeMinor"));
                d.numSms = static_cast<int>(integer("numSms"));
                if (auto v = entry["totalGlobalMem"]; !v.error() && v.is_uint64())
                    d.totalGlobalMem = v.get_uint64().value_unsafe();
                d.json = simdjson::minify(entry);
                m_b.addDevice(std::move(d));
            }
        }
    }

    // Small traces never start threads; larger ones hand chunks to workers after the first few.
    void maybeStartWorkers() {
        if (m_parallel || m_workersRefused || m_chunks < kSerialChunks) return;
        unsigned threads = m_options.threads ? m_options.threads : std::thread::hardware_concurrency();
        if (threads <= 1) {
            m_workersRefused = true;
            return;
        }
        threads = std::min(threads, 8u);
        m_parallel = std::make_unique<ParallelEventParser>(threads, 2 * m_readBytes);
        m_b.setThreads(threads);
    }

    // Parses complete events in the buffer, here or on the worker threads.
    void parseEvents(std::size_t from, std::size_t to) {
        const std::uint32_t index = m_chunks++;
        if (m_parallel) {
            // The filled buffer goes to a worker as it is, and reading goes on in another that takes
            // the bytes after the chunk at the same places (copying the chunk instead cost a tenth
            // of the parallel load's CPU time).
            BigBuffer next = m_parallel->buffer(m_buffer.size());
            std::memcpy(next.data() + to, buffer() + to, m_end - to);
            BigBuffer filled = std::exchange(m_buffer, std::move(next));
            m_capacity = m_buffer.size() - kPadding;
            m_parallel->submit(std::move(filled), from, to, m_shift, index);
        } else
            m_events.parseChunk(buffer(), from, to, m_buffer.size() - (from - 1), m_shift, index);
    }

    // Reads events until the array's closing bracket; m_pos is just past the '['. Returns false
    // when the file ends first (a truncated trace: what was complete is kept).
    bool readEventArray() {
        JsonElementScanner scanner;
        std::size_t chunkStart = m_pos;
        std::size_t scanFrom = m_pos;
        bool cutAtNewlines = true;
        while (true) {
            maybeStartWorkers();
            // Pretty-printed files (what libkineto writes) are cut after their last newline when
            // parsed on this thread; single-line files and elements longer than the data take the
            // byte scanner, which follows an element across any number of reads.
            if (cutAtNewlines && !m_parallel && !m_eof && m_end > chunkStart) {
                const void* nl = memrchr(buffer() + chunkStart, '\n', m_end - chunkStart);
                if (nl) {
                    const std::size_t cut = std::size_t(static_cast<const char*>(nl) - buffer()) + 1;
                    const auto r = m_events.parseOpenChunk(
                        buffer(), chunkStart, cut, m_buffer.size() - (chunkStart - 1), m_shift, m_chunks++);
                    if (r.kind == EventParser::OpenChunk::ArrayClosed) {
                        JsonElementScanner fresh;
                        const std::size_t end = fresh.scan(buffer(), chunkStart, m_end).arrayEnd;
                        if (end == JsonElementScanner::kNone || buffer()[end] != ']')
                            throw LoadError("the traceEvents array ends in a way the reader cannot follow",
                                            offsetOf(chunkStart));
                        m_pos = end + 1;
                        return true;
                    }
                    if (r.kind != EventParser::OpenChunk::NoProgress) {
                        chunkStart = r.kind == EventParser::OpenChunk::Complete ? cut : r.resumeAt;
                        const std::size_t delta = fill(chunkStart);
                        chunkStart -= delta;
                        scanner = JsonElementScanner();
                        scanFrom = chunkStart;
                        continue;
                    }
                    cutAtNewlines = false;
                    scanner = JsonElementScanner();
                    scanFrom = chunkStart;
                }
            }
            const auto r = scanner.scan(buffer(), scanFrom, m_end);
            if (r.lastElementEnd != JsonElementScanner::kNone) {
                parseEvents(chunkStart, r.lastElementEnd);
                chunkStart = r.lastElementEnd;
                cutAtNewlines = true;
            }
            if (r.arrayEnd != JsonElementScanner::kNone) {
                if (buffer()[r.arrayEnd] == '}')
                    throw LoadError("expected ']' to close the traceEvents array, found '}'",
                                    offsetOf(r.arrayEnd));
                m_pos = r.arrayEnd + 1;
                return true;
            }
            if (scanner.idle() && r.pendingStart == JsonElementScanner::kNone)
                chunkStart = m_end;
            else if (r.pendingStart != JsonElementScanner::kNone)
                chunkStart = r.pendingStart;
            if (m_eof) {
                m_b.warn("the file ends inside the traceEvents array (truncated trace); the complete events "
                         "before this point were loaded",
                         offsetOf(chunkStart));
                m_pos = m_end;
                return false;
            }
            const std::size_t scanned = m_end;
            const std::size_t delta = fill(chunkStart);
            chunkStart -= delta;
            scanFrom = scanned - delta;
        }
    }

    std::shared_ptr<const Trace> finish() {
        bool kineto = m_events.sawKinetoCategory();
        if (m_parallel) {
            m_parallel->finishInto(m_b, kineto);
            m_parallel.reset(); // its parsers, buffers and threads are done: free them before the build
        }
        m_buffer = BigBuffer(); // the same for the reading buffer
        TraceInfo& info = m_b.info();
        info.format = kineto || info.schemaVersion || info.baseTimeNs ? kKinetoJsonFormat : kChromeJsonFormat;
        // Current libkineto writes each ts relative to baseTimeNanoseconds (an epoch in ns at the top
        // level); older versions wrote absolute epoch µs.
        if (info.baseTimeNs) {
            if (auto minTime = m_b.minTime(); minTime && *minTime < kRelativeTimeLimit)
                m_b.setTimeOffset(*info.baseTimeNs);
        }
        return m_b.finish();
    }

    ByteSource& m_source;
    const LoadOptions& m_options;
    std::size_t m_readBytes;
    TraceBuilder m_b;
    BigBuffer m_buffer;
    std::size_t m_capacity = 0;
    std::size_t m_pos = 1; // byte 0 stays free for the '[' written before a chunk
    std::size_t m_end = 1;
    std::uint64_t m_shift = static_cast<std::uint64_t>(-1); // file offset of buffer index 0
    bool m_eof = false;
    simdjson::dom::parser m_dom; // small top-level values
    EventParser m_events{m_b};
    std::unique_ptr<ParallelEventParser> m_parallel;
    std::uint32_t m_chunks = 0;
    bool m_workersRefused = false;
};

} // namespace

std::shared_ptr<const Trace> readJsonTrace(ByteSource& source, const std::string& path,
                                           const LoadOptions& options) {
    JsonTraceReader reader(source, options);
    try {
        return reader.read(path);
    } catch (const LoadError& e) {
        // A JSON error at the end of a cut gzip stream is the cut's, not the JSON's.
        if (const std::string cut = source.cutShort(); !cut.empty())
            throw LoadError(std::string(e.what()) + ": " + cut);
        throw;
    }
}

} // namespace attnscope
