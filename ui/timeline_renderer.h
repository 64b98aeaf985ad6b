// SPDX-License-Identifier: MIT
#pragma once

#include "event_colors.h"
#include "time_viewport.h"
#include "timeline_layout.h"
#include "timeline_tracks.h"

#include "core/analysis/analysis.h"
#include "core/analysis/kernel_role.h"
#include "core/model/timeline_index.h"

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QRect>
#include <QString>

#include <unordered_map>

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

class QImage;
class QPainter;

namespace attnscope::ui {

struct TimeRange {
    TimeNs from = 0;
    TimeNs to = 0;
    TimeNs length() const { return to - from; }
    bool operator==(const TimeRange&) const = default;
};

// Colours, font and sizes of a timeline, from the widget's palette and font (light or dark theme,
// high-DPI text sizes follow the font).
struct TimelineStyle {
    QColor background, text, dimText, grid, header, labelColumn, selection, highlight, range, counter;
    QFont font;
    int labelWidth = 240;
    int rulerHeight = 24;
    TimelineLayout::Metrics metrics;

    static TimelineStyle from(const QPalette& palette, const QFont& font);
};

// An attention call folded into one block on a lane: where its kernels are, what it is.
struct FoldedCall {
    TrackId track;
    std::uint16_t depth = 0;
    TimeNs start = 0, end = 0;
    QString label; // "naive · 1.234 ms"
    QRgb color = 0;
};

// The blocks that fold each attention call of an analysis: one per lane its kernels are on, coloured
// as the mode colours kernels (by role, or by the call's dominant verdict).
std::vector<FoldedCall> foldedCalls(const Trace& trace, const TraceAnalysis& analysis, ColorMode mode);

// What a frame shows.
struct TimelineScene {
    const Trace* trace = nullptr;
    const TimelineIndex* index = nullptr;
    const TimelineLayout* layout = nullptr;
    TimeViewport viewport; // its width is the events area's, in logical pixels
    int scrollY = 0;
    std::optional<EventRef> selected;
    const std::vector<std::uint8_t>* highlight = nullptr; // names to stand out (by name id), others fade
    const std::vector<EventRef>* matches = nullptr;       // find results, ticked on the ruler
    const std::vector<FoldedCall>* folds = nullptr;       // attention calls drawn as one block each
    // Its attention calls: the kernels a call was not expected to run (call_shapes.h) are outlined.
    const TraceAnalysis* analysis = nullptr;
    std::optional<TimeRange> range;
    const std::vector<std::pair<EventRef, EventRef>>* links = nullptr; // arrows to draw, from → to
    // People's notes placed in the trace: a flag of the note's colour on the ruler at its start.
    struct NoteFlag {
        TimeNs ns = 0;
        QColor colour;
    };
    const std::vector<NoteFlag>* notes = nullptr;
    bool legend = true;
};

// Paints timelines: the widget, the exports and the frame benchmark all go through here.
// Sub-pixel runs of events fold into one block per pixel, so a frame costs what is on screen.
class TimelineRenderer {
public:
    explicit TimelineRenderer(const Trace& trace) : m_colors(trace) {}

    // The tracks, the ruler and (scene.legend) the legend in a strip of its own at the bottom.
    void paint(QPainter& painter, QSize size, const TimelineScene& scene, const TimelineStyle& style);
    // The height of the legend's strip in a picture `width` wide (0 when the colours key nothing).
    int legendHeight(const TimelineStyle& style, int width) const;

    // The y of a lane's top on screen, for a shown track.
    static std::optional<int> laneY(const TimelineScene& scene, const TimelineStyle& style, TrackId track,
                                    std::uint16_t depth);
    // The label drawn on an event's box.
    const QString& label(const Trace& trace, StringId name);
    EventColors& colors() { return m_colors; }
    // The mode, and the analysis the colours and outlines come from (the renderer keeps what it reads of it
    // until the next call).
    void setColorMode(ColorMode mode, const TraceAnalysis* analysis) {
        m_colors.setMode(mode, analysis);
        m_unexpectedOf = nullptr;
    }

private:
    struct LabelBox {
        QRect rect;
        StringId name;
        QRgb fill;
    };
    // What scanning lanes produces: boxes by colour (neighbours of one colour merged) and the boxes
    // wide enough for a label. One per scanning thread, kept between frames for their capacity.
    struct Boxes {
        std::unordered_map<QRgb, std::vector<QRect>> byColor;
        std::vector<LabelBox> labels;
        QRgb lastColor = 0;
        std::vector<QRect>* lastBatch = nullptr;
        void add(QRgb color, const QRect& r);
    };
    void scanLane(const TimelineScene& scene, const TimelineStyle& style, const LaneRecord& job, Boxes& out);
    void flushBoxes(QPainter& p, QImage* direct, const QRect& clip);
    void paintRuler(QPainter& p, QSize size, const TimelineScene& scene, const TimelineStyle& style);
    void paintLinks(QPainter& p, const TimelineScene& scene, const TimelineStyle& style);
    void paintTracks(QPainter& p, QSize size, const TimelineScene& scene, const TimelineStyle& style);
    std::vector<std::pair<QString, QColor>> legendEntries() const;
    QString legendTitle() const;
    std::vector<QPoint> legendPlaces(const TimelineStyle& style, int width, int& rows) const;
    void paintLegend(QPainter& p, const QRect& strip, const TimelineStyle& style);
    void paintFolds(QPainter& p, QSize size, const TimelineScene& scene, const TimelineStyle& style);

    EventColors m_colors;
    // Short labels by name id, made when first drawn: only names wide enough for a label get one,
    // where a trace's strings can number millions.
    std::unordered_map<std::uint32_t, QString> m_names;
    std::array<Boxes, 2> m_boxes;
    FrameRecords m_frame;    // this frame's records, kept to reuse their memory
    int m_minLabelWidth = 0; // boxes narrower get no label
    // The kernels the analysis' calls were not expected to run, by event: read once from its calls
    // (hundreds of thousands in a long profile), not at every frame.
    const std::vector<EventRef>& unexpectedKernels(const TraceAnalysis& analysis);
    const TraceAnalysis* m_unexpectedOf = nullptr;
    std::vector<EventRef> m_unexpected;
};

// Tick spacing for a ruler: 1, 2 or 5 × 10^k ns, at least minPixels apart.
TimeNs rulerStep(double nsPerPixel, double minPixels);

} // namespace attnscope::ui
