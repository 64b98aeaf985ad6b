// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <QTextDocument>

#include <string_view>

namespace attnscope::ui {

// Text from the model (UTF-8: names, labels, formatted numbers) as a QString: the one conversion the
// UI uses. Names from files stay plain text wherever they are shown.
inline QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// Plain text (a kernel's C++ name is full of '<') as a tooltip: escaped, and each line longer than
// kTipLineChars broken after a comma or at a space (else where it must), since a tooltip line is
// never wrapped: a 600-character name was one line wider than the screen.
inline constexpr qsizetype kTipLineChars = 100;
inline QString plainTip(const QString& text) {
    QStringList lines;
    for (QString rest : text.split(QLatin1Char('\n'))) {
        bool continued = false; // the lines after a break are indented
        while (rest.size() > kTipLineChars) {
            // A break after a comma, else at a space, past the line's first character; else where it must.
            qsizetype at = rest.lastIndexOf(QLatin1String(", "), kTipLineChars - 2);
            at = at > 0 ? at + 2 : rest.lastIndexOf(QLatin1Char(' '), kTipLineChars);
            if (at <= 0) at = kTipLineChars;
            lines << (continued ? QStringLiteral("    ") : QString()) + rest.left(at).trimmed();
            rest = rest.mid(at).trimmed();
            continued = true;
        }
        lines << (continued ? QStringLiteral("    ") : QString()) + rest;
    }
    return Qt::convertFromPlainText(lines.join(QLatin1Char('\n')));
}

// Text that wraps with each number kept beside its unit or noun ("12.3 ms", "4 calls", "61%"): the
// space after a digit, where a letter, µ or % follows, does not break (a wrapped cell read "12.3" over
// "ms (4%)").
inline QString unbroken(QString text) {
    for (qsizetype i = 1; i + 1 < text.size(); ++i)
        if (text[i] == QLatin1Char(' ') && text[i - 1].isDigit() &&
            (text[i + 1].isLetter() || text[i + 1] == QChar(0x00B5) || text[i + 1] == QLatin1Char('%')))
            text[i] = QChar(0x00A0);
    return text;
}

} // namespace attnscope::ui
