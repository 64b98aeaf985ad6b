// SPDX-License-Identifier: MIT
#include "support/test_support.h"
#include "ui/kernel_table_model.h"
#include "ui/main_window.h"
#include "ui/ui_test_support.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QApplication>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QTableView>
#include <QUrl>

#include <gtest/gtest.h>

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

TEST(KernelTableModel, PlainTextNamesAndSortableNumbers) {
    const auto trace = loadText(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "<b>not bold</b>", "pid": 0, "tid": 7, "ts": 0, "dur": 3},
      {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 10, "dur": 1}]})");
    KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const TraceSummary summary = summarize(*trace, 0);
    model.setRows(summary.topKernels, summary.kernelNs);
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.index(0, KernelTableModel::Name).data().toString(), "<b>not bold</b>");
    EXPECT_EQ(model.index(0, KernelTableModel::Total).data(KernelTableModel::SortRole).toLongLong(), 3000);
    EXPECT_EQ(model.index(0, KernelTableModel::Share).data().toString(), "75.0 %");
    // The tooltip is escaped, so Qt shows the tags as text.
    EXPECT_TRUE(
        model.index(0, KernelTableModel::Name).data(Qt::ToolTipRole).toString().contains("&lt;b&gt;"));
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
    EXPECT_FALSE(settings.value("window/geometry").toByteArray().isEmpty());
    // A new window lists it under File → Open Recent.
    MainWindow again;
    QStringList items;
    for (QMenu* menu : again.findChildren<QMenu*>())
        if (menu->title().contains("Recent"))
            for (QAction* item : menu->actions())
                items << item->text();
    EXPECT_TRUE(items.contains(recent.first())) << items.join(", ").toStdString();
}
