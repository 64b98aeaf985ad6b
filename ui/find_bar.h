// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QTimer;

namespace attnscope::ui {

// Ctrl+F: find events by name. The search runs once typing pauses (a search over ten million events
// is not free), or at once on Enter; Enter / Shift+Enter step through the matches, Escape closes.
class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QWidget* parent = nullptr);

    void activate(); // show, focus and select the text
    void dismiss();  // hide, and drop a search that typing left pending
    QString text() const;
    void setCount(int current, int total); // current is 1-based, 0 when none is selected
    QString countText() const;
    QLineEdit* edit() const { return m_edit; }

Q_SIGNALS:
    void searchChanged(const QString& text);
    void next();
    void previous();
    void closed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Emits searchChanged now if typing left one pending.
    void flush();

    QLineEdit* m_edit = nullptr;
    QLabel* m_count = nullptr;
    QTimer* m_pause = nullptr;
};

} // namespace attnscope::ui
