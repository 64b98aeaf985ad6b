// SPDX-License-Identifier: MIT
#include "job_window.h"

#include "on_screen.h"
#include "qt_text.h"

#include "core/document/document.h"
#include "core/report/format.h"
#include "core/report/rank_record.h"

#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>

namespace attnscope::ui {

namespace {

enum Column {
    RankCol,
    GpuBusyCol,
    ComputeCol,
    CommCol,
    CommShareCol,
    WaitCol,
    AttentionCol,
    FindingsCol,
    TraceCol
};

QStandardItem* numberItem(const QString& text, double value) {
    auto* item = new QStandardItem(text);
    item->setData(value, Qt::UserRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

QStandardItem* textItem(const QString& text) {
    auto* item = new QStandardItem(text);
    item->setData(text, Qt::UserRole);
    item->setEditable(false);
    return item;
}

QString durationText(TimeNs ns) {
    return qs(formatDuration(ns));
}

} // namespace

JobWindow::JobWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Job — AttnScope"));
    resizeWithinScreen(this, QSize(1300, 820));
    closesWithTheCloseKeys(this);
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    m_header = new QLabel(central);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    m_findings = new QLabel(central);
    m_findings->setObjectName(QStringLiteral("jobFindings"));
    m_findings->setWordWrap(true);
    m_findings->setTextFormat(Qt::RichText);
    connect(m_findings, &QLabel::linkActivated, this, [this](const QString& link) {
        m_allFindings = link == QLatin1String("more");
        showFindings();
    });
    layout->addWidget(m_findings);
    auto* split = new QSplitter(Qt::Vertical, central);
    m_heat = new JobHeatMap(split);
    m_table = new QTableView(split);
    m_model = new QStandardItemModel(this);
    m_model->setHorizontalHeaderLabels({tr("Rank"), tr("GPU busy"), tr("Compute busy"), tr("Communication"),
                                        tr("Comm share"), tr("Waited"), tr("Attention"), tr("Findings"),
                                        tr("Trace")});
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(Qt::UserRole);
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RankCol, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    split->addWidget(m_heat);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    auto* open = new QPushButton(tr("Open Selected Ranks"), central);
    open->setToolTip(
        tr("The selected ranks' traces in the main window: one trace, or several as the ranks of "
           "one job (double-click a row for its trace alone)"));
    layout->addWidget(open, 0, Qt::AlignLeft);
    setCentralWidget(central);
    connect(open, &QPushButton::clicked, this, &JobWindow::openSelected);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QModelIndex trace = m_sorted->index(index.row(), TraceCol);
        const QString path = trace.data(Qt::UserRole + 1).toString();
        if (!path.isEmpty()) Q_EMIT openRequested(path);
    });
    connect(m_heat, &JobHeatMap::rankClicked, this, &JobWindow::selectRank);
}

QString JobWindow::openRecords(const QStringList& paths) {
    std::vector<std::string> given, said;
    for (const QString& path : paths)
        given.push_back(path.toStdString());
    const std::vector<std::string> files = rankRecordFiles(given, said);
    if (files.empty())
        return tr("No records there (*.json, *.jsonl: attnscope job --map --records DIR makes them)");
    std::vector<RankRecord> records;
    for (std::size_t position = 0; position < files.size(); ++position) {
        const std::string& path = files[position];
        const std::size_t recordsBefore = records.size(), saidBefore = said.size();
        if (readRankRecords(path, records, said) || records.size() != recordsBefore) continue;
        // Not a file of records: a rank's trace is read as `summary --format rank` would read it (its
        // record made here), and what it said of records is dropped; anything else stays said.
        try {
            DocumentOptions options;
            options.parts = SummaryPart | AnalysisPart;
            const auto doc = openDocument(DocumentSource::file(path), options);
            records.push_back(rankRecord(doc->trace, *doc->summary, path, position));
            said.resize(saidBefore);
        } catch (const std::exception&) {
        }
    }
    QStringList problems;
    for (const std::string& p : said)
        problems << qs(p);
    m_problems = problems;
    try {
        showReport(jobReport(std::move(records)));
    } catch (const std::exception& e) {
        problems.prepend(qs(e.what()));
        return problems.join('\n');
    }
    return problems.join('\n');
}

void JobWindow::showReport(JobReport report) {
    m_report = std::move(report);
    const JobReport& job = m_report;
    QString header = tr("<b>%1 read</b>").arg(qs(formatCount(job.records.size(), "rank", "ranks")));
    if (!job.failed.empty())
        header += tr(", <b>%n could not be</b> (listed last)", nullptr, int(job.failed.size()));
    if (job.ranks.collectives)
        header += tr(" · %1").arg(QString::fromStdString(job.ranks.stragglerSentence()).toHtmlEscaped());
    if (!job.slowRanks.empty()) {
        QStringList slow;
        for (const SlowRank& s : job.slowRanks)
            slow << tr("%1 (%2)").arg(s.rank).arg(qs(formatRatio(s.overMedian)));
        header += tr(" · slow for themselves (compute %1): %2").arg(qs(slowRankRule()), slow.join(", "));
    }
    QStringList spreads;
    for (std::size_t i = 0; i < job.spreads.size(); ++i) {
        const Spread& s = job.spreads[i];
        spreads << tr("%1: median %2, p90 %3, max %4 (rank %5)")
                       .arg(qs(jobMeasures()[i].name), durationText(TimeNs(s.median)),
                            durationText(TimeNs(s.p90)), durationText(TimeNs(s.max)))
                       .arg(s.maxRank);
    }
    QStringList notes;
    if (!job.ranks.withoutCollectives.empty())
        notes << tr("ranks without a communication kernel, left out of the collectives: %1")
                     .arg(qs(rankList(job.ranks.withoutCollectives)));
    if (!job.warned.empty())
        notes << tr("ranks whose trace was read with warnings: %1").arg(qs(rankList(job.warned)));
    if (job.worldSize && std::int64_t(job.records.size() + job.failed.size()) < *job.worldSize)
        notes << tr("world size %1: %2 ranks have no record")
                     .arg(*job.worldSize)
                     .arg(*job.worldSize - std::int64_t(job.records.size() + job.failed.size()));
    if (!m_problems.isEmpty()) notes << m_problems;
    m_header->setText(header + "<br>" + spreads.join(" · ") +
                      (notes.isEmpty() ? QString()
                                       : "<br><span style='color:#a02828'>" +
                                             notes.join("<br>").toHtmlEscaped() + "</span>"));
    m_allFindings = false;
    showFindings();
    m_heat->setReport(&m_report);
    m_model->removeRows(0, m_model->rowCount());
    m_table->setSortingEnabled(false);
    for (const RankRecord& r : job.records) {
        const RankStats& s = r.stats;
        auto* trace = textItem(qs(r.path));
        trace->setData(qs(r.path), Qt::UserRole + 1);
        m_model->appendRow({numberItem(QString::number(s.rank), double(s.rank)),
                            numberItem(durationText(s.gpuBusyNs), double(s.gpuBusyNs)),
                            numberItem(durationText(s.computeBusyNs), double(s.computeBusyNs)),
                            numberItem(durationText(s.commNs), double(s.commNs)),
                            numberItem(qs(formatPercent(communicationShare(s))), communicationShare(s)),
                            numberItem(job.ranks.collectives ? durationText(s.waitNs) : QStringLiteral("-"),
                                       double(s.waitNs)),
                            numberItem(durationText(attentionNs(r)), double(attentionNs(r))),
                            numberItem(QString::number(r.findings.size()), double(r.findings.size())),
                            trace});
    }
    for (const RankRecord& r : job.failed) {
        QList<QStandardItem*> row = {numberItem(QString::number(r.stats.rank), double(r.stats.rank))};
        for (int c = GpuBusyCol; c < TraceCol; ++c)
            row << numberItem(QString(), -1);
        auto* trace = textItem(tr("could not be read: %1 — %2").arg(qs(r.error), qs(r.path)));
        trace->setForeground(QColor(170, 40, 40));
        row << trace;
        m_model->appendRow(row);
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    setWindowTitle(tr("Job of %1 — AttnScope")
                       .arg(qs(formatCount(job.records.size() + job.failed.size(), "rank", "ranks"))));
}

std::int64_t JobWindow::rankAtRow(int row) const {
    const QModelIndex index = m_sorted->index(row, RankCol);
    return index.isValid() ? std::int64_t(index.data(Qt::UserRole).toDouble()) : -1;
}

void JobWindow::showFindings() {
    constexpr std::size_t kFirst = 5;
    QStringList findings;
    for (std::size_t i = 0; i < m_report.findings.size() && (m_allFindings || i < kFirst); ++i) {
        const JobFinding& f = m_report.findings[i];
        findings << tr("<b>%1</b> %2 — %3 at stake per rank (%4 of the job's span), %5, most %6 on rank %7")
                        .arg(qs(std::string(severityName(f.severity))), qs(f.title).toHtmlEscaped())
                        .arg(durationText(f.meanNs), qs(formatPercent(f.share)),
                             (f.ranksWait ? tr("waited for by %1") : tr("on %1"))
                                 .arg(qs(formatCount(f.ranks.size(), "rank", "ranks"))),
                             durationText(f.maxNs))
                        .arg(f.maxRank);
    }
    // The rest a click away: a job's findings were "… 2 more" with no way to read them.
    if (m_report.findings.size() > kFirst)
        findings << (m_allFindings ? tr("<a href=\"fewer\">fewer</a>")
                                   : tr("<a href=\"more\">… %n more</a>", nullptr,
                                        int(m_report.findings.size() - kFirst)));
    m_findings->setText(findings.isEmpty() ? tr("No findings on any rank") : findings.join("<br>"));
    m_findings->setVisible(true);
}

void JobWindow::selectRank(std::int64_t rank) {
    for (int row = 0; row < m_sorted->rowCount(); ++row)
        if (rankAtRow(row) == rank) {
            m_table->selectRow(row);
            m_table->scrollTo(m_sorted->index(row, RankCol));
            return;
        }
}

QStringList JobWindow::selectedPaths() const {
    std::map<std::int64_t, QString> byRank;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows(TraceCol)) {
        const QString path = index.data(Qt::UserRole + 1).toString();
        if (!path.isEmpty()) byRank[rankAtRow(index.row())] = path;
    }
    QStringList paths;
    for (const auto& [rank, path] : byRank)
        paths << path;
    return paths;
}

void JobWindow::openSelected() {
    const QStringList paths = selectedPaths();
    if (paths.size() == 1) Q_EMIT openRequested(paths.front());
    if (paths.size() > 1) Q_EMIT openRanksRequested(paths);
}

JobHeatMap::JobHeatMap(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(140);
    setMouseTracking(true);
    // A rank's values on hover even while another window is the active one (the main window that opened
    // this one): Qt shows tooltips of active windows only.
    setAttribute(Qt::WA_AlwaysShowToolTips);
}

QStringList JobHeatMap::measureNames() {
    QStringList names;
    for (const JobMeasure& m : jobMeasures())
        names << qs(m.name);
    return names;
}

void JobHeatMap::setReport(const JobReport* report) {
    m_report = report;
    update();
}

QSize JobHeatMap::sizeHint() const {
    return {900, 70 + 24 * int(jobMeasures().size())};
}

QRect JobHeatMap::plotRect() const {
    const QFontMetrics fm = fontMetrics();
    int names = 0;
    for (const JobMeasure& m : jobMeasures())
        names = std::max(names, fm.horizontalAdvance(qs(m.name)));
    const int line = fm.height();
    return rect().adjusted(names + 12, line + 6, -12, -(2 * line + 8));
}

std::int64_t JobHeatMap::rankAt(QPoint p) const {
    const QRect plot = plotRect();
    if (!m_report || m_report->records.empty() || !plot.contains(p)) return -1;
    const std::size_t n = m_report->records.size();
    const auto k =
        std::min(n - 1, std::size_t(double(p.x() - plot.left()) * double(n) / double(plot.width())));
    return m_report->records[k].stats.rank;
}

QRectF JobHeatMap::columnRect(std::size_t k) const {
    const QRect plot = plotRect();
    const std::size_t n = m_report ? std::max<std::size_t>(1, m_report->records.size()) : 1;
    const double w = double(plot.width()) / double(n);
    return {plot.left() + w * double(k), double(plot.top()), std::max(w, 1.0), double(plot.height())};
}

std::vector<std::int64_t> JobHeatMap::labelledRanks() const {
    std::vector<std::int64_t> out;
    if (!m_report || m_report->records.empty()) return out;
    const auto& records = m_report->records;
    const std::size_t n = records.size();
    const int widest = fontMetrics().horizontalAdvance(QString::number(records.back().stats.rank)) + 8;
    const double perColumn = double(plotRect().width()) / double(n);
    // Every step-th rank, the step the least of 1, 2, 5, 10, 20, 50, … whose labels do not touch.
    std::size_t step = 1;
    for (std::size_t base = 1; double(step) * perColumn < widest; base *= 10)
        for (std::size_t m : {1, 2, 5})
            if (double(step = base * m) * perColumn >= widest) break;
    for (std::size_t k = 0; k < n; k += step)
        out.push_back(records[k].stats.rank);
    // The last rank too, where it does not touch the label before it.
    if ((n - 1) % step != 0 && double((n - 1) % step) * perColumn >= widest)
        out.push_back(records.back().stats.rank);
    return out;
}

void JobHeatMap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect plot = plotRect();
    const auto& measures = jobMeasures();
    const double rowHeight = double(plot.height()) / double(measures.size());
    p.setPen(palette().text().color());
    for (std::size_t m = 0; m < measures.size(); ++m)
        p.drawText(QRectF(4, plot.top() + rowHeight * double(m), plot.left() - 10, rowHeight),
                   Qt::AlignVCenter | Qt::AlignRight, qs(measures[m].name));
    if (!m_report || m_report->records.empty()) {
        p.drawText(plot, Qt::AlignCenter, tr("No ranks"));
        return;
    }
    const std::size_t n = m_report->records.size();
    // A column of pixels per rank, or, with more ranks than pixels, per run of ranks: each cell the most
    // extreme of its ranks, so a slow rank among thousands still shows.
    const std::size_t columns = std::min<std::size_t>(n, std::size_t(std::max(1, plot.width())));
    const double width = double(plot.width()) / double(columns);
    for (std::size_t m = 0; m < measures.size(); ++m) {
        const double median = m < m_report->spreads.size() ? m_report->spreads[m].median : 0;
        for (std::size_t c = 0; c < columns; ++c) {
            double t = 0;
            for (std::size_t k = c * n / columns; k < (c + 1) * n / columns; ++k) {
                const double value = double(measures[m].value(m_report->records[k]));
                // log2 of the value against the median, clamped to ±1: white at the median, full red at twice
                // it, full blue at half (a measure no rank has is white throughout).
                double u = 0;
                if (median > 0)
                    u = std::clamp(std::log2(std::max(value, 1.0) / median), -1.0, 1.0);
                else if (value > 0)
                    u = 1;
                if (std::fabs(u) > std::fabs(t)) t = u;
            }
            const int fade = int(255 * (1 - std::fabs(t)));
            const QColor color = t >= 0 ? QColor(255, fade, fade) : QColor(fade, fade, 255);
            p.fillRect(QRectF(plot.left() + width * double(c), plot.top() + rowHeight * double(m),
                              std::max(width, 1.0), rowHeight - 1),
                       color);
        }
    }
    p.setPen(palette().mid().color());
    p.drawRect(plot.adjusted(0, 0, -1, -1));

    // The ranks that matter, marked over their columns: the straggler (the others wait for it: its own wait
    // is the least, its collective-wait cell the bluest) and the slow ranks; the hovered one outlined.
    const int line = fontMetrics().height();
    auto positionOf = [&](std::int64_t rank) -> std::optional<std::size_t> { // the records are by rank
        const auto& records = m_report->records;
        const auto at =
            std::lower_bound(records.begin(), records.end(), rank,
                             [](const RankRecord& r, std::int64_t x) { return r.stats.rank < x; });
        if (at == records.end() || at->stats.rank != rank) return std::nullopt;
        return std::size_t(at - records.begin());
    };
    auto mark = [&](std::int64_t rank, const QColor& color, const QString& text) {
        const auto k = positionOf(rank);
        if (!k) return;
        const QRectF column = columnRect(*k);
        p.setPen(QPen(color, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(column.adjusted(-1, -1, 1, 1));
        if (text.isEmpty()) return;
        const int w = fontMetrics().horizontalAdvance(text) + 4;
        const double x =
            std::clamp(column.center().x() - w / 2.0, double(plot.left()), double(plot.right() - w));
        p.drawText(QRectF(x, plot.top() - line - 4, w, line), Qt::AlignCenter, text);
    };
    for (const SlowRank& slow : m_report->slowRanks)
        mark(slow.rank, QColor(170, 0, 0), tr("slow %1").arg(slow.rank));
    if (m_report->ranks.stragglerRank >= 0)
        mark(m_report->ranks.stragglerRank, palette().text().color(),
             tr("straggler %1: the others wait for it").arg(m_report->ranks.stragglerRank));
    if (m_hover >= 0) mark(m_hover, palette().highlight().color(), QString());

    // The ranks' numbers under their columns, and the hovered rank's over them.
    p.setPen(palette().text().color());
    auto label = [&](std::int64_t rank, bool boxed) {
        const auto k = positionOf(rank);
        if (!k) return;
        const QString text = QString::number(rank);
        const int w = fontMetrics().horizontalAdvance(text) + 6;
        const double x =
            std::clamp(columnRect(*k).center().x() - w / 2.0, double(plot.left()), double(plot.right() - w));
        const QRectF at(x, plot.bottom() + 3, w, line);
        if (boxed) {
            p.fillRect(at, palette().highlight());
            p.setPen(palette().highlightedText().color());
        }
        p.drawText(at, Qt::AlignCenter, text);
        p.setPen(palette().text().color());
    };
    for (std::int64_t rank : labelledRanks())
        label(rank, false);
    if (m_hover >= 0) label(m_hover, true);
    p.drawText(QRect(plot.left(), plot.bottom() + 3 + line, plot.width(), line), Qt::AlignHCenter,
               tr("ranks across; against each measure's median: blue half, white equal, red twice or more"));
}

void JobHeatMap::mousePressEvent(QMouseEvent* event) {
    const std::int64_t rank = rankAt(event->pos());
    if (rank >= 0) Q_EMIT rankClicked(rank);
}

void JobHeatMap::mouseMoveEvent(QMouseEvent* event) {
    const std::int64_t rank = rankAt(event->pos());
    if (rank != m_hover) {
        m_hover = rank;
        update();
        // The rank's values at once, as the charts' points show theirs (no wait for a tooltip event,
        // which a window that is not the active one does not get).
        showTip(event->pos());
    }
}

void JobHeatMap::leaveEvent(QEvent*) {
    if (m_hover < 0) return;
    m_hover = -1;
    update();
}

QString JobHeatMap::tipOf(std::int64_t rank) const {
    if (rank < 0 || !m_report) return {};
    const RankRecord* record = nullptr;
    for (const RankRecord& r : m_report->records)
        if (r.stats.rank == rank) record = &r;
    if (!record) return {};
    QStringList lines = {tr("rank %1").arg(rank)};
    if (rank == m_report->ranks.stragglerRank) lines << tr("the straggler: the others wait for it");
    for (const SlowRank& slow : m_report->slowRanks)
        if (slow.rank == rank)
            lines << tr("slow: compute busy %1× the median").arg(slow.overMedian, 0, 'f', 2);
    for (std::size_t m = 0; m < jobMeasures().size(); ++m) {
        const double median = m < m_report->spreads.size() ? m_report->spreads[m].median : 0;
        const TimeNs v = jobMeasures()[m].value(*record);
        lines << (median > 0 ? tr("%1: %2 (%3× the median)")
                                   .arg(qs(jobMeasures()[m].name), durationText(v))
                                   .arg(double(v) / median, 0, 'f', 2)
                             : tr("%1: %2").arg(qs(jobMeasures()[m].name), durationText(v)));
    }
    return lines.join('\n');
}

void JobHeatMap::showTip(QPoint at) {
    const QString tip = tipOf(rankAt(at));
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(mapToGlobal(at), tip, this);
}

bool JobHeatMap::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        showTip(static_cast<QHelpEvent*>(event)->pos());
        return true;
    }
    return QWidget::event(event);
}

} // namespace attnscope::ui
