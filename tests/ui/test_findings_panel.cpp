// SPDX-License-Identifier: MIT
// The Findings dock as a user reads it: the same findings and numbers as `attnscope summary` of the
// file, the selected finding's explanation, and a click on a place selecting that event on the
// timeline and zooming to it.
#include "core/document/document.h"
#include "core/report/format.h"
#include "support/test_support.h"
#include "ui/details_panel.h"
#include "ui/findings_panel.h"
#include "ui/main_window.h"
#include "ui/qt_text.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QScrollBar>
#include <QStyle>
#include <QTableWidget>
#include <QTest>
#include <QTextEdit>

#include <gtest/gtest.h>

#include <algorithm>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

// The panel reads as one of its size showing the findings afresh, the same row selected: each cell's text,
// tooltip, colour and alignment, the columns' widths, the rows' heights and the explanation.
void expectReadsAsAfresh(FindingsPanel& panel, std::shared_ptr<const std::vector<Finding>> findings,
                         TimeNs startNs) {
    FindingsPanel fresh;
    fresh.resize(panel.size());
    fresh.setVisible(panel.isVisible());
    fresh.showFindings(std::move(findings), startNs);
    fresh.table()->setCurrentCell(panel.table()->currentRow(), 0);
    QApplication::processEvents();
    const QTableWidget *table = panel.table(), *other = fresh.table();
    ASSERT_EQ(table->rowCount(), other->rowCount());
    for (int r = 0; r < table->rowCount(); ++r) {
        for (int c = 0; c < table->columnCount(); ++c) {
            const QTableWidgetItem *a = table->item(r, c), *b = other->item(r, c);
            EXPECT_EQ(a->text(), b->text()) << r << "," << c;
            EXPECT_EQ(a->toolTip(), b->toolTip()) << r << "," << c;
            EXPECT_EQ(a->foreground().color(), b->foreground().color()) << r << "," << c;
            EXPECT_EQ(a->textAlignment(), b->textAlignment()) << r << "," << c;
        }
        EXPECT_EQ(table->rowHeight(r), other->rowHeight(r)) << r;
    }
    for (int c = 0; c < table->columnCount(); ++c)
        EXPECT_EQ(table->columnWidth(c), other->columnWidth(c)) << c;
    EXPECT_EQ(panel.explanation()->toPlainText(), fresh.explanation()->toPlainText());
}

} // namespace

// A wrapped number keeps its unit or noun beside it; other spaces still break.
TEST(QtText, UnbrokenKeepsNumbersBesideTheirUnits) {
    EXPECT_EQ(unbroken("12.3 ms (4%) over 3 calls, at N=2048 x"),
              QString::fromUtf8("12.3\u00a0ms (4%) over 3\u00a0calls, at N=2048\u00a0x"));
    EXPECT_EQ(unbroken("56 µs and 7 %"), QString::fromUtf8("56\u00a0µs and 7\u00a0%"));
    EXPECT_EQ(unbroken("GEMM 2 ( 3"), "GEMM 2 ( 3");
}

TEST(FindingsPanel, SameFindingsAsTheSummaryAndEachPlaceOneClickAway) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    FindingsPanel* panel = w.findings();
    QTableWidget* table = panel->table();
    // What `attnscope summary` prints for the file: the same rows, in the same order, same numbers.
    DocumentOptions options;
    options.parts = SummaryPart | AnalysisPart;
    const auto summary = openDocument(DocumentSource::file(path), options)->summary;
    ASSERT_FALSE(summary->findings.empty());
    ASSERT_EQ(table->rowCount(), int(summary->findings.size()));
    int pageableRow = -1;
    for (int row = 0; row < table->rowCount(); ++row) {
        const Finding& f = summary->findings[std::size_t(row)];
        EXPECT_EQ(table->item(row, 0)->text().toStdString(), severityName(f.severity));
        EXPECT_EQ(table->item(row, 1)->text().toStdString(), f.title);
        // The time at stake and its share, each number kept beside its unit when the cell wraps.
        EXPECT_EQ(table->item(row, 2)->text(),
                  ui::unbroken(
                      QString::fromStdString(formatDuration(f.timeNs) + " (" + formatShare(f.share) + ")")))
            << table->item(row, 2)->text().toStdString();
        EXPECT_TRUE(table->item(row, 2)->text().contains(QChar(0x00A0)));
        EXPECT_EQ(table->item(row, 3)->text().toULongLong(), f.count);
        if (f.id == "pageable_memcpy") pageableRow = row;
    }
    ASSERT_GE(pageableRow, 0);
    // The user clicks the pageable-copies row: its explanation and places.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualItemRect(table->item(pageableRow, 1)).center());
    EXPECT_EQ(table->currentRow(), pageableRow);
    const Finding& pageable = summary->findings[std::size_t(pageableRow)];
    EXPECT_TRUE(panel->explanation()->toPlainText().contains(QString::fromStdString(pageable.explanation)));
    QListWidget* places = panel->evidence();
    ASSERT_GE(places->count(), int(pageable.evidence.size()));
    // Then the second place: it is selected on the timeline, shown in Details, and zoomed to (from a
    // view where it is already visible, a hundredth of the width: still it fills the view after).
    const Evidence& e = pageable.evidence[1];
    w.timeline()->setViewport(e.startNs - 50 * e.durNs, e.startNs + 51 * e.durNs);
    QTest::mouseClick(places->viewport(), Qt::LeftButton, {},
                      places->visualItemRect(places->item(1)).center());
    ASSERT_TRUE(w.timeline()->selected());
    const EventRef selected = *w.timeline()->selected();
    const Track& track = w.trace()->track(selected.track);
    EXPECT_EQ(track.events.start[selected.index], e.startNs);
    EXPECT_EQ(track.events.duration[selected.index], e.durNs);
    EXPECT_EQ(w.trace()->str(track.events.name[selected.index]), e.name);
    EXPECT_EQ(w.details()->field("name").toStdString(), e.name);
    const TimeViewport& view = w.timeline()->viewport();
    EXPECT_LE(view.start(), e.startNs);
    EXPECT_GE(view.end(), e.startNs + e.durNs);
    EXPECT_LT(view.span(), 2.0 * double(e.durNs));              // zoomed to it
    EXPECT_TRUE(w.timeline()->eventRect(selected).has_value()); // on screen

    // A GPU-idle place shows the gap itself, with the work either side, not the kernel after it alone.
    int idleRow = -1;
    for (int row = 0; row < table->rowCount(); ++row)
        if (summary->findings[std::size_t(row)].id == "gpu_idle") idleRow = row;
    ASSERT_GE(idleRow, 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualItemRect(table->item(idleRow, 1)).center());
    const Evidence& gap = summary->findings[std::size_t(idleRow)].evidence[0];
    ASSERT_LT(gap.showFromNs, gap.startNs);
    QTest::mouseClick(places->viewport(), Qt::LeftButton, {},
                      places->visualItemRect(places->item(0)).center());
    const TimeViewport& around = w.timeline()->viewport();
    EXPECT_LE(around.start(), gap.showFromNs);
    EXPECT_GE(around.end(), gap.startNs + gap.durNs);

    // A finding double-clicked goes to its first place (as a place clicked does), from far away.
    const Evidence& first = pageable.evidence[0];
    w.timeline()->setViewport(w.trace()->startNs(), w.trace()->startNs() + 1000);
    const QPoint pageableCell = table->visualItemRect(table->item(pageableRow, 1)).center();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, pageableCell);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, pageableCell);
    ASSERT_TRUE(w.timeline()->selected());
    const EventRef chosen = *w.timeline()->selected();
    EXPECT_EQ(w.trace()->track(chosen.track).events.start[chosen.index], first.startNs);
    EXPECT_LE(w.timeline()->viewport().start(), first.startNs);
    EXPECT_GE(w.timeline()->viewport().end(), first.startNs + first.durNs);
    EXPECT_EQ(places->currentRow(), 0);
}

TEST(FindingsPanel, SaysWhenThereIsNothingToSay) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "kineto_newest_schema.json");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    EXPECT_EQ(w.findings()->table()->rowCount(), 0);
    auto* note = w.findings()->findChild<QLabel*>("findingsNote");
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->text().startsWith("No findings")) << note->text().toStdString();
}

// A growing profile's snapshot that carries the findings of an earlier one: the list, the finding the
// user selected and its places stay where they were, and the note says on how many steps they were found.
// Found again, the finding selected stays selected while it is found.
TEST(FindingsPanel, CarriedFindingsKeepTheSelectionAndSayOnHowManySteps) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    const auto doc = openDocument(DocumentSource::file(path));
    ASSERT_GE(doc->findings->size(), 2u);
    FindingsPanel panel;
    panel.showFindings(doc->findings, doc->trace->startNs());
    panel.table()->setCurrentCell(1, 1);
    const QString explanation = panel.explanation()->toPlainText();
    const QString note = "Findings of the first 2 of 3 steps: they are found again each time the trace "
                         "doubles, and when it ends.";
    panel.showFindings(doc->findings, doc->trace->startNs(), note);
    EXPECT_EQ(panel.table()->currentRow(), 1);
    EXPECT_EQ(panel.explanation()->toPlainText(), explanation);
    auto* label = panel.findChild<QLabel*>("findingsNote");
    ASSERT_NE(label, nullptr);
    EXPECT_TRUE(label->text().endsWith(note)) << label->text().toStdString();
    // New findings (found again on more of the trace): the list is made again and the finding selected
    // stays selected while it is found; one that is gone leaves the first selected.
    panel.showFindings(std::make_shared<const std::vector<Finding>>(*doc->findings), doc->trace->startNs());
    EXPECT_EQ(panel.table()->currentRow(), 1);
    EXPECT_EQ(panel.explanation()->toPlainText(), explanation);
    auto again = std::make_shared<std::vector<Finding>>(*doc->findings);
    std::swap((*again)[0], (*again)[1]); // more time at stake now: first
    panel.showFindings(again, doc->trace->startNs());
    EXPECT_EQ(panel.table()->currentRow(), 0);
    EXPECT_EQ(panel.explanation()->toPlainText(), explanation);
    EXPECT_FALSE(label->text().contains("Findings of the first"));
    auto without = std::make_shared<std::vector<Finding>>(*doc->findings);
    without->erase(without->begin());
    panel.table()->setCurrentCell(1, 0); // the one about to go
    const std::string gone = (*again)[1].id;
    ASSERT_TRUE(
        std::none_of(without->begin(), without->end(), [&](const Finding& f) { return f.id == gone; }));
    panel.showFindings(without, doc->trace->startNs());
    EXPECT_EQ(panel.table()->currentRow(), 0);
    // Another trace's findings start from the first.
    panel.table()->setCurrentCell(1, 0);
    panel.showFindings(std::make_shared<const std::vector<Finding>>(*doc->findings),
                       doc->trace->startNs() + 1);
    EXPECT_EQ(panel.table()->currentRow(), 0);
}

// Found again on more of a growing trace, the selected finding's places are kept row by row: a row that
// says what it said is the same row (not made again and repainted; the list stays where it was scrolled),
// a changed one is rewritten, and the list reads as a panel showing the new findings afresh does.
TEST(FindingsPanel, PlacesFoundAgainAreKeptRowByRow) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    const auto withPlaces = std::find_if(doc->findings->begin(), doc->findings->end(),
                                         [](const Finding& f) { return f.evidence.size() >= 3; });
    ASSERT_NE(withPlaces, doc->findings->end());
    const int row = int(withPlaces - doc->findings->begin());
    FindingsPanel panel;
    panel.showFindings(doc->findings, doc->trace->startNs());
    panel.table()->setCurrentCell(row, 0);
    QListWidget* list = panel.evidence();
    ASSERT_GE(list->count(), 3);
    std::vector<QListWidgetItem*> rows;
    QStringList texts;
    for (int i = 0; i < list->count(); ++i)
        rows.push_back(list->item(i)), texts << list->item(i)->text();
    auto again = std::make_shared<std::vector<Finding>>(*doc->findings);
    Finding& f = (*again)[std::size_t(row)];
    f.evidence[1].startNs += 1'000'000; // the second place moved by a millisecond
    f.evidence.pop_back();              // and the last no longer listed
    f.count += 40;                      // many more places in all
    panel.showFindings(again, doc->trace->startNs());
    ASSERT_EQ(panel.table()->currentRow(), row);
    FindingsPanel fresh;
    fresh.showFindings(again, doc->trace->startNs());
    fresh.table()->setCurrentCell(row, 0);
    ASSERT_EQ(list->count(), fresh.evidence()->count());
    for (int i = 0; i < list->count(); ++i) {
        EXPECT_EQ(list->item(i)->text(), fresh.evidence()->item(i)->text()) << i;
        EXPECT_EQ(list->item(i)->toolTip(), fresh.evidence()->item(i)->toolTip()) << i;
    }
    EXPECT_EQ(list->item(0), rows[0]);
    EXPECT_EQ(list->item(0)->text(), texts[0]);
    EXPECT_NE(list->item(1)->text(), texts[1]);
    // The last row says how many places there are in all now.
    EXPECT_TRUE(
        list->item(list->count() - 1)->text().contains(QStringLiteral("%1 places in all").arg(f.count)))
        << list->item(list->count() - 1)->text().toStdString();
    EXPECT_EQ(panel.explanation()->toPlainText(), fresh.explanation()->toPlainText());
}

// The same findings with other figures (a growing job's, found on one more step): each row is the same
// row, the cells that changed say what a panel showing them afresh says, the selection and its places stay.
TEST(FindingsPanel, TheSameFindingsWithOtherFiguresAreRewrittenCellByCell) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    ASSERT_GE(doc->findings->size(), 2u);
    FindingsPanel panel;
    panel.resize(520, 600);
    panel.show();
    panel.showFindings(doc->findings, doc->trace->startNs());
    panel.table()->setCurrentCell(1, 0);
    QTableWidget* table = panel.table();
    for (int r = 0; r < table->rowCount(); ++r) // the figures line up on the right
        for (int c = 2; c < 4; ++c)
            EXPECT_EQ(table->item(r, c)->textAlignment(), int(Qt::AlignRight | Qt::AlignVCenter)) << r << c;
    std::vector<QTableWidgetItem*> items;
    for (int r = 0; r < table->rowCount(); ++r)
        for (int c = 0; c < table->columnCount(); ++c)
            items.push_back(table->item(r, c));
    auto again = std::make_shared<std::vector<Finding>>(*doc->findings);
    (*again)[0].timeNs *= 3;
    (*again)[0].share = std::min(1.0, (*again)[0].share * 3);
    (*again)[1].count += 7;
    (*again)[1].title += " (and more)";
    panel.showFindings(again, doc->trace->startNs());
    FindingsPanel fresh;
    fresh.showFindings(again, doc->trace->startNs());
    fresh.table()->setCurrentCell(1, 0);
    ASSERT_EQ(table->rowCount(), fresh.table()->rowCount());
    std::size_t at = 0;
    for (int r = 0; r < table->rowCount(); ++r)
        for (int c = 0; c < table->columnCount(); ++c, ++at) {
            EXPECT_EQ(table->item(r, c), items[at]) << r << "," << c;
            EXPECT_EQ(table->item(r, c)->text(), fresh.table()->item(r, c)->text()) << r << "," << c;
            EXPECT_EQ(table->item(r, c)->toolTip(), fresh.table()->item(r, c)->toolTip()) << r << "," << c;
        }
    EXPECT_TRUE(table->item(1, 1)->text().endsWith("(and more)"));
    EXPECT_EQ(table->currentRow(), 1);
    EXPECT_EQ(panel.explanation()->toPlainText(), fresh.explanation()->toPlainText());
    expectReadsAsAfresh(panel, again, doc->trace->startNs()); // its columns and rows fitted again too
    // Two findings that swap places (one's time at stake passed the other's): the rows are the same rows,
    // written as a panel showing the new order afresh writes them, and the selection follows its finding.
    auto swapped = std::make_shared<std::vector<Finding>>(*again);
    std::swap((*swapped)[0], (*swapped)[1]);
    (*swapped)[0].severity = Severity::Critical;
    (*swapped)[1].severity = Severity::Info;
    panel.showFindings(swapped, doc->trace->startNs());
    at = 0;
    for (int r = 0; r < table->rowCount(); ++r)
        for (int c = 0; c < table->columnCount(); ++c, ++at)
            EXPECT_EQ(table->item(r, c), items[at]) << r << "," << c;
    EXPECT_EQ(table->currentRow(), 0);
    expectReadsAsAfresh(panel, swapped, doc->trace->startNs());
    EXPECT_EQ(table->item(0, 1)->text(), fresh.table()->item(1, 1)->text());
    EXPECT_NE(table->item(0, 0)->foreground().color(), table->item(1, 0)->foreground().color());
    // One finding fewer: the last row goes, the others read as afresh.
    auto fewer = std::make_shared<std::vector<Finding>>(*swapped);
    fewer->erase(fewer->begin());
    panel.showFindings(fewer, doc->trace->startNs());
    expectReadsAsAfresh(panel, fewer, doc->trace->startNs());
    // The widest row goes, the others say what they said: its columns are fitted to those left.
    auto wide = std::make_shared<std::vector<Finding>>(*fewer);
    wide->push_back(wide->back());
    wide->back().id = "widest";
    wide->back().count = 123'456'789;
    wide->back().timeNs = 987'654'321'000;
    panel.showFindings(wide, doc->trace->startNs());
    expectReadsAsAfresh(panel, wide, doc->trace->startNs());
    const int widest = table->columnWidth(3);
    panel.showFindings(fewer, doc->trace->startNs());
    expectReadsAsAfresh(panel, fewer, doc->trace->startNs());
    EXPECT_LT(table->columnWidth(3), widest);
    // Only a figure widens its column, the titles say what they said: the title column is narrower, and
    // the rows are fitted to it again.
    auto wider = std::make_shared<std::vector<Finding>>(*fewer);
    (*wider)[0].count = 123'456'789'012;
    (*wider)[0].timeNs = 987'654'321'000;
    const int titleWidth = table->columnWidth(1);
    panel.showFindings(wider, doc->trace->startNs());
    EXPECT_LT(table->columnWidth(1), titleWidth);
    expectReadsAsAfresh(panel, wider, doc->trace->startNs());
}

// The selected finding found again with other figures (a growing profile's next snapshot): its explanation
// is edited where it changed, so that the reader's place in a long one stays (it had gone back to the top
// at every snapshot) and it reads as afresh; another finding selected is read from its start.
TEST(FindingsPanel, AnExplanationFoundAgainKeepsTheReadersPlace) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const auto doc = openDocument(DocumentSource::file(path));
    ASSERT_GE(doc->findings->size(), 2u);
    auto first = std::make_shared<std::vector<Finding>>(*doc->findings);
    std::string& text = (*first)[0].explanation;
    text = "In 12 of 40 steps. " + text;
    for (int i = 0; i < 40; ++i) // long enough to scroll in a dock
        text += "\nA line of what was found, " + std::to_string(i) + ".";
    FindingsPanel panel;
    panel.resize(420, 500);
    panel.show();
    panel.showFindings(first, doc->trace->startNs());
    QApplication::processEvents();
    QTextEdit* explanation = panel.explanation();
    QScrollBar* bar = explanation->verticalScrollBar();
    ASSERT_GT(bar->maximum(), 0);
    bar->setValue(bar->maximum() / 2);
    const int place = bar->value();
    ASSERT_GT(place, 0);
    auto again = std::make_shared<std::vector<Finding>>(*first);
    std::string& more = (*again)[0].explanation;
    more.replace(more.find("12 of 40"), 8, "17 of 52");
    more.replace(more.find("found, 39."), 10, "found, 39 (and since).");
    panel.showFindings(again, doc->trace->startNs());
    QApplication::processEvents();
    FindingsPanel fresh;
    fresh.showFindings(again, doc->trace->startNs());
    EXPECT_EQ(explanation->toPlainText(), fresh.explanation()->toPlainText());
    EXPECT_TRUE(explanation->toPlainText().contains("In 17 of 52 steps."));
    EXPECT_EQ(bar->value(), place);
    EXPECT_FALSE(explanation->document()->isUndoAvailable()); // no history kept of a profile's snapshots
    // Another finding is read from its start; coming back to the first, too.
    panel.table()->setCurrentCell(1, 0);
    QApplication::processEvents();
    EXPECT_EQ(bar->value(), 0);
    fresh.table()->setCurrentCell(1, 0);
    EXPECT_EQ(explanation->toPlainText(), fresh.explanation()->toPlainText());
    panel.table()->setCurrentCell(0, 0);
    QApplication::processEvents();
    EXPECT_EQ(bar->value(), 0);
    EXPECT_TRUE(explanation->toPlainText().contains("found, 39 (and since)."));
    // Edits where the old and new texts repeat characters at the stretch's ends, lines ended by "\r\n" (a
    // document's one paragraph end), and a character beyond 16 bits: each reads as the new text shown afresh.
    const std::pair<std::string, std::string> edits[] = {
        {"In 1 of 10 steps.", "In 1 of 100 steps."},
        {"Ac", "Bcc"},
        {"40 steps", "400 steps"},
        {"400 steps", "40 steps"},
        {"kernel a\r\nb ran 12 times.", "kernel a\r\nb ran 17 times."},
        {"x\r\ny\r\nIn 12 of 40 steps, z.", "x\r\ny\r\nIn 17 of 52 steps, z."},
        {"a\rb 12 c", "a\r\nb 12 c"},
        {"\xF0\x9F\x98\x80 ran", "\xF0\x9F\x98\x81 ran"},
    };
    for (const auto& [before, after] : edits) {
        SCOPED_TRACE(after);
        auto was = std::make_shared<std::vector<Finding>>(*first);
        (*was)[0].explanation = (*was)[0].suggestion = before; // the edit at the text's end too
        panel.showFindings(was, doc->trace->startNs());
        auto is = std::make_shared<std::vector<Finding>>(*was);
        (*is)[0].explanation = (*is)[0].suggestion = after;
        panel.showFindings(is, doc->trace->startNs());
        expectReadsAsAfresh(panel, is, doc->trace->startNs());
    }
    // A trace closed and the same findings shown again: read afresh, not edited into the emptied panel.
    panel.showPending(false);
    EXPECT_TRUE(explanation->toPlainText().isEmpty());
    panel.showFindings(again, doc->trace->startNs());
    expectReadsAsAfresh(panel, again, doc->trace->startNs());
    EXPECT_EQ(bar->value(), 0);
    // Another trace's finding of the same rule (a new run's first snapshot, shown with its findings): read
    // from its start, not edited in place where the reader was in the last one.
    bar->setValue(bar->maximum() / 2);
    ASSERT_GT(bar->value(), 0);
    panel.showFindings(first, doc->trace->startNs() + 1);
    QApplication::processEvents();
    expectReadsAsAfresh(panel, first, doc->trace->startNs() + 1);
    EXPECT_EQ(bar->value(), 0);
}

// In a dock a third of a laptop's width, each finding's title is read whole: it wraps in its column and the
// row grows to its lines (every title had read "72 casts and copies around …"); in a wider window the rows
// are lower again.
TEST(FindingsPanel, TitlesWrapWholeInANarrowDock) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "dlrm_2ranks/rank0.json");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, path));
    QTableWidget* table = w.findings()->table();
    auto settle = [&](QSize size) {
        w.resize(size);
        w.show();
        for (int i = 0; i < 5; ++i)
            QApplication::processEvents();
    };
    settle(QSize(1366, 728));
    ASSERT_GT(table->rowCount(), 1);
    const int line = table->fontMetrics().height();
    std::vector<int> narrow;
    for (int row = 0; row < table->rowCount(); ++row) {
        narrow.push_back(table->rowHeight(row));
        const QString title = table->item(row, 1)->text();
        // A title wider than its column takes as many lines as it needs.
        const int lines =
            table->fontMetrics().horizontalAdvance(title) / std::max(1, table->columnWidth(1)) + 1;
        EXPECT_GE(table->rowHeight(row), lines * line) << title.toStdString();
    }
    EXPECT_GE(*std::max_element(narrow.begin(), narrow.end()), 2 * line);
    // The places of the first finding wrap inside the list too: none runs off to a horizontal scroll bar.
    table->selectRow(0);
    settle(QSize(1366, 728));
    QListWidget* places = w.findings()->evidence();
    ASSERT_GT(places->count(), 0);
    for (int i = 0; i < places->count(); ++i) {
        const QRect r = places->visualItemRect(places->item(i));
        EXPECT_LE(r.right(), places->viewport()->width()) << places->item(i)->text().toStdString();
        const QRect needed = places->fontMetrics().boundingRect(QRect(0, 0, r.width(), 100000),
                                                                Qt::TextWordWrap, places->item(i)->text());
        EXPECT_LE(needed.height(), r.height()) << places->item(i)->text().toStdString();
    }
    settle(QSize(1920, 1040));
    for (int row = 0; row < table->rowCount(); ++row)
        EXPECT_LE(table->rowHeight(row), narrow[std::size_t(row)]);
}

// A place whose kernel's name is long and has no template to drop (cuBLAS's, Triton's) shows its start and
// its end, cut in its middle, in at most two lines of a dock; the tooltip has it whole.
TEST(FindingsPanel, ALongPlainKernelNameIsCutInItsMiddle) {
    Finding f;
    f.id = "gpu_idle";
    f.title = "a finding";
    const std::string name = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
                             "execute_segment_k_off_kernel__5x_cublas_and_then_some_more_of_it";
    Evidence e;
    e.track = "GPU 0 · stream 7";
    e.startNs = 1000;
    e.durNs = 10;
    e.name = name;
    f.evidence.push_back(e);
    f.count = 1;
    auto findings = std::make_shared<std::vector<Finding>>(std::vector<Finding>{f});
    FindingsPanel panel;
    panel.resize(420, 500);
    panel.show();
    panel.showFindings(findings, 0);
    panel.table()->setCurrentCell(0, 0);
    QApplication::processEvents();
    QListWidget* list = panel.evidence();
    ASSERT_EQ(list->count(), 1);
    const QString text = list->item(0)->text();
    EXPECT_TRUE(text.contains("sm90_xmma_gemm_bf16")) << text.toStdString();
    EXPECT_TRUE(text.endsWith("some_more_of_it")) << text.toStdString();
    EXPECT_TRUE(text.contains(QChar(0x2026))) << text.toStdString();
    EXPECT_EQ(list->item(0)->toolTip().toStdString(), name);
    const int line = QFontMetrics(list->font()).lineSpacing();
    EXPECT_LE(list->visualItemRect(list->item(0)).height(), 3 * line) << text.toStdString();
}
