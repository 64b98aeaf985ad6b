// SPDX-License-Identifier: MIT
// What the rules read of the ops on a thread: an op's siblings, the work it did, shapes as text
// (findings_rules.h).
#include "core/report/findings_rules.h"

namespace attnscope::findings {

// The op before e at e's depth on its thread (its previous sibling), if any.
std::optional<EventRef> previousSibling(const Context& c, EventRef e) {
    const Track& t = c.trace.track(e.track);
    const std::uint16_t depth = t.events.depth[e.index];
    for (std::uint32_t j = e.index; j-- > 0;) {
        if (t.events.depth[j] < depth) return std::nullopt; // its parent: no sibling before it
        if (t.events.depth[j] == depth) return EventRef{e.track, j};
    }
    return std::nullopt;
}

// The work an op did: the GPU work it launched, or in a trace without GPU kernels the ops standing for
// kernels inside it, or the op itself where it stands for one.
std::vector<EventRef> workOf(const Context& c, EventRef op) {
    std::vector<EventRef> work = c.gpuWorkUnder(op);
    if (work.empty() && (c.trace.track(op.track).events.flags[op.index] & kOpKernel)) work = {op};
    return work;
}

// The op after e at e's depth on its thread (its next sibling), if any.
std::optional<EventRef> nextSibling(const Context& c, EventRef e) {
    const Track& t = c.trace.track(e.track);
    const std::uint16_t depth = t.events.depth[e.index];
    for (std::uint32_t j = e.index + 1; j < t.size(); ++j) {
        if (t.events.depth[j] < depth) return std::nullopt; // its parent ended: no sibling after it
        if (t.events.depth[j] == depth) return EventRef{e.track, j};
    }
    return std::nullopt;
}

std::string dimsText(const std::vector<std::int64_t>& dims) {
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

} // namespace attnscope::findings
