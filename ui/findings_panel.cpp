// SPDX-License-Identifier: MIT
#include "findings_panel.h"

#include "core/analysis/resources.h"
#include "core/model/demangle.h"
#include "core/report/format.h"

#include "qt_text.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QTextCursor>
#include <QTextEdit>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <utility>

namespace attnscope::ui {

namespace {

// A list whose wrapped lines are laid out again at once when it is resized: QListView waits 100 ms, so a
// live snapshot's places were painted twice (with the window, then wrapped again).
class PlacesList final : public QListWidget {
public:
    using QListWidget::QListWidget;

protected:
    void resizeEvent(QResizeEvent* event) override {
        QAbstractItemView::resizeEvent(event); // not QListView's, which lays out 100 ms later
        doItemsLayout();
    }
};

// The longest kernel name a place shows whole (its tooltip has the whole signature).
constexpr int kPlaceNameChars = 72;

QColor severityColor(Severity s) {
    switch (s) {
    case Severity::Critical:
        return QColor(200, 40, 40);
    case Severity::Warning:
        return QColor(205, 130, 0);
    default:
        return QColor(40, 110, 200);
    }
}

} // namespace

FindingsPanel::FindingsPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_note = new QLabel(this);
    m_note->setObjectName("findingsNote");
    m_note->setWordWrap(true);
    m_table = new QTableWidget(this);
    m_table->setObjectName("findingsTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    // A finding's title is read whole: it wraps in its column, each row as tall as its lines (in a dock a
    // third of a laptop's width every title had read "72 casts and copies around …").
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideNone);
    // A row's menu: a note pinned to the finding, which a colleague opening the trace reads beside it.
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const int row = m_table->rowAt(at.y());
        if (!m_findings || row < 0 || row >= int(m_findings->size())) return;
        const QString id = qs((*m_findings)[std::size_t(row)].id);
        QMenu menu(this);
        menu.addAction(tr("Add Note on This Finding…"), this, [this, id] { Q_EMIT noteRequested(id); });
        if (const QString impl = m_implOf ? m_implOf(id) : QString(); !impl.isEmpty())
            menu.addAction(tr("Try the Alternatives on %1's Shape…").arg(impl), this,
                           [this, impl] { Q_EMIT alternativesRequested(impl); });
        menu.exec(m_table->viewport()->mapToGlobal(at));
    });
    // Fitted again when the title column's width changes (the dock resized).
    connect(m_table->horizontalHeader(), &QHeaderView::sectionResized, this,
            [this](int column, int, int width) {
                if (column == 1 && width != m_rowsFitTo)
                    QMetaObject::invokeMethod(
                        this, [this] { fitRows(); }, Qt::QueuedConnection);
            });
    // The columns are the same for every list: set once, so a list found again repaints its rows and not
    // the header too (a header's sections cost a millisecond and more to paint).
    const QStringList headers = {tr("Severity"), tr("Finding"), tr("At stake (% of span)"), tr("Places")};
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->resizeColumnsToContents(); // with no rows yet: each title whole
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_explanation = new QTextEdit(this);
    m_explanation->setObjectName("findingsExplanation");
    m_explanation->setReadOnly(true);
    m_explanation->setUndoRedoEnabled(false); // its text is rewritten in place at every snapshot: no history
    m_evidence = new PlacesList(this);
    m_evidence->setObjectName("findingsEvidence");
    m_evidence->setToolTip(tr("Click a place to select it on the timeline and zoom to it"));
    // A place's line wraps in the dock's width rather than running off to a horizontal scroll bar.
    m_evidence->setWordWrap(true);
    m_evidence->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_explanation);
    split->addWidget(m_evidence);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    layout->addWidget(m_note);
    layout->addWidget(split, 1);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { showDetails(row); });
    // A place clicked goes to it; a finding double-clicked (or Enter on it) goes to its first place.
    auto goTo = [this](int row, int place) {
        if (!m_findings || row < 0 || row >= int(m_findings->size())) return;
        const Finding& f = (*m_findings)[std::size_t(row)];
        if (place >= 0 && place < int(f.evidence.size())) {
            const Evidence& e = f.evidence[std::size_t(place)];
            Q_EMIT evidenceActivated(e.event, e.showFromNs, e.showToNs);
        }
    };
    connect(m_evidence, &QListWidget::itemClicked, this,
            [this, goTo](QListWidgetItem* item) { goTo(m_table->currentRow(), m_evidence->row(item)); });
    connect(m_table, &QTableWidget::cellActivated, this, [this, goTo](int row, int) {
        goTo(row, 0);
        if (m_evidence->count()) m_evidence->setCurrentRow(0);
    });
    showPending(false);
}

void FindingsPanel::showPending(bool analysing) {
    m_findings.reset();
    m_table->clearContents();
    m_table->setRowCount(0);
    showExplanation({}, {});
    m_evidence->clear();
    m_note->setText(analysing ? tr("Analysing…") : tr("No trace open."));
}

void FindingsPanel::showFindings(std::shared_ptr<const std::vector<Finding>> findings, TimeNs startNs,
                                 const QString& note) {
    const auto& list = findings ? *findings : std::vector<Finding>{};
    const QString said =
        list.empty() ? tr("No findings: nothing in this trace crossed the thresholds (findings.txt, "
                          "built in; your own values go in %1).")
                           .arg(QString::fromStdString(userDataFile("ATTNSCOPE_FINDINGS", "findings.txt")))
                     : tr("%1, most time at stake first. Select one for why and where.")
                               .arg(qs(formatCount(list.size(), "finding", "findings"))) +
                           (note.isEmpty() ? QString() : QStringLiteral(" ") + note);
    if (findings && findings == m_findings && startNs == m_startNs) {
        // The same findings (a growing profile's, carried to its next snapshot): the list, the one
        // selected and its places stay; only what is said of them changes.
        m_note->setText(said);
        return;
    }
    // Found again on more of the same trace (a growing profile's next findings): the finding the user
    // selected stays selected when it is still found, wherever it is in the list now.
    const bool sameTrace = m_findings && startNs == m_startNs;
    std::string selectedId;
    if (sameTrace && m_table->currentRow() >= 0 && m_table->currentRow() < int(m_findings->size()))
        selectedId = (*m_findings)[std::size_t(m_table->currentRow())].id;
    if (!sameTrace) m_explained.clear(); // another trace's finding of the same rule is read from its start
    m_findings = std::move(findings);
    m_startNs = startNs;
    m_refilling = true;
    // The rows are written in place: only the cells that say something else are written, and only their
    // columns fitted again. A growing profile's findings, found again at each snapshot, say mostly what
    // they said, in another order where two swap places; refilled and measured whole, the table had taken
    // a third of the window's time per snapshot. A row gone may have been the widest, and another trace's
    // list is fitted whole: all columns are fitted then.
    std::array<bool, 4> changed{};
    if (!sameTrace || m_table->rowCount() != int(list.size())) {
        changed.fill(true);
        m_table->setRowCount(int(list.size()));
    }
    for (int row = 0; row < int(list.size()); ++row) {
        const Finding& f = list[std::size_t(row)];
        // The time at stake with its share of the trace's span.
        const QStringList cells = {
            qs(severityName(f.severity)), qs(f.title),
            unbroken(QStringLiteral("%1 (%2)").arg(qs(formatDuration(f.timeNs)), qs(formatShare(f.share)))),
            QString::number(f.count)};
        for (int c = 0; c < cells.size(); ++c) {
            const QString tip = c == 2 ? tr("%1 at stake: %2 of the trace's span")
                                             .arg(qs(formatDuration(f.timeNs)), qs(formatShare(f.share)))
                                       : qs(f.title) + QStringLiteral(" [") + qs(f.id) + QStringLiteral("]");
            QTableWidgetItem* item = m_table->item(row, c);
            if (!item) {
                item = new QTableWidgetItem(cells[c]);
                if (c >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                m_table->setItem(row, c, item);
                changed[std::size_t(c)] = true;
            } else if (item->text() != cells[c]) {
                item->setText(cells[c]);
                changed[std::size_t(c)] = true;
            }
            if (item->toolTip() != tip) item->setToolTip(tip);
            if (c == 0 && item->foreground().color() != severityColor(f.severity))
                item->setForeground(severityColor(f.severity));
        }
    }
    // The columns sized now, and the table told once below (doItemsLayout): each column's resize would
    // have the table repaint it on the loop's next turn, and the header stretch its column then too, after
    // the window's paint, so that the table was painted twice.
    {
        QHeaderView* header = m_table->horizontalHeader();
        const QSignalBlocker quiet(header);
        bool any = false;
        for (int c = 0; c < int(changed.size()); ++c)
            if (changed[std::size_t(c)]) {
                m_table->resizeColumnToContents(c);
                any = true;
            }
        if (any) QMetaObject::invokeMethod(header, "resizeSections", Qt::DirectConnection); // protected
        // The rows' heights with the columns, before the one layout below: told row by row, the table
        // would update them on the loop's next turn and be painted twice.
        if (changed[1] || m_rowsFitTo != m_table->columnWidth(1)) {
            const QSignalBlocker rows(m_table->verticalHeader());
            fitRows();
        }
    }
    m_note->setText(said);
    if (!list.empty()) {
        const auto kept =
            std::find_if(list.begin(), list.end(), [&](const Finding& f) { return f.id == selectedId; });
        const int row = kept == list.end() ? 0 : int(kept - list.begin());
        if (m_table->currentRow() != row) m_table->setCurrentCell(row, 0);
    }
    m_refilling = false;
    showDetails(m_table->currentRow()); // over what it showed: the places that did not change stay
    m_table->doItemsLayout();           // as the places' list: painted with the window, not again after it
}

void FindingsPanel::fitRows() {
    m_rowsFitTo = m_table->columnWidth(1);
    m_table->resizeRowsToContents();
}

void FindingsPanel::showExplanation(const std::string& id, const QString& said) {
    // A document holds "\r\n" as one paragraph's end: as "\n", its positions are the text's indices.
    QString text = said;
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    if (id == m_explained && text == m_explanationText) return;
    if (id != m_explained || m_explanationText.isEmpty()) {
        m_explanation->setPlainText(text); // another finding's: read from its start
    } else {
        // The same finding found again (a growing profile's next snapshot) says mostly what it said: only
        // the stretch between what the two texts start and end with is replaced. The rest is not laid out
        // again, and the reader's place in it stays where setPlainText would scroll it back to the top.
        const qsizetype n = std::min(text.size(), m_explanationText.size());
        qsizetype head = 0, tail = 0;
        while (head < n && text[head] == m_explanationText[head])
            ++head;
        while (tail < n - head &&
               text[text.size() - 1 - tail] == m_explanationText[m_explanationText.size() - 1 - tail])
            ++tail;
        QTextCursor cursor(m_explanation->document());
        cursor.setPosition(int(head));
        cursor.setPosition(int(m_explanationText.size() - tail), QTextCursor::KeepAnchor);
        cursor.insertText(text.mid(head, text.size() - head - tail));
    }
    m_explained = id;
    m_explanationText = text;
}

void FindingsPanel::showDetails(int row) {
    if (m_refilling) return; // the list is being filled: the finding it selects is shown once it is
    if (!m_findings || row < 0 || row >= int(m_findings->size())) {
        showExplanation({}, {});
        m_evidence->clear();
        return;
    }
    const Finding& f = (*m_findings)[std::size_t(row)];
    showExplanation(f.id, qs(f.title) + QStringLiteral("\n\n") + qs(f.explanation) + QStringLiteral("\n\n") +
                              tr("What to try: ") + qs(f.suggestion));
    // The places row by row, each with its tooltip: a row that says what it said is left as it is (a
    // finding found again on more of a growing trace lists mostly the same first places), so only the
    // rows that changed are repainted and the list stays where it was scrolled.
    std::vector<std::pair<QString, QString>> rows;
    for (const Evidence& e : f.evidence) {
        // A kernel's telling name (its template's, with what tells its instances apart), which wraps in
        // the list's width; the whole signature in the tooltip.
        // A telling name still long (a cuBLAS or Triton name has no template to drop) keeps its start and
        // its end, cut in its middle: at most two lines in a dock, not six.
        QString name = qs(tellingKernelName(e.name));
        if (name.size() > kPlaceNameChars)
            name = name.left(kPlaceNameChars / 2) + QChar(0x2026) + name.right(kPlaceNameChars / 2 - 1);
        QString text =
            QStringLiteral("%1  %2  %3").arg(qs(formatDuration(e.startNs - m_startNs)), qs(e.track), name);
        if (!e.note.empty()) text += QStringLiteral("  — ") + qs(e.note);
        rows.emplace_back(std::move(text), qs(e.name));
    }
    if (f.count > f.evidence.size())
        rows.emplace_back(tr("… %1 places in all (the first %2 listed)").arg(f.count).arg(f.evidence.size()),
                          QString());
    for (int i = 0; i < int(rows.size()); ++i) {
        QListWidgetItem* item = m_evidence->item(i);
        if (!item) item = new QListWidgetItem(m_evidence);
        if (item->text() != rows[std::size_t(i)].first) item->setText(rows[std::size_t(i)].first);
        if (item->toolTip() != rows[std::size_t(i)].second) item->setToolTip(rows[std::size_t(i)].second);
    }
    while (m_evidence->count() > int(rows.size()))
        delete m_evidence->takeItem(m_evidence->count() - 1);
    // Laid out now: painted with the rest of the window, not again after it.
    m_evidence->doItemsLayout();
}

} // namespace attnscope::ui
