// SPDX-License-Identifier: MIT
// The report in one step: the page core writes around the pictures the GUI draws — HTML with every picture
// inline as SVG and nothing fetched from elsewhere, Markdown with its PNGs in a folder beside it, a PDF —
// of a single trace and of a job; and the HTML as a real browser (Chromium, headless) renders it.
#include "support/test_support.h"
#include "ui/main_window.h"
#include "ui/notes_panel.h"
#include "ui/report_export.h"
#include "ui/ui_test_support.h"

#include "core/document/report.h"
#include "core/report/findings.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QUrl>

#include <gtest/gtest.h>

#include <filesystem>

using namespace attnscope;
using namespace attnscope::ui;
using namespace attnscope::test;

namespace {

std::shared_ptr<const Document> opened(const std::string& path) {
    return openedFile(path, AllParts);
}

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

int count(const QString& text, const QString& what) {
    return int(text.count(what));
}

// The findings shown with a place to draw.
int placesDrawn(const Document& doc) {
    int n = 0;
    for (std::size_t i = 0; i < reportFindings(doc); ++i)
        n += !(*doc.findings)[i].evidence.empty();
    return n;
}

} // namespace

TEST(Report, MarkdownTablesBecomeHtmlTablesWithTheirTextEscaped) {
    const std::string html = markdownTablesAsHtml("## Job: 2 ranks\n\n| a | b<c |\n| --- | ---: |\n"
                                                  "| x & y | one<br>two \\| three |\nafter <script>\n");
    EXPECT_NE(html.find("<h2>Job: 2 ranks</h2>"), std::string::npos) << html;
    EXPECT_NE(html.find("<tr><th>a</th><th>b&lt;c</th></tr>"), std::string::npos) << html;
    EXPECT_NE(html.find("<td>x &amp; y</td><td>one<br>two | three</td>"), std::string::npos) << html;
    EXPECT_EQ(html.find("---"), std::string::npos) << "the row of dashes is no row: " << html;
    EXPECT_NE(html.find("<p>after &lt;script&gt;</p>"), std::string::npos) << html;
    EXPECT_EQ(html.find("<script"), std::string::npos) << html;
}

TEST(Report, HtmlOfAGpuTraceHoldsEveryFindingItsPlaceAndTheChartsAndFetchesNothing) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const auto doc = opened(h100);
    ASSERT_FALSE(doc->findings->empty());
    const QString out = QString::fromStdString(dir.path("report.html"));
    QString missing;
    int progressed = 0;
    ASSERT_EQ(exportReport(
                  {{doc, "h100.json.gz"}}, out, [&](int, int) { return ++progressed, true; }, &missing),
              "");
    EXPECT_EQ(missing, "");
    const QString html = readText(out);
    // The traces and their device, compare's table, each finding with its time at stake and fix.
    EXPECT_TRUE(html.startsWith("<!DOCTYPE html>"));
    EXPECT_GE(count(html, "<table>"), 2) << "the traces' table and compare's";
    EXPECT_TRUE(html.contains("NVIDIA H100")) << "its device";
    EXPECT_TRUE(html.contains("<th>kernel/call</th>")) << "compare's columns";
    for (std::size_t i = 0; i < reportFindings(*doc); ++i) {
        const Finding& f = (*doc->findings)[i];
        EXPECT_TRUE(html.contains(QString::fromStdString(htmlEscape(f.title)))) << f.title;
        EXPECT_TRUE(html.contains(QString::fromStdString("[" + f.id + "]"))) << f.id;
        if (!f.suggestion.empty())
            EXPECT_TRUE(html.contains(QString::fromStdString(htmlEscape(f.suggestion))));
    }
    // A picture per finding's first place and the two charts, each inside the page.
    EXPECT_EQ(count(html, "<figure"), placesDrawn(*doc) + 2);
    // Printed, each finding with its picture and each chart starts a page (but the first of its section,
    // which starts with it): not cut from its heading.
    EXPECT_EQ(count(html, "<h3 style=\"page-break-before: always\">"), int(reportFindings(*doc)) - 1);
    EXPECT_EQ(count(html, "<figure style=\"page-break-before: always\">"), 1) << "the second chart";
    EXPECT_EQ(count(html, "<svg"), placesDrawn(*doc) + 2);
    EXPECT_EQ(count(html, "<?xml"), 0) << "the SVG files' prologue is left out";
    EXPECT_EQ(progressed, int(reportFindings(*doc)) + 2);
    // Nothing from elsewhere: no script, and every reference within the page.
    EXPECT_FALSE(html.contains("<script"));
    const QRegularExpression ref(
        QStringLiteral("(?:src|href)\\s*=\\s*\"([^\"]*)\"|url\\(([^)]*)\\)|@import"));
    for (auto it = ref.globalMatch(html); it.hasNext();) {
        const auto m = it.next();
        const QString target = m.captured(1) + m.captured(2);
        EXPECT_TRUE(target.startsWith('#') || target.startsWith("data:")) << m.captured(0).toStdString();
    }
}

TEST(Report, MarkdownKeepsItsPicturesBesideItAndPdfIsAPdf) {
    ATTNSCOPE_REQUIRE_FIXTURE(rank0, "dlrm_2ranks/rank0.json");
    ATTNSCOPE_REQUIRE_FIXTURE(rank1, "dlrm_2ranks/rank1.json");
    TempDir dir;
    DocumentOptions options;
    options.parts = AllParts;
    const auto job = openDocument(DocumentSource::ranks({rank0, rank1}), options);
    ASSERT_TRUE(job->job);
    const QString md = QString::fromStdString(dir.path("job.md"));
    ASSERT_EQ(exportReport({{job, "dlrm"}}, md), "");
    const QString text = readText(md);
    // The job's ranks and their spread, and the straggler, as `job` says them.
    EXPECT_TRUE(text.contains("## Job: 2 ranks read")) << text.left(2000).toStdString();
    EXPECT_TRUE(text.contains("is the straggler")) << text.left(4000).toStdString();
    // Each picture a PNG in job_files/, there and not blank.
    const QRegularExpression image(QStringLiteral("!\\[[^\\]]*\\]\\(([^)]+)\\)"));
    int images = 0;
    for (auto it = image.globalMatch(text); it.hasNext(); ++images) {
        const QString file = it.next().captured(1);
        EXPECT_TRUE(file.startsWith("job_files/")) << file.toStdString();
        const QImage picture(QFileInfo(md).dir().filePath(file));
        ASSERT_FALSE(picture.isNull()) << file.toStdString();
        QSet<QRgb> colours;
        for (int y = 0; y < picture.height(); y += 4)
            for (int x = 0; x < picture.width(); x += 4)
                colours.insert(picture.pixel(x, y));
        EXPECT_GT(colours.size(), 3) << file.toStdString() << " is blank";
    }
    EXPECT_EQ(images, placesDrawn(*job) + 2);

    const QDir files(QString::fromStdString(dir.path("job_files")));
    const auto before = files.entryList(QDir::Files).size();
    EXPECT_EQ(before, images);
    const QString pdf = QString::fromStdString(dir.path("job.pdf"));
    ASSERT_EQ(exportReport({{job, "dlrm"}}, pdf), "");
    EXPECT_EQ(files.entryList(QDir::Files).size(), before) << "the PDF's pictures are not left beside it";
    const std::string bytes = readAllBytes(pdf.toStdString());
    EXPECT_EQ(bytes.rfind("%PDF", 0), 0u);
    EXPECT_GT(bytes.size(), 20000u) << "its pictures are in it";
    // A page per finding with its picture and per chart, and the tables' (a picture laid out alone on a
    // page after its heading's had made half-empty pages).
    const auto counted = QRegularExpression(QStringLiteral("/Type\\s*/Pages\\b[^>]*/Count\\s+(\\d+)"))
                             .match(QString::fromLatin1(bytes.data(), qsizetype(bytes.size())));
    ASSERT_TRUE(counted.hasMatch()) << "the PDF's page tree";
    const int pages = counted.captured(1).toInt();
    EXPECT_GE(pages, int(reportFindings(*job)) + 2);
    EXPECT_LE(pages, int(reportFindings(*job)) + 2 + 3) << pages << " pages";
    EXPECT_FALSE(text.contains("page-break")) << "Markdown has no print style";

    EXPECT_NE(exportReport({{job, "dlrm"}}, QString::fromStdString(dir.path("job.txt"))), "");
}

// File → Export Report… writes the trace on show, its findings as the window found them, and the notes
// made in the window, each with a picture of its place.
TEST(Report, TheWindowExportsTheTraceOnShow) {
    ATTNSCOPE_REQUIRE_FIXTURE(fixture, "h100_sdpa_flash_qwen.json.gz");
    TempDir dir;
    const std::string h100 = dir.path("h100_sdpa_flash_qwen.json.gz"); // its notes file goes beside it
    std::filesystem::copy_file(fixture, h100);
    MainWindow w;
    ASSERT_TRUE(openAndAnalyse(w, h100));
    const Trace& trace = *w.document()->trace;
    Note note = noteOnRange(trace, trace.startNs() + 20000000, trace.startNs() + 21000000);
    note.text = "from here <the step> stalls";
    w.notes()->add(note);
    const QString out = QString::fromStdString(dir.path("shown.html"));
    ASSERT_EQ(w.exportReportOf(out), "");
    const QString html = readText(out);
    EXPECT_TRUE(html.contains("h100_sdpa_flash_qwen.json.gz"));
    const auto doc = w.document();
    ASSERT_TRUE(doc && doc->findings && !doc->findings->empty());
    EXPECT_TRUE(html.contains(QString::fromStdString(htmlEscape(doc->findings->front().title))));
    EXPECT_TRUE(html.contains(">Notes: h100_sdpa_flash_qwen.json.gz</h2>")) << "its notes' section";
    EXPECT_TRUE(html.contains("from here &lt;the step&gt; stalls"));
    EXPECT_TRUE(html.contains("+20.000 ms, 1.000 ms long")) << "where it is";
    EXPECT_EQ(count(html, "<svg"), placesDrawn(*doc) + 2 + 1) << "and its picture";
}

// The page in a real browser: Chromium from Debian's archive (packaging/install-deps.sh installs it),
// headless, with every request to the network refused; what it rendered holds the tables and every
// figure, and its picture is not blank.
TEST(ReportInBrowser, ChromiumRendersTheTableAndEveryFigureWithNoNetwork) {
    ATTNSCOPE_REQUIRE_FIXTURE(h100, "h100_sdpa_flash_qwen.json.gz");
    const QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
    ASSERT_FALSE(chromium.isEmpty()) << "no chromium on PATH: packaging/install-deps.sh installs it";
    TempDir dir;
    const auto doc = opened(h100);
    const QString out = QString::fromStdString(dir.path("report.html"));
    ASSERT_EQ(exportReport({{doc, "h100.json.gz"}}, out), "");
    const QStringList common = {
        QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
        QStringLiteral("--user-data-dir=") + QString::fromStdString(dir.path("profile")),
        // Any request off the machine fails: the page must need none.
        QStringLiteral("--proxy-server=127.0.0.1:9"),
        QStringLiteral("--host-resolver-rules=MAP * ~NOTFOUND")};
    auto runChromium = [&](QStringList args, QByteArray* stdoutBytes = nullptr) {
        QProcess p;
        p.start(chromium, common + args);
        EXPECT_TRUE(p.waitForFinished(120000)) << "chromium did not finish";
        if (stdoutBytes) *stdoutBytes = p.readAllStandardOutput();
        return p.exitCode();
    };
    QByteArray dom;
    EXPECT_EQ(runChromium({QStringLiteral("--dump-dom"), QUrl::fromLocalFile(out).toString()}, &dom), 0);
    const QString rendered = QString::fromUtf8(dom);
    EXPECT_GE(count(rendered, "<table>"), 2) << rendered.left(500).toStdString();
    EXPECT_EQ(count(rendered, "<svg"), placesDrawn(*doc) + 2);
    const QString shot = QString::fromStdString(dir.path("shot.png"));
    EXPECT_EQ(runChromium({QStringLiteral("--screenshot=") + shot, QStringLiteral("--window-size=1200,2400"),
                           QUrl::fromLocalFile(out).toString()}),
              0);
    const QImage picture(shot);
    ASSERT_FALSE(picture.isNull()) << "no screenshot";
    QSet<QRgb> colours;
    int ink = 0;
    for (int y = 0; y < picture.height(); y += 3)
        for (int x = 0; x < picture.width(); x += 3) {
            colours.insert(picture.pixel(x, y));
            ink += qGray(picture.pixel(x, y)) < 200;
        }
    EXPECT_GT(colours.size(), 20) << "a blank page";
    EXPECT_GT(ink, 2000) << "no text or figure drawn";
}
