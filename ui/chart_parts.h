// SPDX-License-Identifier: MIT
#pragma once

// What the charts share: role names as labels, lines under a title, the tooltips of scatter points,
// and the roofline chart (roofline_chart.cpp).
#include "charts.h"
#include "qt_text.h"

#include "core/model/role.h"

#include <QChart>
#include <QString>

#include <vector>

namespace attnscope::ui {

inline QString roleText(KernelRole r) {
    return qs(roleLabel(r));
}

// A line under a chart's title (Qt Charts draws titles as rich text: a line break is <br>). Qt cuts a
// title line wider than the chart with "…": a long one is broken between words into lines of at most
// kTitleLineChars, which a chart in a dock half a laptop screen wide shows whole.
inline constexpr qsizetype kTitleLineChars = 80;
inline void addTitleLine(QChart* chart, const QString& line) {
    QString wrapped, current;
    for (const QString& word : line.split(QLatin1Char(' '))) {
        if (!current.isEmpty() && current.size() + 1 + word.size() > kTitleLineChars) {
            wrapped += current.toHtmlEscaped() + QStringLiteral("<br>");
            current.clear();
        }
        current += (current.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    chart->setTitle(chart->title() + QStringLiteral("<br>") + wrapped + current.toHtmlEscaped());
}

// A scatter series' tooltips, one per point (chartTipAt reads them).
inline constexpr const char* kTipsProperty = "attnscopeTips";

// The roofline of one trace, or of two (Compare) on the first one's roofs.
QChart* rooflineChart(const std::vector<ChartInput>& inputs);

} // namespace attnscope::ui
