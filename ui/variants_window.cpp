// SPDX-License-Identifier: MIT
#include "variants_window.h"
#include "file_dialogs.h"
#include "table_fit.h"
#include "trace_header.h"

#include "charts.h"
#include "job_runner.h"
#include "on_screen.h"
#include "qt_text.h"
#include "timeline_export.h"
#include "timeline_view.h"

#include "core/document/document.h"
#include "core/report/format.h"
#include "core/report/summary.h"

#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace attnscope::ui {

namespace {

constexpr int kTraceRole = Qt::UserRole + 1;

// Replaces a chart view's chart (the view does not delete the one it had).
void setChart(QChartView* view, QChart* chart) {
    QChart* old = view->chart();
    view->setChart(chart);
    delete old;
}

} // namespace

VariantsWindow::VariantsWindow(QWidget* parent) : QMainWindow(parent) {
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("Compare Variants"));
    m_jobs = new JobRunner(this);
    auto* split = m_split = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(split);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(4, 4, 4, 0);
    m_status = new QLabel(tr("Add the traces to compare (Add… in the toolbar)."), top);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    m_shapeWarning = new QLabel(top);
    m_shapeWarning->setObjectName("shapeWarning");
    m_shapeWarning->setTextFormat(Qt::PlainText);
    m_shapeWarning->setWordWrap(true);
    m_shapeWarning->setStyleSheet(QStringLiteral("color: rgb(210, 110, 0)"));
    m_shapeWarning->hide();
    m_savings = new QLabel(top);
    m_savings->setObjectName("whatIfSavings");
    m_savings->setTextFormat(Qt::PlainText);
    m_savings->setWordWrap(true);
    m_savings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_savings->hide();
    m_table = new QTableWidget(top);
    m_table->setObjectName("variantsTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    keepProseColumnsFitted(m_table, 3);
    topLayout->addWidget(m_status);
    topLayout->addWidget(m_shapeWarning);
    topLayout->addWidget(m_savings);
    topLayout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem* item = m_table->item(row, 0);
        const int t = item ? item->data(kTraceRole).toInt() : -1;
        if (t >= 0 && t < int(m_entries.size()) && m_entries[std::size_t(t)].doc)
            Q_EMIT openRequested(m_entries[std::size_t(t)].path);
    });
    m_tabs = new QTabWidget(split);
    m_breakdown = new QChartView(makeComparisonChart(m_comparison), m_tabs);
    m_breakdown->setRenderHint(QPainter::Antialiasing);
    m_roofline = new QChartView(new QChart, m_tabs);
    m_roofline->setRenderHint(QPainter::Antialiasing);
    showChartTips(m_roofline); // each point's figures, as in the Charts dock
    auto* scroll = m_timelineScroll = new QScrollArea(m_tabs);
    scroll->setWidgetResizable(true);
    scroll->viewport()->installEventFilter(this);
    m_timelineBox = new QWidget(scroll);
    m_timelineLayout = new QVBoxLayout(m_timelineBox);
    m_timelineLayout->setContentsMargins(0, 0, 0, 0);
    scroll->setWidget(m_timelineBox);
    m_tabs->addTab(m_breakdown, tr("Time per Call by Role"));
    m_tabs->addTab(m_roofline, tr("Roofline"));
    m_tabs->addTab(scroll, tr("Timelines"));
    split->addWidget(top);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    split->setSizes({300, 640});
    setCentralWidget(split);

    QToolBar* bar = addToolBar(tr("Variants"));
    bar->addAction(tr("Add…"), this, [this] {
        const QStringList paths = askTracePaths(this, tr("Traces to compare"), true);
        if (!paths.isEmpty()) addTraces(paths);
    });
    bar->addAction(tr("Remove"), this, [this] {
        if (const int t = selectedTrace(); t >= 0) removeTrace(t);
    });
    bar->addAction(tr("Move Up"), this, [this] {
        if (const int t = selectedTrace(); t > 0) moveTrace(t, t - 1);
    });
    bar->addAction(tr("Move Down"), this, [this] {
        if (const int t = selectedTrace(); t >= 0 && t + 1 < traceCount()) moveTrace(t, t + 1);
    });
    bar->addAction(tr("Set as Baseline"), this, [this] {
        if (const int t = selectedTrace(); t >= 0) setBaseline(t);
    });
    bar->addSeparator();
    bar->addAction(tr("Fit All"), this, [this] { fitAll(); });
    m_call = new QSpinBox(bar);
    m_call->setRange(1, 1000000);
    m_call->setPrefix(tr("call "));
    m_call->setToolTip(tr("The attention call each timeline is lined up at"));
    bar->addWidget(m_call);
    bar->addAction(tr("Align Calls"), this, [this] {
        m_tabs->setCurrentIndex(2);
        QString said;
        alignCalls(m_call->value(), &said);
        statusBar()->showMessage(said, 8000);
    });
    bar->addSeparator();
    bar->addAction(tr("Export Table…"), this, [this] {
        const QString path =
            askSavePath(this, tr("Export the table"), "variants.md", tr("Markdown (*.md);;CSV (*.csv)"));
        if (path.isEmpty()) return;
        if (const QString error = exportTable(path); !error.isEmpty())
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    bar->addAction(tr("Export Chart…"), this, [this] {
        // The tab on show: its chart, or the timelines as they are lined up.
        static const char* const kinds[] = {"breakdown", "roofline", "timelines"};
        const QString kind = kinds[std::clamp(m_tabs->currentIndex(), 0, 2)];
        const QString path =
            askSavePath(this, tr("Export the chart"), kind + ".png", tr("Pictures (*.png *.svg *.pdf)"));
        if (path.isEmpty()) return;
        if (const QString error = exportChart(kind, path); !error.isEmpty())
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    resizeWithinScreen(this, QSize(1500, 1000));
    closesWithTheCloseKeys(this);
}

VariantsWindow::~VariantsWindow() = default;

void VariantsWindow::addTraces(const QStringList& paths) {
    for (const QString& path : paths) {
        Entry e;
        e.path = path;
        e.id = ++m_nextId;
        const int id = e.id;
        m_entries.push_back(e);
        JobRunner::Callbacks<std::shared_ptr<const Document>> callbacks;
        auto entry = [this, id]() -> Entry* {
            for (Entry& x : m_entries)
                if (x.id == id) return &x;
            return nullptr; // removed meanwhile
        };
        callbacks.done = [this, entry](std::shared_ptr<const Document> doc) {
            if (Entry* x = entry()) {
                x->doc = std::move(doc);
                x->loading = false;
                rebuild();
            }
        };
        callbacks.failed = [this, entry](const QString& why) {
            if (Entry* x = entry()) {
                x->error = why;
                x->loading = false;
                rebuild();
            }
        };
        // Each file on a worker thread of its own: they load side by side.
        m_jobs->start<std::shared_ptr<const Document>>(
            "variant " + std::to_string(id),
            [file = path.toStdString()](JobControl& control) {
                DocumentOptions options;
                options.load.cancel = control.cancelFlag();
                return openDocument(DocumentSource::file(file), options);
            },
            std::move(callbacks));
    }
    rebuild();
}

void VariantsWindow::removeTrace(int index) {
    if (index < 0 || index >= traceCount()) return;
    m_entries.erase(m_entries.begin() + index);
    if (m_baseline == index) m_baselineImpl.clear();
    if (m_baseline > index || m_baseline >= traceCount()) m_baseline = std::max(0, m_baseline - 1);
    rebuild();
}

void VariantsWindow::moveTrace(int index, int to) {
    if (index < 0 || index >= traceCount() || to < 0 || to >= traceCount() || index == to) return;
    const Entry moved = m_entries[std::size_t(index)];
    m_entries.erase(m_entries.begin() + index);
    m_entries.insert(m_entries.begin() + to, moved);
    if (m_baseline == index)
        m_baseline = to;
    else if (index < m_baseline && to >= m_baseline)
        --m_baseline;
    else if (index > m_baseline && to <= m_baseline)
        ++m_baseline;
    rebuild();
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->item(r, 0) && m_table->item(r, 0)->data(kTraceRole).toInt() == to) {
            m_table->selectRow(r);
            break;
        }
}

void VariantsWindow::learnWhatIf(kernels::WhatIfAnswer answer) {
    // The baseline: the call as it was, measured here (the run's row of its implementation).
    for (std::size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].path.toStdString() == answer.measuredPath && answer.asItWasNsPerCall > 0) {
            m_baseline = int(i);
            m_baselineImpl = answer.impl;
        }
    QString said;
    if (answer.asItWasNsPerCall <= 0)
        said = tr("%1 did not run here, so no saving is measured against it.").arg(qs(answer.impl));
    else {
        said = tr("Measured on %1, against %2 as it was here (%3 a call):")
                   .arg(qs(answer.device), qs(answer.impl), qs(formatDuration(answer.asItWasNsPerCall)));
        for (const kernels::WhatIfSaving& s : answer.savings)
            said +=
                QStringLiteral("\n  %1: %2").arg(qs(s.impl), qs(kernels::whatIfSavingText(s, answer.calls, answer.steps)));
    }
    // What was asked for and could not run here says why (efficient and cuDNN on a CPU), as whatif does.
    for (const std::string& line : answer.unavailable)
        said += tr("\n  could not run here: %1").arg(qs(line));
    m_savings->setText(said);
    m_savings->show();
    m_learned.push_back(std::move(answer));
    rebuild();
}

void VariantsWindow::setBaseline(int index) {
    if (index < 0 || index >= traceCount()) return;
    m_baseline = index;
    m_baselineImpl.clear();
    rebuild();
}

bool VariantsWindow::loading() const {
    return std::any_of(m_entries.begin(), m_entries.end(), [](const Entry& e) { return e.loading; });
}

int VariantsWindow::selectedTrace() const {
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return -1;
    const QTableWidgetItem* item = m_table->item(rows.front().row(), 0);
    return item ? item->data(kTraceRole).toInt() : -1;
}

std::vector<TimelineView*> VariantsWindow::timelines() const {
    return m_views;
}

void VariantsWindow::rebuild() {
    m_comparison = {};
    m_comparison.baseline = std::size_t(m_baseline);
    m_comparison.baselineImpl = m_baselineImpl;
    for (const Entry& e : m_entries) {
        ComparedTrace t;
        t.path = e.path.toStdString();
        if (e.doc)
            t = compareEntry(*e.doc, t.path);
        else
            t.error = e.loading ? "opening…" : e.error.toStdString();
        t.opening = !e.doc && e.loading;
        for (const kernels::WhatIfAnswer& l : m_learned) {
            if (l.recordedPath == t.path)
                for (CompareRow& row : t.rows)
                    if (row.impl == l.impl) kernels::learnWhatIf(row, l.savings, l.calls);
            if (l.measuredPath == t.path)
                for (CompareRow& row : t.rows)
                    row.findings.clear();
        }
        m_comparison.traces.push_back(std::move(t));
    }
    learnFromComparison(m_comparison);
    fillTable();
    setChart(m_breakdown, makeComparisonChart(m_comparison));
    const std::vector<ChartInput> inputs = rooflineInputs();
    setChart(m_roofline, inputs.empty() ? new QChart : makeChart(ChartKind::Roofline, inputs));
    fillTimelines();
    const int loaded = int(inputs.size());
    const int failed = int(std::count_if(m_entries.begin(), m_entries.end(),
                                         [](const Entry& e) { return !e.loading && !e.doc; }));
    m_status->setText(
        loading() ? tr("Opening %1 of %2 traces…").arg(traceCount() - loaded - failed).arg(traceCount())
                  : tr("%1 compared%2. Baseline: %3. Double-click a row to open its trace.")
                        .arg(qs(formatCount(std::uint64_t(loaded), "trace", "traces")),
                             failed ? tr(", %1 could not be read").arg(failed) : QString(),
                             m_entries.empty()
                                 ? tr("none")
                                 : QFileInfo(m_entries[std::size_t(m_baseline)].path).fileName() +
                                       (m_baselineImpl.empty() ? QString() : " · " + qs(m_baselineImpl))));
    // Times per call of different work compare shapes, not implementations: said above the table.
    const std::string shapes = loading() ? std::string() : m_comparison.shapeWarning();
    m_shapeWarning->setText(shapes.empty() ? QString() : tr("Warning: %1.").arg(qs(shapes)));
    m_shapeWarning->setVisible(!shapes.empty());
    setWindowTitle(
        tr("Compare Variants — %1").arg(qs(formatCount(std::uint64_t(traceCount()), "trace", "traces"))));
    if (!loading()) Q_EMIT compared();
}

void VariantsWindow::fillTable() {
    const CompareTable table = compareTable(m_comparison);
    QStringList headers;
    for (const std::string& h : table.header)
        headers << qs(h);
    headers << tr("what the trace revealed");
    m_table->clear();
    m_table->clearSpans(); // a trace that was opening had its row spanned
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(table.lines.size()));
    for (int r = 0; r < int(table.lines.size()); ++r) {
        const CompareTable::Line& line = table.lines[std::size_t(r)];
        QStringList revealed;
        QString tip;
        if (line.row)
            for (std::size_t i = 0; i < line.row->findings.size(); ++i) {
                const CompareRow::Brief& f = line.row->findings[i];
                if (i < 3) revealed << qs(f.title);
                tip += QStringLiteral("%1%2 · %3 · %4")
                           .arg(tip.isEmpty() ? "" : "\n", qs(severityName(f.severity)),
                                qs(formatDuration(f.timeNs)), qs(f.title));
            }
        for (int c = 0; c <= int(table.header.size()); ++c) {
            QString text;
            if (c < int(line.cells.size())) text = qs(line.cells[std::size_t(c)]);
            if (c == int(table.header.size())) text = revealed.join(QStringLiteral("; "));
            auto* item = new QTableWidgetItem(text);
            item->setData(kTraceRole, int(line.trace));
            if (table.numeric(std::size_t(c))) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == int(table.header.size()) && !tip.isEmpty()) item->setToolTip(tip);
            if (c == 1 && line.row) {
                // What its first call computes, and what a reader must know to read its figures.
                QStringList tips;
                if (line.row->inputs)
                    tips << tr("What its first call computes: %1").arg(qs(line.row->inputs->text()));
                if (const std::string note = callsNote(line.row->calls); !note.empty()) tips << qs(note);
                item->setToolTip(tips.join(QStringLiteral("\n")));
            }
            if (line.row ? line.row == m_comparison.baselineRow() : int(line.trace) == m_baseline) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
            }
            if (!line.row && m_entries[line.trace].loading) {
                // Still opening: not an error.
                if (c == 1) item->setText(tr("opening…"));
                item->setForeground(QColor(120, 120, 120));
            } else if (!line.row) {
                item->setForeground(QColor(200, 30, 30));
            }
            // A trace read in part (a truncated file) says so on its name.
            if (const auto& warnings = m_comparison.traces[line.trace].warnings;
                c == 0 && !warnings.empty()) {
                item->setText(item->text() + QStringLiteral(" ⚠"));
                QStringList lines;
                for (const std::string& w : warnings)
                    lines << qs(w);
                item->setToolTip(lines.join('\n'));
                item->setForeground(QColor(210, 110, 0));
            }
            // Calls that ran otherwise than expected: the expected column says so in colour.
            if (line.row && c == 5 && line.row->calls.mismatchedCalls)
                item->setForeground(QColor(210, 110, 0));
            m_table->setItem(r, c, item);
        }
        if (!line.row) m_table->setSpan(r, 1, 1, int(headers.size()) - 1);
    }
    // The three columns of prose (kernel time by role, by verdict, what the trace revealed) wrap in the
    // room the figures leave; the full findings stay in the last one's tooltip.
    fitProseColumns(m_table, 3);
    fitTableRoom();
}

void VariantsWindow::fitTableRoom() {
    // Rows wrapped taller than the first split left the last row under the charts' edge: the table
    // gets the height of its rows (its header, frame and scroll bar), up to half the window.
    const QList<int> sizes = m_split->sizes();
    if (sizes.size() != 2 || sizes[0] + sizes[1] <= 0) return;
    int rows = 0;
    for (int r = 0; r < m_table->rowCount(); ++r)
        rows += m_table->rowHeight(r);
    const int table =
        rows + m_table->horizontalHeader()->height() + 2 * m_table->frameWidth() +
        (m_table->horizontalScrollBar()->isVisible() ? m_table->horizontalScrollBar()->height() : 0);
    const int above = m_table->geometry().top(); // the status lines over the table
    const int want = std::min(above + table + 4, (sizes[0] + sizes[1]) / 2);
    if (want > sizes[0]) m_split->setSizes({want, sizes[0] + sizes[1] - want});
}

void VariantsWindow::fillTimelines() {
    for (TimelineView* v : m_views)
        delete v->parentWidget();
    m_views.clear();
    const std::vector<std::string> labels = traceLabels(m_comparison);
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const auto& doc = m_entries[i].doc;
        if (!doc) continue;
        auto* box = new QWidget(m_timelineBox);
        auto* layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 4);
        // Lettered as the roofline letters its points: by place among the traces that opened.
        auto* label = new QLabel(inputLetter(m_views.size()) + QStringLiteral(": ") + qs(labels[i]), box);
        label->setTextFormat(Qt::PlainText);
        auto* view = new TimelineView(box);
        view->setTrace(doc->trace, doc->index);
        view->setAnalysis(doc->analysis);
        // A trace with GPU streams shows them first: its host processes folded (a click opens one), so
        // the kernels are in the few lines a compared timeline has.
        std::set<std::uint32_t> gpu, host;
        for (const Track& track : doc->trace->tracks())
            (track.kind == TrackKind::GpuStream ? gpu : host).insert(track.process.value);
        if (!gpu.empty())
            for (const std::uint32_t process : host)
                if (!gpu.count(process)) view->setCollapsed(ProcessId(process), true);
        layout->addWidget(label);
        layout->addWidget(view, 1);
        m_timelineLayout->addWidget(box);
        m_views.push_back(view);
    }
    fitTimelineHeights();
}

void VariantsWindow::fitTimelineHeights() {
    if (m_views.empty()) return;
    const int n = int(m_views.size());
    // A box's label and its margin take what is left over a view's own height.
    const QWidget* box = m_views.front()->parentWidget();
    const auto* label = box->findChild<QLabel*>();
    const int over = (label ? label->sizeHint().height() : 0) + std::max(0, box->layout()->spacing()) +
                     box->layout()->contentsMargins().bottom() + m_timelineLayout->spacing();
    const int room = m_timelineScroll->viewport()->height() / n - over;
    for (TimelineView* v : m_views)
        v->setMinimumHeight(std::clamp(room, 100, 180));
    // One legend, under the last; the name columns as wide as the widest, so the time axes line up.
    for (std::size_t i = 0; i < m_views.size(); ++i)
        m_views[i]->setLegendVisible(i + 1 == m_views.size());
    // After the views have fitted their columns to their new width (their own resize, after this).
    QTimer::singleShot(0, this, &VariantsWindow::alignLabelColumns);
}

void VariantsWindow::alignLabelColumns() {
    // Only once every view is laid out: a column is fitted to its view's width.
    int widest = 0;
    for (const TimelineView* v : m_views) {
        if (!v->isVisible() || v->width() < 200) return;
        widest = std::max(widest, v->labelWidth());
    }
    for (TimelineView* v : m_views)
        if (v->labelWidth() != widest) v->setLabelWidth(widest);
}

bool VariantsWindow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_timelineScroll->viewport() && event->type() == QEvent::Resize) fitTimelineHeights();
    return QMainWindow::eventFilter(watched, event);
}

void VariantsWindow::fitAll() {
    for (TimelineView* v : m_views)
        v->fitAll();
}

bool VariantsWindow::alignCalls(int n, QString* said) {
    if (n < 1) return false;
    std::vector<std::pair<TimelineView*, const AttentionCall*>> at;
    QStringList without; // the traces that have no n-th call, named, with the calls they have
    const std::vector<std::string> labels = traceLabels(m_comparison);
    TimeNs longest = 0;
    std::size_t view = 0;
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const Entry& e = m_entries[i];
        if (!e.doc) continue;
        TimelineView* v = view < m_views.size() ? m_views[view++] : nullptr;
        const std::size_t calls = e.doc->analysis ? e.doc->analysis->calls.size() : 0;
        if (!v || calls < std::size_t(n)) {
            const QString label = i < labels.size() ? qs(labels[i]) : e.path;
            without << (calls ? tr("%1 (%2)").arg(label, qs(formatCount(calls, "call", "calls")))
                              : tr("%1 (no attention call)").arg(label));
            continue;
        }
        const AttentionCall& call = e.doc->analysis->calls[std::size_t(n - 1)];
        at.push_back({v, &call});
        longest = std::max(longest, call.duration());
    }
    if (said)
        *said = at.empty() ? tr("No trace has an attention call %1: %2").arg(n).arg(without.join(tr(", ")))
                : without.isEmpty()
                    ? tr("Every timeline lined up at its attention call %1").arg(n)
                    : tr("Lined up at attention call %1; not %2").arg(n).arg(without.join(tr(", ")));
    if (at.empty()) return false;
    // Each timeline from just before its call, over the longest call and as much again: the calls
    // start under one another, at one scale.
    const TimeNs span = std::max<TimeNs>(2 * longest, 1000);
    for (const auto& [v, call] : at)
        v->showExactly(call->start - span / 10, call->start + span);
    return without.isEmpty();
}

QString VariantsWindow::exportTable(const QString& path) const {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != "md" && suffix != "csv") return tr("The table exports as .md (Markdown) or .csv");
    const std::string text =
        formatComparison(m_comparison, suffix == "md" ? CompareFormat::Markdown : CompareFormat::Csv);
    return saveText(path, text);
}

std::vector<ChartInput> VariantsWindow::rooflineInputs() const {
    std::vector<ChartInput> inputs;
    const std::vector<std::string> labels = traceLabels(m_comparison);
    for (std::size_t i = 0; i < m_entries.size(); ++i)
        if (const auto& doc = m_entries[i].doc; doc && doc->analysis)
            inputs.push_back({doc->trace.get(), doc->analysis.get(),
                              inputLetter(inputs.size()) + QStringLiteral(": ") + qs(labels[i])});
    return inputs;
}

QString VariantsWindow::exportChart(const QString& kind, const QString& path, QSize size) const {
    std::unique_ptr<QChart> chart;
    if (kind == "breakdown") {
        chart.reset(makeComparisonChart(m_comparison));
    } else if (kind == "roofline") {
        const std::vector<ChartInput> inputs = rooflineInputs();
        if (inputs.empty()) return tr("No trace is open to draw");
        chart.reset(makeChart(ChartKind::Roofline, inputs));
    } else if (kind == "timelines") {
        if (!m_tabs->widget(2)->isVisible())
            return tr("The timelines export as they are on show: show the Timelines tab");
        // Every timeline, those scrolled out of the tab's sight too: the box that holds them, whole.
        QWidget* all = m_timelineBox;
        return exportPicture(all->size(), 1, path, tr("Timelines"),
                             [all](QPainter& p, QSize) { all->render(&p); });
    } else {
        return tr("The charts are breakdown, roofline and timelines");
    }
    return ui::exportChart(chart.get(), size, 1, path);
}

} // namespace attnscope::ui
