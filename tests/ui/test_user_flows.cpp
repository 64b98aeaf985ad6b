// SPDX-License-Identifier: MIT
// The window driven as a user drives it: menus opened with a click on their title and items clicked
// in them, shortcuts pressed on the window, file dialogs answered by typing a name and pressing Enter,
// buttons clicked. Each test checks what the user would see or get (the file written, the trace on
// show, the table's order, the settings a restart keeps), worked out independently of the code that
// does it where a number is involved.
#include "core/document/document.h"
#include "support/test_support.h"
#include "ui/compare_window.h"
#include "ui/find_bar.h"
#include "ui/kernel_table_model.h"
#include "ui/main_window.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"
#include "ui/variants_window.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>

#include <gtest/gtest.h>

#include <fstream>
#include <memory>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

// A menu item's text as the user reads it: no mnemonic, no key hint after the tab.
QString plain(QString text) {
    text.remove('&');
    return text.section('\t', 0, 0).trimmed();
}

QAction* actionNamed(const QList<QAction*>& actions, const QString& text) {
    for (QAction* a : actions)
        if (plain(a->text()) == text) return a;
    return nullptr;
}

// Clicks the menu bar's `path[0]`, then each item of the path in the menu that opened (an item with a
// submenu opens it). The last item's action runs inside the click, a dialog it opens included.
::testing::AssertionResult chooseFromMenu(QMainWindow& w, const QStringList& path) {
    QMenuBar* bar = w.menuBar();
    QAction* top = actionNamed(bar->actions(), path.front());
    if (!top || !top->menu())
        return ::testing::AssertionFailure() << "no menu " << path.front().toStdString();
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(top).center());
    QMenu* menu = top->menu();
    for (int i = 1; i < path.size(); ++i) {
        if (!waitUntil([menu] { return menu->isVisible(); }, 5000))
            return ::testing::AssertionFailure()
                   << "the menu holding " << path[i].toStdString() << " did not open";
        QAction* item = actionNamed(menu->actions(), path[i]);
        if (!item) return ::testing::AssertionFailure() << "no item " << path[i].toStdString();
        if (!item->isEnabled())
            return ::testing::AssertionFailure() << path[i].toStdString() << " is disabled";
        const QPoint at = menu->actionGeometry(item).center();
        QTest::mouseMove(menu, at);
        QTest::mouseClick(menu, Qt::LeftButton, {}, at);
        if (item->menu()) menu = item->menu();
    }
    return ::testing::AssertionSuccess();
}

// Answers the next file dialog as a user would: types `names` into its file name field (a path, or
// several names each in quotes, in `folder` when one is given) and presses Enter; an empty `names`
// presses Escape. What the dialog showed is kept for the test to check. Destroying the answer stops
// waiting for a dialog that never came (it must not answer the next test's).
class DialogAnswer {
public:
    DialogAnswer(const QString& names, const QString& folder) {
        QObject::connect(&m_timer, &QTimer::timeout, [this, names, folder] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog || !dialog->isVisible()) return;
            m_timer.stop();
            shown = true;
            title = dialog->windowTitle();
            directory = dialog->directory().absolutePath();
            size = dialog->size();
            if (auto* files = dialog->findChild<QTreeView*>("treeView")) {
                nameColumn = files->header()->sectionSize(0);
                for (int column = 1; column < files->header()->count(); ++column) {
                    const QString name = files->model()->headerData(column, Qt::Horizontal).toString();
                    if (files->header()->sectionSize(column) <
                        files->header()->fontMetrics().horizontalAdvance(name))
                        cutHeaders << name;
                }
            }
            screen = dialog->screen()->availableGeometry().size();
            auto* edit = dialog->findChild<QLineEdit*>("fileNameEdit");
            if (names.isEmpty() || !edit) {
                QTest::keyClick(dialog, Qt::Key_Escape);
                return;
            }
            if (!folder.isEmpty()) dialog->setDirectory(folder);
            edit->setFocus();
            edit->setText(names);
            QTest::keyClick(edit, Qt::Key_Return);
        });
        m_timer.start(20);
    }
    bool shown = false;
    QString title;
    QString directory;      // the folder it opened in
    QSize size, screen;     // the dialog's, and the room on its screen
    int nameColumn = 0;     // the files' names column's width
    QStringList cutHeaders; // columns narrower than their header

private:
    QTimer m_timer;
};

std::unique_ptr<DialogAnswer> answerFileDialog(const QString& names, const QString& folder = {}) {
    return std::make_unique<DialogAnswer>(names, folder);
}

// The window shown and active, as a user's is: shortcuts reach it.
::testing::AssertionResult showActive(QWidget& w) {
    w.resize(1400, 900);
    w.show();
    w.activateWindow();
    if (!QTest::qWaitForWindowActive(&w))
        return ::testing::AssertionFailure() << "the window did not activate";
    return ::testing::AssertionSuccess();
}

// Presses a shortcut on the window, active as a user's is when they type (a dialog that closed may
// have left no window active).
void press(QWidget& w, Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::ControlModifier) {
    w.activateWindow();
    EXPECT_TRUE(QTest::qWaitForWindowActive(&w))
        << "the window never became active: the shortcut would go nowhere";
    QTest::keyClick(&w, key, modifiers);
}

// The window shown and active with a trace on show.
::testing::AssertionResult showAndOpen(MainWindow& w, const std::string& path) {
    if (auto shown = showActive(w); !shown) return shown;
    w.openFile(QString::fromStdString(path));
    if (!waitForTrace(w)) return ::testing::AssertionFailure() << path << " did not open";
    return ::testing::AssertionSuccess();
}

QString fileText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QPushButton* cancelButton(MainWindow& w) {
    for (QPushButton* b : w.statusBar()->findChildren<QPushButton*>())
        if (b->text() == "Cancel") return b;
    return nullptr;
}

QToolButton* findBarButton(FindBar* bar, const QString& text) {
    for (QToolButton* b : bar->findChildren<QToolButton*>())
        if (b->text() == text) return b;
    return nullptr;
}

// The kernel table's rows as shown (sorted and filtered): name, count and total time in ns.
struct Row {
    QString name;
    qlonglong count = 0, totalNs = 0;
    bool operator==(const Row&) const = default;
};
std::vector<Row> shownRows(MainWindow& w) {
    std::vector<Row> rows;
    QAbstractItemModel* m = w.kernelTable()->model();
    for (int r = 0; r < m->rowCount(); ++r)
        rows.push_back({m->index(r, KernelTableModel::Name).data().toString(),
                        m->index(r, KernelTableModel::Count).data(KernelTableModel::SortRole).toLongLong(),
                        m->index(r, KernelTableModel::Total).data(KernelTableModel::SortRole).toLongLong()});
    return rows;
}

} // namespace

TEST(UserFlows, CtrlOOpensTheFileTypedInTheDialogWhichThenStartsInItsFolder) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    ASSERT_TRUE(showActive(w));
    auto seen = answerFileDialog(QString::fromStdString(path));
    press(w, Qt::Key_O);
    ASSERT_TRUE(seen->shown);
    EXPECT_EQ(seen->title, "Open trace");
    // Sized to the screen, the names' column what the others leave (Qt's own 600 px dialog cut every
    // trace's name), the others as wide as they need.
    EXPECT_EQ(seen->size.width(), std::min(1100, seen->screen.width() * 3 / 4));
    EXPECT_LE(seen->size.height(), seen->screen.height());
    EXPECT_GE(seen->nameColumn, seen->size.width() / 3);
    EXPECT_TRUE(seen->cutHeaders.isEmpty()) << seen->cutHeaders.join(", ").toStdString();
    ASSERT_TRUE(waitForTrace(w));
    EXPECT_EQ(QFileInfo(QString::fromStdString(w.trace()->info().path)).canonicalFilePath(),
              QFileInfo(QString::fromStdString(path)).canonicalFilePath());
    EXPECT_TRUE(w.windowTitle().startsWith("h100_sdpa_flash_qwen.json.gz")) << w.windowTitle().toStdString();
    // The next Open starts in that folder; Escape leaves the trace on show as it was.
    const auto before = w.trace();
    seen = answerFileDialog({});
    press(w, Qt::Key_O);
    ASSERT_TRUE(seen->shown);
    EXPECT_EQ(QDir(seen->directory).canonicalPath(), QFileInfo(QString::fromStdString(path)).canonicalPath());
    QApplication::processEvents();
    EXPECT_FALSE(w.loading());
    EXPECT_EQ(w.trace(), before);
}

TEST(UserFlows, OpenSeveralAsRanksFromTheFileMenuFillsTheRanksDock) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    MainWindow w;
    ASSERT_TRUE(showActive(w));
    auto seen = answerFileDialog("\"rank0.json\" \"rank1.json\"",
                                 QFileInfo(QString::fromStdString(r0)).absolutePath());
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Open Several as Ranks…"}));
    ASSERT_TRUE(seen->shown);
    ASSERT_TRUE(waitForTrace(w));
    auto* dock = w.findChild<QDockWidget*>("ranksDock");
    ASSERT_NE(dock, nullptr);
    EXPECT_TRUE(dock->isVisible());
    auto* table = w.findChild<QTableWidget*>("ranksTable");
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), 2);
    // Double-clicking rank 1 scrolls the timeline to its tracks; rank 0's are at the top.
    dock->raise();
    QApplication::processEvents();
    auto doubleClick = [table](int row) {
        const QPoint at = table->visualItemRect(table->item(row, 0)).center();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
    };
    doubleClick(1);
    EXPECT_GT(w.timeline()->scrollBar()->value(), 0);
    doubleClick(0);
    EXPECT_EQ(w.timeline()->scrollBar()->value(), 0);
    // View → Ranks hides the dock.
    ASSERT_TRUE(chooseFromMenu(w, {"View", "Ranks"}));
    EXPECT_FALSE(dock->isVisible());
}

TEST(UserFlows, CompareWithFromTheFileMenuAndASecondFileThatFails) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "triton_single_kernel.json.gz");
    TempDir dir;
    writeFile(dir.path("broken.json"), "{\"traceEvents\": 5}");
    MainWindow w;
    ASSERT_TRUE(showActive(w));
    // Nothing open yet: the menu says what to do first and asks for no file.
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Compare With…"}));
    auto* box = w.findChild<QMessageBox*>();
    ASSERT_NE(box, nullptr);
    EXPECT_EQ(box->windowTitle(), "Nothing to compare");
    EXPECT_EQ(box->text(), "Open a trace first: it is A, the file you pick is B.");
    box->close();
    QApplication::processEvents();

    w.openFile(QString::fromStdString(path));
    ASSERT_TRUE(waitForTrace(w));
    const auto a = w.trace();
    auto seen = answerFileDialog(QString::fromStdString(path));
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Compare With…"}));
    ASSERT_TRUE(seen->shown);
    EXPECT_EQ(seen->title, "Compare with (B)");
    auto* compare = w.findChild<CompareWindow*>();
    ASSERT_NE(compare, nullptr);
    ASSERT_TRUE(waitUntil([compare] { return !compare->loading(); }));
    EXPECT_TRUE(compare->isVisible());
    EXPECT_EQ(compare->windowTitle(),
              "Compare — triton_single_kernel.json.gz vs triton_single_kernel.json.gz");
    EXPECT_GT(compare->table()->rowCount(), 0);
    compare->close(); // it deletes itself
    QApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    ASSERT_EQ(w.findChild<CompareWindow*>(), nullptr);

    // B cannot be read: the compare window says why, A stays on show in the main window.
    seen = answerFileDialog(QString::fromStdString(dir.path("broken.json")));
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Compare With…"}));
    ASSERT_TRUE(seen->shown);
    compare = w.findChild<CompareWindow*>();
    ASSERT_NE(compare, nullptr);
    ASSERT_TRUE(waitUntil([compare] { return !compare->loading(); }));
    QString labels;
    for (QLabel* label : compare->findChildren<QLabel*>())
        labels += label->text() + "\n";
    EXPECT_TRUE(labels.contains("B: could not be opened:")) << labels.toStdString();
    EXPECT_TRUE(labels.contains("not an array")) << labels.toStdString();
    EXPECT_EQ(compare->statusBar()->currentMessage(), "Could not open B");
    EXPECT_EQ(w.trace(), a);
    EXPECT_EQ(compare->timelineA()->trace(), a.get());
    compare->close();
    QApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);

    // B ends in the middle of its events: what was read is compared, and B's label says it is partial.
    writeFile(dir.path("cut.json"), "{\"traceEvents\": [{\"ph\": \"X\", \"name\": ");
    seen = answerFileDialog(QString::fromStdString(dir.path("cut.json")));
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Compare With…"}));
    compare = w.findChild<CompareWindow*>();
    ASSERT_NE(compare, nullptr);
    ASSERT_TRUE(waitUntil([compare] { return !compare->loading(); }));
    auto* labelB = compare->findChild<QLabel*>("compareLabelB");
    ASSERT_NE(labelB, nullptr);
    EXPECT_TRUE(labelB->text().startsWith("B: cut.json")) << labelB->text().toStdString();
    EXPECT_TRUE(labelB->text().contains("\nwarning: ")) << labelB->text().toStdString();
}

TEST(UserFlows, CtrlSSavesALoadedTraceThatOpensAgainWithTheSameKernels) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const QString saved = QString::fromStdString(dir.path("saved.json.gz"));
    std::vector<Row> before;
    {
        MainWindow w;
        ASSERT_TRUE(showActive(w));
        w.openFile(QString::fromStdString(path));
        ASSERT_TRUE(waitForTrace(w));
        before = shownRows(w);
        ASSERT_GT(before.size(), 10u);
        auto seen = answerFileDialog(saved);
        QSignalSpy done(&w, &MainWindow::traceSaved);
        press(w, Qt::Key_S);
        ASSERT_TRUE(seen->shown);
        EXPECT_EQ(seen->title, "Save trace");
        // Written on a worker while the window stays live, then said in the status bar.
        ASSERT_TRUE(done.count() || done.wait(20000));
        EXPECT_EQ(done.at(0).at(1).toString(), "");
        EXPECT_EQ(w.statusBar()->currentMessage(), "Saved " + saved);
    }
    ASSERT_TRUE(QFileInfo(saved).size() > 0);
    MainWindow again;
    ASSERT_TRUE(showActive(again));
    auto seen = answerFileDialog(saved);
    press(again, Qt::Key_O);
    ASSERT_TRUE(waitForTrace(again));
    EXPECT_EQ(again.trace()->info().path, saved.toStdString());
    EXPECT_EQ(shownRows(again), before); // each kernel with its count and its time to the nanosecond
}

TEST(UserFlows, TheFileMenuExportsTheTimelineTheChartAndTheTableOfARange) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const QString folder = QString::fromStdString(dir.path(""));
    MainWindow w;
    ASSERT_TRUE(showActive(w));
    ASSERT_TRUE(openAndAnalyse(w, path));

    auto seen = answerFileDialog(folder + "/timeline.png");
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Export Timeline", "PNG…"}));
    ASSERT_TRUE(seen->shown);
    QImage picture(folder + "/timeline.png");
    ASSERT_FALSE(picture.isNull());
    EXPECT_EQ(picture.width(), w.timeline()->width());
    // The next export starts in the folder of the last.
    seen = answerFileDialog("timeline@2x.png");
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Export Timeline", "PNG at 2× …"}));
    EXPECT_EQ(QDir(seen->directory), QDir(folder));
    QImage twice(folder + "/timeline@2x.png");
    ASSERT_FALSE(twice.isNull());
    EXPECT_EQ(twice.width(), 2 * picture.width());

    seen = answerFileDialog(folder + "/chart.svg");
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Export Chart", "SVG…"}));
    EXPECT_TRUE(fileText(folder + "/chart.svg").contains("<svg"));
    seen = answerFileDialog(folder + "/chart.pdf");
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Export Chart", "PDF…"}));
    EXPECT_TRUE(fileText(folder + "/chart.pdf").startsWith("%PDF"));

    // A range selected first: the CSV holds the table as shown, the range's kernels in its order.
    TimelineView* v = w.timeline();
    const TimeNs start = w.trace()->startNs(), length = w.trace()->endNs() - start;
    v->setRange(TimeRange{start + length / 3, start + length / 2});
    const std::vector<Row> rows = shownRows(w);
    ASSERT_FALSE(rows.empty());
    ASSERT_LT(rows.size(), w.document()->summary->topKernels.size());
    seen = answerFileDialog(folder + "/kernels.csv");
    ASSERT_TRUE(chooseFromMenu(w, {"File", "Export Kernel Table as CSV…"}));
    const QStringList lines = fileText(folder + "/kernels.csv").split('\n', Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), qsizetype(rows.size()) + 1);
    EXPECT_TRUE(lines[0].startsWith("kernel,role,count,total_ns"));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        // The name is the first field (quoted when it has a comma): the line ends with count,total.
        const QStringList fields = lines[qsizetype(r) + 1].split(',');
        EXPECT_TRUE(lines[qsizetype(r) + 1].contains(rows[r].name) ||
                    lines[qsizetype(r) + 1].contains(QString(rows[r].name).replace("\"", "\"\"")));
        EXPECT_EQ(fields[fields.size() - 6].toLongLong(), rows[r].count);
        EXPECT_EQ(fields[fields.size() - 5].toLongLong(), rows[r].totalNs);
    }

    // Compare Variants' exports start in the same folder (they opened in the working folder).
    VariantsWindow variants;
    variants.show();
    QAction* exportTable = nullptr;
    for (QAction* a : variants.findChildren<QAction*>())
        if (a->text() == QStringLiteral("Export Table…")) exportTable = a;
    ASSERT_NE(exportTable, nullptr);
    seen = answerFileDialog(QString());
    exportTable->trigger();
    ASSERT_TRUE(seen->shown);
    EXPECT_EQ(QDir(seen->directory), QDir(folder));
}

TEST(UserFlows, CtrlFThenTheFindBarsButtonsStepThroughMatchesAndClose) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    ASSERT_TRUE(showAndOpen(w, path));
    // Counted independently: the kernels and ops whose name holds "flash_fwd", any case.
    int expected = 0;
    const Trace& t = *w.trace();
    for (const Track& track : t.tracks())
        for (std::size_t i = 0; i < track.size(); ++i)
            expected +=
                QString::fromUtf8(t.str(track.events.name[i])).contains("flash_fwd", Qt::CaseInsensitive);
    ASSERT_GT(expected, 2);

    FindBar* bar = w.findBar();
    press(w, Qt::Key_F);
    ASSERT_TRUE(bar->isVisible());
    ASSERT_TRUE(bar->edit()->hasFocus());
    QTest::keyClicks(bar->edit(), "FLASH_fwd");
    QTest::keyClick(bar->edit(), Qt::Key_Return);
    ASSERT_TRUE(waitUntil([&] { return bar->countText() == QString("1 of %1").arg(expected); }))
        << bar->countText().toStdString();
    auto selectedName = [&] {
        const auto e = w.timeline()->selected();
        return e ? QString::fromUtf8(t.str(t.track(e->track).events.name[e->index])) : QString();
    };
    EXPECT_TRUE(selectedName().contains("flash_fwd")) << selectedName().toStdString();
    QToolButton* next = findBarButton(bar, QStringLiteral("▼"));
    QToolButton* previous = findBarButton(bar, QStringLiteral("▲"));
    QToolButton* close = findBarButton(bar, QStringLiteral("✕"));
    ASSERT_TRUE(next && previous && close);
    QTest::mouseClick(next, Qt::LeftButton);
    EXPECT_EQ(bar->countText(), QString("2 of %1").arg(expected));
    const auto second = w.timeline()->selected();
    QTest::mouseClick(previous, Qt::LeftButton);
    QTest::mouseClick(previous, Qt::LeftButton); // from the first back round to the last
    EXPECT_EQ(bar->countText(), QString("%1 of %1").arg(expected));
    EXPECT_NE(w.timeline()->selected(), second);
    QTest::mouseClick(close, Qt::LeftButton);
    EXPECT_FALSE(bar->isVisible());
    // Ctrl+F again: the last search is there, selected, so typing replaces it.
    press(w, Qt::Key_F);
    EXPECT_TRUE(bar->isVisible());
    EXPECT_EQ(bar->edit()->selectedText(), "FLASH_fwd");
}

TEST(UserFlows, TheCancelButtonStopsALoadAndWhatWasOnShowStays) {
    // A trace big enough that its load is still under way when the button is clicked.
    TempDir dir;
    {
        std::ofstream out(dir.path("big.json"));
        out << "{\"traceEvents\": [";
        for (int i = 0; i < 300000; ++i)
            out << (i ? "," : "") << "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_" << i % 50
                << "\",\"pid\":0,\"tid\":7,\"ts\":" << i * 10
                << ",\"dur\":8,\"args\":{\"device\":0,\"stream\":7}}";
        out << "]}";
    }
    MainWindow w;
    ASSERT_TRUE(showActive(w));
    w.openEmbeddedSample();
    ASSERT_TRUE(waitForTrace(w));
    const auto sample = w.trace();
    QPushButton* cancel = cancelButton(w);
    ASSERT_NE(cancel, nullptr);
    EXPECT_FALSE(cancel->isVisible());
    auto seen = answerFileDialog(QString::fromStdString(dir.path("big.json")));
    press(w, Qt::Key_O);
    ASSERT_TRUE(seen->shown);
    ASSERT_TRUE(w.loading());
    ASSERT_TRUE(cancel->isVisible());
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(waitForLoad(w));
    EXPECT_EQ(w.trace(), sample);
    EXPECT_EQ(w.statusBar()->currentMessage(), "Load cancelled");
    EXPECT_FALSE(cancel->isVisible());
    EXPECT_EQ(w.findChild<QMessageBox*>(), nullptr); // cancelling is not an error
    // The same file opens when it is not cancelled.
    w.openFile(QString::fromStdString(dir.path("big.json")));
    ASSERT_TRUE(waitForTrace(w));
    EXPECT_EQ(w.trace()->info().eventsRead, 300000u);
}

TEST(UserFlows, ClickingAColumnHeaderSortsTheKernelTableAndAgainReversesIt) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    ASSERT_TRUE(showAndOpen(w, path));
    QTableView* table = w.kernelTable();
    table->window()->raise();
    QHeaderView* header = table->horizontalHeader();
    auto clickHeader = [&](int column) {
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                          QPoint(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                                 header->height() / 2));
    };
    auto column = [&](int c) {
        std::vector<qlonglong> values;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            values.push_back(table->model()->index(r, c).data(KernelTableModel::SortRole).toLongLong());
        return values;
    };
    // Opens longest total first.
    auto totals = column(KernelTableModel::Total);
    ASSERT_GT(totals.size(), 10u);
    EXPECT_TRUE(std::is_sorted(totals.rbegin(), totals.rend()));
    clickHeader(KernelTableModel::Count);
    auto counts = column(KernelTableModel::Count);
    const bool descending = std::is_sorted(counts.rbegin(), counts.rend());
    EXPECT_TRUE(descending || std::is_sorted(counts.begin(), counts.end()));
    EXPECT_NE(counts.front(), counts.back());
    clickHeader(KernelTableModel::Count);
    counts = column(KernelTableModel::Count);
    EXPECT_TRUE(descending ? std::is_sorted(counts.begin(), counts.end())
                           : std::is_sorted(counts.rbegin(), counts.rend()));
    clickHeader(KernelTableModel::Max);
    clickHeader(KernelTableModel::Max);
    auto maxima = column(KernelTableModel::Max);
    EXPECT_TRUE(std::is_sorted(maxima.begin(), maxima.end()) ||
                std::is_sorted(maxima.rbegin(), maxima.rend()));
    EXPECT_EQ(header->sortIndicatorSection(), KernelTableModel::Max);
    EXPECT_TRUE(header->highlightSections()); // as a table's own header: the selection's columns stand out
}

TEST(UserFlows, ColourModeAndLegendChosenInTheViewMenuAreKeptAfterARestart) {
    {
        MainWindow w;
        ASSERT_TRUE(showActive(w));
        w.openEmbeddedSample();
        ASSERT_TRUE(waitForTrace(w));
        EXPECT_EQ(w.timeline()->colorMode(), ColorMode::Role); // the default
        const int withLegend = w.timeline()->tracksBottom();
        ASSERT_TRUE(chooseFromMenu(w, {"View", "Colour Kernels By", "Name"}));
        EXPECT_EQ(w.timeline()->colorMode(), ColorMode::Name);
        ASSERT_TRUE(chooseFromMenu(w, {"View", "Legend"}));
        EXPECT_GT(w.timeline()->tracksBottom(), withLegend); // the strip's room goes to the tracks
        w.close();
    }
    MainWindow again;
    ASSERT_TRUE(showActive(again));
    EXPECT_EQ(again.timeline()->colorMode(), ColorMode::Name);
    QAction* view = actionNamed(again.menuBar()->actions(), "View");
    ASSERT_NE(view, nullptr);
    QAction* legend = actionNamed(view->menu()->actions(), "Legend");
    ASSERT_NE(legend, nullptr);
    EXPECT_FALSE(legend->isChecked());
    QAction* colours = actionNamed(view->menu()->actions(), "Colour Kernels By");
    ASSERT_NE(colours, nullptr);
    EXPECT_TRUE(actionNamed(colours->menu()->actions(), "Name")->isChecked());
    EXPECT_FALSE(actionNamed(colours->menu()->actions(), "Role")->isChecked());
    again.openEmbeddedSample();
    ASSERT_TRUE(waitForTrace(again));
    EXPECT_EQ(again.timeline()->tracksBottom(), again.timeline()->height());
    // And back: Roofline Verdict and the legend on, kept too.
    ASSERT_TRUE(chooseFromMenu(again, {"View", "Colour Kernels By", "Roofline Verdict"}));
    ASSERT_TRUE(chooseFromMenu(again, {"View", "Legend"}));
    EXPECT_EQ(QSettings().value("view/colorMode").toInt(), int(ColorMode::Verdict));
    EXPECT_TRUE(QSettings().value("view/legend").toBool());
    EXPECT_LT(again.timeline()->tracksBottom(), again.timeline()->height());
}

// A file opened after another starts at its top: a helper had seen the second trace open scrolled as far
// down as the first had been.
TEST(UserFlows, ANewFileOpensAtItsTopTracks) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(mi250, "mi250_rocm_small.json.gz");
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, h100, {1366, 768}));
    QScrollBar* bar = w.timeline()->scrollBar();
    ASSERT_GT(bar->maximum(), 0); // its tracks are taller than the view
    bar->setValue(bar->maximum());
    QApplication::processEvents();
    ASSERT_GT(bar->value(), 0);
    ASSERT_TRUE(openAndAnalyse(w, mi250, {1366, 768}));
    EXPECT_EQ(bar->value(), 0);
}
