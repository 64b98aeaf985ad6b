// SPDX-License-Identifier: MIT
#include "table_fit.h"

#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace attnscope::ui {

namespace {

class Refit final : public QObject {
public:
    Refit(QTableView* table, int proseColumns) : QObject(table), m_table(table), m_prose(proseColumns) {}
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == m_table && event->type() == QEvent::Resize) fitProseColumns(m_table, m_prose);
        return false;
    }

private:
    QTableView* m_table;
    int m_prose;
};

} // namespace

void fitProseColumns(QTableView* table, int proseColumns) {
    QHeaderView* header = table->horizontalHeader();
    const int count = header->count();
    if (count <= proseColumns) return;
    header->setStretchLastSection(false);
    table->resizeColumnsToContents();
    const int firstProse = count - proseColumns;
    int figures = 0, prose = 0;
    for (int c = 0; c < count; ++c)
        (c < firstProse ? figures : prose) += header->sectionSize(c);
    // The room inside the frame, less a vertical scroll bar's (shown once the rows grow taller than the
    // table); taken from the table, whose size is new when it is resized, not its viewport's (not yet).
    const int room = table->contentsRect().width() - table->verticalScrollBar()->sizeHint().width() - figures;
    if (prose > room) {
        // Each its title's width at least; what is left of the room shared by how much more each wants.
        const QFontMetrics fm = header->fontMetrics();
        std::vector<int> least, more;
        int leastSum = 0, moreSum = 0;
        for (int c = firstProse; c < count; ++c) {
            const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
            least.push_back(std::max(fm.horizontalAdvance(title) + 2 * fm.averageCharWidth(),
                                     fm.averageCharWidth() * 16));
            more.push_back(std::max(0, header->sectionSize(c) - least.back()));
            leastSum += least.back();
            moreSum += more.back();
        }
        const int extra = std::max(0, room - leastSum);
        for (int c = firstProse; c < count; ++c) {
            const std::size_t i = std::size_t(c - firstProse);
            header->resizeSection(c, least[i] + (moreSum ? int(std::int64_t(more[i]) * extra / moreSum) : 0));
        }
    } else {
        header->setStretchLastSection(true);
    }
    table->resizeRowsToContents();
}

void keepProseColumnsFitted(QTableView* table, int proseColumns) {
    table->setWordWrap(true);
    table->installEventFilter(new Refit(table, proseColumns));
    fitProseColumns(table, proseColumns);
}

} // namespace attnscope::ui
