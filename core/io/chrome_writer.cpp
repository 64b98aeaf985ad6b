// SPDX-License-Identifier: MIT
#include "core/io/chrome_writer.h"

#include "core/io/atomic_file.h"
#include "core/io/json_escape.h"
#include "core/io/load_error.h"
#include "core/io/timestamp.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

namespace attnscope {

namespace {

bool isInteger(std::string_view s) {
    if (s.empty() || s.size() > 18) return false;
    std::size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    if (s[i] == '0' && s.size() > i + 1) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

// pids and tids go back out the way they came in: integers as numbers, anything else as strings.
void appendId(std::string& out, std::string_view key) {
    if (isInteger(key))
        out += key;
    else
        appendJsonString(out, key);
}

class EventWriter {
public:
    explicit EventWriter(std::function<void(std::string_view)> sink) : m_sink(std::move(sink)) {}

    std::string& begin() {
        m_buf += m_first ? "\n" : ",\n";
        m_first = false;
        return m_buf;
    }
    void raw(std::string_view s) { m_buf += s; }
    void flushIfLarge() {
        if (m_buf.size() >= (1u << 20)) flush();
    }
    void flush() {
        m_sink(m_buf);
        m_buf.clear();
    }

private:
    std::function<void(std::string_view)> m_sink;
    std::string m_buf;
    bool m_first = true;
};

// Args are kept as the file wrote them, and the reader skips over nested values without
// validating them, so a broken file can carry broken arg text. What is written must be valid JSON:
// each args object is checked, and values or keys that do not parse are written as strings.
class ArgsWriter {
public:
    void append(std::string& out, const Trace& t, EventRef e) {
        const std::string json = t.argsJson(e);
        simdjson::dom::element ignored;
        if (!m_parser.parse(json).get(ignored)) {
            out += json;
            return;
        }
        out += '{';
        bool first = true;
        t.forEachArg(e, [&](std::string_view key, std::string_view value) {
            if (!first) out += ',';
            first = false;
            const std::string quotedKey = "\"" + std::string(key) + "\"";
            if (valid(quotedKey))
                out += quotedKey;
            else
                appendJsonString(out, key);
            out += ':';
            if (valid(value))
                out += value;
            else
                appendJsonString(out, value);
        });
        out += '}';
    }

private:
    bool valid(std::string_view text) {
        simdjson::dom::element ignored;
        return !m_parser.parse(text.data(), text.size()).get(ignored);
    }
    simdjson::dom::parser m_parser;
};

// The file top to bottom in the order of its sections: metadata (processes, then threads), each
// track's events, counters, flows, then the top-level fields after the events.
class ChromeTraceWriter {
public:
    ChromeTraceWriter(const Trace& t, const std::function<void(std::string_view)>& sink,
                      const WriteOptions& options)
        : t(t), w(sink), options(options) {}

    void write() {
        w.raw("{\"traceEvents\":[");
        metadata();
        events();
        counters();
        flows();
        w.raw(tail());
        w.flush();
    }

private:
    std::string_view pidOf(ProcessId p) const { return t.str(t.process(p).key); }

    // One M event: a process's or a thread's name, labels or sort index.
    void meta(std::string_view name, std::string_view pid, const std::string* tid, std::string_view argKey,
              const std::string& argValue, bool quoted) {
        std::string& o = w.begin();
        o += "{\"ph\":\"M\",\"name\":\"";
        o += name;
        o += "\",\"pid\":";
        appendId(o, pid);
        if (tid) {
            o += ",\"tid\":";
            appendId(o, *tid);
        }
        o += ",\"args\":{\"";
        o += argKey;
        o += "\":";
        if (quoted)
            appendJsonString(o, argValue);
        else
            o += argValue;
        o += "}}";
    }

    void metadata() {
        // The process that holds only the global track is the model's, not the file's.
        std::vector<bool> written(t.processes().size(), false);
        for (const Track& track : t.tracks())
            if (track.kind != TrackKind::Global) written[track.process.value] = true;
        for (const CounterSeries& s : t.counters())
            written[s.process.value] = true;
        for (std::uint32_t i = 0; i < t.processes().size(); ++i) {
            if (!written[i]) continue;
            const ProcessInfo& p = t.processes()[i];
            const std::string_view pid = t.str(p.key);
            meta("process_name", pid, nullptr, "name", p.name, true);
            if (!p.labels.empty()) meta("process_labels", pid, nullptr, "labels", p.labels, true);
            if (p.sortIndex != std::numeric_limits<std::int64_t>::max())
                meta("process_sort_index", pid, nullptr, "sort_index", std::to_string(p.sortIndex), false);
        }
        for (const Track& track : t.tracks()) {
            if (track.kind == TrackKind::Global) continue;
            const std::string tid(t.str(track.tidKey));
            meta("thread_name", pidOf(track.process), &tid, "name", track.name, true);
            if (track.sortIndex != std::numeric_limits<std::int64_t>::max())
                meta("thread_sort_index", pidOf(track.process), &tid, "sort_index",
                     std::to_string(track.sortIndex), false);
        }
    }

    void events() {
        const double total = double(std::max<std::uint64_t>(1, t.eventCount()));
        std::uint64_t written = 0;
        for (const Track& track : t.tracks()) {
            if (options.cancel && options.cancel->load()) throw LoadCancelled();
            if (options.progress) options.progress(double(written) / total);
            written += track.size();
            const EventColumns& c = track.events;
            const bool global = track.kind == TrackKind::Global;
            std::string ids = ",\"pid\":";
            appendId(ids, global ? std::string_view() : pidOf(track.process));
            ids += ",\"tid\":";
            appendId(ids, global ? std::string_view() : t.str(track.tidKey));
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                const bool instant = c.flags[i] & kInstant;
                if (instant && !options.notesJson.empty() && t.str(c.category[i]) == kNoteCategory)
                    continue; // the notes' marks as they were: the notes given are written below
                std::string& o = w.begin();
                o += instant ? (global ? "{\"ph\":\"i\",\"s\":\"g\"" : "{\"ph\":\"i\",\"s\":\"t\"")
                             : "{\"ph\":\"X\"";
                o += ",\"cat\":";
                appendJsonString(o, t.str(c.category[i]));
                o += ",\"name\":";
                appendJsonString(o, t.str(c.name[i]));
                o += ids;
                o += ",\"ts\":";
                o += formatNsAsMicros(c.start[i]);
                if (!instant) {
                    o += ",\"dur\":";
                    o += formatNsAsMicros(c.duration[i]);
                }
                const EventRef ref{TrackId(static_cast<std::uint32_t>(&track - t.tracks().data())), i};
                if (!t.encodedArgs(ref).empty()) {
                    o += ",\"args\":";
                    args.append(o, t, ref);
                }
                o += '}';
                w.flushIfLarge();
            }
        }
        for (const WriteOptions::NoteMark& m : options.noteMarks) {
            std::string& o = w.begin();
            o += "{\"ph\":\"i\",\"s\":\"g\",\"cat\":";
            appendJsonString(o, kNoteCategory);
            o += ",\"name\":";
            appendJsonString(o, m.text);
            o += ",\"pid\":\"\",\"tid\":\"\",\"ts\":";
            o += formatNsAsMicros(m.ns);
            o += '}';
        }
    }

    void counters() {
        for (const CounterSeries& s : t.counters()) {
            if (s.fromMemoryEvents)
                continue; // the "[memory]" instants written with the events make them again
            for (std::size_t i = 0; i < s.time.size(); ++i) {
                std::string& o = w.begin();
                o += "{\"ph\":\"C\",\"name\":";
                appendJsonString(o, s.name);
                o += ",\"pid\":";
                appendId(o, pidOf(s.process));
                o += ",\"ts\":";
                o += formatNsAsMicros(s.time[i]);
                char num[64];
                std::snprintf(num, sizeof num, "%.17g", s.value[i]);
                o += ",\"args\":{\"value\":";
                o += num;
                o += "}}";
            }
            w.flushIfLarge();
        }
    }

    // Flows as v1 pairs: 's' binds to the slice enclosing its time, 'f' with bp "e" likewise.
    void flows() {
        std::uint64_t flowId = 0;
        for (const Flow& f : t.flows()) {
            ++flowId;
            for (int end = 0; end < 2; ++end) {
                const EventRef e = end ? f.to : f.from;
                const Track& track = t.track(e.track);
                std::string& o = w.begin();
                o += end ? "{\"ph\":\"f\",\"bp\":\"e\"" : "{\"ph\":\"s\"";
                o += ",\"cat\":";
                appendJsonString(o, t.str(f.category));
                o += ",\"name\":";
                appendJsonString(o, t.str(f.category));
                o += ",\"id\":";
                o += std::to_string(flowId);
                o += ",\"pid\":";
                appendId(o, pidOf(track.process));
                o += ",\"tid\":";
                appendId(o, t.str(track.tidKey));
                o += ",\"ts\":";
                o += formatNsAsMicros(track.events.start[e.index]);
                o += '}';
            }
            w.flushIfLarge();
        }
    }

    std::string tail() const {
        std::string tail = "\n],\"displayTimeUnit\":\"ns\"";
        if (!t.info().hostName.empty()) {
            tail += ",\"host_name\":"; // whose CPU a CPU trace's kernels ran on
            appendJsonString(tail, t.info().hostName);
        }
        if (!t.devices().empty()) {
            tail += ",\"deviceProperties\":[";
            for (std::size_t i = 0; i < t.devices().size(); ++i) {
                if (i) tail += ',';
                tail += t.devices()[i].json.empty() ? "{}" : t.devices()[i].json;
            }
            tail += ']';
        }
        const DistributedInfo& d = t.distributed();
        if (d.rank || d.worldSize || !d.backend.empty()) {
            tail += ",\"distributedInfo\":{";
            bool first = true;
            auto field = [&](const char* k, const std::string& v, bool quoted) {
                if (!first) tail += ',';
                first = false;
                tail += '"';
                tail += k;
                tail += "\":";
                if (quoted)
                    appendJsonString(tail, v);
                else
                    tail += v;
            };
            if (!d.backend.empty()) field("backend", d.backend, true);
            if (d.rank) field("rank", std::to_string(*d.rank), false);
            if (d.worldSize) field("world_size", std::to_string(*d.worldSize), false);
            tail += '}';
        }
        const std::string& notes = options.notesJson.empty() ? t.info().notesJson : options.notesJson;
        if (!notes.empty()) {
            tail += ",\"attnscopeNotes\":";
            tail += notes;
        }
        tail += "}\n";
        return tail;
    }

    const Trace& t;
    EventWriter w;
    ArgsWriter args;
    const WriteOptions& options;
};

void writeTrace(const Trace& t, const std::function<void(std::string_view)>& sink,
                const WriteOptions& options) {
    ChromeTraceWriter(t, sink, options).write();
}

} // namespace

void writeChromeTrace(const Trace& trace, const std::string& path, const WriteOptions& options) {
    AtomicFile file(path, endsWith(path, ".gz"));
    writeTrace(
        trace, [&](std::string_view bytes) { file.write(bytes); }, options);
    file.commit();
}

std::string chromeTraceJson(const Trace& trace) {
    std::string out;
    writeTrace(trace, [&](std::string_view bytes) { out += bytes; }, {});
    return out;
}

} // namespace attnscope
