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
        // Kineto's GPUs are keyed by their index ("0"); other keys name themselves ("GPU 0", "r1:0").
        const QString id = qs(d.id);
        const bool index =
            !id.isEmpty() && std::all_of(id.begin(), id.end(), [](QChar c) { return c.isDigit(); });
        // GPUs as the timeline names them ("GPU 0 · NVIDIA H100 …"); other devices by name (key).
        QString gpu = index ? tr("GPU %1").arg(id) : id;
        if (d.cpu) // PyTorch's CPU ops, AttnScope's CPU runs: never called a GPU
            gpu = tr("CPU · %1 (%2)").arg(d.name.empty() ? tr("process") : qs(d.name), id);
        else if (!index && !id.startsWith(QStringLiteral("GPU ")))
            gpu = d.name.empty() ? id : tr("%1 (%2)").arg(qs(d.name), id);
        else if (!d.name.empty() && qs(d.name) != gpu)
            gpu += QStringLiteral(" · ") + qs(d.name);
        devices +=
            tr(" · %1: %2, busy %3")
                .arg(gpu, qs(formatCount(d.kernels, "kernel", "kernels")), qs(formatDuration(d.busyNs)));
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
