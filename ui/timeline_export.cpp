// SPDX-License-Identifier: MIT
#include "timeline_export.h"

#include <functional>

#include <QFileInfo>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

namespace attnscope::ui {

QString timelineFormatOf(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == "png" || suffix == "svg" || suffix == "pdf" ? suffix : QString();
}

int fullTimelineHeight(const TimelineLayout& layout, const TimelineStyle& style) {
    const int legend = 2 * QFontMetrics(style.font).height() + 8; // the legend's strip, in two rows at most
    return style.rulerHeight + layout.totalHeight() + legend;
}

QString exportPicture(QSize size, double scale, const QString& path, const QString& title,
                      const std::function<void(QPainter&, QSize)>& paint) {
    const QString format = timelineFormatOf(path);
    if (format.isEmpty()) return QStringLiteral("%1: the file name must end in .png, .svg or .pdf").arg(path);
    if (size.width() < 100 || size.height() < 50 || size.width() > 20000 || size.height() > 20000)
        return QStringLiteral("picture size %1x%2 is out of range (100x50 to 20000x20000)")
            .arg(size.width())
            .arg(size.height());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return QStringLiteral("%1: %2").arg(path, file.errorString());
    // A chart's title may be rich text (lines joined by <br>): the document's title is its plain text.
    QString plainTitle = title;
    plainTitle.replace(
        QRegularExpression(QStringLiteral("<br\\s*/?>"), QRegularExpression::CaseInsensitiveOption),
        QStringLiteral(" · "));
    plainTitle.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    if (format == "png") {
        QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(scale);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            paint(p, size);
        }
        if (!image.save(&file, "PNG")) return QStringLiteral("%1: could not encode the PNG").arg(path);
    } else if (format == "svg") {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(plainTitle.toHtmlEscaped()); // written into the XML as it is given
        QPainter p;
        if (!p.begin(&svg)) return QStringLiteral("%1: could not start the SVG").arg(path);
        paint(p, size);
        p.end();
    } else {
        QPdfWriter pdf(&file);
        pdf.setCreator(QStringLiteral("AttnScope"));
        pdf.setTitle(plainTitle);
        pdf.setResolution(96);
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        // One page the picture's size: pixels at 96 per inch, as points.
        pdf.setPageSize(
            QPageSize(QSizeF(size.width() * 72.0 / 96, size.height() * 72.0 / 96), QPageSize::Point));
        QPainter p;
        if (!p.begin(&pdf)) return QStringLiteral("%1: could not start the PDF").arg(path);
        paint(p, size);
        p.end();
    }
    if (!file.commit()) return QStringLiteral("%1: %2").arg(path, file.errorString());
    return {};
}

QString exportTimeline(TimelineRenderer& renderer, const TimelineScene& scene, const TimelineStyle& style,
                       QSize size, double scale, const QString& path) {
    TimelineScene s = scene;
    s.viewport.setWidth(size.width() - style.labelWidth);
    return exportPicture(size, scale, path, QStringLiteral("AttnScope timeline"),
                         [&](QPainter& p, QSize at) { renderer.paint(p, at, s, style); });
}

QString exportTracePicture(const Trace& trace, const TimelineIndex& index, const TraceAnalysis* analysis,
                           const TimelinePicture& picture) {
    const QRegularExpression filter(picture.trackFilter);
    if (!filter.isValid())
        return QStringLiteral("--tracks: %1 is not a valid regular expression: %2")
            .arg(picture.trackFilter, filter.errorString());
    TimelineStyle style = TimelineStyle::from(QGuiApplication::palette(), QGuiApplication::font());
    TimelineLayout layout;
    layout.build(trace, style.metrics, {}, filter);
    if (layout.rows().empty())
        return picture.trackFilter.isEmpty()
                   ? QStringLiteral("the trace has no events to draw")
                   : QStringLiteral("no track label matches --tracks %1").arg(picture.trackFilter);
    QSize size = picture.size;
    if (size.isEmpty())
        size = QSize(size.width() > 0 ? size.width() : 1600,
                     std::min(fullTimelineHeight(layout, style), picture.maxHeight));
    style.labelWidth = fittedLabelWidth(layout, trace, style, style.labelWidth, size.width() * 3 / 10);
    TimelineRenderer renderer(trace);
    renderer.setColorMode(ColorMode::Role, analysis);
    TimelineScene scene;
    scene.trace = &trace;
    scene.index = &index;
    scene.layout = &layout;
    scene.analysis = analysis; // the kernels a call was not expected to run, outlined as in the window
    scene.viewport = TimeViewport(trace.startNs(), trace.endNs(), size.width() - style.labelWidth);
    if (picture.range) scene.viewport.fit(picture.range->from, picture.range->to, 0);
    scene.selected = picture.selected;
    scene.range = picture.marked;
    if (picture.selected) // its lane a third down the picture when it would be below it
        if (const std::optional<int> y = TimelineRenderer::laneY(
                scene, style, picture.selected->track,
                trace.track(picture.selected->track).events.depth[picture.selected->index]);
            y && *y > size.height() * 2 / 3)
            scene.scrollY = *y - size.height() / 3;
    return exportTimeline(renderer, scene, style, size, picture.scale, picture.path);
}

} // namespace attnscope::ui
