// SPDX-License-Identifier: MIT
#include "core/document/notes.h"

#include "core/document/document.h"
#include "core/io/atomic_file.h"
#include "core/model/demangle.h"
#include "core/report/format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace attnscope {

namespace {

constexpr int kNotesVersion = 1;

// Two places of one kernel: its start within a microsecond (a trace written as Chrome JSON keeps times to
// the nanosecond, but another tool may round them).
constexpr TimeNs kSameStartNs = 1000;

std::string newId(const std::string& author, const std::string& when) {
    static std::atomic<std::uint64_t> made{0};
    return (author.empty() ? std::string("someone") : author) + "@" + when + "#" + std::to_string(++made);
}

Note made(const Trace& trace, NoteAnchor anchor, TimeNs from, TimeNs to) {
    Note n;
    n.anchor = anchor;
    n.fromNs = from - trace.startNs();
    n.toNs = std::max(to, from) - trace.startNs();
    n.created = n.edited = utcNow();
    return n;
}

} // namespace

std::string_view noteAnchorName(NoteAnchor a) {
    switch (a) {
    case NoteAnchor::Range:
        return "range";
    case NoteAnchor::Kernel:
        return "kernel";
    case NoteAnchor::Call:
        return "call";
    case NoteAnchor::Finding:
        return "finding";
    }
    return "range";
}

std::string noteTime(const std::string& iso) {
    if (iso.size() < 16) return iso;
    std::string t = iso.substr(0, 16);
    if (t[10] == 'T') t[10] = ' ';
    return t + " UTC";
}

std::string utcNow() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

Note noteOnEvent(const Trace& trace, EventRef event) {
    const Track& t = trace.track(event.track);
    Note n = made(trace, NoteAnchor::Kernel, t.events.start[event.index], t.end(event.index));
    n.track = trace.trackLabel(event.track);
    n.name = std::string(trace.str(t.events.name[event.index]));
    return n;
}

void signNote(Note& note, const std::string& author) {
    note.author = author;
    note.id = newId(author, note.created);
}

void addNotes(WriteOptions& options, const std::vector<Note>& notes, const Document& doc) {
    options.notesJson = notesJson(notes);
    options.noteMarks.clear();
    for (const Note& n : liveNotes(notes)) {
        const NotePlace p = placeNote(n, doc);
        options.noteMarks.push_back({p.placed ? p.fromNs : doc.trace->startNs() + n.fromNs,
                                     (n.author.empty() ? "" : n.author + ": ") + n.text});
    }
}

Note noteOnRange(const Trace& trace, TimeNs from, TimeNs to) {
    return made(trace, NoteAnchor::Range, from, to);
}

Note noteOnCall(const Trace& trace, const std::string& impl, std::uint64_t ordinal, TimeNs from, TimeNs to) {
    Note n = made(trace, NoteAnchor::Call, from, to);
    n.name = impl;
    n.ordinal = ordinal;
    return n;
}

Note noteOnFinding(const Trace& trace, const std::string& findingId, TimeNs from, TimeNs to) {
    Note n = made(trace, NoteAnchor::Finding, from, to);
    n.name = findingId;
    return n;
}

NotePlace placeNote(const Note& note, const Document& doc) {
    const Trace& trace = *doc.trace;
    NotePlace p;
    const TimeNs from = trace.startNs() + note.fromNs, to = trace.startNs() + note.toNs;
    auto at = [&] { return formatDuration(note.fromNs); };
    switch (note.anchor) {
    case NoteAnchor::Range:
        if (trace.eventCount() == 0 || from > trace.endNs() || to < trace.startNs()) {
            p.why = "the stretch at +" + at() + " is outside this trace";
            return p;
        }
        p.placed = true;
        p.fromNs = from;
        p.toNs = to;
        return p;
    case NoteAnchor::Kernel:
        for (std::uint32_t ti = 0; ti < trace.tracks().size(); ++ti) {
            if (trace.trackLabel(TrackId{ti}) != note.track) continue;
            const Track& t = trace.tracks()[ti];
            // Events on a track are by start: the first at or after the start's tolerance.
            const auto first =
                std::lower_bound(t.events.start.begin(), t.events.start.end(), from - kSameStartNs);
            for (auto i = std::uint32_t(first - t.events.start.begin());
                 i < t.size() && t.events.start[i] <= from + kSameStartNs; ++i)
                if (trace.str(t.events.name[i]) == note.name) {
                    p.placed = true;
                    p.event = EventRef{TrackId{ti}, i};
                    p.fromNs = t.events.start[i];
                    p.toNs = t.end(i);
                    return p;
                }
        }
        p.why =
            "no " + tellingKernelName(note.name) + " on " + note.track + " at +" + at() + " in this trace";
        return p;
    case NoteAnchor::Call: {
        if (!doc.analysis) {
            p.why = "the trace's attention calls are not analysed yet";
            return p;
        }
        std::uint64_t seen = 0;
        for (const AttentionCall& c : doc.analysis->calls) {
            if (c.impl != note.name || seen++ != note.ordinal) continue;
            p.placed = true;
            p.fromNs = c.start;
            p.toNs = c.end;
            if (!c.kernels.empty()) p.event = doc.analysis->kernels[c.kernels.front()].event;
            return p;
        }
        p.why = "this trace has no " + note.name + " call number " + std::to_string(note.ordinal + 1);
        return p;
    }
    case NoteAnchor::Finding:
        if (!doc.findings) {
            p.why = "the trace's findings are not made yet";
            return p;
        }
        for (const Finding& f : *doc.findings)
            if (f.id == note.name) {
                p.placed = true;
                p.title = f.title;
                if (!f.evidence.empty()) {
                    const Evidence& e = f.evidence.front();
                    p.event = e.event;
                    p.fromNs = e.startNs;
                    p.toNs = e.startNs + e.durNs;
                } else {
                    p.fromNs = from;
                    p.toNs = to;
                }
                return p;
            }
        p.why = "this trace has no " + note.name + " finding";
        return p;
    }
    return p;
}

std::string describePlace(const Note& note, const NotePlace& p, const Trace& trace) {
    if (!p.placed) return "unplaced: " + p.why;
    const std::string at = "+" + formatDuration(p.fromNs - trace.startNs());
    switch (note.anchor) {
    case NoteAnchor::Range:
        return at + ", " + formatDuration(p.toNs - p.fromNs) + " long";
    case NoteAnchor::Kernel:
        return tellingKernelName(note.name) + " on " + note.track + " at " + at;
    case NoteAnchor::Call:
        return note.name + " call " + std::to_string(note.ordinal + 1) + " at " + at;
    case NoteAnchor::Finding:
        return p.title.empty() ? "finding " + note.name : "finding “" + p.title + "”";
    }
    return at;
}

std::vector<Note> liveNotes(const std::vector<Note>& notes) {
    std::vector<Note> out;
    std::copy_if(notes.begin(), notes.end(), std::back_inserter(out),
                 [](const Note& n) { return !n.deleted; });
    return out;
}

void deleteNote(Note& note, const std::string& by) {
    note.deleted = true;
    note.text.clear();
    note.editor = by;
    note.edited = utcNow();
}

std::string notesPathFor(const std::string& tracePath) {
    return tracePath + ".attnscope-notes.json";
}

std::string notesJson(const std::vector<Note>& notes) {
    nlohmann::json list = nlohmann::json::array();
    for (const Note& n : notes) {
        nlohmann::json j{{"id", n.id},
                         {"author", n.author},
                         {"created", n.created},
                         {"edited", n.edited},
                         {"colour", n.colour},
                         {"text", n.text},
                         {"bookmark", n.bookmark},
                         {"deleted", n.deleted},
                         {"editor", n.editor},
                         {"anchor", std::string(noteAnchorName(n.anchor))},
                         {"from_ns", n.fromNs},
                         {"to_ns", n.toNs}};
        if (n.anchor == NoteAnchor::Kernel) j["track"] = n.track;
        if (n.anchor != NoteAnchor::Range) j["name"] = n.name;
        if (n.anchor == NoteAnchor::Call) j["ordinal"] = n.ordinal;
        list.push_back(std::move(j));
    }
    return nlohmann::json{{"attnscope_notes", kNotesVersion}, {"notes", std::move(list)}}.dump();
}

std::vector<Note> parseNotes(const std::string& json) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::invalid_argument("not JSON at byte " + std::to_string(e.byte) + ": " +
                                    std::string(e.what()).substr(std::string(e.what()).find(':') + 2));
    }
    if (!j.is_object() || !j.contains("attnscope_notes"))
        throw std::invalid_argument("not AttnScope's notes (no \"attnscope_notes\" field at the top)");
    if (!j["attnscope_notes"].is_number_integer() || j["attnscope_notes"].get<int>() != kNotesVersion)
        throw std::invalid_argument("notes of version " + j["attnscope_notes"].dump() +
                                    ", this AttnScope reads " + std::to_string(kNotesVersion));
    if (!j.contains("notes") || !j["notes"].is_array())
        throw std::invalid_argument("\"notes\" is not a list");
    std::vector<Note> out;
    for (std::size_t i = 0; i < j["notes"].size(); ++i) {
        const nlohmann::json& o = j["notes"][i];
        const std::string where = "note " + std::to_string(i + 1);
        if (!o.is_object()) throw std::invalid_argument(where + " is not an object");
        auto text = [&](const char* key, bool required) -> std::string {
            if (!o.contains(key)) {
                if (required) throw std::invalid_argument(where + " has no \"" + key + "\"");
                return {};
            }
            if (!o[key].is_string()) throw std::invalid_argument(where + ": \"" + key + "\" is not text");
            return o[key].get<std::string>();
        };
        auto number = [&](const char* key) -> std::int64_t {
            if (!o.contains(key)) return 0;
            if (!o[key].is_number_integer())
                throw std::invalid_argument(where + ": \"" + key + "\" is not a whole number");
            return o[key].get<std::int64_t>();
        };
        Note n;
        n.id = text("id", true);
        n.author = text("author", false);
        n.created = text("created", false);
        n.edited = text("edited", false);
        if (o.contains("colour")) n.colour = text("colour", false);
        n.text = text("text", !(o.contains("deleted") && o["deleted"] == true));
        n.bookmark = o.contains("bookmark") && o["bookmark"].is_boolean() && o["bookmark"].get<bool>();
        n.deleted = o.contains("deleted") && o["deleted"].is_boolean() && o["deleted"].get<bool>();
        n.editor = text("editor", false);
        const std::string anchor = text("anchor", true);
        if (anchor == "range")
            n.anchor = NoteAnchor::Range;
        else if (anchor == "kernel")
            n.anchor = NoteAnchor::Kernel;
        else if (anchor == "call")
            n.anchor = NoteAnchor::Call;
        else if (anchor == "finding")
            n.anchor = NoteAnchor::Finding;
        else
            throw std::invalid_argument(where + ": \"anchor\" is \"" + anchor +
                                        "\", not range, kernel, call or finding");
        n.fromNs = number("from_ns");
        n.toNs = number("to_ns");
        n.track = text("track", n.anchor == NoteAnchor::Kernel);
        n.name = text("name", n.anchor != NoteAnchor::Range);
        n.ordinal = std::uint64_t(std::max<std::int64_t>(0, number("ordinal")));
        out.push_back(std::move(n));
    }
    return out;
}

std::vector<Note> readNotesFile(const std::string& path) {
    std::error_code absent;
    if (!std::filesystem::exists(path, absent)) return {};
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw std::invalid_argument(path + ": cannot be read");
    if (text.str().size() > (64u << 20)) throw std::invalid_argument(path + ": larger than 64 MB, not notes");
    try {
        return parseNotes(text.str());
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

void writeNotesFile(const std::string& path, const std::vector<Note>& notes) {
    if (notes.empty()) {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        return;
    }
    AtomicFile file(path, false);
    file.write(notesJson(notes));
    file.commit();
}

std::vector<Note> mergeNotes(std::vector<Note> a, const std::vector<Note>& b) {
    for (const Note& n : b) {
        const auto same = std::find_if(a.begin(), a.end(), [&](const Note& x) { return x.id == n.id; });
        if (same == a.end())
            a.push_back(n);
        else if (n.edited > same->edited || (n.edited == same->edited && n.deleted && !same->deleted))
            *same = n; // the later edit, and of two in one second the deletion
    }
    std::stable_sort(a.begin(), a.end(), [](const Note& x, const Note& y) { return x.created < y.created; });
    return a;
}

std::vector<Note> notesOfTrace(const Trace& trace, const std::string& tracePath,
                               std::vector<std::string>& problems) {
    std::vector<Note> notes;
    if (!trace.info().notesJson.empty()) {
        try {
            notes = parseNotes(trace.info().notesJson);
        } catch (const std::invalid_argument& e) {
            problems.push_back("the notes written in the trace were left out: " + std::string(e.what()));
        }
    }
    if (!tracePath.empty()) {
        try {
            notes = mergeNotes(std::move(notes), readNotesFile(notesPathFor(tracePath)));
        } catch (const std::invalid_argument& e) {
            problems.push_back(std::string(kNotesFileLeftOut) + ": " + e.what());
        }
    }
    return notes;
}

} // namespace attnscope
