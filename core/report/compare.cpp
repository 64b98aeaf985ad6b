// SPDX-License-Identifier: MIT
#include "core/report/compare.h"

#include "core/analysis/analysis.h"
#include "core/analysis/call_inputs.h"
#include "core/analysis/call_shapes.h"
#include "core/report/format.h"

#include <algorithm>
#include <map>

namespace attnscope {

namespace {

// The whole trace's kernels as one row, for a trace with no attention call.
CompareRow wholeTrace(const KernelTables& tables) {
    CompareRow row;
    row.roles = tables.allRoleTimes();
    for (std::size_t r = 0; r < row.roles.count.size(); ++r)
        row.calls.kernels += row.roles.count[r];
    row.calls.kernelNs = row.roles.total();
    row.calls.verdictNs = tables.verdictNs;
    return row;
}

} // namespace

std::array<double, std::size_t(KernelRole::Count)> CompareRow::roleNsPerCall() const {
    std::array<double, std::size_t(KernelRole::Count)> parts{};
    const TimeNs summed = roles.total();
    if (!calls.calls || summed <= 0) return parts;
    const double perCall = double(calls.kernelNs) / double(calls.calls);
    for (std::size_t r = 0; r < parts.size(); ++r)
        parts[r] = perCall * double(roles.ns[r]) / double(summed);
    return parts;
}

ComparedTrace compareEntry(std::string path, const Trace& trace, const TraceAnalysis& analysis,
                           const std::vector<Finding>& findings) {
    ComparedTrace out;
    out.path = std::move(path);
    out.spanNs = trace.endNs() - trace.startNs();
    out.warnings = trace.info().warnings;
    const KernelTables& tables = analysis.tables;
    std::map<std::string, std::size_t> rowOf;
    for (const ImplCalls& impl : tables.implCalls) {
        CompareRow row;
        row.impl = impl.impl;
        row.calls = impl;
        for (const ImplRoleTimes& g : tables.roleTimes)
            if (g.impl == impl.impl) row.roles = g.times;
        rowOf[impl.impl] = out.rows.size();
        out.rows.push_back(std::move(row));
    }
    if (out.rows.empty()) out.rows.push_back(wholeTrace(tables));
    // What each implementation's calls compute: its first call's inputs, and how many shapes they had.
    std::map<std::string, std::vector<CallInputs>> shapesOf;
    for (const AttentionCall& call : analysis.calls) {
        const auto row = rowOf.find(call.impl);
        if (row == rowOf.end()) continue;
        const auto in = callInputs(trace, analysis, call);
        if (!in) continue;
        std::vector<CallInputs>& seen = shapesOf[call.impl];
        if (std::none_of(seen.begin(), seen.end(), [&](const CallInputs& s) { return s.sameShape(*in); }))
            seen.push_back(*in);
        CompareRow& r = out.rows[row->second];
        if (!r.inputs) r.inputs = in;
        r.shapes = seen.size();
    }
    // Each finding goes to the rows whose calls hold one of its places (a kernel of the call, or its host
    // range); the others to the first row.
    std::map<EventRef, std::size_t> scopeRow;
    for (const AttentionCall& call : analysis.calls)
        if (call.scope) scopeRow.emplace(*call.scope, rowOf[call.impl]);
    for (const Finding& f : findings) {
        std::vector<std::size_t> rows;
        for (const Evidence& e : f.evidence) {
            if (const KernelAnalysis* k = analysis.find(e.event); k && k->call >= 0)
                rows.push_back(rowOf[analysis.calls[std::size_t(k->call)].impl]);
            else if (const auto it = scopeRow.find(e.event); it != scopeRow.end())
                rows.push_back(it->second);
        }
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        if (rows.empty()) rows.push_back(0);
        for (std::size_t r : rows)
            out.rows[r].findings.push_back({f.id, f.severity, f.title, f.timeNs, f.measured});
    }
    out.device = recordedOn(trace);
    return out;
}

std::string recordedOn(const Trace& trace) {
    std::vector<std::string> gpus;
    bool anyGpu = false;
    for (const ProcessInfo& p : trace.processes()) {
        if (!p.isGpu) continue;
        anyGpu = true;
        if (p.deviceModel.empty()) return {}; // a GPU whose model the file does not say
        if (std::find(gpus.begin(), gpus.end(), p.deviceModel) == gpus.end()) gpus.push_back(p.deviceModel);
    }
    if (anyGpu) {
        std::string out;
        for (const std::string& g : gpus)
            out += (out.empty() ? "" : ", ") + g;
        return out;
    }
    return trace.info().hostName.empty() ? std::string() : "the CPU of " + trace.info().hostName;
}

bool learnSaving(CompareRow& row, const std::string& alternative, TimeNs perCall, std::uint64_t calls,
                 const std::string& where) {
    // One shape measured: a row of calls of several shapes keeps its estimate (as the trace's own finding).
    if (row.shapes != 1) return false;
    perCall = std::max<TimeNs>(0, perCall);
    const TimeNs took = row.calls.kernelNsPerCall();
    // No more than the calls took where they were recorded: a machine slower or busier than that one
    // measures a saving larger than the recorded call.
    const TimeNs stake = measuredStake(perCall, took, calls);
    const bool capped = stake < perCall * TimeNs(calls);
    bool learned = false;
    for (CompareRow::Brief& f : row.findings)
        if (f.id == kHandWrittenAttention) {
            f.timeNs = stake;
            f.title += " — measured " + where + ": " + alternative + " saves " + formatDuration(perCall) +
                       " a call" +
                       (capped ? " (more than the call took where it was recorded, " + formatDuration(took) +
                                     ": at most all of it)"
                               : "");
            f.measured = learned = true;
        }
    return learned;
}

void learnFromComparison(Comparison& c) {
    const std::vector<std::string> labels = traceLabels(c);
    for (ComparedTrace& t : c.traces) {
        if (t.device.empty()) continue;
        for (CompareRow& row : t.rows) {
            if (!row.inputs || row.shapes != 1 || !row.calls.calls ||
                std::none_of(row.findings.begin(), row.findings.end(), [](const CompareRow::Brief& f) {
                    return f.id == kHandWrittenAttention && !f.measured;
                }))
                continue;
            const CompareRow* fastest = nullptr;
            std::size_t in = 0;
            for (std::size_t o = 0; o < c.traces.size(); ++o) {
                const ComparedTrace& other = c.traces[o];
                if (&other == &t || other.device != t.device) continue;
                for (const CompareRow& alt : other.rows)
                    if (alt.roles.ns[std::size_t(KernelRole::FusedAttention)] > 0 && alt.calls.calls &&
                        alt.inputs && alt.shapes == 1 && alt.inputs->sameShape(*row.inputs) &&
                        alt.inputs->precision == row.inputs->precision &&
                        (!fastest || alt.calls.kernelNsPerCall() < fastest->calls.kernelNsPerCall()))
                        fastest = &alt, in = o;
            }
            if (fastest)
                learnSaving(row, fastest->impl,
                            row.calls.kernelNsPerCall() - fastest->calls.kernelNsPerCall(), row.calls.calls,
                            "in " + labels[in] + " (" + t.device + ")");
        }
    }
}

const CompareRow* Comparison::baselineRow() const {
    if (baseline >= traces.size() || traces[baseline].rows.empty()) return nullptr;
    const auto& rows = traces[baseline].rows;
    auto row = rows.begin();
    if (!baselineImpl.empty())
        row = std::find_if(rows.begin(), rows.end(),
                           [&](const CompareRow& r) { return r.impl == baselineImpl; });
    return row != rows.end() && row->calls.calls ? &*row : nullptr;
}

std::optional<double> Comparison::kernelRatio(const CompareRow& row) const {
    const CompareRow* base = baselineRow();
    if (!base || !base->calls.calls || !row.calls.calls || !base->calls.kernelNsPerCall())
        return std::nullopt;
    return double(row.calls.kernelNsPerCall()) / double(base->calls.kernelNsPerCall());
}

std::string Comparison::shapeWarning() const {
    const std::vector<std::string> labels = traceLabels(*this);
    const CompareRow* first = nullptr;
    bool differ = false;
    std::string said;
    for (std::size_t t = 0; t < traces.size(); ++t)
        for (const CompareRow& row : traces[t].rows) {
            if (!row.inputs || row.impl.empty()) continue;
            if (!first) first = &row;
            // One computation in another precision (a what-if's flash_bf16, a model run in bf16) is the same
            // work: comparing its time per call is the point. Its precision is in the row's inputs.
            CallInputs asFirst = *row.inputs;
            asFirst.precision = first->inputs->precision;
            differ = differ || !asFirst.sameShape(*first->inputs) || row.shapes != first->shapes;
            said += (said.empty() ? "" : "; ") + labels[t] + " · " + row.impl + ": " + row.inputs->text() +
                    (row.shapes > 1 ? " (and " + formatCount(row.shapes - 1, "more shape", "more shapes") + ")" : "");
        }
    if (!differ) return {};
    return "the calls compared are not the same work, so their times per call do not compare as "
           "implementations (" +
           said + ")";
}

std::optional<double> Comparison::hostRatio(const CompareRow& row) const {
    const CompareRow* base = baselineRow();
    const auto b = base ? base->calls.hostNsPerCall() : std::nullopt;
    const auto r = row.calls.hostNsPerCall();
    if (!b || !r || !*b) return std::nullopt;
    return double(*r) / double(*b);
}

} // namespace attnscope
