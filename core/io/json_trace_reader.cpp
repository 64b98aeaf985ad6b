// SPDX-License-Identifier: MIT
// Streaming reader for Kineto / Chrome trace JSON. The file passes through one reused buffer:
// the top-level object is walked by hand, and the traceEvents array is cut into chunks of a few
// MB that simdjson On-Demand parses in place (one parser reused over ~4 MB chunks measured 3–6×
// faster than over the whole file, whose index buffers would be faulted in fresh). On the reading
// thread a chunk ends at its last newline (EventParser::parseOpenChunk); chunks for worker threads
// (ParallelEventParser, large traces) end at exact element boundaries found by JsonElementScanner.
#include "core/io/nsys_reader.h"
#include "core/io/trace_loader.h"

#include "core/model/args_codec.h"
#include "core/io/json_scanner.h"
#include "core/io/timestamp.h"
#include "core/io/trace_builder.h"

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace attnscope {

namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t kPadding = 128; // >= SIMDJSON_PADDING, plus the ']' written after a chunk
constexpr std::size_t kMaxElementBytes = 256u << 20;
// Chunks parsed on the reading thread before workers start: traces of a few MB load without threads.
constexpr std::uint32_t kSerialChunks = 4;
// Relative Kineto timestamps are far below any epoch-based one (2001 in ns is 1e18).
constexpr TimeNs kRelativeTimeLimit = 100'000'000'000'000'000; // 1e17 ns

inline bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::string_view trimRight(std::string_view s) {
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

// Replaces bytes that are not valid UTF-8 with '?', in place; returns how many were replaced.
std::size_t replaceInvalidUtf8(char* data, std::size_t n) {
    std::size_t replaced = 0;
    auto* p = reinterpret_cast<unsigned char*>(data);
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        bool ok = len != 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (p[i + k] & 0xc0) == 0x80;
        if (ok && len == 2) ok = c >= 0xc2;
        if (ok && len == 3) {
            const unsigned cp = (c & 0xfu) << 12 | (p[i + 1] & 0x3fu) << 6 | (p[i + 2] & 0x3fu);
            ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
        }
        if (ok && len == 4) {
            const unsigned cp =
                (c & 0x7u) << 18 | (p[i + 1] & 0x3fu) << 12 | (p[i + 2] & 0x3fu) << 6 | (p[i + 3] & 0x3fu);
            ok = cp >= 0x10000 && cp <= 0x10ffff;
        }
        if (ok) {
            i += len;
        } else {
            p[i++] = '?';
            ++replaced;
        }
    }
    return replaced;
}

std::optional<std::uint64_t> parseUnsigned(std::string_view s) {
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr == s.data()) return std::nullopt;
    return v;
}

std::optional<std::int64_t> parseSigned(std::string_view s) {
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

// key equals lit, for a key already known to have lit's length: a compare of constant size.
template <std::size_t N> inline bool is(std::string_view key, const char (&lit)[N]) {
    return std::memcmp(key.data(), lit, N - 1) == 0;
}

// A number token as JSON allows it (the parser only checks a value's first byte).
bool isJsonNumber(std::string_view t) {
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') ++i;
    const std::size_t digits = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9')
        ++i;
    if (i == digits) return false;
    if (i < t.size() && t[i] == '.') {
        const std::size_t frac = ++i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9')
            ++i;
        if (i == frac) return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        const std::size_t exp = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9')
            ++i;
        if (i == exp) return false;
    }
    return i == t.size();
}

// The text of a key between its quotes, escapes kept; raw points just past the opening quote and
// the parser's padding makes reading 16 bytes past any key safe. Keys have irregular lengths, so a
// byte loop mispredicts its exit once per key; a 16-byte compare does not.
std::string_view escapedKey(const char* raw) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    for (const char* p = raw;; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const unsigned q = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)));
        const unsigned b = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)));
        if (b) break; // escapes: take the byte loop
        if (q) return {raw, std::size_t(p - raw) + static_cast<std::size_t>(__builtin_ctz(q))};
    }
#endif
    const char* p = raw;
    while (*p != '"')
        p += *p == '\\' ? 2 : 1;
    return {raw, std::size_t(p - raw)};
}

// Parses chunks of the traceEvents array into one builder. One per thread: it owns the simdjson
// parsers and the caches of the hot path.
class EventParser {
public:
    explicit EventParser(TraceBuilder& builder) : m_b(builder) {}

    // Parses the complete elements in data[from, to) as one JSON array, in place: the bytes at
    // from - 1 and to are borrowed for the brackets and put back. data + from - 1 must have
    // `readable` bytes after it (SIMDJSON_PADDING beyond to). offset is the file offset of data[0].
    // Throws LoadError.
    void parseChunk(char* data, std::size_t from, std::size_t to, std::size_t readable, std::uint64_t offset,
                    std::uint32_t chunkIndex) {
        from = skipSeparators(data, from, to);
        if (from >= to) return;
        m_b.beginChunk(chunkIndex);
        simdjson::error_code err;
        {
            const Bracketed array(data, from, to);
            const std::uint64_t eventsBefore = m_b.info().eventsRead;
            err = parseArray(array.json(), array.length(), readable);
            if (err == simdjson::UTF8_ERROR && m_b.info().eventsRead == eventsBefore) {
                const std::size_t replaced = replaceInvalidUtf8(data + from, to - from);
                m_b.warn("bytes that are not valid UTF-8 were replaced by '?' (" + std::to_string(replaced) +
                             " in the first chunk that had them)",
                         offset + from);
                err = parseArray(array.json(), array.length(), readable);
            }
        }
        if (err) throwChunkError(err, data, from, offset);
    }

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
                             std::uint64_t offset, std::uint32_t chunkIndex) {
        const std::size_t end = to;
        from = skipSeparators(data, from, to);
        // The separator before the cut goes too, or the array would end in ",]".
        while (to > from && (isSpace(data[to - 1]) || data[to - 1] == ','))
            --to;
        if (from >= to) return {OpenChunk::Complete};
        m_b.beginChunk(chunkIndex);
        bool atEnd = false;
        std::size_t completed = 0;
        const char* failedElement = nullptr;
        simdjson::error_code err;
        {
            const Bracketed array(data, from, to);
            err = parseArray(array.json(), array.length(), readable, &atEnd, &completed, &failedElement);
        }
        if (!err) return {atEnd ? OpenChunk::Complete : OpenChunk::ArrayClosed};
        // Nothing was added yet, so the byte scanner may take this data over from the start.
        if (completed == 0) return {OpenChunk::NoProgress};
        if (!failedElement) throwChunkError(err, data, from, offset);
        // A whole element that fails is broken, not cut short: report it as parseChunk would.
        const std::size_t start = std::size_t(failedElement - data);
        JsonElementScanner scanner;
        if (scanner.scan(data, start, end).lastElementEnd == JsonElementScanner::kNone)
            return {OpenChunk::Incomplete, start};
        throwChunkError(err, data, from, offset);
    }

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

    static std::size_t skipSeparators(const char* data, std::size_t from, std::size_t to) {
        while (from < to && (isSpace(data[from]) || data[from] == ','))
            ++from;
        return from;
    }

    [[noreturn]] void throwChunkError(simdjson::error_code err, const char* data, std::size_t from,
                                      std::uint64_t offset) {
        std::uint64_t at = offset + from;
        if (m_errorLocation) at = offset + std::uint64_t(m_errorLocation - data);
        std::string what = err == simdjson::DEPTH_ERROR
                               ? "JSON nesting is deeper than 1024 levels"
                               : std::string("invalid JSON in traceEvents: ") + simdjson::error_message(err);
        throw LoadError(what, at);
    }

    // atEnd: whether the document ended with the array. completed: elements read whole.
    // failedElement: where the element that failed starts; it is not counted as read, as it may
    // be read again.
    simdjson::error_code parseArray(const char* json, std::size_t len, std::size_t capacity,
                                    bool* atEnd = nullptr, std::size_t* completed = nullptr,
                                    const char** failedElement = nullptr) {
        m_errorLocation = nullptr;
        od::document doc;
        if (auto err = m_parser.iterate(simdjson::padded_string_view(json, len, capacity)).get(doc))
            return err;
        od::array array;
        if (auto err = doc.get_array().get(array)) return err;
        for (auto element : array) {
            od::value value;
            simdjson::error_code err = element.get(value);
            const char* start = nullptr;
            if (!err && failedElement) err = value.current_location().get(start);
            const std::uint64_t readBefore = m_b.info().eventsRead;
            if (!err) err = readEvent(value);
            if (err) {
                const char* loc = nullptr;
                if (!doc.current_location().get(loc)) m_errorLocation = loc;
                if (failedElement) {
                    *failedElement = start;
                    m_b.info().eventsRead = readBefore;
                }
                return err;
            }
            if (completed) ++*completed;
        }
        // Past the document's last token, current_location() has nowhere to point.
        const char* next = nullptr;
        if (atEnd) *atEnd = doc.current_location().get(next) != simdjson::SUCCESS;
        return simdjson::SUCCESS;
    }

    // Text of a scalar value: strings unescaped, numbers and literals as written. The raw token is
    // looked at first: a string without backslashes is its own text, which saves an unescaping copy
    // for nearly every name, category and id in a trace.
    static simdjson::error_code scalarText(od::value& v, std::string_view& out, bool& isString) {
        const std::string_view raw = v.raw_json_token();
        if (raw.empty()) return simdjson::TAPE_ERROR;
        const char first = raw[0];
        isString = first == '"';
        if (isString) {
            const std::string_view quoted = trimRight(raw);
            if (quoted.size() >= 2 && quoted.back() == '"' &&
                !std::memchr(quoted.data(), '\\', quoted.size())) {
                out = quoted.substr(1, quoted.size() - 2);
                return simdjson::SUCCESS;
            }
            return v.get_string().get(out);
        }
        if (first == '{' || first == '[') return simdjson::INCORRECT_TYPE;
        out = trimRight(raw);
        return simdjson::SUCCESS;
    }

    std::optional<TimeNs> timeValue(od::value& v, const char* field) {
        std::string_view text;
        bool isString = false;
        if (scalarText(v, text, isString) == simdjson::SUCCESS) {
            if (auto ns = parseMicrosToNs(text)) {
                if (isString) m_b.warn(std::string("\"") + field + "\" given as a string; read as a number");
                return ns;
            }
        }
        m_b.warn(std::string("an event has a \"") + field +
                 "\" that is not a finite number of microseconds; "
                 "the event is skipped");
        return std::nullopt;
    }

    simdjson::error_code readEvent(od::value& value) {
        ++m_b.info().eventsRead;
        m_b.beginEvent();
        od::object obj;
        if (value.get_object().get(obj)) {
            m_b.warn("an element of traceEvents is not an object; skipped");
            return simdjson::SUCCESS;
        }
        std::string_view ph, scope, bp;
        StringId name = StringPool::empty(), cat = StringPool::empty(), pid = StringPool::empty(),
                 tid = StringPool::empty();
        std::uint64_t id = 0, bindId = 0;
        bool hasBindId = false;
        std::optional<TimeNs> ts, dur;
        bool tsBad = false, hasId = false, flowIn = false, flowOut = false;
        bool hasArgs = false;
        std::uint64_t correlation = 0;
        for (auto result : obj) {
            od::field field;
            if (auto err = std::move(result).get(field)) return err;
            // Keys are compared as written: the ones that matter have no escapes.
            const std::string_view key = escapedKey(field.key().raw());
            od::value& v = field.value();
            std::string_view text;
            bool isString = false;
            switch (key.size()) {
            case 2:
                if (is(key, "ph")) {
                    if (scalarText(v, text, isString) == simdjson::SUCCESS) ph = text;
                } else if (is(key, "ts")) {
                    ts = timeValue(v, "ts");
                    tsBad = !ts;
                } else if (is(key, "id")) {
                    if (scalarText(v, text, isString) == simdjson::SUCCESS) {
                        id = flowId(text);
                        hasId = true;
                    }
                } else if (is(key, "bp")) {
                    if (scalarText(v, text, isString) == simdjson::SUCCESS) bp = text;
                }
                break;
            case 3:
                if (is(key, "pid")) {
                    if (scalarText(v, text, isString) == simdjson::SUCCESS)
                        pid = m_names.intern(m_b.strings(), text);
                } else if (is(key, "tid")) {
                    if (scalarText(v, text, isString) == simdjson::SUCCESS)
                        tid = m_names.intern(m_b.strings(), text);
                } else if (is(key, "cat")) {
                    if (scalarText(v, text, isString) == simdjson::SUCCESS)
                        cat = m_names.intern(m_b.strings(), text);
                } else if (is(key, "dur")) {
                    dur = timeValue(v, "dur");
                    tsBad = tsBad || !dur;
                }
                break;
            case 4:
                if (is(key, "name")) {
                    if (scalarText(v, text, isString) == simdjson::SUCCESS)
                        name = m_names.intern(m_b.strings(), text);
                } else if (is(key, "args")) {
                    if (auto err = readArgs(v, correlation)) return err;
                    hasArgs = !m_args.empty();
                }
                break;
            case 1:
                if (is(key, "s") && scalarText(v, text, isString) == simdjson::SUCCESS) scope = text;
                break;
            case 7:
                if (is(key, "bind_id") && scalarText(v, text, isString) == simdjson::SUCCESS) {
                    bindId = flowId(text);
                    hasBindId = true;
                } else if (is(key, "flow_in")) {
                    bool b = false;
                    flowIn = !v.get_bool().get(b) && b;
                }
                break;
            case 8:
                if (is(key, "flow_out")) {
                    bool b = false;
                    flowOut = !v.get_bool().get(b) && b;
                }
                break;
            default:
                break;
            }
        }
        if (ph.empty()) {
            m_b.warn("an event has no \"ph\" (phase); skipped");
            return simdjson::SUCCESS;
        }
        if (tsBad) return simdjson::SUCCESS;
        noteCategory(cat);
        std::string_view encoded;
        if (hasArgs) {
            m_args.encode(m_b.strings(), m_encoded);
            encoded = m_encoded;
        }
        const char phase = ph.size() == 1 ? ph[0] : '?';
        if (phase == 'M') {
            readMetadata(name, pid, tid, encoded);
            return simdjson::SUCCESS;
        }
        if (!ts) {
            m_b.warn(std::string("a '") + phase + "' event has no \"ts\"; skipped");
            return simdjson::SUCCESS;
        }
        switch (phase) {
        case 'X': {
            TimeNs d = dur.value_or(0);
            if (!dur) m_b.warn("a complete ('X') event has no \"dur\"; read as 0");
            if (d < 0) {
                m_b.warn("a negative \"dur\" was read as 0");
                d = 0;
            }
            const TrackId track = m_b.track(pid, tid);
            const std::uint32_t seq = m_b.addSlice(track, *ts, d, name, cat, correlation, encoded);
            if (hasBindId) addV2Flow(track, *ts, bindId, flowIn, flowOut, seq);
            break;
        }
        case 'B': {
            const TrackId track = m_b.track(pid, tid);
            const std::uint32_t seq = m_b.addBegin(track, *ts, name, cat, encoded);
            if (hasBindId) addV2Flow(track, *ts, bindId, flowIn, flowOut, seq);
            break;
        }
        case 'E':
            m_b.addEnd(m_b.track(pid, tid), *ts, encoded);
            break;
        case 'i':
        case 'I':
        case 'R': {
            TrackId track;
            if (scope == "g")
                track = m_b.globalTrack();
            else if (scope == "p")
                track = m_b.track(pid, StringPool::empty());
            else
                track = m_b.track(pid, tid);
            m_b.addInstant(track, *ts, name, cat, encoded);
            break;
        }
        case 'C':
            readCounter(pid, name, *ts, encoded);
            break;
        case 's':
        case 't':
        case 'f': {
            if (!hasId) {
                m_b.warn("a flow event has no \"id\"; skipped");
                break;
            }
            FlowPoint p;
            p.kind = phase == 's'   ? FlowPoint::Kind::Start
                     : phase == 't' ? FlowPoint::Kind::Step
                                    : FlowPoint::Kind::Finish;
            p.bindEnclosing = phase != 'f' || bp == "e";
            p.category = cat;
            p.id = id;
            p.track = m_b.track(pid, tid);
            p.time = *ts;
            m_b.addFlowPoint(p);
            break;
        }
        default:
            m_b.warn(std::string("events of phase \"") + std::string(ph.substr(0, 8)) + "\" are not shown");
            break;
        }
        return simdjson::SUCCESS;
    }

    void addV2Flow(TrackId track, TimeNs ts, std::uint64_t bindId, bool in, bool out, std::uint32_t seq) {
        if (!in && !out) return;
        FlowPoint p;
        p.id = bindId;
        p.track = track;
        p.time = ts;
        p.boundSeq = seq;
        // An event that ends one flow and starts the next: the end comes first.
        if (in) {
            p.kind = FlowPoint::Kind::V2In;
            m_b.addFlowPoint(p);
        }
        if (out) {
            p.kind = FlowPoint::Kind::V2Out;
            m_b.addFlowPoint(p);
        }
    }

    // Flow ids: integers as they are, anything else interned.
    std::uint64_t flowId(std::string_view text) {
        if (auto v = parseUnsigned(text);
            v && *v < FlowPoint::kStringFlowId && std::to_string(*v).size() == text.size())
            return *v;
        return FlowPoint::kStringFlowId | m_b.strings().intern(text).value;
    }

    // Encodes an args object into m_args, picking up "correlation" on the way.
    simdjson::error_code readArgs(od::value& v, std::uint64_t& correlation) {
        m_args.clear();
        od::object obj;
        if (v.get_object().get(obj)) {
            m_b.warn("an event's \"args\" is not an object; ignored");
            return simdjson::SUCCESS;
        }
        for (auto result : obj) {
            od::field field;
            if (auto err = std::move(result).get(field)) return err;
            const std::string_view key = escapedKey(field.key().raw());
            od::value& value = field.value();
            // The first byte of the raw token says what the value is.
            const std::string_view raw = value.raw_json_token();
            const char first = raw.empty() ? '\0' : raw[0];
            std::string_view text;
            bool valid = true;
            if (first == '{') {
                od::object o;
                std::string_view whole;
                if (auto err = value.get_object().get(o)) return err;
                if (auto err = o.raw_json().get(whole)) return err;
                text = minified(whole);
            } else if (first == '[') {
                od::array a;
                std::string_view whole;
                if (auto err = value.get_array().get(a)) return err;
                if (auto err = a.raw_json().get(whole)) return err;
                text = minified(whole);
            } else {
                text = trimRight(raw);
                if (first == '"')
                    valid = text.size() >= 2 && text.back() == '"';
                else if (first == 't' || first == 'f' || first == 'n')
                    valid = text == "true" || text == "false" || text == "null";
                else
                    valid = isJsonNumber(text);
            }
            if (!valid) {
                m_b.warn(
                    "an arg value is not valid JSON (NaN, Infinity or a bad literal); the arg is left out");
                continue;
            }
            if (key == "correlation" && first != '"') correlation = parseUnsigned(text).value_or(0);
            // Minified values live in a scratch buffer the next value reuses.
            if (text.data() == m_minified.data())
                m_args.addCopy(key, text);
            else
                m_args.add(key, text);
        }
        return simdjson::SUCCESS;
    }

    std::string_view minified(std::string_view raw) {
        if (m_minified.size() < raw.size()) m_minified.resize(std::max<std::size_t>(raw.size(), 4096));
        std::size_t out = 0;
        // Single-line values ("grid": [256, 1, 1]) are kept as written: the spaces cost a byte or
        // two, a minify pass costs more. Pretty-printed objects over several lines are minified.
        if (std::memchr(raw.data(), '\n', raw.size()) == nullptr) return raw;
        if (simdjson::minify(raw.data(), raw.size(), m_minified.data(), out)) return raw;
        return {m_minified.data(), out};
    }

    void noteCategory(StringId cat) {
        if (m_kineto || !cat.valid()) return;
        if (cat.value >= m_categoryChecked.size()) m_categoryChecked.resize(cat.value + 1, false);
        if (m_categoryChecked[cat.value]) return;
        m_categoryChecked[cat.value] = true;
        const std::string_view c = m_b.strings().get(cat);
        m_kineto = c == "cpu_op" || c == "Operator" || isKernelCategory(c) || isLaunchCategory(c) ||
                   c == "python_function" || c == "user_annotation" || c == "ac2g";
    }

    // args of M and C events are small; they are read again with the DOM parser.
    bool parseArgs(std::string_view encoded, simdjson::dom::object& out) {
        if (encoded.empty()) return false;
        m_argsJson = encodedArgsToJson(m_b.strings(), encoded);
        simdjson::dom::element e;
        if (m_dom.parse(m_argsJson).get(e)) return false;
        return !e.get_object().get(out);
    }

    void readMetadata(StringId nameId, StringId pid, StringId tid, std::string_view args) {
        const std::string_view name = m_b.strings().get(nameId);
        simdjson::dom::object a;
        if (!parseArgs(args, a)) return;
        auto text = [&](const char* key) -> std::optional<std::string_view> {
            auto v = a[key];
            if (v.error() || !v.is_string()) return std::nullopt;
            return v.get_string().value_unsafe();
        };
        auto integer = [&](const char* key) -> std::optional<std::int64_t> {
            auto v = a[key];
            if (v.error()) return std::nullopt;
            if (v.is_int64()) return v.get_int64().value_unsafe();
            if (v.is_string()) return parseSigned(v.get_string().value_unsafe());
            return std::nullopt;
        };
        if (name == "process_name") {
            if (auto v = text("name")) m_b.setProcessName(pid, *v);
        } else if (name == "process_labels") {
            if (auto v = text("labels")) m_b.setProcessLabels(pid, *v);
        } else if (name == "process_sort_index") {
            if (auto v = integer("sort_index")) m_b.setProcessSortIndex(pid, *v);
        } else if (name == "thread_name") {
            if (auto v = text("name")) m_b.setThreadName(pid, tid, *v);
        } else if (name == "thread_sort_index") {
            if (auto v = integer("sort_index")) m_b.setThreadSortIndex(pid, tid, *v);
        }
    }

    void readCounter(StringId pid, StringId nameId, TimeNs ts, std::string_view args) {
        simdjson::dom::object a;
        if (!parseArgs(args, a)) {
            m_b.warn("a counter ('C') event has no args object; skipped");
            return;
        }
        const std::string_view name = m_b.strings().get(nameId);
        for (auto [key, v] : a) {
            double d = 0;
            if (v.is_number())
                d = v.get_double().value_unsafe();
            else if (v.is_string()) {
                auto parsed = parseMicrosToNs(v.get_string().value_unsafe());
                if (!parsed) continue;
                d = double(*parsed) / 1000.0;
            } else {
                continue;
            }
            if (key == "value")
                m_b.addCounter(pid, name, ts, d);
            else
                m_b.addCounter(pid, std::string(name) + "." + std::string(key), ts, d);
        }
    }

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

// Parses chunks on worker threads, each into a builder of its own, merged at the end. The reading
// thread keeps reading and cutting while they parse.
class ParallelEventParser {
public:
    explicit ParallelEventParser(unsigned threads) {
        m_workers.reserve(threads);
        for (unsigned i = 0; i < threads; ++i)
            m_workers.push_back(std::make_unique<Worker>());
        for (auto& w : m_workers)
            w->thread = std::thread([this, worker = w.get()] { run(*worker); });
    }

    ~ParallelEventParser() {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (auto& w : m_workers)
            if (w->thread.joinable()) w->thread.join();
    }

    // Copies data[from, to) for a worker; waits while enough chunks are already queued.
    void submit(const char* data, std::size_t from, std::size_t to, std::uint64_t offset,
                std::uint32_t chunkIndex) {
        Chunk chunk;
        {
            std::unique_lock lock(m_mutex);
            m_room.wait(lock, [&] { return m_queue.size() < 2 * m_workers.size(); });
            // After an error nothing more is read: wait for the chunks in flight, then report the
            // earliest error, as a single reader would have stopped there.
            if (!m_errors.empty()) {
                m_idle.wait(lock, [&] { return m_pending == 0; });
                throw LoadError(m_errors.begin()->second);
            }
            if (!m_spare.empty() && m_spare.back().size() >= to - from + 1 + kPadding) {
                chunk.buffer = std::move(m_spare.back());
                m_spare.pop_back();
            }
        }
        if (chunk.buffer.size() < to - from + 1 + kPadding)
            chunk.buffer = BigBuffer(to - from + 1 + kPadding);
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

    // Waits for every chunk, merges what the workers built into main, and throws the error of the
    // earliest chunk that had one, as a single reader would have.
    void finishInto(TraceBuilder& main, bool& kineto) {
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

private:
    struct Chunk {
        BigBuffer buffer;
        std::size_t length = 0;
        std::uint64_t offset = 0;
        std::uint32_t index = 0;
    };
    struct Worker {
        TraceBuilder builder;
        EventParser parser{builder};
        std::thread thread;
    };

    void run(Worker& worker) {
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

    std::vector<std::unique_ptr<Worker>> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_room, m_idle;
    std::deque<Chunk> m_queue;
    std::vector<BigBuffer> m_spare;
    std::map<std::uint32_t, LoadError> m_errors;
    std::size_t m_pending = 0;
    bool m_stop = false;
};

class JsonTraceReader {
public:
    JsonTraceReader(ByteSource& source, const LoadOptions& options)
        : m_source(source), m_options(options), m_readBytes(std::max<std::size_t>(options.readBytes, 4096)),
          m_buffer(2 * m_readBytes + kPadding) {
        m_capacity = m_buffer.size() - kPadding;
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
                                key == "displayTimeUnit";
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
        } else if (key == "displayTimeUnit") {
            if (e.is_string()) info.displayTimeUnit = std::string(e.get_string().value_unsafe());
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
        m_parallel = std::make_unique<ParallelEventParser>(threads);
        m_b.setThreads(threads);
    }

    // Parses complete events in the buffer, here or on the worker threads.
    void parseEvents(std::size_t from, std::size_t to) {
        const std::uint32_t index = m_chunks++;
        if (m_parallel)
            m_parallel->submit(buffer(), from, to, m_shift, index);
        else
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
        if (m_parallel) m_parallel->finishInto(m_b, kineto);
        TraceInfo& info = m_b.info();
        info.format = kineto || info.schemaVersion || info.baseTimeNs ? "kineto-json" : "chrome-json";
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
    return reader.read(path);
}

// How many times its size a gzip file expands, from inflating its start until 64 MB came out (1
// when it cannot tell).
double gzipExpansion(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) return 1;
    std::vector<unsigned char> input(1 << 16), output(1 << 20);
    std::uint64_t consumed = 0, produced = 0;
    int rc = Z_OK;
    while (produced < (64u << 20) && rc != Z_STREAM_END) {
        in.read(reinterpret_cast<char*>(input.data()), std::streamsize(input.size()));
        const auto got = std::size_t(in.gcount());
        if (got == 0) break;
        z.next_in = input.data();
        z.avail_in = unsigned(got);
        while (z.avail_in > 0 && rc != Z_STREAM_END && produced < (64u << 20)) {
            z.next_out = output.data();
            z.avail_out = unsigned(output.size());
            rc = inflate(&z, Z_NO_FLUSH);
            produced += output.size() - z.avail_out;
            if (rc != Z_OK && rc != Z_STREAM_END) break;
            if (rc == Z_STREAM_END && z.avail_in > 0) { // the next gzip member
                inflateReset(&z);
                rc = Z_OK;
            }
        }
        consumed += got - z.avail_in;
        if (rc != Z_OK && rc != Z_STREAM_END) break;
    }
    inflateEnd(&z);
    return consumed ? std::max(1.0, double(produced) / double(consumed)) : 1.0;
}

std::uint64_t availableMemoryBytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0, total = 0;
    std::string unit;
    while (in >> key >> kb) {
        std::getline(in, unit);
        if (key == "MemAvailable:" || key == "SwapFree:") total += kb * 1024;
    }
    return total;
}

std::shared_ptr<const Trace> loadTraceFile(const std::string& path, const LoadOptions& options) {
    if (isSqliteFile(path)) return readNsysSqlite(path, options); // an Nsight Systems export
    // A JSON trace needs about two thirds of its size in memory at the peak of its load (measured:
    // 1.35 GB for 2.15 GB of JSON): one the machine cannot hold — a decompression bomb among them —
    // is refused before it is read.
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        std::ifstream head(path, std::ios::binary);
        unsigned char magic[2] = {};
        head.read(reinterpret_cast<char*>(magic), 2);
        const bool gzip = head.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        // gzip: the JSON's size is estimated from how much the first few MB expand (a bomb expands
        // a thousandfold), without reading the rest.
        const double need = 0.65 * (gzip ? gzipExpansion(path) : 1.0) * double(st.st_size);
        const std::uint64_t available = availableMemoryBytes();
        if (available && need > double(available)) {
            char text[256];
            std::snprintf(
                text, sizeof text,
                "this trace is about %.1f GB of JSON%s and needs about %.1f GB of memory to open; %.1f GB "
                "are available (memory and swap): close other programs or open it on a bigger machine",
                need / 0.65 / 1e9, gzip ? " once decompressed" : "", need / 1e9, double(available) / 1e9);
            throw LoadError(text);
        }
    }
    auto source = openFileSource(path);
    return readJsonTrace(*source, path, options);
}

} // namespace attnscope
