// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/kernel_role.h"
#include "core/model/trace.h"

// moc (Qt 6.4) stops at C++20 standard headers it follows through this; it needs none of them.
#ifndef Q_MOC_RUN
#include "timeline_renderer.h"
#endif

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace attnscope {
struct Document;
}

namespace attnscope::ui {

class KernelFilterProxy;
class KernelTableModel;

// The Kernels dock: kernels by name over the whole trace or the selected range, filtered by name
// and by role; selecting rows highlights those names, activating a row asks for its longest instance.
class KernelTablePanel : public QWidget {
    Q_OBJECT
public:
    explicit KernelTablePanel(QWidget* parent = nullptr);

    // The document's kernels, over range when there is one (null: no trace).
    // The document's kernels (by name and role once it is analysed), or those in the range.
    void show(const Document* doc, std::optional<TimeRange> range);
    // The names of the selected rows.
    std::vector<StringId> selectedNames() const;
    // The rows as they are sorted and filtered, as CSV. Empty on success, else the error.
    QString exportCsv(const QString& path) const;

    QTableView* table() const { return m_table; }
    KernelTableModel* model() const { return m_model; }
    QByteArray columnState() const;
    void restoreColumnState(const QByteArray& state);

Q_SIGNALS:
    void selectionChanged();
    // A row activated (double-click, Enter).
    void nameActivated(StringId name);

private:
    QLabel* m_title = nullptr;
    QLineEdit* m_filter = nullptr;
    QComboBox* m_roleFilter = nullptr;
    QTableView* m_table = nullptr;
    KernelTableModel* m_model = nullptr;
    KernelFilterProxy* m_proxy = nullptr;
};

} // namespace attnscope::ui
