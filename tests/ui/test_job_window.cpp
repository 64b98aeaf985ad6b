// SPDX-License-Identifier: MIT
// The Job window: rank records read into the job's table and heat map; sorting, the heat map finding its
// rank, a double-click opening a rank's trace in the main window, a selection opening as ranks.
#include "core/document/document.h"
#include "core/report/job_report.h"
#include "support/test_support.h"
#include "ui/job_window.h"
#include "ui/main_window.h"
#include "ui/ui_test_support.h"

#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QToolTip>

#include <filesystem>

#include <gtest/gtest.h>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

// A folder of records: `ranks` ranks computing 1 ms each but rank `slow`, 1.5 ms, and one that failed.
std::string recordsFolder(const TempDir& dir, int ranks, int slow, int findings = 0) {
    std::string lines;
    for (int r = 0; r < ranks; ++r) {
        RankRecord rec;
        rec.path = dir.path("rank" + std::to_string(r) + ".json");
        rec.stats.rank = r;
        rec.stats.path = rec.path;
        rec.stats.kernels = 10;
        rec.stats.computeBusyNs = r == slow ? 1'500'000 : 1'000'000 + 1'000 * (r % 5);
        rec.stats.gpuBusyNs = rec.stats.kernelNs = rec.stats.computeBusyNs + 200'000;
        rec.stats.commNs = 200'000;
        rec.stats.spanNs = 3'000'000;
        for (int f = 0; f < findings; ++f)
            rec.findings.push_back({"rule_" + std::to_string(f), Severity::Warning,
                                    "finding number " + std::to_string(f), 100'000 * (f + 1),
                                    0.01 * (f + 1)});
        lines += rankRecordJson(rec);
    }
    lines += rankRecordJson(failedRankRecord(dir.path("rank999.json"), "not a JSON trace", ranks));
    std::filesystem::create_directories(dir.path("records"));
    writeFile(dir.path("records/part.jsonl"), lines);
    return dir.path("records");
}

} // namespace

TEST(JobWindow, RecordsOpenAsATableAndAHeatMapThatFindEachOther) {
    TempDir dir;
    JobWindow w;
    w.resize(1200, 800);
    ASSERT_EQ(w.openRecords({QString::fromStdString(recordsFolder(dir, 300, 123))}), "");
    w.show();
    QApplication::processEvents();
    EXPECT_EQ(w.report().records.size(), 300u);
    ASSERT_EQ(w.report().failed.size(), 1u);
    QTableView* table = w.table();
    EXPECT_EQ(table->model()->rowCount(), 301) << "the failed rank has its row";
    // Sorted by compute busy, longest first: the slow rank on top.
    table->sortByColumn(2, Qt::DescendingOrder);
    EXPECT_EQ(w.rankAtRow(0), 123);
    EXPECT_EQ(w.report().slowRanks.size(), 1u);
    // The heat map's columns are the ranks in order: a click on rank 200's finds its row.
    JobHeatMap* heat = w.heatMap();
    const QRect plot = heat->plotRect();
    const QPoint at(plot.left() + int((200.5 / 300.0) * plot.width()), plot.center().y());
    EXPECT_EQ(heat->rankAt(at), 200);
    // Hovered, it is outlined and its number written under it.
    QTest::mouseMove(heat, at);
    EXPECT_EQ(heat->hoveredRank(), 200);
    // Its values show at once, without waiting for a tooltip event (the window may not be the active one).
    EXPECT_TRUE(heat->tipOf(200).startsWith("rank 200\n")) << heat->tipOf(200).toStdString();
    EXPECT_TRUE(heat->tipOf(200).contains("× the median")) << heat->tipOf(200).toStdString();
    EXPECT_EQ(QToolTip::text(), heat->tipOf(200));
    EXPECT_TRUE(heat->tipOf(123).contains("slow: compute busy")) << heat->tipOf(123).toStdString();
    QToolTip::hideText();
    // Ranks numbered along the axis wherever there is room, not only the first and the last.
    const std::vector<std::int64_t> labelled = heat->labelledRanks();
    ASSERT_GE(labelled.size(), 10u);
    EXPECT_EQ(labelled.front(), 0);
    const int widest = heat->fontMetrics().horizontalAdvance("299");
    for (std::size_t i = 1; i < labelled.size(); ++i) {
        EXPECT_GT(double(labelled[i] - labelled[i - 1]) * plot.width() / 300.0, widest) << labelled[i];
    }
    // The slow rank is marked: its column outlined in dark red, above and below.
    const QImage image = heat->grab().toImage();
    const int left = plot.left() + int(123.0 / 300.0 * plot.width()) - 1;
    bool outlined = false;
    for (int x = left - 2; x <= left + 2; ++x)
        outlined = outlined || image.pixelColor(x, plot.top() + plot.height() / 2) == QColor(170, 0, 0);
    EXPECT_TRUE(outlined);
    QTest::mouseClick(heat, Qt::LeftButton, {}, at);
    const QModelIndexList selected = table->selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1);
    EXPECT_EQ(w.rankAtRow(selected.front().row()), 200);
    // A double-click opens its trace; a selection of several opens them as ranks, in rank order.
    QSignalSpy opened(&w, &JobWindow::openRequested);
    const QModelIndex row = table->model()->index(selected.front().row(), 0);
    Q_EMIT table->doubleClicked(row);
    ASSERT_EQ(opened.size(), 1);
    EXPECT_TRUE(opened.front().front().toString().endsWith("rank200.json"));
    table->clearSelection();
    table->sortByColumn(0, Qt::AscendingOrder);
    table->selectionModel()->select(table->model()->index(7, 0),
                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
    table->selectionModel()->select(table->model()->index(3, 0),
                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
    const QStringList paths = w.selectedPaths();
    ASSERT_EQ(paths.size(), 2);
    EXPECT_TRUE(paths[0].endsWith("rank3.json"));
    EXPECT_TRUE(paths[1].endsWith("rank7.json"));
}

// A job's findings past the first five are a click away ("… 2 more" was text, and the two unreadable),
// and a click folds them again.
TEST(JobWindow, EveryFindingOfTheJobCanBeRead) {
    TempDir dir;
    JobWindow w;
    ASSERT_EQ(w.openRecords({QString::fromStdString(recordsFolder(dir, 4, -1, 7))}), "");
    ASSERT_EQ(w.report().findings.size(), 7u);
    auto* label = w.findChild<QLabel*>(QStringLiteral("jobFindings"));
    ASSERT_NE(label, nullptr);
    auto shown = [&] {
        int n = 0;
        for (int f = 0; f < 7; ++f)
            n += label->text().contains(QStringLiteral("finding number %1 ").arg(f));
        return n;
    };
    EXPECT_EQ(shown(), 5);
    EXPECT_TRUE(label->text().contains(QStringLiteral("… 2 more")));
    Q_EMIT label->linkActivated(QStringLiteral("more"));
    EXPECT_EQ(shown(), 7);
    Q_EMIT label->linkActivated(QStringLiteral("fewer"));
    EXPECT_EQ(shown(), 5);
}

// A double-click on a rank's row opens that rank's trace in the main window, as a user opens it.
TEST(JobWindow, ADoubleClickedRankOpensInTheMainWindow) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    TempDir dir;
    std::filesystem::create_directories(dir.path("records"));
    std::string lines;
    for (const auto& [path, position] : {std::pair{r0, 0}, std::pair{r1, 1}}) {
        const auto doc = openDocument(DocumentSource::file(path));
        lines += rankRecordJson(rankRecord(doc->trace, *doc->summary, path, std::size_t(position)));
    }
    writeFile(dir.path("records/job.jsonl"), lines);
    MainWindow main;
    JobWindow* job = main.openJob({QString::fromStdString(dir.path("records"))});
    ASSERT_NE(job, nullptr);
    QTableView* table = job->table();
    table->sortByColumn(0, Qt::AscendingOrder);
    ASSERT_EQ(job->rankAtRow(1), 1);
    Q_EMIT table->doubleClicked(table->model()->index(1, 0));
    ASSERT_TRUE(waitForLoad(main));
    ASSERT_NE(main.trace(), nullptr);
    EXPECT_EQ(main.trace()->info().path, r1);
}

TEST(JobWindow, TheMainWindowOpensAJobAndSaysWhenItCannot) {
    TempDir dir;
    MainWindow main;
    JobWindow* job = main.openJob({QString::fromStdString(recordsFolder(dir, 4, -1))});
    ASSERT_NE(job, nullptr);
    EXPECT_EQ(job->report().records.size(), 4u);
    writeFile(dir.path("twice.jsonl"), rankRecordJson(failedRankRecord("a.json", "x", 1)) +
                                           rankRecordJson(failedRankRecord("b.json", "y", 1)));
    JobWindow twice;
    const QString why = twice.openRecords({QString::fromStdString(dir.path("twice.jsonl"))});
    EXPECT_TRUE(why.contains("rank 1 twice")) << why.toStdString();
    std::filesystem::create_directories(dir.path("empty"));
    JobWindow empty;
    EXPECT_TRUE(empty.openRecords({QString::fromStdString(dir.path("empty"))}).contains("No records"));
}

// `attnscope --job` given the ranks' traces rather than their records: each trace's record is made as
// `summary --format rank` makes it (the job as `job` reports it from those records); a file that is
// neither still says why.
TEST(JobWindow, TheRanksTracesOpenAsAJob) {
    ATTNSCOPE_REQUIRE_FIXTURE(rank0, "dlrm_2ranks/rank0.json");
    JobWindow w;
    EXPECT_EQ(w.openRecords({QString::fromStdString(std::filesystem::path(rank0).parent_path().string())}),
              "");
    ASSERT_EQ(w.report().records.size(), 2u);
    EXPECT_EQ(w.report().ranks.stragglerRank, 0);
    TempDir dir;
    writeFile(dir.path("notes.json"), "not a trace and not a record");
    JobWindow other;
    EXPECT_TRUE(
        other.openRecords({QString::fromStdString(dir.path("notes.json"))}).contains("not a rank record"));
}
