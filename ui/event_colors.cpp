// SPDX-License-Identifier: MIT
#include "event_colors.h"

#include "core/analysis/kernel_role.h"

#include <algorithm>
#include <string_view>

namespace attnscope::ui {

namespace {

std::uint32_t fnv1a(std::string_view s) {
    std::uint32_t h = 2166136261u;
    for (unsigned char c : s)
        h = (h ^ c) * 16777619u;
    return h;
}

} // namespace

EventColors::EventColors(const Trace& trace)
    : m_trace(&trace), m_size(trace.strings().size()), m_cache(new std::atomic<QRgb>[m_size]) {
    for (std::size_t i = 0; i < m_size; ++i)
        m_cache[i].store(0, std::memory_order_relaxed);
}

void EventColors::setMode(ColorMode mode, const TraceAnalysis* analysis) {
    m_mode = mode;
    for (std::size_t i = 0; i < m_size; ++i)
        m_cache[i].store(0, std::memory_order_relaxed);
    m_nameRole.assign(analysis ? m_size : 0, 0);
    m_nameVerdict.assign(analysis ? m_size : 0, 0);
    m_analysis = analysis;
    m_severalRoles.clear();
    m_trackOf.clear();
    if (!analysis) return;
    const NameClasses& classes = analysis->tables.classes;
    for (std::size_t name = 0; name < m_size && name < classes.role.size(); ++name) {
        if (classes.role[name]) m_nameRole[name] = std::uint8_t(1 + int(*classes.role[name]));
        m_nameVerdict[name] = std::uint8_t(classes.verdict[name]);
    }
    if (mode == ColorMode::Role && std::find(classes.severalRoles.begin(), classes.severalRoles.end(),
                                             true) != classes.severalRoles.end()) {
        m_severalRoles = classes.severalRoles;
        for (std::uint32_t t = 0; t < m_trace->tracks().size(); ++t)
            m_trackOf[&m_trace->tracks()[t].events] = TrackId(t);
    }
}

KernelRole EventColors::kernelRole(const EventColumns& c, std::uint32_t i) const {
    const auto track = m_trackOf.find(&c);
    const KernelAnalysis* k = track == m_trackOf.end() ? nullptr : m_analysis->find({track->second, i});
    return k ? k->role : KernelRole(m_nameRole[c.name[i].value] - 1);
}

// Verdicts have a palette of their own: hues at least 30° from every role's hue (roles sit at 0, 26,
// 50, 132, 200–228, 280 and 340), so that a colour in verdict mode never reads as a role.
QColor EventColors::verdictColor(Verdict verdict) {
    switch (verdict) {
    case Verdict::MemoryBound:
        return QColor::fromHsv(310, 190, 205); // magenta
    case Verdict::ComputeBound:
        return QColor::fromHsv(168, 220, 165); // teal
    case Verdict::LatencyBound:
        return QColor::fromHsv(85, 190, 190); // olive green
    case Verdict::BeyondRoof:
        return QColor::fromHsv(0, 0, 120); // dark grey: a cost that cannot be, no verdict to colour
    default:
        return QColor::fromHsv(0, 0, 200); // light grey: no verdict
    }
}

QColor EventColors::roleColor(KernelRole role) {
    switch (role) {
    case KernelRole::QkGemm:
        return QColor::fromHsv(200, 200, 235);
    case KernelRole::PvGemm:
        return QColor::fromHsv(228, 150, 235);
    case KernelRole::Gemm:
        return QColor::fromHsv(212, 170, 205);
    case KernelRole::Reduction:
        return QColor::fromHsv(340, 120, 215);
    case KernelRole::Communication:
        return QColor::fromHsv(0, 175, 215);
    case KernelRole::Softmax:
        return QColor::fromHsv(26, 190, 245);
    case KernelRole::FusedAttention:
        return QColor::fromHsv(132, 165, 190);
    case KernelRole::Elementwise:
        return QColor::fromHsv(280, 120, 210);
    case KernelRole::Copy:
        return QColor::fromHsv(50, 170, 220);
    default:
        return QColor::fromHsv(0, 0, 165);
    }
}

QRgb EventColors::compute(const EventColumns& c, std::uint32_t i) {
    const std::string_view name = m_trace->str(c.name[i]);
    const std::string_view category = m_trace->str(c.category[i]);
    const std::uint32_t h = fnv1a(name);
    QColor color;
    const std::uint32_t id = c.name[i].value;
    // GPU work, and the aten:: ops that stand for kernels in a trace without any, take role colours.
    const bool kernelLike = isGpuCategory(category) || (c.flags[i] & kOpKernel);
    if (kernelLike && m_mode != ColorMode::Name) {
        // A role's (or verdict's) hue, a shade per name: kernels of one kind read as one family.
        const bool analyzed = id < m_nameRole.size() && m_nameRole[id];
        if (m_mode == ColorMode::Verdict) {
            // One flat colour per verdict, a slight shade per name so neighbours stay apart.
            const QColor base = verdictColor(analyzed ? Verdict(m_nameVerdict[id]) : Verdict::Unknown);
            color = base.lighter(100 + int((h >> 8) % 13));
        } else {
            const bool own = id < m_severalRoles.size() && m_severalRoles[id];
            const QColor base = own        ? roleColor(kernelRole(c, i))
                                : analyzed ? roleColor(KernelRole(m_nameRole[id] - 1))
                                           : roleColor(classifyKernel(name, category));
            const int hue = base.hsvHue() < 0 ? 0 : (base.hsvHue() + int(h % 17) - 8 + 360) % 360;
            const int value = std::clamp(base.value() + int((h >> 8) % 41) - 20, 0, 255);
            color = QColor::fromHsv(hue, base.hsvSaturation(), value);
        }
    } else if (kernelLike) {
        color = QColor::fromHsv(int(h % 360), 150 + int((h >> 9) % 60), 190 + int((h >> 16) % 50));
    } else {
        color = QColor::fromHsv(int(h % 360), 45 + int((h >> 9) % 30), 200 + int((h >> 16) % 40));
    }
    const QRgb rgb = color.rgb() | 0xff000000u;
    if (c.name[i].value < m_size && !(id < m_severalRoles.size() && m_severalRoles[id]))
        m_cache[c.name[i].value].store(rgb, std::memory_order_relaxed);
    return rgb;
}

} // namespace attnscope::ui
