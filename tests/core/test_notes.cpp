// SPDX-License-Identifier: MIT
// Notes that travel with a trace: kept in a file beside it, written into a trace that is converted or saved
// (AttnScope reads them back; Perfetto shows them as instants), placed by what they name, kept unplaced
// where the trace lacks it, two people's merged, and a damaged or foreign notes file refused with where
// and why while the trace still opens.
#include "support/test_support.h"

#include "core/document/document.h"
#include "core/document/notes.h"
#include "core/io/chrome_writer.h"
#include "core/io/trace_loader.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace attnscope;
using namespace attnscope::test;

namespace {

std::shared_ptr<const Document> opened(const std::string& path) {
    return openedFile(path, AnalysisPart);
}

// A note on the fixture's first flash kernel, as a person would pin one to it.
Note noteOnFlash(const Trace& trace, const std::string& text) {
    Note n = noteOnEvent(trace, firstEventNamed(trace, "flash_fwd_kernel"));
    signNote(n, "ana");
    n.text = text;
    return n;
}

} // namespace

TEST(Notes, ANoteOnAKernelIsFoundAgainByItsTrackNameAndStart) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = opened(h100);
    const EventRef flash = firstEventNamed(*doc->trace, "flash_fwd_kernel");
    const Note n = noteOnFlash(*doc->trace, "this flash kernel is the slow one");
    EXPECT_EQ(n.track, "GPU 0 · stream 7");
    const NotePlace p = placeNote(n, *doc);
    ASSERT_TRUE(p.placed) << p.why;
    EXPECT_EQ(*p.event, flash);
    // A note on a call (the 3rd flash call) and on a finding.
    Note call = noteOnCall(*doc->trace, "flash", 2, 0, 0);
    const NotePlace c = placeNote(call, *doc);
    ASSERT_TRUE(c.placed) << c.why;
    EXPECT_EQ(c.fromNs, doc->analysis->calls[2].start);
    const NotePlace f = placeNote(noteOnFinding(*doc->trace, doc->findings->front().id, 0, 0), *doc);
    ASSERT_TRUE(f.placed) << f.why;
    EXPECT_EQ(*f.event, doc->findings->front().evidence.front().event);
}

TEST(Notes, ANoteTheTraceLacksIsUnplacedAndKeptWithWhy) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(other, "triton_single_kernel.json.gz");
    const auto doc = opened(h100);
    const Note n = noteOnFlash(*doc->trace, "slow");
    // Another trace (as one cut shorter would be): no such kernel there.
    const auto elsewhere = opened(other);
    const NotePlace p = placeNote(n, *elsewhere);
    EXPECT_FALSE(p.placed);
    EXPECT_NE(p.why.find("no flash_fwd_kernel"), std::string::npos) << p.why;
    EXPECT_NE(p.why.find("on GPU 0 · stream 7"), std::string::npos) << p.why;
    EXPECT_FALSE(placeNote(noteOnCall(*doc->trace, "flash", 99, 0, 0), *doc).placed);
    EXPECT_FALSE(placeNote(noteOnFinding(*doc->trace, "no_such_rule", 0, 0), *doc).placed);
    // Kept: written and read back with the others.
    TempDir dir;
    const std::string file = notesPathFor(dir.path("other.json"));
    writeNotesFile(file, {n});
    const std::vector<Note> back = readNotesFile(file);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].text, "slow");
}

TEST(Notes, TheNotesFileRoundTripsAndTwoPeoplesNotesMerge) {
    Note a;
    a.id = "ana@1";
    a.author = "ana";
    a.created = a.edited = "2026-12-07T03:00:00Z";
    a.text = "from here \"the step\" stalls\nsee below";
    a.anchor = NoteAnchor::Range;
    a.fromNs = 1000;
    a.toNs = 5000;
    a.bookmark = true;
    Note b = a;
    b.id = "ben@1";
    b.author = "ben";
    b.created = b.edited = "2026-12-07T03:05:00Z";
    b.anchor = NoteAnchor::Kernel;
    b.track = "GPU 0 · stream 7";
    b.name = "k";
    b.bookmark = false;
    const std::vector<Note> back = parseNotes(notesJson({a, b}));
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].text, a.text);
    EXPECT_TRUE(back[0].bookmark);
    EXPECT_EQ(back[0].toNs, 5000);
    EXPECT_EQ(back[1].anchor, NoteAnchor::Kernel);
    EXPECT_EQ(back[1].track, b.track);
    // Ana's and Ben's files merged: both, each with its author; Ana's note edited later by her wins.
    Note edited = a;
    edited.text = "stalls from here";
    edited.edited = "2026-12-07T04:00:00Z";
    const std::vector<Note> merged = mergeNotes({a}, {b, edited});
    ASSERT_EQ(merged.size(), 2u);
    EXPECT_EQ(merged[0].author, "ana");
    EXPECT_EQ(merged[0].text, "stalls from here");
    EXPECT_EQ(merged[1].author, "ben");
    EXPECT_EQ(mergeNotes({edited}, {a})[0].text, "stalls from here") << "an older edit does not win";
    // Deleted by Ben in the second Ana wrote it: the deletion wins over her copy (in the trace, in her
    // file), and is no live note.
    Note gone = a;
    deleteNote(gone, "ben");
    gone.edited = a.edited;
    const std::vector<Note> after = mergeNotes({a}, parseNotes(notesJson({gone})));
    ASSERT_EQ(after.size(), 1u);
    EXPECT_TRUE(after[0].deleted);
    EXPECT_EQ(after[0].editor, "ben");
    EXPECT_TRUE(liveNotes(after).empty());
    EXPECT_TRUE(mergeNotes({gone}, {a})[0].deleted);
}

TEST(Notes, ADamagedOrForeignNotesFileIsRefusedWithWhereAndWhy) {
    auto refused = [](const std::string& text) {
        try {
            parseNotes(text);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(refused("{\"attnscope_notes\": 1, \"notes\": [").find("not JSON at byte"), std::string::npos);
    EXPECT_NE(refused("{\"traceEvents\": []}").find("not AttnScope's notes"), std::string::npos);
    EXPECT_NE(refused("{\"attnscope_notes\": 7, \"notes\": []}").find("version 7"), std::string::npos);
    EXPECT_NE(
        refused("{\"attnscope_notes\": 1, \"notes\": [{\"id\":\"x\",\"text\":\"t\",\"anchor\":\"range\"},"
                "{\"id\":\"y\",\"anchor\":\"range\"}]}")
            .find("note 2 has no \"text\""),
        std::string::npos);
    EXPECT_NE(
        refused("{\"attnscope_notes\": 1, \"notes\": [{\"id\":\"x\",\"text\":\"t\",\"anchor\":\"here\"}]}")
            .find("\"anchor\" is \"here\""),
        std::string::npos);
    // Beside a trace: the trace's own notes stay, the file's problem is said with its path.
    TempDir dir;
    const std::string trace = dir.path("t.json");
    writeFile(notesPathFor(trace), "{\"attnscope_notes\": 1, \"notes\": [oops");
    std::vector<std::string> problems;
    EXPECT_TRUE(notesOfTrace(Trace(), trace, problems).empty());
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find(notesPathFor(trace)), std::string::npos) << problems[0];
    EXPECT_TRUE(readNotesFile(dir.path("absent.attnscope-notes.json")).empty());
}

// Written into a trace (convert, Save As): read back from it, and each a global instant Perfetto shows;
// written again, the instants are not doubled.
TEST(Notes, WrittenIntoATraceTheyAreReadBackAndPerfettoShowsThem) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = opened(h100);
    const EventRef flash = firstEventNamed(*doc->trace, "flash_fwd_kernel");
    const Note n = noteOnFlash(*doc->trace, "the slow one");
    WriteOptions options;
    addNotes(options, {n}, *doc);
    TempDir dir;
    const std::string out = dir.path("with-notes.json");
    writeChromeTrace(*doc->trace, out, options);
    const auto again = opened(out);
    std::vector<std::string> problems;
    const std::vector<Note> back = notesOfTrace(*again->trace, "", problems);
    EXPECT_TRUE(problems.empty());
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].text, "the slow one");
    EXPECT_EQ(back[0].author, "ana");
    const NotePlace p = placeNote(back[0], *again);
    ASSERT_TRUE(p.placed) << p.why;
    EXPECT_EQ(again->trace->str(again->trace->track(p.event->track).events.name[p.event->index]),
              doc->trace->str(doc->trace->track(flash.track).events.name[flash.index]));
    auto marks = [](const Trace& t) {
        int n = 0;
        for (const Track& track : t.tracks())
            for (std::uint32_t i = 0; i < track.size(); ++i)
                n += t.str(track.events.category[i]) == kNoteCategory &&
                     t.str(track.events.name[i]) == "ana: the slow one";
        return n;
    };
    EXPECT_EQ(marks(*again->trace), 1);
    // Written again with its notes: one mark, not two; without notes given, its own kept as they were.
    WriteOptions twice;
    addNotes(twice, back, *again);
    writeChromeTrace(*again->trace, dir.path("twice.json"), twice);
    EXPECT_EQ(marks(*opened(dir.path("twice.json"))->trace), 1);
    writeChromeTrace(*again->trace, dir.path("plain.json"));
    const auto plain = opened(dir.path("plain.json"));
    EXPECT_EQ(marks(*plain->trace), 1);
    EXPECT_EQ(notesOfTrace(*plain->trace, "", problems).size(), 1u);
}
