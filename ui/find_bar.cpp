// SPDX-License-Identifier: MIT
#include "find_bar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

namespace attnscope::ui {

FindBar::FindBar(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(new QLabel(tr("Find:"), this));
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Event name (any part, any case)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    layout->addWidget(m_edit, 1);
    m_count = new QLabel(this);
    m_count->setTextFormat(Qt::PlainText);
    layout->addWidget(m_count);
    auto button = [&](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        layout->addWidget(b);
        return b;
    };
    connect(button(QStringLiteral("▲"), tr("Previous match (Shift+Enter)")), &QToolButton::clicked, this,
            &FindBar::previous);
    connect(button(QStringLiteral("▼"), tr("Next match (Enter)")), &QToolButton::clicked, this,
            &FindBar::next);
    connect(button(QStringLiteral("✕"), tr("Close (Escape)")), &QToolButton::clicked, this,
            &FindBar::dismiss);
    m_pause = new QTimer(this);
    m_pause->setSingleShot(true);
    m_pause->setInterval(150);
    connect(m_pause, &QTimer::timeout, this, [this] { Q_EMIT searchChanged(m_edit->text()); });
    connect(m_edit, &QLineEdit::textChanged, this, [this] { m_pause->start(); });
}

void FindBar::dismiss() {
    m_pause->stop();
    hide();
    Q_EMIT closed();
}

void FindBar::flush() {
    if (!m_pause->isActive()) return;
    m_pause->stop();
    Q_EMIT searchChanged(m_edit->text());
}

void FindBar::activate() {
    show();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

QString FindBar::text() const {
    return m_edit->text();
}
QString FindBar::countText() const {
    return m_count->text();
}

void FindBar::setCount(int current, int total) {
    if (m_edit->text().isEmpty())
        m_count->clear();
    else if (total == 0)
        m_count->setText(tr("no matches"));
    else if (current == 0)
        m_count->setText(total == 1 ? tr("1 match") : tr("%1 matches").arg(total));
    else
        m_count->setText(tr("%1 of %2").arg(current).arg(total));
}

bool FindBar::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            flush();
            if (key->modifiers() & Qt::ShiftModifier)
                Q_EMIT previous();
            else
                Q_EMIT next();
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            dismiss();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace attnscope::ui
