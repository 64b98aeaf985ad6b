// SPDX-License-Identifier: MIT
#include "notes_panel.h"

#include "qt_text.h"

#include "core/document/document.h"
#include "core/report/format.h"

#include <QColor>
#include <QColorDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <pwd.h>
#include <unistd.h>

namespace attnscope::ui {

NotesPanel::NotesPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    layout->addWidget(m_label);
    m_table = new QTableWidget(0, 5, this);
    m_table->setHorizontalHeaderLabels({QString(), tr("Note"), tr("Where"), tr("Author"), tr("When")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Fixed);
    m_table->setColumnWidth(0, 14);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    layout->addWidget(m_table, 1);
    auto* buttons = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add Note…"), this);
    auto* bookmark = new QPushButton(tr("Add Bookmark…"), this);
    auto* edit = new QPushButton(tr("Edit…"), this);
    auto* colour = new QPushButton(tr("Colour…"), this);
    auto* remove = new QPushButton(tr("Delete"), this);
    add->setToolTip(tr("A note on the selected event, or on the stretch on show"));
    bookmark->setToolTip(tr("A named stretch of time: Ctrl+] and Ctrl+[ go to the next and previous"));
    colour->setToolTip(tr("The note's colour: its swatch here and its flag on the timeline's ruler"));
    for (QPushButton* b : {add, bookmark, edit, colour, remove})
        buttons->addWidget(b);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    connect(add, &QPushButton::clicked, this, [this] { Q_EMIT addRequested(false); });
    connect(bookmark, &QPushButton::clicked, this, [this] { Q_EMIT addRequested(true); });
    connect(edit, &QPushButton::clicked, this, [this] { editRow(m_table->currentRow()); });
    connect(colour, &QPushButton::clicked, this, [this] { pickColour(m_table->currentRow()); });
    connect(remove, &QPushButton::clicked, this, [this] { confirmRemove(m_table->currentRow()); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { jumpTo(row); });
    refresh();
}

QString NotesPanel::author() {
    const QString set = QSettings().value(QStringLiteral("notes/author")).toString();
    if (!set.isEmpty()) return set;
    if (const QString user = qEnvironmentVariable("USER"); !user.isEmpty()) return user;
    const passwd* login = getpwuid(getuid());
    return login && login->pw_name ? QString::fromLocal8Bit(login->pw_name) : tr("someone");
}

void NotesPanel::setDocument(std::shared_ptr<const Document> doc, const QString& path) {
    m_doc = std::move(doc);
    m_path = path;
    std::vector<std::string> problems;
    const std::vector<Note> all =
        m_doc ? notesOfTrace(*m_doc->trace, path.toStdString(), problems) : std::vector<Note>{};
    m_notes = liveNotes(all);
    m_gone.clear();
    std::copy_if(all.begin(), all.end(), std::back_inserter(m_gone), [](const Note& n) { return n.deleted; });
    m_problem.clear();
    m_keepAside = false;
    for (const std::string& p : problems) {
        m_problem += (m_problem.isEmpty() ? QString() : QStringLiteral("\n")) + qs(p);
        m_keepAside = m_keepAside || p.rfind(kNotesFileLeftOut, 0) == 0; // kept, not written over
    }
    m_lastBookmark = -1;
    refresh();
}

void NotesPanel::updateDocument(std::shared_ptr<const Document> doc) {
    m_doc = std::move(doc);
    refresh();
}

std::vector<Note> NotesPanel::allNotes() const {
    std::vector<Note> all = m_notes;
    all.insert(all.end(), m_gone.begin(), m_gone.end());
    return all;
}

void NotesPanel::add(Note note) {
    signNote(note, author().toStdString());
    m_notes.push_back(std::move(note));
    save();
    refresh();
    m_table->selectRow(int(m_notes.size()) - 1);
}

void NotesPanel::markEdited(Note& n) const {
    n.edited = utcNow();
    const std::string by = author().toStdString();
    n.editor = by == n.author ? std::string() : by; // a colleague's words are not put in its author's mouth
}

void NotesPanel::setText(int row, const QString& text) {
    if (row < 0 || row >= int(m_notes.size())) return;
    Note& n = m_notes[std::size_t(row)];
    n.text = text.toStdString();
    markEdited(n);
    save();
    refresh();
}

void NotesPanel::setColour(int row, const QColor& colour) {
    if (row < 0 || row >= int(m_notes.size()) || !colour.isValid()) return;
    Note& n = m_notes[std::size_t(row)];
    n.colour = colour.name().toStdString(); // "#rrggbb"
    markEdited(n);
    save();
    refresh();
}

void NotesPanel::pickColour(int row) {
    if (row < 0 || row >= int(m_notes.size())) return;
    const QColor chosen =
        QColorDialog::getColor(QColor(qs(m_notes[std::size_t(row)].colour)), this, tr("Note Colour"));
    if (chosen.isValid()) setColour(row, chosen);
}

void NotesPanel::confirmRemove(int row) {
    if (row < 0 || row >= int(m_notes.size())) return;
    const Note& n = m_notes[std::size_t(row)];
    QString text = qs(n.text);
    if (text.size() > 80) text = text.left(79) + QChar(0x2026);
    const auto answer = QMessageBox::question(
        this, n.bookmark ? tr("Delete Bookmark") : tr("Delete Note"),
        tr("Delete \"%1\" by %2? It is gone for everyone who opens this trace's notes after you.")
            .arg(text, qs(n.author.empty() ? std::string("someone") : n.author)),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer == QMessageBox::Yes) remove(row);
}

void NotesPanel::remove(int row) {
    if (row < 0 || row >= int(m_notes.size())) return;
    // Kept as deleted, so that the copy in the trace or a colleague's file does not bring it back.
    deleteNote(m_notes[std::size_t(row)], author().toStdString());
    m_gone.push_back(std::move(m_notes[std::size_t(row)]));
    m_notes.erase(m_notes.begin() + row);
    m_lastBookmark = -1;
    save();
    refresh();
}

void NotesPanel::editRow(int row) {
    if (row < 0 || row >= int(m_notes.size())) return;
    bool ok = false;
    const QString text = QInputDialog::getMultiLineText(this, tr("Edit Note"), tr("Note:"),
                                                        qs(m_notes[std::size_t(row)].text), &ok);
    if (ok && !text.trimmed().isEmpty()) setText(row, text);
}

void NotesPanel::jumpTo(int row) {
    if (row < 0 || row >= int(m_places.size()) || !m_places[std::size_t(row)].placed) return;
    const NotePlace& p = m_places[std::size_t(row)];
    Q_EMIT jump(p.event, p.fromNs, p.toNs);
}

bool NotesPanel::toBookmark(TimeNs viewFrom, TimeNs viewTo, bool forward) {
    // From the bookmark gone to last while it is on show, else from the start of what is on show.
    TimeNs now = forward ? viewFrom - 1 : viewFrom;
    if (m_lastBookmark >= 0 && m_lastBookmark < int(m_places.size()) &&
        m_places[std::size_t(m_lastBookmark)].placed &&
        m_places[std::size_t(m_lastBookmark)].fromNs >= viewFrom &&
        m_places[std::size_t(m_lastBookmark)].fromNs <= viewTo)
        now = m_places[std::size_t(m_lastBookmark)].fromNs;
    int best = -1;
    for (std::size_t i = 0; i < m_notes.size(); ++i) {
        if (!m_notes[i].bookmark || !m_places[i].placed) continue;
        const TimeNs at = m_places[i].fromNs;
        if (forward ? at <= now : at >= now) continue;
        if (best < 0 ||
            (forward ? at < m_places[std::size_t(best)].fromNs : at > m_places[std::size_t(best)].fromNs))
            best = int(i);
    }
    if (best < 0) return false;
    m_table->selectRow(best);
    jumpTo(best);
    m_lastBookmark = best;
    return true;
}

void NotesPanel::save() {
    if (m_path.isEmpty()) return;
    const std::string file = notesPathFor(m_path.toStdString());
    if (m_keepAside) {
        // The file it had could not be read: kept beside it under another name, never written over.
        std::string aside = file + ".unread";
        for (int n = 2; std::filesystem::exists(aside); ++n)
            aside = file + ".unread-" + std::to_string(n);
        std::error_code failed;
        std::filesystem::rename(file, aside, failed);
        if (failed) {
            m_problem = tr("The notes are not saved: %1 could not be read, nor moved aside (%2)")
                            .arg(qs(file), qs(failed.message()));
            return;
        }
        m_keepAside = false;
        m_problem += tr("\nThe notes file it had is kept as %1.").arg(qs(aside));
        Q_EMIT said(tr("The notes file that could not be read is kept as %1; the notes are saved anew.")
                        .arg(qs(aside)));
    }
    try {
        writeNotesFile(file, allNotes());
    } catch (const std::exception& e) {
        m_problem = tr("The notes could not be saved: %1").arg(qs(e.what()));
    }
}

void NotesPanel::refresh() {
    m_places.clear();
    m_table->setRowCount(int(m_notes.size()));
    int unplaced = 0;
    for (std::size_t i = 0; i < m_notes.size(); ++i) {
        const Note& n = m_notes[i];
        m_places.push_back(m_doc ? placeNote(n, *m_doc) : NotePlace{});
        const NotePlace& p = m_places.back();
        unplaced += !p.placed;
        auto* swatch = new QTableWidgetItem;
        swatch->setBackground(QColor(qs(n.colour)));
        m_table->setItem(int(i), 0, swatch);
        auto* text = new QTableWidgetItem((n.bookmark ? tr("Bookmark: ") : QString()) + qs(n.text));
        text->setToolTip(qs(n.text));
        m_table->setItem(int(i), 1, text);
        const QString where = m_doc ? qs(describePlace(n, p, *m_doc->trace)) : tr("unplaced: no trace");
        auto* whereItem = new QTableWidgetItem(where);
        whereItem->setToolTip(where);
        if (!p.placed) whereItem->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
        m_table->setItem(int(i), 2, whereItem);
        m_table->setItem(int(i), 3,
                         new QTableWidgetItem(n.editor.empty()
                                                  ? qs(n.author)
                                                  : tr("%1, edited by %2").arg(qs(n.author), qs(n.editor))));
        // "2026-12-07T03:16:12Z" as "2026-12-07 03:16 UTC", the whole in its tip.
        auto* when = new QTableWidgetItem(qs(noteTime(n.edited)));
        when->setToolTip(tr("made %1, edited %2").arg(qs(n.created), qs(n.edited)));
        m_table->setItem(int(i), 4, when);
    }
    QString said =
        m_notes.empty()
            ? tr("No notes. Select an event or zoom to a stretch, then Add Note.")
            : tr("%1; double-click one to go to it.").arg(qs(formatCount(m_notes.size(), "note", "notes")));
    if (unplaced)
        said += tr(" %1 cannot be placed in this trace (kept).")
                    .arg(qs(formatCount(std::uint64_t(unplaced), "note", "notes")));
    if (m_path.isEmpty() && m_doc) said += tr(" Kept in the window only: this trace has no file of its own.");
    if (!m_problem.isEmpty()) said += QStringLiteral("\n⚠ ") + m_problem;
    m_label->setText(said);
    Q_EMIT placesChanged();
}

} // namespace attnscope::ui
