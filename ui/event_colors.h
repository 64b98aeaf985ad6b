// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/analysis.h"

#include <QColor>

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace attnscope::ui {

// Whether text on this fill reads in white (a dark fill) rather than black.
inline bool isDark(QRgb c) {
    return 299 * qRed(c) + 587 * qGreen(c) + 114 * qBlue(c) < 150000;
}

// What kernels are coloured by: their role (a hue per role, shades per name), their roofline
// verdict (the verdict that holds most of a name's time), or their name alone.
enum class ColorMode : std::uint8_t { Role, Verdict, Name };

// Colour per event name, stable across runs and files: kernels by the mode's key, CPU events in
// muted shades by name.
class EventColors {
public:
    explicit EventColors(const Trace& trace);
    // The analysis (when there is one) gives names their attention-call roles and verdicts.
    void setMode(ColorMode mode, const TraceAnalysis* analysis);
    ColorMode mode() const { return m_mode; }
    // Safe to call from several threads at once (the renderer scans lanes on two).
    QRgb color(const EventColumns& c, std::uint32_t i) {
        const std::uint32_t id = c.name[i].value;
        if (id < m_size && !(id < m_severalRoles.size() && m_severalRoles[id])) {
            const QRgb cached = m_cache[id].load(std::memory_order_relaxed);
            if (cached) return cached;
        }
        return compute(c, i);
    }
    static QColor roleColor(KernelRole role);
    static QColor verdictColor(Verdict verdict);

private:
    QRgb compute(const EventColumns& c, std::uint32_t i);
    const Trace* m_trace;
    ColorMode m_mode = ColorMode::Role;
    std::vector<std::uint8_t> m_nameRole;    // by name id: 1 + KernelRole, 0 = not analyzed
    std::vector<std::uint8_t> m_nameVerdict; // by name id: Verdict
    // Names whose kernels play several roles take each kernel's own (a naive call's two aten::bmm):
    // found through the analysis, by the track of the columns drawn.
    std::vector<bool> m_severalRoles;
    const TraceAnalysis* m_analysis = nullptr;
    std::unordered_map<const EventColumns*, TrackId> m_trackOf;
    KernelRole kernelRole(const EventColumns& c, std::uint32_t i) const;
    std::size_t m_size;
    std::unique_ptr<std::atomic<QRgb>[]> m_cache; // by name id; 0 = not yet computed
};

} // namespace attnscope::ui
