// SPDX-License-Identifier: MIT
#include "report_export.h"

#include "charts.h"
#include "file_dialogs.h"
#include "timeline_export.h"

#include "core/document/report.h"
#include "core/model/demangle.h"
#include "core/report/findings.h"
#include "core/report/format.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>

namespace attnscope::ui {

QString reportFormatOf(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "html" || suffix == "htm") return QStringLiteral("html");
    return suffix == "md" || suffix == "pdf" ? suffix : QString();
}

QString reportPicturesFolder(const QString& path) {
    const QFileInfo info(path);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral("_files"));
}

namespace {

constexpr int kPageWidth = 1000; // the pictures' width, in pixels: a page's

// An SVG file as an element of the page: its XML prologue dropped, sized by the page (its viewBox kept).
QString inlineSvg(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QString svg = QString::fromUtf8(file.readAll());
    const qsizetype start = svg.indexOf(QStringLiteral("<svg"));
    if (start < 0) return {};
    svg.remove(0, start);
    const qsizetype tagEnd = svg.indexOf(QLatin1Char('>'));
    QString tag = svg.left(tagEnd);
    tag.remove(QRegularExpression(QStringLiteral("\\s(width|height)=\"[^\"]*\"")));
    return tag + svg.mid(tagEnd);
}

// The stretch of time a finding's first place is seen in: the place with as much again either side.
std::optional<TimeRange> placeRange(const Evidence& e) {
    TimeNs from = e.startNs, to = e.startNs + std::max<TimeNs>(e.durNs, 1);
    if (e.showToNs > e.showFromNs) from = e.showFromNs, to = e.showToNs;
    const TimeNs pad = std::max<TimeNs>((to - from) / 2, 1000);
    return TimeRange{from - pad, to + pad};
}

} // namespace

QString exportReport(const std::vector<ReportDocument>& docs, const QString& path,
                     const std::function<bool(int, int)>& progress, QString* missing) {
    const QString format = reportFormatOf(path);
    if (format.isEmpty()) return QStringLiteral("%1: the file name must end in .html, .md or .pdf").arg(path);
    if (docs.empty()) return QStringLiteral("no trace to report on");
    // Pictures: SVG inside the HTML; PNG files beside the Markdown (its folder) or for the PDF's layout.
    const bool svg = format == "html";
    QTemporaryDir scratch;
    if (!scratch.isValid())
        return QStringLiteral("no folder for the report's pictures: %1").arg(QDir::tempPath());
    const QString pictures = format == "md" ? reportPicturesFolder(path) : scratch.path();
    if (format == "md" && !QDir().mkpath(pictures))
        return QStringLiteral("%1: the folder for the pictures could not be made").arg(pictures);
    const QString picturesName = QFileInfo(pictures).fileName();

    ReportInput input;
    input.made = QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")).toStdString() +
                 " by AttnScope " ATTNSCOPE_VERSION;
    int total = 0, done = 0;
    std::vector<std::shared_ptr<const Document>> complete;
    for (const ReportDocument& d : docs) {
        complete.push_back(completeDocument(d.doc, TimelinePart | AnalysisPart | SummaryPart));
        total += 2 + int(reportFindings(*complete.back())) + int(d.notes.size());
    }
    QString error;
    // Draws one picture; its place on the page (inline SVG, or the file's name) or nullopt when it failed.
    auto draw = [&](const QString& name, const QString& caption,
                    const std::function<QString(const QString&)>& paint) -> std::optional<ReportPicture> {
        const QString file = QDir(svg ? scratch.path() : pictures).filePath(name + (svg ? ".svg" : ".png"));
        if (const QString why = paint(file); !why.isEmpty()) {
            if (error.isEmpty()) error = why;
            return std::nullopt;
        }
        ReportPicture p;
        p.caption = caption.toStdString();
        if (svg)
            p.svg = inlineSvg(file).toStdString();
        else
            p.file = (format == "md" ? picturesName + "/" + QFileInfo(file).fileName() : file).toStdString();
        return p;
    };
    bool cancelled = false;
    auto step = [&] { return !(cancelled = cancelled || (progress && !progress(++done, total))); };
    for (std::size_t t = 0; t < complete.size() && !cancelled; ++t) {
        const Document& doc = *complete[t];
        ReportTrace rt;
        rt.doc = complete[t];
        rt.label = docs[t].label.toStdString();
        rt.notesProblems = docs[t].notesProblems;
        const QString prefix = QStringLiteral("trace%1-").arg(t + 1);
        for (std::size_t i = 0; i < reportFindings(doc) && !cancelled; ++i) {
            const Finding& f = (*doc.findings)[i];
            std::optional<ReportPicture> picture;
            if (!f.evidence.empty()) {
                const Evidence& e = f.evidence.front();
                TimelinePicture tp;
                tp.size = QSize(kPageWidth, 0);
                tp.maxHeight = 520;
                tp.range = placeRange(e);
                tp.selected = e.event;
                const QString caption =
                    QStringLiteral("Its first place: %1 on %2, at %3 from the trace's start%4")
                        .arg(QString::fromStdString(tellingKernelName(e.name)),
                             QString::fromStdString(e.track),
                             QString::fromStdString(formatDuration(e.startNs - doc.trace->startNs())),
                             e.note.empty() ? QString()
                                            : QStringLiteral(" (%1)").arg(QString::fromStdString(e.note)));
                picture =
                    draw(prefix + QStringLiteral("finding%1").arg(i + 1), caption, [&](const QString& file) {
                        tp.path = file;
                        return exportTracePicture(*doc.trace, *doc.index, doc.analysis.get(), tp);
                    });
            }
            rt.places.push_back(std::move(picture));
            step();
        }
        for (std::size_t i = 0; i < docs[t].notes.size() && !cancelled; ++i) {
            ReportNote rn;
            rn.note = docs[t].notes[i];
            const NotePlace place = placeNote(rn.note, doc);
            rn.where = describePlace(rn.note, place, *doc.trace);
            if (place.placed) {
                TimelinePicture tp;
                tp.size = QSize(kPageWidth, 0);
                tp.maxHeight = 520;
                const TimeNs pad = std::max<TimeNs>((place.toNs - place.fromNs) / 2, 1000);
                tp.range = TimeRange{place.fromNs - pad, place.toNs + pad};
                tp.selected = place.event;
                if (!place.event) tp.marked = TimeRange{place.fromNs, place.toNs}; // a stretch: shown as one
                rn.picture =
                    draw(prefix + QStringLiteral("note%1").arg(i + 1), QString::fromStdString(rn.where),
                         [&](const QString& file) {
                             tp.path = file;
                             return exportTracePicture(*doc.trace, *doc.index, doc.analysis.get(), tp);
                         });
            }
            rt.notes.push_back(std::move(rn));
            step();
        }
        for (ChartKind kind : {ChartKind::Breakdown, ChartKind::Roofline}) {
            if (cancelled) break;
            const QString name = chartKindName(kind);
            const QString caption = kind == ChartKind::Breakdown
                                        ? QStringLiteral("Kernel time by role, per attention implementation")
                                        : QStringLiteral("Roofline: each kernel against its device's roofs");
            if (auto p = draw(prefix + name, caption, [&](const QString& file) {
                    return exportTraceChart(doc, kind, QSize(kPageWidth, 560), 1, file);
                }))
                rt.charts.push_back(std::move(*p));
            step();
        }
        input.traces.push_back(std::move(rt));
    }
    if (cancelled) return QStringLiteral("cancelled");

    if (format == "pdf") {
        // The page laid out by Qt's rich text: the same HTML, its pictures the PNG files.
        QTextDocument text;
        const QString html = QString::fromStdString(formatReport(input, ReportFormat::Html));
        for (const ReportTrace& t : input.traces)
            for (const auto& p : t.places)
                if (p)
                    text.addResource(QTextDocument::ImageResource, QUrl(QString::fromStdString(p->file)),
                                     QImage(QString::fromStdString(p->file)));
        for (const ReportTrace& t : input.traces) {
            for (const ReportPicture& p : t.charts)
                text.addResource(QTextDocument::ImageResource, QUrl(QString::fromStdString(p.file)),
                                 QImage(QString::fromStdString(p.file)));
            for (const ReportNote& n : t.notes)
                if (n.picture)
                    text.addResource(QTextDocument::ImageResource,
                                     QUrl(QString::fromStdString(n.picture->file)),
                                     QImage(QString::fromStdString(n.picture->file)));
        }
        text.setDefaultStyleSheet(
            QStringLiteral("th, td { padding: 2px; } table { font-size: 7pt; } h2 { margin-top: 18px; }"));
        // Qt's rich text knows no <figure>: a picture in one was laid out as if it did not fit below its
        // heading and went to the next page alone. As a block and a paragraph it stays with its finding.
        QString blocks = html;
        blocks.replace(QStringLiteral("<figure"), QStringLiteral("<div"))
            .replace(QStringLiteral("</figure>"), QStringLiteral("</div>"))
            .replace(QStringLiteral("<figcaption>"), QStringLiteral("<p>"))
            .replace(QStringLiteral("</figcaption>"), QStringLiteral("</p>"))
            // Drawn as on every page (a shorter picture leaves rows out), shown at three quarters of the
            // page's width: a place's picture fits on a landscape page below its finding's text.
            .replace(QStringLiteral("<img src="),
                     QStringLiteral("<img width=\"%1\" src=").arg(kPageWidth * 3 / 4));
        text.setHtml(blocks);
        QSaveFile out(path);
        if (!out.open(QIODevice::WriteOnly)) return QStringLiteral("%1: %2").arg(path, out.errorString());
        {
            QPdfWriter pdf(&out);
            pdf.setCreator(QStringLiteral("AttnScope"));
            pdf.setTitle(QStringLiteral("AttnScope report"));
            pdf.setPageSize(QPageSize(QPageSize::A4));
            pdf.setPageOrientation(QPageLayout::Landscape); // compare's table has fourteen columns
            pdf.setPageMargins(QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter);
            pdf.setResolution(96); // a 1000-pixel picture fits the page's width
            text.setPageSize(QSizeF(pdf.width(), pdf.height()));
            text.print(&pdf);
        }
        if (!out.commit()) return QStringLiteral("%1: %2").arg(path, out.errorString());
        if (missing) *missing = error;
        return {};
    }
    const std::string page =
        formatReport(input, format == "html" ? ReportFormat::Html : ReportFormat::Markdown);
    if (QString why = saveText(path, page); !why.isEmpty()) return why;
    if (missing) *missing = error;
    return {};
}

} // namespace attnscope::ui
