// SPDX-License-Identifier: MIT
#pragma once

// Notes that travel with a trace: what a person found in it ("this softmax is the slow one"), pinned to a
// stretch of time, a kernel, an attention call or a finding, with who wrote it and when. Kept beside the
// trace in a file of their own (notesPathFor) and written into a trace that is saved or converted (as a
// top-level "attnscopeNotes" object AttnScope reads back, and as instant events Perfetto shows). A note is
// placed by what it names, not by an index: a kernel by its track, name and start, a call by its
// implementation and number, a finding by its rule. One that cannot be placed in the trace at hand (another
// trace, a trace cut shorter) is kept and shown as unplaced, never dropped.
#include "core/io/chrome_writer.h"
#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnscope {

struct Document;

enum class NoteAnchor : std::uint8_t { Range, Kernel, Call, Finding };
std::string_view noteAnchorName(NoteAnchor a); // "range", "kernel", "call", "finding"

struct Note {
    std::string id; // unique across people: its author, when it was made and a number
    std::string author;
    std::string created, edited; // ISO 8601, UTC ("2026-12-07T03:01:02Z")
    std::string colour = "#f4c20d";
    std::string text;
    std::string editor;    // who changed its text last, when not its author
    bool bookmark = false; // a named stretch of time (text is its name), gone through with next/previous
    // Deleted: kept (text emptied) so that a copy of it elsewhere — written into the trace, a colleague's
    // file — does not bring it back when they merge (the later edit wins, and this is one).
    bool deleted = false;
    NoteAnchor anchor = NoteAnchor::Range;
    // From the trace's first event, in ns: the stretch (Range), the place's start and end (the others, as
    // they were when the note was made).
    TimeNs fromNs = 0, toNs = 0;
    std::string track;         // Kernel: its track's label ("GPU 0 · stream 7")
    std::string name;          // Kernel: the event's name; Call: its implementation; Finding: its rule's id
    std::uint64_t ordinal = 0; // Call: its number among the trace's calls, from 0
};

// Where a note is in a trace, or why it is nowhere.
struct NotePlace {
    bool placed = false;
    TimeNs fromNs = 0, toNs = 0;   // absolute, as the trace's events
    std::optional<EventRef> event; // a kernel's (a call's first kernel's)
    std::string title;             // a finding's, as the trace's findings say it
    std::string why;               // unplaced: "no kernel x on GPU 0 · stream 7 at +1.200 ms"
};
// Calls and findings need the document's analysis; without it such a note is unplaced, said so.
NotePlace placeNote(const Note& note, const Document& doc);
// Where it is, as the Notes dock and a report say it: "flash_fwd_kernel on GPU 0 · stream 7 at +1.230 ms",
// "+2.000 ms, 1.000 ms long", "flash call 3 at …", "finding “The GPU idles …”", or "unplaced: why".
std::string describePlace(const Note& note, const NotePlace& place, const Trace& trace);

// A note pinned to an event of the trace (a kernel), to the stretch from..to (absolute ns), to a call of
// the analysis, or to a finding, made now; signNote gives it its author and an id no one else's has.
Note noteOnEvent(const Trace& trace, EventRef event);
Note noteOnRange(const Trace& trace, TimeNs from, TimeNs to);
Note noteOnCall(const Trace& trace, const std::string& impl, std::uint64_t ordinal, TimeNs from, TimeNs to);
Note noteOnFinding(const Trace& trace, const std::string& findingId, TimeNs from, TimeNs to);

void signNote(Note& note, const std::string& author);

// Notes into a trace being written (convert, Save As): their JSON and a mark at each placed note's start.
void addNotes(WriteOptions& options, const std::vector<Note>& notes, const Document& doc);

// The notes file of a trace: "run.json.gz" → "run.json.gz.attnscope-notes.json".
std::string notesPathFor(const std::string& tracePath);

// The notes as JSON: {"attnscope_notes": 1, "notes": [{...}]} (also what a trace's "attnscopeNotes" holds).
std::string notesJson(const std::vector<Note>& notes);
// Throws std::invalid_argument saying where and why (a byte offset, a note's number and field) for text
// that is not such an object; an unknown version is refused.
std::vector<Note> parseNotes(const std::string& json);
// Reads the notes file at path: none when it does not exist; throws as parseNotes (with the path) when
// it is damaged or foreign.
std::vector<Note> readNotesFile(const std::string& path);
// Writes it whole or not at all (an empty list removes the file).
void writeNotesFile(const std::string& path, const std::vector<Note>& notes);

// Two people's notes on one trace: every note of both, each keeping its author; a note in both (the same
// id) is the one edited last. In the order they were made.
std::vector<Note> mergeNotes(std::vector<Note> a, const std::vector<Note>& b);

// How notesOfTrace's problem with a trace's notes file starts.
inline constexpr std::string_view kNotesFileLeftOut = "its notes file was left out";

// The notes a trace carries (its "attnscopeNotes", TraceInfo::notesJson), merged with those of its notes
// file; what could not be read is said in problems (the trace still opens).
std::vector<Note> notesOfTrace(const Trace& trace, const std::string& tracePath,
                               std::vector<std::string>& problems);

// The notes not deleted, in their order.
std::vector<Note> liveNotes(const std::vector<Note>& notes);
// Marks a note deleted (now, by whom): what is left of it is its id.
void deleteNote(Note& note, const std::string& by);

// "2026-12-07T03:01:02Z", now.
std::string utcNow();
// That time as people read it: "2026-12-07 03:01 UTC".
std::string noteTime(const std::string& iso);

} // namespace attnscope
