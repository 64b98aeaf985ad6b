// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>

namespace attnscope::ui {

// A label of a line or two across a window whose text is new at every snapshot of a live profile (the
// trace's header: its events and kernels so far). QLabel's size hints lay a wrapped text out three times
// over at each new text (at its natural width, at no width, on one line), a millisecond and more of each
// snapshot; this one's are a line of about 20 characters, and the layout asks it only for its height at the
// width it has (heightForWidth, one layout of the text).
class WrappedLine final : public QLabel {
public:
    explicit WrappedLine(QWidget* parent) : QLabel(parent) { setWordWrap(true); }
    QSize minimumSizeHint() const override { return oneLine(); }
    QSize sizeHint() const override { return oneLine(); }

private:
    QSize oneLine() const {
        const QMargins m = contentsMargins();
        const int margin = 2 * (QLabel::margin() + frameWidth());
        return {fontMetrics().averageCharWidth() * 20 + m.left() + m.right() + margin,
                fontMetrics().height() + m.top() + m.bottom() + margin};
    }
};

} // namespace attnscope::ui
