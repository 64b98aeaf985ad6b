// SPDX-License-Identifier: MIT
#include "core/document/document.h"
#include "core/document/growing_document.h"
#include "core/io/trace_builder.h"
#include "core/io/trace_loader.h"
#include "core/model/timeline_index.h"
#include "support/test_support.h"
#include "ui/charts.h"
#include "ui/kernel_table_model.h"
#include "ui/main_window.h"
#include "ui/navigation_keys.h"
#include "ui/profile_controller.h"
#include "ui/qt_text.h"
#include "ui/timeline_view.h"
#include "ui/trace_header.h"
#include "ui/ui_test_support.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTextDocument>
#include <QThreadPool>
#include <QTimer>
#include <QUrl>

#include <gtest/gtest.h>

#include <map>
#include <vector>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

QString headerText(MainWindow& w) {
    QString text;
    for (QLabel* label : w.findChildren<QLabel*>())
        text += label->text() + "\n";
    return text;
}

} // namespace

TEST(MainWindow, ShowsTheEmbeddedSample) {
    MainWindow w;
    w.openEmbeddedSample();
    ASSERT_TRUE(waitForLoad(w));
    ASSERT_TRUE(w.trace());
    EXPECT_EQ(w.trace()->info().eventsRead, 138u);
    QTableView* table = w.kernelTable();
    ASSERT_NE(table, nullptr);
    // Four kernels: QK^T GEMM, softmax, PV GEMM and the fused flash kernel; the longest first.
    ASSERT_EQ(table->model()->rowCount(), 4);
    EXPECT_TRUE(table->model()->index(0, KernelTableModel::Name).data().toString().contains("SoftMax"));
    EXPECT_TRUE(headerText(w).contains("NVIDIA H200"));
    EXPECT_TRUE(headerText(w).contains("24 kernels"));
}

// The trace's header wraps in a narrow window and is as tall as its lines: none cut (its size hints are
// a short line; the layout gives it the height its text takes at its width).
TEST(MainWindow, TheHeaderWrapsWholeInANarrowWindow) {
    MainWindow w;
    ASSERT_TRUE(showEmbeddedSample(w, {560, 700}));
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    auto* header = w.findChild<QLabel*>("traceHeader");
    ASSERT_NE(header, nullptr);
    EXPECT_TRUE(header->wordWrap());
    const QRect inside = header->contentsRect();
    const QRect needed = header->fontMetrics().boundingRect(QRect(0, 0, inside.width(), 100000),
                                                            Qt::TextWordWrap, header->text());
    EXPECT_GE(needed.height(), 2 * header->fontMetrics().lineSpacing()) << header->text().toStdString();
    EXPECT_GE(inside.height(), needed.height()) << header->text().toStdString();
    EXPECT_LE(header->width(), w.width()); // the window is not held wider by it
}

// The kernel table as a user sees it docked: the names get the room the numbers leave (they had a few
// pixels), and each cell's text is drawn, the selected row's in the selection's colours.
TEST(MainWindow, TheKernelTableShowsItsNamesAndNumbers) {
    MainWindow w;
    ASSERT_TRUE(showEmbeddedSample(w, {1400, 900}));
    QTableView* table = w.kernelTable();
    QApplication::processEvents();
    const QHeaderView* header = table->horizontalHeader();
    EXPECT_GT(header->sectionSize(KernelTableModel::Name), header->sectionSize(KernelTableModel::Total));
    EXPECT_GE(header->sectionSize(KernelTableModel::Total),
              table->fontMetrics().horizontalAdvance(QStringLiteral("000.000 ms")));
    table->selectRow(1);
    const QImage image = table->viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32);
    auto inks = [&](int row, int column, QRgb background) {
        const QRect cell = table->visualRect(table->model()->index(row, column));
        int n = 0;
        for (int y = cell.top(); y <= cell.bottom(); ++y)
            for (int x = cell.left(); x <= cell.right(); ++x)
                n += image.rect().contains(x, y) && qGray(image.pixel(x, y)) < qGray(background) - 60;
        return n;
    };
    const QPalette palette = table->palette();
    EXPECT_GT(inks(0, KernelTableModel::Name, palette.color(QPalette::Base).rgb()), 20);
    EXPECT_GT(inks(0, KernelTableModel::Total, palette.color(QPalette::Base).rgb()), 20);
    // The selected row: its text in the highlighted text's colour over the highlight.
    const QRect selected = table->visualRect(table->model()->index(1, KernelTableModel::Count));
    int highlighted = 0, text = 0;
    for (int y = selected.top(); y <= selected.bottom(); ++y)
        for (int x = selected.left(); x <= selected.right(); ++x) {
            const QRgb px = image.pixel(x, y);
            highlighted +=
                (px & 0xffffff) == (palette.color(QPalette::Active, QPalette::Highlight).rgb() & 0xffffff);
            text += qGray(px) > 200;
        }
    EXPECT_GT(highlighted, selected.width() * selected.height() / 2);
    EXPECT_GT(text, 5);
}

// A profile started again shows its first snapshot as another document: the kernels of the same names
// keep their rows, but none stays selected (the timeline's highlight was of the other document).
TEST(MainWindow, AnotherDocumentOfTheSameKernelsLeavesNoneSelected) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    auto* profile = w.findChild<ProfileController*>();
    ASSERT_NE(profile, nullptr);
    Q_EMIT profile->snapshot(openDocument(DocumentSource::file(path)), true);
    QApplication::processEvents();
    QTableView* table = w.kernelTable();
    ASSERT_GT(table->model()->rowCount(), 2);
    table->selectRow(1);
    ASSERT_EQ(table->selectionModel()->selectedRows().size(), 1);
    Q_EMIT profile->snapshot(openDocument(DocumentSource::file(path)), false); // the same run: stays
    QApplication::processEvents();
    EXPECT_EQ(table->selectionModel()->selectedRows().size(), 1);
    Q_EMIT profile->snapshot(openDocument(DocumentSource::file(path)), true); // started again
    QApplication::processEvents();
    EXPECT_TRUE(table->selectionModel()->selectedRows().isEmpty());
}

// A live profile's next snapshot, with kernels new to the table and its findings found again: the kernel
// table, the findings (their columns sized again, one stretched) and the finding's places are laid out
// with the rest of the window and painted in its first pass, not again in a later one (the window may take
// more: a label grown with its text lays the window out).
TEST(MainWindow, ALiveSnapshotsTablesArePaintedInTheWindowsFirstPass) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    // The program's steps: the trace's first tenth, then the rest.
    const auto steps = cutByTime(*loadTraceFile(path), 10);
    QSettings().clear(); // the docks where a first start puts them
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    for (const char* dock : {"kernelsDock", "findingsDock"})
        w.findChild<QDockWidget*>(dock)->raise();
    auto* profile = w.findChild<ProfileController*>();
    GrowingDocument growing("steps");
    growing.append("pid 1", std::nullopt, steps.front());
    const auto first = growing.snapshot();
    Q_EMIT profile->snapshot(first, true);
    QTest::qWait(200);
    // The passes (the window's update requests) each view is painted in.
    struct Passes : QObject {
        QWidget* window = nullptr;
        int pass = 0;
        std::map<QObject*, std::vector<int>> painted;
        bool eventFilter(QObject* o, QEvent* e) override {
            if (o == window && e->type() == QEvent::UpdateRequest) ++pass;
            if (o != window && e->type() == QEvent::Paint) painted[o].push_back(pass);
            return false;
        }
    } passes;
    passes.window = &w;
    const std::vector<QWidget*> views = {w.kernelTable()->viewport(),
                                         w.findChild<QAbstractItemView*>("findingsTable")->viewport(),
                                         w.findChild<QAbstractItemView*>("findingsEvidence")->viewport()};
    w.installEventFilter(&passes);
    for (QWidget* view : views)
        view->installEventFilter(&passes);
    for (std::size_t k = 1; k < steps.size(); ++k)
        growing.append("pid 1", std::nullopt, steps[k]);
    const auto complete = growing.snapshot(true); // its findings found again on both steps
    ASSERT_GT(complete->summary->kernelsByRole.size(), first->summary->kernelsByRole.size());
    ASSERT_NE(complete->findings, first->findings);
    Q_EMIT profile->snapshot(complete, false);
    // The loop's turns that follow: the window's paint, and what each turn posts for the next.
    for (int turn = 0; turn < 5; ++turn)
        QApplication::processEvents();
    w.removeEventFilter(&passes);
    for (QWidget* view : views) {
        view->removeEventFilter(&passes);
        EXPECT_EQ(passes.painted[view], std::vector<int>{1}) << view->parent()->objectName().toStdString();
    }
}

// The document a snapshot replaces is freed on a worker once the window has painted the new one: it is
// there at the window's paint, and gone when the worker is done (the timeline's frame of the new one,
// drawn on a worker, may be shown after).
TEST(MainWindow, TheDocumentASnapshotReplacesIsFreedAfterTheNewOneIsPainted) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    auto* profile = w.findChild<ProfileController*>();
    std::weak_ptr<const Document> replaced;
    {
        auto first = openDocument(DocumentSource::file(path));
        replaced = first;
        Q_EMIT profile->snapshot(std::move(first), true);
    }
    QTest::qWait(100);
    QThreadPool::globalInstance()->waitForDone();
    ASSERT_FALSE(replaced.expired()); // on show
    struct Paints : QObject {
        std::weak_ptr<const Document>* replaced = nullptr;
        int count = 0;
        bool thereAtFirst = false;
        bool eventFilter(QObject*, QEvent* e) override {
            if (e->type() == QEvent::Paint && count++ == 0) thereAtFirst = !replaced->expired();
            return false;
        }
    } paints;
    paints.replaced = &replaced;
    auto* timeline = w.findChild<TimelineView*>();
    timeline->installEventFilter(&paints);
    Q_EMIT profile->snapshot(openDocument(DocumentSource::file(path)), false);
    EXPECT_FALSE(replaced.expired()); // the views let it go; the window has not painted the new one yet
    QTest::qWait(100);
    QThreadPool::globalInstance()->waitForDone();
    timeline->removeEventFilter(&paints);
    EXPECT_GT(paints.count, 0);
    EXPECT_TRUE(paints.thereAtFirst);
    EXPECT_TRUE(replaced.expired());
}

TEST(MainWindow, FilterNarrowsTheKernelTable) {
    MainWindow w;
    w.openEmbeddedSample();
    ASSERT_TRUE(waitForLoad(w));
    QTableView* table = w.kernelTable();
    auto* filter = w.kernelTable()->parentWidget()->findChild<QLineEdit*>();
    ASSERT_NE(filter, nullptr);
    filter->setText("FLASH");
    ASSERT_EQ(table->model()->rowCount(), 1);
    EXPECT_TRUE(
        table->model()->index(0, KernelTableModel::Name).data().toString().contains("flash_fwd_kernel"));
}

// The Role column and filter: the flash kernels of a real trace under "fused attention", and the
// GEMMs under "GEMM"; the name filter and the role filter narrow the table together.
TEST(MainWindow, TheKernelTableHasRolesAndARoleFilter) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    MainWindow w;
    w.openFile(QString::fromStdString(path));
    ASSERT_TRUE(waitForTrace(w));
    ASSERT_TRUE(waitForAnalysis(w));
    QTableView* table = w.kernelTable();
    QAbstractItemModel* m = table->model();
    EXPECT_EQ(m->headerData(KernelTableModel::Role, Qt::Horizontal).toString(), "Role");
    const int all = m->rowCount();
    int fused = 0, gemm = 0;
    for (int r = 0; r < all; ++r) {
        const QString name = m->index(r, KernelTableModel::Name).data().toString();
        const QString role = m->index(r, KernelTableModel::Role).data().toString();
        if (name.contains("flash_fwd_kernel")) EXPECT_EQ(role, "fused attention") << name.toStdString();
        if (name.contains("xmma_gemm")) EXPECT_EQ(role, "GEMM") << name.toStdString();
        fused += role == "fused attention";
        gemm += role == "GEMM";
    }
    ASSERT_GT(fused, 0);
    ASSERT_GT(gemm, 0);
    auto* roles = w.findChild<QComboBox*>("roleFilter");
    ASSERT_NE(roles, nullptr);
    roles->setCurrentIndex(roles->findText("fused attention"));
    EXPECT_EQ(m->rowCount(), fused);
    for (int r = 0; r < m->rowCount(); ++r)
        EXPECT_EQ(m->index(r, KernelTableModel::Role).data().toString(), "fused attention");
    auto* filter = table->parentWidget()->findChild<QLineEdit*>();
    filter->setText("no such kernel");
    EXPECT_EQ(m->rowCount(), 0);
    filter->clear();
    roles->setCurrentIndex(0);
    EXPECT_EQ(m->rowCount(), all);
}

// The bottom docks (kernels, charts, ranks) open tall enough for a chart to be read: the dock, and
// in it the chart's plot with its bars, not only a frame.
TEST(MainWindow, TheChartsDockOpensAtAUsableHeight) {
    QSettings().clear(); // a first start: no saved layout
    MainWindow w;
    ASSERT_TRUE(showEmbeddedSample(w, {1400, 900}));
    auto* charts = w.findChild<QDockWidget*>("chartsDock");
    ASSERT_NE(charts, nullptr);
    charts->raise();
    QElapsedTimer waited;
    waited.start();
    while (!w.analysis() && waited.elapsed() < 20000)
        QTest::qWait(20);
    ASSERT_TRUE(w.analysis());
    QApplication::processEvents();
    EXPECT_GE(charts->height(), 280);
    auto* panel = charts->findChild<ChartsPanel*>();
    ASSERT_NE(panel, nullptr);
    ASSERT_EQ(panel->currentKind(), ChartKind::Breakdown);
    QChart* chart = panel->currentChart();
    ASSERT_NE(chart, nullptr);
    EXPECT_FALSE(chart->series().isEmpty()) << "no bars in the breakdown";
    EXPECT_GE(chart->plotArea().height(), 120) << "the bars have no room";
    EXPECT_GE(chart->plotArea().width(), 300);
}

TEST(MainWindow, SuggestedNamesDropTheTraceSuffixes) {
    EXPECT_EQ(traceBaseName("h100_sdpa_flash_qwen.json.gz"), "h100_sdpa_flash_qwen");
    EXPECT_EQ(traceBaseName("/data/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"),
              "rank-0.Apr_03_18_51_38.1102");
    EXPECT_EQ(traceBaseName("report1.sqlite"), "report1");
    EXPECT_EQ(traceBaseName("run.json"), "run");
    EXPECT_EQ(traceBaseName("model.v2"), "model.v2");
}

TEST(MainWindow, ABadFileKeepsTheOpenTraceAndSaysWhy) {
    TempDir dir;
    writeFile(dir.path("bad.json"), "{\"traceEvents\": 5}");
    MainWindow w;
    w.openEmbeddedSample();
    ASSERT_TRUE(waitForLoad(w));
    const auto before = w.trace();
    w.openFile(QString::fromStdString(dir.path("bad.json")));
    ASSERT_TRUE(waitForLoad(w));
    EXPECT_EQ(w.trace(), before);
    QMessageBox* box = w.findChild<QMessageBox*>();
    ASSERT_NE(box, nullptr);
    EXPECT_TRUE(box->informativeText().contains("not an array")) << box->informativeText().toStdString();
    EXPECT_TRUE(box->informativeText().contains("at byte 16"));
    EXPECT_EQ(box->textFormat(), Qt::PlainText);
    box->close();
}

TEST(MainWindow, DroppedFilesOpenAndRecentFilesAndLayoutPersist) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "triton_single_kernel.json.gz");
    QSettings().remove("recentFiles");
    {
        MainWindow w;
        w.show();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(QString::fromStdString(path))});
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        EXPECT_TRUE(enter.isAccepted());
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        ASSERT_TRUE(waitForLoad(w));
        ASSERT_TRUE(w.trace());
        EXPECT_EQ(w.trace()->info().path, path);
        w.close(); // saves the layout
    }
    QSettings settings;
    const QStringList recent = settings.value("recentFiles").toStringList();
    ASSERT_FALSE(recent.isEmpty());
    EXPECT_EQ(recent.first(), QFileInfo(QString::fromStdString(path)).absoluteFilePath());
    EXPECT_FALSE(settings.value("window/state").toByteArray().isEmpty());
    EXPECT_TRUE(settings.value("window/rect").toRect().isValid());
    // A new window lists it under File → Open Recent.
    MainWindow again;
    QStringList items;
    for (QMenu* menu : again.findChildren<QMenu*>())
        if (menu->title().contains("Recent"))
            for (QAction* item : menu->actions())
                items << item->text();
    EXPECT_TRUE(items.contains(recent.first())) << items.join(", ").toStdString();
}

// A window closed with a job's ranks open keeps its layout, but the next starts with no Ranks tab: there are
// no ranks until a job is opened (a leftover tab showed the last job's nothing).
TEST(MainWindow, TheRanksTabComesWithRanksNotWithTheSavedLayout) {
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    {
        MainWindow w;
        w.show();
        w.openRanks({QString::fromStdString(r0), QString::fromStdString(r1)});
        ASSERT_TRUE(waitForTrace(w) && waitForAnalysis(w));
        auto* ranks = w.findChild<QDockWidget*>("ranksDock");
        ASSERT_NE(ranks, nullptr);
        EXPECT_TRUE(ranks->isVisible());
        w.close(); // saves the layout, the Ranks dock on show
    }
    MainWindow again;
    again.show();
    QApplication::processEvents();
    auto* ranks = again.findChild<QDockWidget*>("ranksDock");
    ASSERT_NE(ranks, nullptr);
    EXPECT_FALSE(ranks->isVisible());
}

// At a laptop's 1366×768 and a desktop's 1920×1080, no column title of the docks' tables is cut: each
// section at least as wide as its title needs (the header's own size hint), on a trace and on ranks.
TEST(MainWindow, NoColumnTitleIsCutAtTheDefaultLayout) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    ATTNSCOPE_REQUIRE_FIXTURE(r0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(r1, "dlrm_2ranks/rank1.json");
    for (const QSize size : {QSize(1366, 768 - 40), QSize(1920, 1080 - 40)}) {
        for (const QStringList& files :
             {QStringList{QString::fromStdString(h100)},
              QStringList{QString::fromStdString(r0), QString::fromStdString(r1)}}) {
            MainWindow w;
            w.resize(size);
            w.show();
            if (files.size() == 1) {
                ASSERT_TRUE(openAndAnalyse(w, files.front().toStdString(), size));
            } else {
                w.openRanks(files);
                ASSERT_TRUE(waitForTrace(w) && waitForAnalysis(w));
            }
            for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
                if (dock->objectName() == "ranksDock" || dock->objectName() == "attentionDock") dock->raise();
            }
            QApplication::processEvents();
            for (QTableView* table : w.findChildren<QTableView*>()) {
                if (!table->isVisible()) continue;
                QHeaderView* header = table->horizontalHeader();
                for (int c = 0; c < header->count(); ++c) {
                    if (header->isSectionHidden(c) || c == header->count() - 1)
                        continue; // the last stretches
                    const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
                    for (const QString& line : title.split('\n')) // a title of two lines: each whole
                        EXPECT_GE(header->sectionSize(c), header->fontMetrics().horizontalAdvance(line) + 8)
                            << table->objectName().toStdString() << " " << title.toStdString() << " at "
                            << size.width() << "x" << size.height() << " " << files.size() << " file(s)";
                }
            }
        }
    }
}

// Help says more than About: every key the timeline takes and the mouse, and where each of the user's data
// files goes (the texts that name findings.txt or call_shapes.txt say which file is meant).
TEST(MainWindow, HelpListsTheKeysAndWhereTheUsersFilesGo) {
    MainWindow w;
    QStringList items;
    for (QAction* menu : w.menuBar()->actions())
        if (menu->text() == "&Help")
            for (QAction* a : menu->menu()->actions())
                if (!a->isSeparator()) items << a->text();
    EXPECT_EQ(items.size(), 3) << items.join(" | ").toStdString();
    const QString keys = MainWindow::helpText(MainWindow::HelpTopic::KeysAndMouse);
    for (const NavigationKey& k : navigationKeys())
        EXPECT_TRUE(keys.contains(QStringLiteral("%1\t").arg(k.hint))) << k.hint;
    EXPECT_TRUE(keys.contains("Shift+drag"));
    const QString files = MainWindow::helpText(MainWindow::HelpTopic::Files);
    const QString config = qEnvironmentVariable("XDG_CONFIG_HOME");
    for (const char* name : {"kernel_roles.txt", "device_specs.txt", "findings.txt", "call_shapes.txt"}) {
        EXPECT_TRUE(files.contains(name)) << name;
        if (!config.isEmpty())
            EXPECT_TRUE(files.contains(config + "/attnscope/" + name)) << files.toStdString();
    }
    // Shown as the menu shows it: a box that fits the screen, each paragraph its own.
    for (QAction* menu : w.menuBar()->actions())
        if (menu->text() == "&Help")
            for (QAction* a : menu->menu()->actions())
                if (a->text() == "&Keys and Mouse") {
                    QSize shown;
                    QTimer::singleShot(0, [&] {
                        QWidget* box = QApplication::activeModalWidget();
                        if (!box) return;
                        shown = box->size();
                        if (const char* dir = std::getenv("ATTNSCOPE_TEST_SCREENSHOTS")) // to look at it
                            box->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/help_keys.png"));
                        box->close();
                    });
                    a->trigger();
                    ASSERT_TRUE(shown.isValid());
                    const QSize screen = w.screen()->availableGeometry().size();
                    EXPECT_LE(shown.height(), screen.height());
                    EXPECT_LE(shown.width(), screen.width());
                }
}
