// SPDX-License-Identifier: MIT
#include "compare_window.h"
#include "core/report/format.h"

#include "core/document/document.h"

#include "charts.h"
#include "job_runner.h"
#include "on_screen.h"
#include "qt_text.h"
#include "timeline_view.h"
#include "trace_header.h"

#include "core/analysis/kernel_role.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <cmath>

namespace attnscope::ui {

namespace {

QWidget* titled(QLabel* label, QWidget* content, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    return box;
}

// "A: name (format) · events · span · kernels …" with the trace's warnings on lines below: a B
// that loaded only in part says so where its timeline is.
QString sideLabel(const QString& side, const QString& name, const Document& doc) {
    return doc.summary ? QStringLiteral("%1: %2").arg(side, traceHeaderText(name, *doc.summary))
                       : QStringLiteral("%1: %2").arg(side, name);
}

// Sorts by the number it holds rather than its text.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value) : QTableWidgetItem(text) { setData(Qt::UserRole, value); }
    bool operator<(const QTableWidgetItem& other) const override {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};

} // namespace

CompareWindow::CompareWindow(std::shared_ptr<const Document> a, QString nameA, QWidget* parent)
    : QMainWindow(parent), m_a(std::move(a)), m_nameA(std::move(nameA)) {
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Compare — %1").arg(m_nameA));
    m_jobs = new JobRunner(this);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_viewA = new TimelineView(split);
    m_viewB = new TimelineView(split);
    m_labelA = new QLabel(sideLabel(tr("A"), m_nameA, *m_a), this);
    m_labelB = new QLabel(tr("B: opening…"), this);
    m_labelA->setObjectName("compareLabelA");
    m_labelB->setObjectName("compareLabelB");
    for (QLabel* label : {m_labelA, m_labelB}) {
        label->setTextFormat(Qt::PlainText); // names and warnings quote the files
        // A job's header lists every rank's GPUs: it wraps, and never holds the window wider than it is.
        label->setWordWrap(true);
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    }
    split->addWidget(titled(m_labelA, m_viewA, split));
    split->addWidget(titled(m_labelB, m_viewB, split));
    m_viewA->setTrace(m_a->trace, m_a->index);

    auto* bottom = new QTabWidget(split);
    auto* tablePanel = new QWidget(bottom);
    auto* tableLayout = new QVBoxLayout(tablePanel);
    m_summary = new QLabel(tablePanel);
    m_summary->setTextFormat(Qt::PlainText);
    m_table = new QTableWidget(tablePanel);
    m_table->setObjectName("compareTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    tableLayout->addWidget(m_summary);
    tableLayout->addWidget(m_table, 1);
    bottom->addTab(tablePanel, tr("Differences"));
    m_charts = new ChartsPanel(bottom);
    bottom->addTab(m_charts, tr("Charts"));
    split->addWidget(bottom);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 3);
    setCentralWidget(split);

    QToolBar* bar = addToolBar(tr("Compare"));
    bar->addAction(tr("Align Starts"), this, [this] {
        m_offset = m_b ? m_b->trace->startNs() - m_a->trace->startNs() : 0;
        shareExtent();
    });
    bar->addAction(tr("Align Selections"), this, [this] {
        if (!alignSelections()) statusBar()->showMessage(tr("Select an event in each timeline first"), 4000);
    });
    // One time axis: moving either timeline moves the other by the same amount.
    connect(m_viewA, &TimelineView::viewportChanged, this, [this] { follow(m_viewA, m_viewB, m_offset); });
    connect(m_viewB, &TimelineView::viewportChanged, this, [this] { follow(m_viewB, m_viewA, -m_offset); });
    resizeWithinScreen(this, QSize(1400, 1000));
    closesWithTheCloseKeys(this);
}

CompareWindow::~CompareWindow() = default;

const TraceAnalysis* CompareWindow::analysisA() const {
    return m_b ? m_a->analysis.get() : nullptr;
}

const TraceAnalysis* CompareWindow::analysisB() const {
    return m_b ? m_b->analysis.get() : nullptr;
}

bool CompareWindow::loading() const {
    return m_jobs->running("compare");
}

void CompareWindow::openB(const QString& path) {
    statusBar()->showMessage(tr("Loading %1…").arg(path));
    const QString name = path.section('/', -1);
    // B opened, both documents analysed (A keeps its analysis if it has one) and their difference,
    // all off the UI thread: big traces take seconds.
    struct Compared {
        std::shared_ptr<const Document> a, b;
        TraceDiff diff;
    };
    JobRunner::Callbacks<Compared> callbacks;
    callbacks.done = [this, name](Compared c) {
        m_diff = std::move(c.diff);
        setB(std::move(c.a), std::move(c.b), name);
    };
    callbacks.failed = [this](const QString& message) {
        m_labelB->setText(tr("B: could not be opened: %1").arg(message));
        statusBar()->showMessage(tr("Could not open B"));
    };
    m_jobs->start<Compared>(
        "compare",
        [a = m_a, file = path.toStdString()](JobControl& control) {
            DocumentOptions options;
            options.load.cancel = control.cancelFlag();
            const auto b = openDocument(DocumentSource::file(file), options);
            const auto analysedA = completeDocument(a, AllParts);
            TraceDiff diff = diffTraces(*analysedA->trace, *analysedA->analysis, *b->trace, *b->analysis);
            return Compared{analysedA, b, std::move(diff)};
        },
        std::move(callbacks));
}

void CompareWindow::setB(std::shared_ptr<const Document> a, std::shared_ptr<const Document> b,
                         QString nameB) {
    m_a = std::move(a);
    m_b = std::move(b);
    m_nameB = std::move(nameB);
    setWindowTitle(tr("Compare — %1 vs %2").arg(m_nameA, m_nameB));
    m_labelA->setText(sideLabel(tr("A"), m_nameA, *m_a));
    m_labelB->setText(sideLabel(tr("B"), m_nameB, *m_b));
    m_viewA->setAnalysis(m_a->analysis);
    m_viewB->setTrace(m_b->trace, m_b->index);
    m_viewB->setAnalysis(m_b->analysis);
    fillTable();
    m_charts->setInputs({{m_a->trace.get(), m_a->analysis.get(), tr("A: %1").arg(m_nameA)},
                         {m_b->trace.get(), m_b->analysis.get(), tr("B: %1").arg(m_nameB)}});
    m_offset = m_b->trace->startNs() - m_a->trace->startNs();
    shareExtent();
    statusBar()->showMessage(tr("Compared %1 with %2").arg(m_nameA, m_nameB), 5000);
    Q_EMIT compared();
}

bool CompareWindow::alignSelections() {
    const auto a = m_viewA->selected();
    const auto b = m_viewB->selected();
    if (!a || !b || !m_b) return false;
    m_offset = m_b->trace->track(b->track).events.start[b->index] -
               m_a->trace->track(a->track).events.start[a->index];
    const TimeViewport v = m_viewA->viewport();
    shareExtent();
    m_viewA->setViewport(v.start(), v.end()); // where the user was, B following
    return true;
}

void CompareWindow::shareExtent() {
    if (!m_b) return;
    const Trace &a = *m_a->trace, &b = *m_b->trace;
    const TimeNs first = std::min(a.startNs(), b.startNs() - m_offset);
    const TimeNs last = std::max(a.endNs(), b.endNs() - m_offset);
    m_following = true;
    m_viewA->setExtent(first, last);
    m_viewB->setExtent(first + m_offset, last + m_offset);
    m_following = false;
}

void CompareWindow::follow(TimelineView* from, TimelineView* to, TimeNs shift) {
    if (m_following || !from->trace() || !to->trace()) return;
    m_following = true;
    const TimeViewport& v = from->viewport();
    to->setViewport(v.start() + shift, v.end() + shift);
    m_following = false;
}

void CompareWindow::fillTable() {
    const QStringList headers = {tr("Kind"),    tr("Role or kernel"), tr("Count A"), tr("Count B"),
                                 tr("Total A"), tr("Total B"),        tr("Delta"),   tr("Ratio")};
    m_table->setSortingEnabled(false);
    m_table->clear();
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(m_diff.roles.size() + m_diff.kernels.size()));
    int row = 0;
    auto add = [&](const DiffRow& r, const QString& kind) {
        const double ratio = r.ratio();
        const TimeNs delta = r.delta();
        const QList<QTableWidgetItem*> items = {
            new QTableWidgetItem(kind),
            new QTableWidgetItem(qs(r.key)),
            new NumberItem(QString::number(r.countA), double(r.countA)),
            new NumberItem(QString::number(r.countB), double(r.countB)),
            new NumberItem(qs(formatDuration(r.totalA)), double(r.totalA)),
            new NumberItem(qs(formatDuration(r.totalB)), double(r.totalB)),
            new NumberItem((delta < 0 ? "−" : "+") + qs(formatDuration(delta < 0 ? -delta : delta)),
                           double(delta)),
            new NumberItem(qs(r.ratioText()), std::isinf(ratio) ? 1e300 : ratio)};
        for (int c = 0; c < items.size(); ++c) {
            if (r.regression()) {
                items[c]->setForeground(QColor(200, 30, 30));
                items[c]->setToolTip(tr("A regression: %1").arg(qs(regressionRule())));
            }
            m_table->setItem(row, c, items[c]);
        }
        ++row;
    };
    for (DiffRow r : m_diff.roles) {
        // Roles as the legend and the charts name them ("QKᵀ GEMM"), not as files write them.
        if (const auto role = roleNamed(r.key)) r.key = std::string(roleLabel(*role));
        add(r, tr("role"));
    }
    for (const DiffRow& r : m_diff.kernels)
        add(r, tr("kernel"));
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->setSortingEnabled(true);
    const TimeNs delta = m_diff.kernelB - m_diff.kernelA;
    m_summary->setText(tr("Kernel time %1 → %2 (%3%4); %5 roles and %6 kernel names compared")
                           .arg(qs(formatDuration(m_diff.kernelA)), qs(formatDuration(m_diff.kernelB)),
                                delta < 0 ? "−" : "+", qs(formatDuration(delta < 0 ? -delta : delta)))
                           .arg(m_diff.roles.size())
                           .arg(m_diff.kernels.size()));
}

} // namespace attnscope::ui
