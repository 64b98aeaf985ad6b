// SPDX-License-Identifier: MIT
#include "kernel_table_panel.h"
#include "core/report/format.h"

#include "core/document/document.h"

#include "kernel_table_model.h"
#include "qt_text.h"

#include "core/io/atomic_file.h"
#include "core/model/demangle.h"
#include "core/report/summary.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace attnscope::ui {

namespace {

// The table's header, which paints the columns' titles: the cells' numbers changing (each of a live
// profile's snapshots changes them all) change nothing in it. An item view repaints itself whole on a
// change of many cells, and the header is one: it repainted its sections (a millisecond and more of the
// style's drawing) at every snapshot. Its titles change by headerDataChanged, which it still follows.
class ColumnTitles : public QHeaderView {
public:
    explicit ColumnTitles(QWidget* parent) : QHeaderView(Qt::Horizontal, parent) {
        setSectionsClickable(true); // as a table's own header: a click sorts
        setHighlightSections(true);
    }
    void dataChanged(const QModelIndex&, const QModelIndex&, const QList<int>&) override {}
};

// The table's cells with their text drawn once: the style's item layout shapes each cell's text three
// times (its size, its elision, its drawing), and a live profile repaints the table at every snapshot.
// The background, selection and focus stay the style's; a long text is elided once per text and width.
class KernelCellDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override {
        const QWidget* widget = option.widget;
        QStyle* style = widget ? widget->style() : QApplication::style();
        // Windows' native style draws a selected cell's text in its own colours: its way, not this one.
        if (style->name().compare(QLatin1String("windowsvista"), Qt::CaseInsensitive) == 0)
            return QStyledItemDelegate::paint(painter, option, index);
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        QString text = std::exchange(opt.text, QString());
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
        if (text.isEmpty()) return;
        const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
        const QRect rect = opt.rect.adjusted(margin, 0, -margin, 0);
        const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                           : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                                : QPalette::Inactive;
        // A kernel name too long for its column is its own name with what tells its instances apart
        // (tellingKernelName), cut at its end, not the whole cut in its middle, where every instance of one
        // template read alike ("void at::na…float)#1})"). The tooltip holds the whole.
        if (index.column() == KernelTableModel::Name &&
            opt.fontMetrics.horizontalAdvance(text) > rect.width())
            text = qs(tellingKernelName(text.toStdString()));
        painter->save();
        painter->setFont(opt.font);
        painter->setPen(opt.palette.color(
            group, (opt.state & QStyle::State_Selected) ? QPalette::HighlightedText : QPalette::Text));
        painter->drawText(rect, int(opt.displayAlignment) | Qt::TextSingleLine,
                          shown(text, opt.font, opt.fontMetrics, opt.textElideMode, rect.width()));
        painter->restore();
    }

private:
    QString shown(const QString& text, const QFont& font, const QFontMetrics& metrics, Qt::TextElideMode mode,
                  int width) const {
        if (font != m_font || mode != m_mode) { // what was elided is another font's
            m_elided.clear();
            m_font = font;
            m_mode = mode;
        }
        const auto key = std::make_pair(text, width);
        if (const auto it = m_elided.constFind(key); it != m_elided.constEnd()) return *it;
        if (m_elided.size() > 4096) m_elided.clear(); // kernel names come back; numbers change
        const QString out =
            metrics.horizontalAdvance(text) <= width ? text : metrics.elidedText(text, mode, width);
        m_elided.insert(key, out);
        return out;
    }
    mutable QHash<std::pair<QString, int>, QString> m_elided;
    mutable QFont m_font;
    mutable Qt::TextElideMode m_mode = Qt::ElideNone;
};

} // namespace

KernelTablePanel::KernelTablePanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::PlainText);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter kernels by name"));
    m_filter->setClearButtonEnabled(true);
    m_roleFilter = new QComboBox(this);
    m_roleFilter->setObjectName("roleFilter");
    m_roleFilter->addItem(tr("All roles"));
    for (int r = 0; r < int(KernelRole::Count); ++r)
        m_roleFilter->addItem(qs(roleLabel(KernelRole(r))), r);
    m_roleFilter->setToolTip(tr("Show the kernels of one role (known once the analysis is done)"));
    m_model = new KernelTableModel(this);
    m_proxy = new KernelFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(KernelTableModel::SortRole);
    m_table = new QTableView(this);
    m_table->setHorizontalHeader(new ColumnTitles(m_table));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight); // a name from its own on (KernelCellDelegate)
    m_table->setItemDelegate(new KernelCellDelegate(m_table));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(KernelTableModel::Name, QHeaderView::Stretch);
    // The numbers' columns as wide as a duration needs, the role's as its longest label: the rest is the
    // names' (Qt's default of 100 pixels a column left a docked table's names a few pixels).
    const QFontMetrics metrics = m_table->fontMetrics();
    m_table->horizontalHeader()->setDefaultSectionSize(
        metrics.horizontalAdvance(QStringLiteral("000.000 ms")) + 16);
    m_table->horizontalHeader()->resizeSection(
        KernelTableModel::Role, metrics.horizontalAdvance(QStringLiteral("fused attention")) + 16);
    // A count as wide as six digits or its title with the sort arrow, a share as "100.0%" or its title.
    m_table->horizontalHeader()->resizeSection(KernelTableModel::Count,
                                               std::max(metrics.horizontalAdvance(QStringLiteral("000000")),
                                                        metrics.horizontalAdvance(tr("Count"))) +
                                                   28);
    m_table->horizontalHeader()->resizeSection(KernelTableModel::Share,
                                               std::max(metrics.horizontalAdvance(QStringLiteral("100.0%")),
                                                        metrics.horizontalAdvance(tr("Share"))) +
                                                   28);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_title, 1);
    filterRow->addWidget(m_roleFilter);
    filterRow->addWidget(m_filter, 1);
    layout->addLayout(filterRow);
    layout->addWidget(m_table, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &KernelFilterProxy::setNameFilter);
    connect(m_roleFilter, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant role = m_roleFilter->currentData();
        m_proxy->setRoleFilter(role.isValid() ? std::optional(KernelRole(role.toInt())) : std::nullopt);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &KernelTablePanel::selectionChanged);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        if (index.isValid()) Q_EMIT nameActivated(m_model->nameIdAt(m_proxy->mapToSource(index).row()));
    });
}

void KernelTablePanel::show(const Document* doc, std::optional<TimeRange> range) {
    if (!doc || !doc->summary) {
        m_model->setRows({}, 0);
        m_title->clear();
        return;
    }
    const TraceSummary& summary = *doc->summary;
    if (!range) {
        const std::vector<KernelStats>& rows = summary.analyzed ? summary.kernelsByRole : summary.topKernels;
        m_model->setRows(rows, summary.kernelNs);
        // A name that runs in two roles (one GEMM kernel for QKᵀ and for PV) has a row for each: the
        // title says so where the rows outnumber the names ("5 names" had stood over 6 rows).
        QString names = qs(formatCount(summary.topKernels.size(), "name", "names"));
        if (rows.size() != summary.topKernels.size())
            names = tr("%1 in %2 by role").arg(names, qs(formatCount(rows.size(), "row", "rows")));
        m_title->setText(tr("All kernels: %1, %2").arg(names, qs(formatDuration(summary.kernelNs))));
    } else {
        std::vector<KernelStats> rows =
            kernelStatsInRange(*doc->trace, *doc->index, range->from, range->to, doc->analysis.get());
        TimeNs total = 0;
        std::uint64_t count = 0;
        for (const KernelStats& k : rows) {
            total += k.totalNs;
            count += k.count;
        }
        const TimeNs base = doc->trace->startNs();
        m_title->setText(tr("Range +%1 … +%2 (%3): %4, %5 in range")
                             .arg(qs(formatDuration(range->from - base)),
                                  qs(formatDuration(range->to - base)), qs(formatDuration(range->length())),
                                  qs(formatCount(count, "kernel", "kernels")), qs(formatDuration(total))));
        m_model->setRows(std::move(rows), total, true);
    }
    // The rows sorted and laid out now, not on the view's next turn of the event loop: painted once, with
    // the rest of the window, not again in a paint of their own after it (a live profile's every snapshot).
    m_table->doItemsLayout();
}

std::vector<StringId> KernelTablePanel::selectedNames() const {
    std::vector<StringId> names;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        names.push_back(m_model->nameIdAt(m_proxy->mapToSource(index).row()));
    return names;
}

QString KernelTablePanel::exportCsv(const QString& path) const {
    std::vector<KernelStats> rows;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        rows.push_back(m_model->rows()[std::size_t(m_proxy->mapToSource(m_proxy->index(r, 0)).row())]);
    try {
        AtomicFile file(path.toStdString(), false);
        file.write(formatKernelCsv(rows, m_model->totalKernelNs()));
        file.commit();
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QByteArray KernelTablePanel::columnState() const {
    return m_table->horizontalHeader()->saveState();
}

void KernelTablePanel::restoreColumnState(const QByteArray& state) {
    m_table->horizontalHeader()->restoreState(state);
}

} // namespace attnscope::ui
