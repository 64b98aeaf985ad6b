// SPDX-License-Identifier: MIT
#pragma once

// The Notes dock: what people noted in the trace on show (core/document/notes.h) — each note's colour,
// text, where it is pinned (or why it is unplaced), who wrote it and when; double-click jumps to it; Add
// Note and Add Bookmark pin one to the selected event or the stretch on show, Edit and Delete change it.
// The notes are kept in the file beside the trace, written at each change.
#include "core/document/notes.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QColor;
class QLabel;
class QTableWidget;

namespace attnscope::ui {

class NotesPanel : public QWidget {
    Q_OBJECT
public:
    explicit NotesPanel(QWidget* parent = nullptr);

    // Another trace: its notes (those written in it and its notes file's, when it has a file); what could
    // not be read is said above the list, and the trace still opens.
    void setDocument(std::shared_ptr<const Document> doc, const QString& path);
    // The same trace, now analysed: notes on calls and findings placed.
    void updateDocument(std::shared_ptr<const Document> doc);

    const std::vector<Note>& notes() const { return m_notes; } // the live ones, as listed
    // With those deleted (kept so that a copy elsewhere does not bring them back): what is written.
    std::vector<Note> allNotes() const;
    QString problem() const { return m_problem; }
    QTableWidget* table() const { return m_table; }
    const std::vector<NotePlace>& places() const { return m_places; }

    // Signed with the user's name and kept (written to the notes file).
    void add(Note note);
    void setText(int row, const QString& text);
    void setColour(int row, const QColor& colour); // the flag's on the ruler and the swatch's
    void remove(int row);
    // Jumps to the next (or previous) bookmark: from the one gone to last while it is on show, else from
    // the start of the stretch on show (viewFrom..viewTo); false when there is none.
    bool toBookmark(TimeNs viewFrom, TimeNs viewTo, bool forward);
    void jumpTo(int row);
    // Who the user is to their notes: Settings' "notes/author", else the login name.
    static QString author();

Q_SIGNALS:
    void addRequested(bool bookmark);
    // Show the place: select the event when there is one, the stretch from..to (absolute ns) on screen.
    void jump(std::optional<EventRef> event, TimeNs from, TimeNs to);
    // The placed notes' starts and colours changed (the timeline flags them).
    void placesChanged();
    // What a save did that the user must know at once (the window's status bar): a notes file that could
    // not be read moved aside.
    void said(const QString& text);

private:
    void refresh();
    void save();
    void editRow(int row);
    void pickColour(int row);
    void confirmRemove(int row);
    void markEdited(Note& note) const; // now, by the user: saved, listed again

    std::shared_ptr<const Document> m_doc;
    QString m_path;                    // the trace's file; "" keeps the notes in the window only
    std::vector<Note> m_notes, m_gone; // live, deleted
    bool m_keepAside = false;          // its notes file could not be read: moved aside before a save
    int m_lastBookmark = -1;
    std::vector<NotePlace> m_places;
    QString m_problem;
    QLabel* m_label = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace attnscope::ui
