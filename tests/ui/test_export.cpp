// SPDX-License-Identifier: MIT
// Pictures and tables for reports: PNG (1× and 2×), SVG and PDF that open and are not blank, the
// headless picture of a whole trace with --range / --size / --tracks, and the kernel table's CSV.
#include "support/test_support.h"
#include "ui/kernel_table_model.h"
#include "ui/main_window.h"
#include "ui/timeline_export.h"
#include "ui/timeline_renderer.h"
#include "ui/timeline_view.h"
#include "ui/ui_test_support.h"

#include "core/analysis/analysis.h"
#include "core/io/trace_loader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QSet>
#include <QXmlStreamReader>

#include <gtest/gtest.h>

#include <optional>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

int distinctColours(const QImage& image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

struct SvgFacts {
    bool valid = false;
    int shapes = 0; // rect, path, polygon, polyline elements
    QString text;   // all text content
};

SvgFacts readSvg(const QString& path) {
    QFile file(path);
    SvgFacts facts;
    if (!file.open(QIODevice::ReadOnly)) return facts;
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == QLatin1String("rect") || name == QLatin1String("path") ||
                name == QLatin1String("polygon") || name == QLatin1String("polyline"))
                ++facts.shapes;
        } else if (xml.isCharacters()) {
            facts.text += xml.text();
        }
    }
    facts.valid = !xml.hasError();
    return facts;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

struct Loaded {
    std::shared_ptr<const Trace> trace;
    std::unique_ptr<TimelineIndex> index;
};

Loaded load(const std::string& path) {
    Loaded l;
    l.trace = loadTraceFile(path);
    l.index = std::make_unique<TimelineIndex>(*l.trace);
    return l;
}

} // namespace

TEST(Export, TracePictureAsPngSvgAndPdf) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const Loaded l = load(path);
    TempDir dir;
    TimelinePicture picture;

    picture.path = QString::fromStdString(dir.path("t.png"));
    ASSERT_EQ(exportTracePicture(*l.trace, *l.index, nullptr, picture), "");
    const QImage png(picture.path);
    ASSERT_FALSE(png.isNull());
    EXPECT_EQ(png.width(), 1600);
    EXPECT_GT(png.height(), 400);
    EXPECT_GT(distinctColours(png), 50);

    picture.path = QString::fromStdString(dir.path("t.svg"));
    ASSERT_EQ(exportTracePicture(*l.trace, *l.index, nullptr, picture), "");
    const SvgFacts svg = readSvg(picture.path);
    EXPECT_TRUE(svg.valid);
    EXPECT_GT(svg.shapes, 100);
    EXPECT_TRUE(svg.text.contains("GPU 0 · stream 7")) << "track names are in the picture";
    EXPECT_TRUE(svg.text.contains("fused attention")) << "so is the legend";
    EXPECT_TRUE(svg.text.contains("+10 ms")) << "and the ruler";

    picture.path = QString::fromStdString(dir.path("t.pdf"));
    ASSERT_EQ(exportTracePicture(*l.trace, *l.index, nullptr, picture), "");
    const QByteArray pdf = readAll(picture.path);
    EXPECT_TRUE(pdf.startsWith("%PDF-"));
    EXPECT_TRUE(pdf.trimmed().endsWith("%%EOF"));
    EXPECT_EQ(pdf.count("/Type /Page\n") + pdf.count("/Type /Page\r") + pdf.count("/Type /Page "), 1);
    EXPECT_GT(pdf.size(), 20000);
}

TEST(Export, TwiceThePixelsAtScaleTwo) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "triton_single_kernel.json.gz");
    const Loaded l = load(path);
    TempDir dir;
    TimelinePicture picture;
    picture.size = QSize(800, 300);
    picture.scale = 2;
    picture.path = QString::fromStdString(dir.path("t.png"));
    ASSERT_EQ(exportTracePicture(*l.trace, *l.index, nullptr, picture), "");
    const QImage png(picture.path);
    EXPECT_EQ(png.size(), QSize(1600, 600));
    EXPECT_GT(distinctColours(png), 10);
}

TEST(Export, RangeAndTrackFilterChooseWhatIsDrawn) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "h100_sdpa_flash_qwen.json.gz");
    const Loaded l = load(path);
    TempDir dir;
    TimelinePicture picture;
    picture.path = QString::fromStdString(dir.path("gpu.svg"));
    picture.trackFilter = "stream";
    ASSERT_EQ(exportTracePicture(*l.trace, *l.index, nullptr, picture), "");
    SvgFacts svg = readSvg(picture.path);
    EXPECT_TRUE(svg.text.contains("GPU 0 · stream 7"));
    EXPECT_FALSE(svg.text.contains("python3 · thread")) << "CPU threads are filtered out";

    // One millisecond from 20 ms: the ruler counts in tenths of a millisecond around +20 ms.
    picture.trackFilter.clear();
    picture.path = QString::fromStdString(dir.path("range.svg"));
    picture.range = TimeRange{l.trace->startNs() + 20'000'000, l.trace->startNs() + 21'000'000};
    ASSERT_EQ(exportTracePicture(*l.trace, *l.index, nullptr, picture), "");
    svg = readSvg(picture.path);
    EXPECT_TRUE(svg.text.contains("+20.4 ms")) << svg.text.left(400).toStdString();
    EXPECT_FALSE(svg.text.contains("+10 ms"));
}

TEST(Export, BadRequestsSayWhy) {
    ATTNSCOPE_REQUIRE_FIXTURE(path, "triton_single_kernel.json.gz");
    const Loaded l = load(path);
    TempDir dir;
    TimelinePicture picture;
    picture.path = QString::fromStdString(dir.path("t.bmp"));
    EXPECT_TRUE(
        exportTracePicture(*l.trace, *l.index, nullptr, picture).contains("must end in .png, .svg or .pdf"));
    picture.path = QString::fromStdString(dir.path("t.png"));
    picture.trackFilter = "([";
    EXPECT_TRUE(
        exportTracePicture(*l.trace, *l.index, nullptr, picture).contains("not a valid regular expression"));
    picture.trackFilter = "no track is called this";
    EXPECT_TRUE(exportTracePicture(*l.trace, *l.index, nullptr, picture).contains("no track label matches"));
    picture.trackFilter.clear();
    picture.path = QString::fromStdString(dir.path("missing-dir/t.png"));
    EXPECT_FALSE(exportTracePicture(*l.trace, *l.index, nullptr, picture).isEmpty());
    EXPECT_FALSE(QFile::exists(picture.path));
}

TEST(Export, TheWindowExportsWhatItShowsAndTheKernelTable) {
    MainWindow w;
    // The table's roles come with the analysis, on a thread of its own: on a busy machine it ends after the
    // trace is on show.
    ASSERT_TRUE(showEmbeddedSample(w, {1200, 800}) && waitForAnalysis(w));
    TempDir dir;
    const QString png = QString::fromStdString(dir.path("view.png"));
    ASSERT_EQ(w.exportTimeline(png, 2), "");
    const QImage image(png);
    EXPECT_EQ(image.size(), w.timeline()->size() * 2);
    EXPECT_GT(distinctColours(image), 20);
    ASSERT_EQ(w.exportTimeline(QString::fromStdString(dir.path("view.svg"))), "");
    EXPECT_TRUE(readSvg(QString::fromStdString(dir.path("view.svg"))).text.contains("GPU 0 · stream 7"));
    ASSERT_EQ(w.exportTimeline(QString::fromStdString(dir.path("view.pdf"))), "");
    EXPECT_TRUE(readAll(QString::fromStdString(dir.path("view.pdf"))).startsWith("%PDF-"));

    const QString csv = QString::fromStdString(dir.path("kernels.csv"));
    ASSERT_EQ(w.exportKernelTable(csv), "");
    const QStringList lines = QString::fromUtf8(readAll(csv)).split('\n', Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), 5);
    EXPECT_EQ(lines[0], "kernel,role,count,total_ns,mean_ns,min_ns,max_ns,share_percent");
    EXPECT_TRUE(lines[1].contains("SoftMaxForward")) << lines[1].toStdString(); // sorted as the table is
    EXPECT_TRUE(lines[1].contains(",softmax,6,")) << lines[1].toStdString();   // its role, as the table's
    // The same figures `attnscope summary` gives for the sample; share of 8277727 ns of kernel time.
    EXPECT_TRUE(lines[1].endsWith(",6,3141688,523614,506338,543825,37.95")) << lines[1].toStdString();
}

// `export --timeline` colours kernels by the analysis' roles as the window does: a CPU run's QKᵀ GEMM in
// the QKᵀ colour, not in the plain GEMM colour its name alone would give.
TEST(Export, TheTimelinePictureColoursKernelsByTheirAnalysedRoles) {
    const auto trace = loadText(cpuRunTraceText());
    const TimelineIndex index(*trace);
    const TraceAnalysis analysis = analyzeTrace(*trace);
    // The colour the window gives the QKᵀ kernel, and the one its name alone gives.
    EventRef qk{};
    for (std::uint32_t t = 0; t < trace->tracks().size(); ++t)
        for (std::uint32_t i = 0; i < trace->tracks()[t].size(); ++i)
            if (trace->str(trace->tracks()[t].events.name[i]) == "naive_qk_gemm") qk = {TrackId(t), i};
    const EventColumns& columns = trace->track(qk.track).events;
    TimelineRenderer analysed(*trace), byName(*trace);
    analysed.setColorMode(ColorMode::Role, &analysis);
    byName.setColorMode(ColorMode::Role, nullptr);
    const QRgb roleColour = analysed.colors().color(columns, qk.index) & 0xffffff;
    const QRgb nameColour = byName.colors().color(columns, qk.index) & 0xffffff;
    ASSERT_NE(roleColour, nameColour);
    TempDir dir;
    TimelinePicture picture;
    picture.size = QSize(1200, 300);
    auto colours = [&](const TraceAnalysis* a) {
        picture.path = QString::fromStdString(dir.path(a ? "analysed.png" : "names.png"));
        EXPECT_EQ(exportTracePicture(*trace, index, a, picture), "");
        QSet<QRgb> seen;
        const QImage image = QImage(picture.path).convertToFormat(QImage::Format_RGB32);
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                seen.insert(image.pixel(x, y) & 0xffffff);
        return seen;
    };
    const QSet<QRgb> withAnalysis = colours(&analysis), withNames = colours(nullptr);
    EXPECT_TRUE(withAnalysis.contains(roleColour));
    EXPECT_FALSE(withAnalysis.contains(nameColour));
    EXPECT_TRUE(withNames.contains(nameColour));
}

// A kernel its call was not expected to run is outlined, on the timeline and in its picture: here a
// shape with no softmax for naive outlines the run's softmax kernels, and the built-in shape none.
TEST(Export, KernelsACallWasNotExpectedToRunAreOutlined) {
    const auto trace = loadText(cpuRunTraceText());
    const TimelineIndex index(*trace);
    const TraceAnalysis fits = analyzeTrace(*trace);
    const TraceAnalysis off = analyzeTrace(*trace, nullptr, DeviceSpecs::standard(), RoleRules::standard(),
                                           nullptr, 0, CallShapes::parse("naive = qk_gemm pv_gemm\n"));
    std::size_t outlinedKernels = 0;
    for (const KernelAnalysis& k : off.kernels)
        outlinedKernels += k.unexpected;
    ASSERT_EQ(outlinedKernels, 2u); // the softmax: both workers' shares of it
    ASSERT_EQ(off.tables.implCalls.size(), 2u);
    for (const ImplCalls& impl : off.tables.implCalls)
        EXPECT_EQ(impl.unexpectedKernels, impl.impl == "naive" ? 1u : 0u) << impl.impl; // one kernel
    TempDir dir;
    TimelinePicture picture;
    picture.size = QSize(1200, 300);
    // The outline's pixels in an image (inside a rectangle of it, when given).
    auto orange = [](const QImage& picture, std::optional<QRect> within = std::nullopt) {
        const QImage image = picture.convertToFormat(QImage::Format_RGB32);
        const QRect area = within ? within->intersected(image.rect()) : image.rect();
        int n = 0;
        for (int y = area.top(); y <= area.bottom(); ++y)
            for (int x = area.left(); x <= area.right(); ++x)
                n += (image.pixel(x, y) & 0xffffff) == (qRgb(230, 120, 0) & 0xffffff);
        return n;
    };
    auto outlinePixels = [&](const TraceAnalysis& a, const char* name) {
        picture.path = QString::fromStdString(dir.path(name));
        EXPECT_EQ(exportTracePicture(*trace, index, &a, picture), "");
        return orange(QImage(picture.path));
    };
    EXPECT_EQ(outlinePixels(fits, "fits.png"), 0);
    EXPECT_GT(outlinePixels(off, "off.png"), 20);
    // On the timeline, each analysis the view is given outlines its own (the view keeps its outlines
    // between frames, not between analyses).
    TimelineView view;
    view.resize(1200, 300);
    view.setTrace(trace, std::make_shared<const TimelineIndex>(*trace));
    auto onScreen = [&](const TraceAnalysis& a) {
        view.setAnalysis(std::make_shared<const TraceAnalysis>(a));
        return orange(view.grab().toImage());
    };
    EXPECT_GT(onScreen(off), 20);
    EXPECT_EQ(onScreen(fits), 0);
    EXPECT_GT(onScreen(off), 20);
    // Zoomed into the middle of the outlined kernel: it starts before the view and is outlined all the
    // same (the dashed lines above and below it cross the view).
    auto outlinedAround = [&](EventRef e) {
        const auto r = view.eventRect(e);
        return r ? orange(view.grab().toImage(), r->adjusted(-3, -2, 3, 2)) : -1;
    };
    const auto outlined = std::find_if(off.kernels.begin(), off.kernels.end(),
                                       [](const KernelAnalysis& k) { return k.unexpected; });
    const EventRef kernel = outlined->event;
    EXPECT_GT(outlinedAround(kernel), 20);
    const Track& track = trace->track(kernel.track);
    const TimeNs start = track.events.start[kernel.index], end = track.end(kernel.index);
    view.setViewport(start + (end - start) / 3, start + 2 * (end - start) / 3);
    EXPECT_GT(outlinedAround(kernel), 200);
}
