// SPDX-License-Identifier: MIT
// Notes in the window: a note added on the H100 fixture is kept in the file beside the trace, shown at its
// place when the trace is opened again, kept when the trace is saved as another file (and in what Perfetto
// reads), unplaced but kept in a trace that lacks its kernel, and a colleague (another settings home) sees
// it with its author; a damaged notes file is said and the trace still opens.
#include "support/test_support.h"
#include "ui/attention_panel.h"
#include "ui/findings_panel.h"
#include "ui/main_window.h"
#include "ui/notes_panel.h"
#include "ui/time_viewport.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include "core/document/document.h"
#include "core/document/notes.h"

#include <QApplication>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTableWidget>
#include <QTimer>

#include <gtest/gtest.h>

#include <filesystem>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

QString cell(const NotesPanel& panel, int row, int column) {
    const QTableWidgetItem* item = panel.table()->item(row, column);
    return item ? item->text() : QString();
}

// A trace of one's own (a copy of the fixture, with room beside it for its notes), its notes written by
// `author`.
std::string ownCopy(const TempDir& dir, const std::string& fixture, const char* author) {
    const std::string trace = dir.path("h100.json.gz");
    std::filesystem::copy_file(fixture, trace);
    QSettings().setValue("notes/author", author);
    return trace;
}

// A note on what is selected or on show, as Add Note makes it, with its text.
void addNoteHere(MainWindow& w, const std::string& text) {
    Note n = w.noteHere(false);
    n.text = text;
    w.notes()->add(n);
}

// Answers the Add Note dialog the next request opens with text, as a user types it and presses OK.
void answerNoteDialog(const QString& text) {
    QTimer::singleShot(0, [text] {
        auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
        ASSERT_NE(dialog, nullptr) << "no Add Note dialog";
        dialog->setTextValue(text);
        dialog->accept();
    });
}

} // namespace

// From the Attention dock's and the Findings dock's menus: a note pinned to a call (the one the selected
// kernel is in) and one to a finding, each at its place when the trace opens again.
TEST(NotesPanel, NotesPinnedToACallAndToAFindingFromTheirDocks) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const std::string trace = ownCopy(dir, h100, "ana");
    std::string impl, findingId;
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, trace));
        const TraceAnalysis& a = *w.document()->analysis;
        // A kernel of the second call of the first call's implementation, selected on the timeline.
        ASSERT_FALSE(a.calls.empty());
        impl = a.calls.front().impl;
        const auto second = std::find_if(a.calls.begin() + 1, a.calls.end(),
                                         [&](const AttentionCall& c) { return c.impl == impl; });
        ASSERT_NE(second, a.calls.end());
        ASSERT_FALSE(second->kernels.empty());
        w.timeline()->selectEvent(a.kernels[second->kernels.front()].event);
        EXPECT_FALSE(w.noteOnCallOf("no such implementation").has_value());
        answerNoteDialog("the second call waits on the first");
        Q_EMIT w.findChild<AttentionPanel*>()->noteRequested(QString::fromStdString(impl));
        ASSERT_EQ(w.notes()->notes().size(), 1u);
        EXPECT_EQ(w.notes()->notes()[0].anchor, NoteAnchor::Call);
        EXPECT_EQ(w.notes()->notes()[0].ordinal, 1u);
        ASSERT_FALSE(w.document()->findings->empty());
        findingId = w.document()->findings->front().id;
        EXPECT_FALSE(w.noteOnFindingOf("no_such_rule").has_value());
        answerNoteDialog("known: fixed in the next release");
        Q_EMIT w.findChild<FindingsPanel*>()->noteRequested(QString::fromStdString(findingId));
        ASSERT_EQ(w.notes()->notes().size(), 2u);
        EXPECT_EQ(w.notes()->notes()[1].anchor, NoteAnchor::Finding);
    }
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, trace));
    const NotesPanel& notes = *w.notes();
    ASSERT_EQ(notes.notes().size(), 2u);
    ASSERT_TRUE(notes.places()[0].placed && notes.places()[1].placed);
    EXPECT_EQ(cell(notes, 0, 1), "the second call waits on the first");
    EXPECT_TRUE(cell(notes, 0, 2).startsWith(QString::fromStdString(impl + " call 2 at")))
        << cell(notes, 0, 2).toStdString();
    // Named as the Findings dock names it, not by its rule's id.
    EXPECT_EQ(cell(notes, 1, 2),
              QString::fromStdString("finding “" + w.document()->findings->front().title + "”"));
    // Its place is the finding's first.
    const Finding& f = w.document()->findings->front();
    if (!f.evidence.empty()) EXPECT_EQ(notes.places()[1].fromNs, f.evidence.front().startNs);
}

TEST(NotesPanel, ANoteAddedInTheWindowIsThereWhenTheTraceOpensAgainAndAfterSaveAs) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const std::string trace = ownCopy(dir, h100, "ana");
    EventRef flash{};
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, trace));
        flash = firstEventNamed(*w.document()->trace, "flash_fwd_kernel");
        w.timeline()->selectEvent(flash);
        Note note = w.noteHere(false);
        EXPECT_EQ(note.anchor, NoteAnchor::Kernel);
        note.text = "this flash kernel is the slow one";
        w.notes()->add(note);
        ASSERT_TRUE(std::filesystem::exists(notesPathFor(trace))) << "kept beside the trace at once";
        EXPECT_EQ(w.saveTrace(QString::fromStdString(dir.path("saved.json"))), "");
    }
    // A colleague: another settings home, the trace and its notes file sent along.
    QSettings().clear();
    QSettings().setValue("notes/author", "ben");
    for (const std::string& opened : {trace, dir.path("saved.json")}) {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, opened));
        const NotesPanel& notes = *w.notes();
        ASSERT_EQ(notes.notes().size(), 1u) << opened;
        EXPECT_EQ(notes.notes()[0].author, "ana");
        EXPECT_EQ(cell(notes, 0, 1), "this flash kernel is the slow one");
        EXPECT_TRUE(cell(notes, 0, 2).startsWith("flash_fwd_kernel")) << cell(notes, 0, 2).toStdString();
        // Double-click: the kernel selected on the timeline.
        w.notes()->jumpTo(0);
        ASSERT_TRUE(w.timeline()->selected().has_value());
        EXPECT_EQ(w.document()->trace->str(w.document()
                                               ->trace->track(w.timeline()->selected()->track)
                                               .events.name[w.timeline()->selected()->index]),
                  w.document()->trace->str(w.document()->trace->track(flash.track).events.name[flash.index]));
    }
}

TEST(NotesPanel, ANoteTheTraceLacksIsShownUnplacedAndADamagedFileIsSaid) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(triton, "triton_single_kernel.json.gz");
    TempDir dir;
    const std::string other = dir.path("other.json.gz");
    std::filesystem::copy_file(triton, other);
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, h100));
        Note n = noteOnEvent(*w.document()->trace, firstEventNamed(*w.document()->trace, "flash_fwd_kernel"));
        signNote(n, "ana");
        n.text = "slow";
        writeNotesFile(notesPathFor(other), {n}); // the notes of one trace beside another
    }
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, other));
        ASSERT_EQ(w.notes()->notes().size(), 1u) << "kept";
        EXPECT_TRUE(cell(*w.notes(), 0, 2).startsWith("unplaced: no flash_fwd_kernel"))
            << cell(*w.notes(), 0, 2).toStdString();
        w.notes()->remove(5); // past the end: nothing
        EXPECT_EQ(w.notes()->notes().size(), 1u);
    }
    writeFile(notesPathFor(other), "{\"attnscope_notes\": 1, \"notes\": [{\"id\": ");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, other)) << "the trace still opens";
    EXPECT_TRUE(w.notes()->notes().empty());
    EXPECT_TRUE(w.notes()->problem().contains("not JSON at byte")) << w.notes()->problem().toStdString();
    EXPECT_TRUE(w.notes()->problem().contains(QString::fromStdString(notesPathFor(other))));
}

TEST(NotesPanel, BookmarksAreGoneThroughInTimeOrder) {
    MainWindow w;
    ASSERT_TRUE(showEmbeddedSample(w, {1200, 800}));
    const Trace& trace = *w.document()->trace;
    const TimeNs s = trace.startNs(), span = trace.endNs() - trace.startNs();
    for (const auto& [from, name] : {std::pair{s + span / 2, "middle"}, std::pair{s + span / 10, "early"}}) {
        Note b = noteOnRange(trace, from, from + span / 20);
        b.bookmark = true;
        b.text = name;
        w.notes()->add(b);
    }
    // From the whole trace on show: the first; then from each bookmark on show, the next and back.
    auto go = [&](bool forward) {
        const TimeViewport& view = w.timeline()->scene().viewport;
        return w.notes()->toBookmark(view.start(), view.end(), forward);
    };
    w.timeline()->fitAll();
    EXPECT_TRUE(go(true));
    EXPECT_EQ(w.notes()->table()->currentRow(), 1) << "the early one first";
    EXPECT_TRUE(go(true));
    EXPECT_EQ(w.notes()->table()->currentRow(), 0);
    EXPECT_FALSE(go(true)) << "none after the last";
    EXPECT_TRUE(go(false)) << "back from the middle one, on show";
    EXPECT_EQ(w.notes()->table()->currentRow(), 1);
    EXPECT_FALSE(go(false)) << "none before the first";
}

// What a colleague does to a note stays theirs: an edit names them beside its author; a deleted note
// stays deleted though the trace holds a copy of it; a notes file that could not be read is moved aside,
// never written over.
// A note's colour is chosen and kept (its swatch and its flag), and Delete asks first: Cancel keeps it.
TEST(NotesPanel, AColourIsKeptAndDeleteAsksFirst) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const std::string trace = ownCopy(dir, h100, "ana");
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, trace));
        addNoteHere(w, "blue one");
        w.notes()->setColour(0, QColor(0x20, 0x60, 0xd0));
        EXPECT_EQ(w.notes()->table()->item(0, 0)->background().color(), QColor(0x20, 0x60, 0xd0));
        QPushButton* remove = nullptr;
        for (QPushButton* b : w.notes()->findChildren<QPushButton*>())
            if (b->text() == "Delete") remove = b;
        ASSERT_NE(remove, nullptr);
        w.notes()->table()->selectRow(0);
        for (const auto answer : {QMessageBox::Cancel, QMessageBox::Yes}) {
            QTimer::singleShot(0, [answer] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                ASSERT_NE(box, nullptr) << "Delete did not ask";
                EXPECT_TRUE(box->text().contains("blue one")) << box->text().toStdString();
                box->button(answer)->click();
            });
            remove->click();
            EXPECT_EQ(w.notes()->notes().size(), answer == QMessageBox::Cancel ? 1u : 0u);
            if (answer == QMessageBox::Cancel) {
                MainWindow again; // what is kept: the colour too
                ASSERT_TRUE(openAndAnalyse(again, trace));
                ASSERT_EQ(again.notes()->notes().size(), 1u);
                EXPECT_EQ(again.notes()->notes()[0].colour, "#2060d0");
            }
        }
    }
}

TEST(NotesPanel, EditsNameTheEditorDeletionsHoldAndAnUnreadFileIsKept) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const std::string trace = ownCopy(dir, h100, "ana"), saved = dir.path("saved.json");
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, trace));
        addNoteHere(w, "ana's");
        ASSERT_EQ(w.saveTrace(QString::fromStdString(saved)), ""); // a copy of the note inside it
    }
    QSettings().setValue("notes/author", "ben");
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, saved));
        ASSERT_EQ(w.notes()->notes().size(), 1u);
        w.notes()->setText(0, "ben agrees");
        EXPECT_EQ(cell(*w.notes(), 0, 3), "ana, edited by ben");
        w.notes()->remove(0);
        EXPECT_TRUE(w.notes()->notes().empty());
    }
    {
        MainWindow w;
        ASSERT_TRUE(openAndAnalyse(w, saved));
        EXPECT_TRUE(w.notes()->notes().empty()) << "the copy in the trace does not bring it back";
    }
    const std::string damaged = "{\"attnscope_notes\": 1, \"notes\": [{\"id\": ";
    writeFile(notesPathFor(trace), damaged);
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, trace));
    addNoteHere(w, "new");
    EXPECT_EQ(readAllBytes(notesPathFor(trace) + ".unread"), damaged) << "moved aside, as it was";
    EXPECT_EQ(readNotesFile(notesPathFor(trace)).size(), 1u);
    EXPECT_TRUE(w.notes()->problem().contains(".unread")) << w.notes()->problem().toStdString();
    // Said where the user sees it at once, whatever the docks leave of the Notes dock.
    EXPECT_TRUE(w.statusBar()->currentMessage().contains(".unread"))
        << w.statusBar()->currentMessage().toStdString();
}
