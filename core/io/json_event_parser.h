// SPDX-License-Identifier: MIT
#pragma once

// One JSON trace event → typed fields into a TraceBuilder: the event parser of the JSON reader,
// on chunks of the traceEvents array that the reader (json_trace_reader.cpp) or the parallel
// driver (json_parallel_parser.h) cut.
#include "core/io/trace_builder.h"
#include "core/model/args_codec.h"
#include "core/model/string_pool.h"

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope::json {

namespace od = simdjson::ondemand;

// Parses chunks of the traceEvents array into one builder. One per thread: it owns the simdjson
// parsers and the caches of the hot path.
class EventParser {
public:
    explicit EventParser(TraceBuilder& builder) : m_b(builder) {}

    // Makes room in the simdjson parser for chunks of up to `bytes` at once. Without it the parser
    // grows to each chunk longer than any before, and every growth faults in its index afresh (most
    // of a load's page faults were the index's).
    void reserve(std::size_t bytes) {
        // Out of memory here is no error yet: the parser tries again for the chunk that needs it.
        [[maybe_unused]] const simdjson::error_code err = m_parser.allocate(bytes);
    }

    // Parses the complete elements in data[from, to) as one JSON array, in place: the bytes at
    // from - 1 and to are borrowed for the brackets and put back. data + from - 1 must have
    // `readable` bytes after it (SIMDJSON_PADDING beyond to). offset is the file offset of data[0].
    // Throws LoadError.
    void parseChunk(char* data, std::size_t from, std::size_t to, std::size_t readable, std::uint64_t offset,
                    std::uint32_t chunkIndex);

    // Whether a category only Kineto writes was seen.
    bool sawKinetoCategory() const { return m_kineto; }

    // What parseOpenChunk found.
    struct OpenChunk {
        enum Kind {
            Complete,    // every element up to the cut was read; the array goes on
            Incomplete,  // the last element runs past the cut: read again from resumeAt
            ArrayClosed, // the array ended before the cut; the elements before its end were read
            NoProgress,  // nothing could be read this way: cut with the byte scanner instead
        } kind;
        std::size_t resumeAt = 0;
    };

    // Like parseChunk, but `to` need not be an element boundary, only a place outside any string
    // (just after a newline: JSON strings cannot hold one). The array is closed there; an element
    // that is cut short fails to parse and is read again from its start with the next data, and
    // events are only added once an element parsed whole, so nothing is added twice. This replaces
    // a byte scan of every chunk with a search for its last newline.
    OpenChunk parseOpenChunk(char* data, std::size_t from, std::size_t to, std::size_t readable,
                             std::uint64_t offset, std::uint32_t chunkIndex);

private:
    // Borrows the bytes just before and after data[from, to) for the brackets that make the
    // elements there one JSON array, and puts them back when it goes.
    class Bracketed {
    public:
        Bracketed(char* data, std::size_t from, std::size_t to)
            : m_open(data + from - 1), m_close(data + to), m_before(*m_open), m_after(*m_close) {
            *m_open = '[';
            *m_close = ']';
        }
        ~Bracketed() {
            *m_open = m_before;
            *m_close = m_after;
        }
        Bracketed(const Bracketed&) = delete;
        Bracketed& operator=(const Bracketed&) = delete;
        const char* json() const { return m_open; }
        std::size_t length() const { return std::size_t(m_close - m_open) + 1; }

    private:
        char* m_open;
        char* m_close;
        char m_before, m_after;
    };

    static std::size_t skipSeparators(const char* data, std::size_t from, std::size_t to);

    [[noreturn]] void throwChunkError(simdjson::error_code err, const char* data, std::size_t from,
                                      std::uint64_t offset);

    // atEnd: whether the document ended with the array. completed: elements read whole.
    // failedElement: where the element that failed starts; it is not counted as read, as it may
    // be read again.
    simdjson::error_code parseArray(const char* json, std::size_t len, std::size_t capacity,
                                    bool* atEnd = nullptr, std::size_t* completed = nullptr,
                                    const char** failedElement = nullptr);

    // Text of a scalar value: strings unescaped, numbers and literals as written. The raw token is
    // looked at first: a string without backslashes is its own text, which saves an unescaping copy
    // for nearly every name, category and id in a trace.
    static simdjson::error_code scalarText(od::value& v, std::string_view& out, bool& isString);

    std::optional<TimeNs> timeValue(od::value& v, const char* field);

    simdjson::error_code readEvent(od::value& value);

    void addV2Flow(TrackId track, TimeNs ts, std::uint64_t bindId, bool in, bool out, std::uint32_t seq);

    // Flow ids: integers as they are, anything else interned.
    std::uint64_t flowId(std::string_view text);

    // Encodes an args object into m_args, picking up "correlation" on the way.
    simdjson::error_code readArgs(od::value& v, std::uint64_t& correlation);

    std::string_view minified(std::string_view raw);

    void noteCategory(StringId cat);

    // args of M and C events are small; they are read again with the DOM parser.
    bool parseArgs(std::string_view encoded, simdjson::dom::object& out);

    void readMetadata(StringId nameId, StringId pid, StringId tid, std::string_view args);

    void readMemoryCounters(StringId pid, TimeNs ts, std::string_view args);
    void readCounter(StringId pid, StringId nameId, TimeNs ts, std::string_view args);

    TraceBuilder& m_b;
    od::parser m_parser;
    simdjson::dom::parser m_dom;
    const char* m_errorLocation = nullptr;
    std::string m_minified;
    InternCache m_names;
    ArgsEncoder m_args;
    std::string m_encoded;
    std::string m_argsJson;
    std::vector<bool> m_categoryChecked;
    bool m_kineto = false;
};

} // namespace attnscope::json
