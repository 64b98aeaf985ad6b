// SPDX-License-Identifier: MIT
#include "trace_header.h"
#include "core/io/trace_loader.h"
#include "core/report/format.h"

#include "qt_text.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStringList>

#include <algorithm>
#include <string_view>
#include <vector>

namespace attnscope::ui {

namespace {
QString tr(const char* text) {
    return QCoreApplication::translate("attnscope::ui::MainWindow", text);
}
} // namespace

QString traceHeaderText(const QString& name, const TraceSummary& s) {
    QString devices;
    for (const DeviceSummary& d : s.devices) {
        devices += tr(" · %1: %2, busy %3")
                       .arg(qs(d.label), qs(formatCount(d.kernels, "kernel", "kernels")),
                            qs(formatDuration(d.busyNs)));
    }
    QString warnings;
    for (const std::string& w : s.warnings)
        warnings += tr("\nwarning: %1").arg(qs(w));
    return tr("%1 (%2) · %3 · span %4 · %5, %6 of kernel time%7%8")
        .arg(name, qs(s.format), qs(formatCount(s.events, "event", "events")), qs(formatDuration(s.spanNs)),
             qs(formatCount(s.kernelCount, "kernel", "kernels")), qs(formatDuration(s.kernelNs)), devices,
             warnings);
}

QString traceBaseName(const QString& fileName) {
    QString base = QFileInfo(fileName).fileName();
    std::vector<std::string_view> suffixes = traceSuffixes();
    suffixes.push_back(".pt.trace"); // PyTorch's name for a trace, before the format's suffix
    for (bool again = true; again;) {
        again = false;
        for (std::string_view suffix : suffixes)
            if (const QString s = qs(suffix);
                base.endsWith(s, Qt::CaseInsensitive) && base.size() > s.size()) {
                base.chop(s.size());
                again = true;
                break;
            }
    }
    return base;
}

QString traceFileFilter() {
    QStringList patterns;
    for (std::string_view suffix : traceSuffixes())
        patterns << "*" + qs(suffix);
    return tr("Traces (%1);;All files (*)").arg(patterns.join(' '));
}

} // namespace attnscope::ui
