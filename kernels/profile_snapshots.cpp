// SPDX-License-Identifier: MIT
// A profile's steps so far as a growing document (program_profile.h).
#include "kernels/program_profile.h"

#include "core/document/growing_document.h"

namespace attnscope::kernels {

ProfileSnapshots::ProfileSnapshots(std::string name) : m_name(std::move(name)) {}
ProfileSnapshots::~ProfileSnapshots() = default;

std::shared_ptr<const Document> ProfileSnapshots::add(std::vector<ProfiledStep> steps, bool complete) {
    if (!m_growing) m_growing = std::make_unique<GrowingDocument>(m_name);
    for (ProfiledStep& s : steps) {
        const SteadySteps::Take take = m_steady.take(s);
        if (take == SteadySteps::Take::Restart) m_growing->restart(s.process);
        if (take != SteadySteps::Take::LeaveOut) m_growing->append(s.process, s.rank, std::move(s.trace));
    }
    m_leftOut = m_steady.leftOut();
    return m_growing->snapshot(complete);
}

} // namespace attnscope::kernels
