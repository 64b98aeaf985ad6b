// SPDX-License-Identifier: MIT
#include "core/io/json_event_parser.h"
#include "core/model/categories.h"
#include "core/model/kineto_args.h"

#include "core/io/json_scanner.h"
#include "core/io/json_text.h"
#include "core/io/load_error.h"
#include "core/io/timestamp.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace attnscope::json {

void EventParser::parseChunk(char* data, std::size_t from, std::size_t to, std::size_t readable,
                             std::uint64_t offset, std::uint32_t chunkIndex) {
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

EventParser::OpenChunk EventParser::parseOpenChunk(char* data, std::size_t from, std::size_t to,
                                                   std::size_t readable, std::uint64_t offset,
                                                   std::uint32_t chunkIndex) {
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

std::size_t EventParser::skipSeparators(const char* data, std::size_t from, std::size_t to) {
    while (from < to && (isSpace(data[from]) || data[from] == ','))
        ++from;
    return from;
}

void EventParser::throwChunkError(simdjson::error_code err, const char* data, std::size_t from,
                                  std::uint64_t offset) {
    std::uint64_t at = offset + from;
    if (m_errorLocation) at = offset + std::uint64_t(m_errorLocation - data);
    std::string what = err == simdjson::DEPTH_ERROR
                           ? "JSON nesting is deeper than 1024 levels"
                           : std::string("invalid JSON in traceEvents: ") + simdjson::error_message(err);
    throw LoadError(what, at);
}

simdjson::error_code EventParser::parseArray(const char* json, std::size_t len, std::size_t capacity,
                                             bool* atEnd, std::size_t* completed,
                                             const char** failedElement) {
    m_errorLocation = nullptr;
    od::document doc;
    if (auto err = m_parser.iterate(simdjson::padded_string_view(json, len, capacity)).get(doc)) return err;
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

simdjson::error_code EventParser::scalarText(od::value& v, std::string_view& out, bool& isString) {
    const std::string_view raw = v.raw_json_token();
    if (raw.empty()) return simdjson::TAPE_ERROR;
    const char first = raw[0];
    isString = first == '"';
    if (isString) {
        const std::string_view quoted = trimRight(raw);
        if (quoted.size() >= 2 && quoted.back() == '"' && !std::memchr(quoted.data(), '\\', quoted.size())) {
            out = quoted.substr(1, quoted.size() - 2);
            return simdjson::SUCCESS;
        }
        return v.get_string().get(out);
    }
    if (first == '{' || first == '[') return simdjson::INCORRECT_TYPE;
    out = trimRight(raw);
    return simdjson::SUCCESS;
}

std::optional<TimeNs> EventParser::timeValue(od::value& v, const char* field) {
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

// One event object into typed fields and the builder: the hot path of every JSON load, kept as one
// function so the fields are read in one pass in the order the file has them (split, the per-field
// dispatch measured slower).
simdjson::error_code EventParser::readEvent(od::value& value) {
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
        // The field is used where the iterator made it: moving it out copied it through a vector
        // register right after its parts were stored, a stall on every field of every event (a
        // store-forwarding failure; 7% of a single-threaded load).
        if (auto err = result.error()) return err;
        od::field& field = result.value_unsafe();
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
        if (m_b.strings().get(name) == kineto::kMemoryEvent) readMemoryCounters(pid, *ts, encoded);
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

void EventParser::addV2Flow(TrackId track, TimeNs ts, std::uint64_t bindId, bool in, bool out,
                            std::uint32_t seq) {
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

std::uint64_t EventParser::flowId(std::string_view text) {
    if (auto v = parseUnsigned(text);
        v && *v < FlowPoint::kStringFlowId && std::to_string(*v).size() == text.size())
        return *v;
    return FlowPoint::kStringFlowId | m_b.strings().intern(text).value;
}

simdjson::error_code EventParser::readArgs(od::value& v, std::uint64_t& correlation) {
    m_args.clear();
    od::object obj;
    if (v.get_object().get(obj)) {
        m_b.warn("an event's \"args\" is not an object; ignored");
        return simdjson::SUCCESS;
    }
    for (auto result : obj) {
        if (auto err = result.error()) return err;
        od::field& field = result.value_unsafe(); // not moved out: see readEvent
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
            m_b.warn("an arg value is not valid JSON (NaN, Infinity or a bad literal); the arg is left out");
            continue;
        }
        if (key == kineto::kCorrelation && first != '"') correlation = parseUnsigned(text).value_or(0);
        // Minified values live in a scratch buffer the next value reuses.
        if (text.data() == m_minified.data())
            m_args.addCopy(key, text);
        else
            m_args.add(key, text);
    }
    return simdjson::SUCCESS;
}

std::string_view EventParser::minified(std::string_view raw) {
    if (m_minified.size() < raw.size()) m_minified.resize(std::max<std::size_t>(raw.size(), 4096));
    std::size_t out = 0;
    // Single-line values ("grid": [256, 1, 1]) are kept as written: the spaces cost a byte or
    // two, a minify pass costs more. Pretty-printed objects over several lines are minified.
    if (std::memchr(raw.data(), '\n', raw.size()) == nullptr) return raw;
    if (simdjson::minify(raw.data(), raw.size(), m_minified.data(), out)) return raw;
    return {m_minified.data(), out};
}

void EventParser::noteCategory(StringId cat) {
    if (m_kineto || !cat.valid()) return;
    if (cat.value >= m_categoryChecked.size()) m_categoryChecked.resize(cat.value + 1, false);
    if (m_categoryChecked[cat.value]) return;
    m_categoryChecked[cat.value] = true;
    const std::string_view c = m_b.strings().get(cat);
    m_kineto = isCpuOpCategory(c) || isKernelCategory(c) || isLaunchCategory(c) ||
               c == category::kPythonFunction || c == category::kUserAnnotation || c == category::kFlow;
}

bool EventParser::parseArgs(std::string_view encoded, simdjson::dom::object& out) {
    if (encoded.empty()) return false;
    m_argsJson = encodedArgsToJson(m_b.strings(), encoded);
    simdjson::dom::element e;
    if (m_dom.parse(m_argsJson).get(e)) return false;
    return !e.get_object().get(out);
}

void EventParser::readMetadata(StringId nameId, StringId pid, StringId tid, std::string_view args) {
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

void EventParser::readMemoryCounters(StringId pid, TimeNs ts, std::string_view args) {
    simdjson::dom::object a;
    if (!parseArgs(args, a)) return;
    auto number = [&](const char* key) -> std::optional<double> {
        simdjson::dom::element v;
        if (a.at_key(key).get(v) || !v.is_number()) return std::nullopt;
        return v.get_double().value_unsafe();
    };
    const auto deviceType = number(kineto::kDeviceType), deviceId = number(kineto::kDeviceId);
    const auto allocated = number(kineto::kTotalAllocated);
    if (!deviceType || !allocated) return;
    m_b.addMemoryTotals(pid, ts, int(*deviceType), deviceId ? std::int64_t(*deviceId) : -1, *allocated,
                        number(kineto::kTotalReserved));
}

void EventParser::readCounter(StringId pid, StringId nameId, TimeNs ts, std::string_view args) {
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
} // namespace attnscope::json
