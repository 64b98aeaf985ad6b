// SPDX-License-Identifier: MIT
#include "record_assembler.h"

namespace attnscope::kernels {

void RecordAssembler::externalCorrelation(std::uint32_t correlation, std::uint64_t externalId) {
    m_external[correlation] = externalId;
}

void RecordAssembler::add(GpuRecord g, std::uint32_t thread) {
    if (g.kind != GpuRecord::Kind::Marker) {
        m_batch.emplace_back(std::move(g), thread);
        return;
    }
    // NVTX push/pop ranges come as a start and an end record with one id.
    if (g.markerStart) {
        m_openRanges[g.markerId] = {std::move(g), thread};
        return;
    }
    auto it = m_openRanges.find(g.markerId);
    if (!g.markerEnd || it == m_openRanges.end()) return;
    GpuRecord range = std::move(it->second.first);
    range.endNs = g.endNs;
    const std::uint32_t startThread = it->second.second;
    m_openRanges.erase(it);
    m_batch.emplace_back(std::move(range), startThread);
}

std::vector<AssembledRecord> RecordAssembler::take(bool final) {
    std::vector<AssembledRecord> out;
    std::vector<std::pair<GpuRecord, int>> stillWaiting;
    auto pass = [&](GpuRecord&& g, std::uint32_t thread, int waited) {
        const LaunchTag* tag = nullptr;
        if (g.kind == GpuRecord::Kind::Kernel) {
            auto it = m_external.find(g.correlation);
            if (it == m_external.end() && !final && waited < kTagPatience) {
                stillWaiting.emplace_back(std::move(g), waited + 1);
                return;
            }
            if (it != m_external.end() && m_tagOf) tag = m_tagOf(it->second);
        }
        if (tag) g.args.insert(g.args.end(), tag->args.begin(), tag->args.end());
        out.push_back({std::move(g), thread, tag});
    };
    for (auto& [g, waited] : m_waiting)
        pass(std::move(g), 0, waited);
    for (auto& [g, thread] : m_batch)
        pass(std::move(g), thread, 0);
    m_waiting.swap(stillWaiting);
    m_batch.clear();
    if (final) {
        m_openRanges.clear();
        m_external.clear();
    }
    return out;
}

} // namespace attnscope::kernels
