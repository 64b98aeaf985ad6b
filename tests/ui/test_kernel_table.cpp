// SPDX-License-Identifier: MIT
// The kernel table's model on its own: plain-text names, numbers that sort as numbers, a long name's tooltip,
// and the same kernels again changed in place with the selection kept.
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
    EXPECT_EQ(model.index(0, KernelTableModel::Share).data().toString(), "75.0%");
    // Over a range the total is the time in the range and the headers say so; min, mean and max are
    // the whole kernels'.
    EXPECT_EQ(model.headerData(KernelTableModel::Total, Qt::Horizontal, Qt::DisplayRole).toString(), "Total");
    const TimelineIndex index(*trace);
    const TimeNs base = trace->startNs();
    model.setRows(kernelStatsInRange(*trace, index, base + 1'000, base + 2'000), 1'000, true);
    EXPECT_EQ(model.headerData(KernelTableModel::Total, Qt::Horizontal, Qt::DisplayRole).toString(),
              "In range");
    EXPECT_TRUE(model.headerData(KernelTableModel::Min, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains("whole"));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.index(0, KernelTableModel::Total).data().toString(), "1.000 µs");
    EXPECT_EQ(model.index(0, KernelTableModel::Min).data().toString(), "3.000 µs");
    EXPECT_EQ(model.index(0, KernelTableModel::Mean).data().toString(), "3.000 µs");
    model.setRows(summary.topKernels, summary.kernelNs);
    // The tooltip is escaped, so Qt shows the tags as text.
    EXPECT_TRUE(
        model.index(0, KernelTableModel::Name).data(Qt::ToolTipRole).toString().contains("&lt;b&gt;"));
}

// A C++ name of hundreds of characters is a tooltip of lines a screen holds, every character of it kept.
TEST(KernelTable, ALongNamesTooltipIsLinesAScreenHolds) {
    std::string name = "void at::native::vectorized_elementwise_kernel<4, ";
    for (int i = 0; i < 12; ++i)
        name +=
            "at::native::addcdiv_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#2}, ";
    name += "at::detail::Array<char*, 4> >(int)";
    QTextDocument tip;
    tip.setHtml(plainTip(QString::fromStdString(name)));
    const QStringList lines = tip.toPlainText().split(QChar('\n'));
    EXPECT_GT(lines.size(), 5);
    QString joined;
    for (const QString& line : lines) {
        EXPECT_LE(line.size(), kTipLineChars + 4) << line.toStdString();
        joined += line.trimmed() + ' ';
    }
    EXPECT_EQ(joined.simplified().remove(' '), QString::fromStdString(name).remove(' '));
    // Long runs with no room to break (a path, a mangled name) are cut where they must, and end.
    for (const QString& hard :
         {QString(350, 'x'), QStringLiteral("a ") + QString(250, 'y') + QStringLiteral(" b"),
          QString(120, 'z') + QStringLiteral(", ") + QString(120, 'w')}) {
        QTextDocument cut;
        cut.setHtml(plainTip(hard));
        const QStringList parts = cut.toPlainText().split(QChar('\n'));
        EXPECT_GT(parts.size(), 1);
        for (const QString& line : parts)
            EXPECT_LE(line.size(), kTipLineChars + 4) << line.toStdString();
        QString back;
        for (const QString& line : parts)
            back += line.trimmed();
        EXPECT_EQ(back.remove(' '), QString(hard).remove(' '));
    }
}

// A live profile's next snapshot has the same kernels with new numbers: they change in place, so the
// row the user selected stays selected (a reset would clear it and repaint the table twice), kernels new
// to the table are added, and a table whose kernels are not all there any more starts again.
TEST(KernelTableModel, TheSameKernelsAgainChangeInPlaceAndKeepTheSelection) {
    auto rows = [](std::vector<std::pair<std::string, TimeNs>> kernels) {
        std::vector<KernelStats> out;
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            KernelStats k;
            k.name = kernels[i].first;
            k.nameId = StringId(std::uint32_t(i + 1));
            k.role = KernelRole::Other;
            k.count = 1;
            k.totalNs = k.wholeNs = k.minNs = k.maxNs = kernels[i].second;
            out.push_back(k);
        }
        return out;
    };
    KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(KernelTableModel::SortRole);
    QTableView view;
    view.setModel(&proxy);
    view.setSelectionBehavior(QAbstractItemView::SelectRows);
    view.setSortingEnabled(true);
    view.sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    model.setRows(rows({{"gemm", 3000}, {"softmax", 1000}}), 4000);
    auto nameAt = [&](int row) { return proxy.index(row, KernelTableModel::Name).data().toString(); };
    ASSERT_EQ(nameAt(1), "softmax");
    view.selectRow(1);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy headers(&model, &QAbstractItemModel::headerDataChanged);
    // Later: softmax took longer and a new kernel came, listed first in the summary.
    model.setRows(rows({{"copy", 2000}, {"softmax", 5000}, {"gemm", 3000}}), 10000);
    EXPECT_EQ(resets.count(), 0);
    EXPECT_EQ(headers.count(), 0); // they say the same
    ASSERT_EQ(proxy.rowCount(), 3);
    EXPECT_EQ(nameAt(0), "softmax"); // sorted again by the new totals
    EXPECT_EQ(nameAt(1), "gemm");
    EXPECT_EQ(nameAt(2), "copy");
    EXPECT_EQ(proxy.index(0, KernelTableModel::Share).data().toString(), "50.0%");
    const QModelIndexList selected = view.selectionModel()->selectedRows(KernelTableModel::Name);
    ASSERT_EQ(selected.size(), 1);
    EXPECT_EQ(selected.front().data().toString(), "softmax");
    // gemm is gone: the table starts again.
    model.setRows(rows({{"softmax", 6000}, {"copy", 2000}}), 8000);
    EXPECT_EQ(resets.count(), 1);
    EXPECT_EQ(proxy.rowCount(), 2);
    EXPECT_TRUE(view.selectionModel()->selectedRows().isEmpty());
    // The same kernels over a range: in place, and the headers say "In range".
    model.setRows(rows({{"softmax", 600}, {"copy", 200}}), 800, true);
    EXPECT_EQ(resets.count(), 1);
    EXPECT_EQ(headers.count(), 1);
    EXPECT_EQ(model.headerData(KernelTableModel::Total, Qt::Horizontal, Qt::DisplayRole).toString(),
              "In range");
}
