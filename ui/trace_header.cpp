// SPDX-License-Identifier: MIT
#include "trace_header.h"
#include "core/report/format.h"

#include "qt_text.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>
#include <cstring>

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
    for (const char* suffix : {".gz", ".json", ".sqlite", ".nsys-rep", ".pt.trace"})
        if (base.endsWith(QLatin1String(suffix), Qt::CaseInsensitive) &&
            base.size() > int(std::strlen(suffix)))
            base.chop(int(std::strlen(suffix)));
    return base;
}

} // namespace attnscope::ui
