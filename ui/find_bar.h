// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;

namespace attnscope::ui {

// Ctrl+F: find events by name. Enter / Shift+Enter step through the matches, Escape closes.
class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QWidget* parent = nullptr);

    void activate(); // show, focus and select the text
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
    QLineEdit* m_edit = nullptr;
    QLabel* m_count = nullptr;
};

} // namespace attnscope::ui
