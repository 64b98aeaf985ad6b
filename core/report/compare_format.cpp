// SPDX-License-Identifier: MIT
// A comparison as a table and in text, Markdown, CSV or JSON (compare.h).
#include "core/report/compare.h"

#include "core/analysis/call_inputs.h"
#include "core/analysis/call_shapes.h"
#include "core/report/format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace attnscope {

namespace {

using json = nlohmann::json;

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// "6", or "5.5" when the calls differ.
std::string perCall(double v) {
    return v == double(std::uint64_t(v)) ? std::to_string(std::uint64_t(v)) : fixed(v, 1);
}

std::string ratioText(std::optional<double> r) {
    return r ? formatRatio(*r) : "-";
}
} // namespace

std::vector<std::string> traceLabels(const Comparison& comparison) {
    auto tail = [](const std::string& path, int parts) {
        std::size_t at = path.size();
        for (int i = 0; i < parts && at != std::string::npos && at > 0; ++i)
            at = path.rfind('/', at - 1);
        return at == std::string::npos || at >= path.size() ? path : path.substr(at + 1);
    };
    std::vector<std::string> names, labels;
    for (const ComparedTrace& t : comparison.traces)
        names.push_back(tail(t.path, 1));
    // A file name two traces share is told apart by its folder.
    for (std::size_t i = 0; i < names.size(); ++i)
        labels.push_back(std::count(names.begin(), names.end(), names[i]) > 1
                             ? tail(comparison.traces[i].path, 2)
                             : names[i]);
    return labels;
}

std::string roleMix(const CompareRow& row, std::size_t top) {
    std::vector<std::pair<TimeNs, std::string>> byTime;
    for (std::size_t r = 0; r < row.roles.ns.size(); ++r)
        if (row.roles.ns[r] > 0) byTime.push_back({row.roles.ns[r], std::string(roleLabel(KernelRole(r)))});
    std::stable_sort(byTime.begin(), byTime.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    // Past `top` roles, the rest are one part ("2 more"), so that the parts are the whole.
    if (byTime.size() > top + 1) {
        TimeNs rest = 0;
        for (std::size_t i = top; i < byTime.size(); ++i)
            rest += byTime[i].first;
        const std::size_t more = byTime.size() - top;
        byTime.resize(top);
        byTime.push_back({rest, std::to_string(more) + " more"});
    }
    std::vector<double> parts;
    for (const auto& part : byTime)
        parts.push_back(double(part.first));
    const std::vector<std::string> shares = wholeShares(parts);
    std::string out;
    for (std::size_t i = 0; i < byTime.size(); ++i)
        out += (out.empty() ? "" : ", ") + byTime[i].second + " " + shares[i];
    return out;
}

namespace {

struct Cells {
    std::string trace, impl, calls, kernels, expected, mismatched, kernelTime, kernelRatio, hostTime,
        hostRatio, backward, bytes, roles, verdicts;
};

Cells cellsOf(const Comparison& c, const std::string& label, const CompareRow& row) {
    Cells x;
    x.trace = label;
    const ImplCalls& s = row.calls;
    if (row.impl.empty()) {
        x.impl = "(no attention call)";
        x.calls = "0";
        x.kernels = x.expected = x.mismatched = x.kernelTime = x.kernelRatio = x.hostTime = x.hostRatio =
            x.backward = x.bytes = "-";
    } else {
        x.impl = row.impl;
        x.calls = std::to_string(s.calls);
        x.kernels = perCall(s.kernelsPerCall());
        const auto expected = s.expectedPerCall();
        x.expected = expected ? perCall(*expected) : "-";
        x.mismatched = expected ? std::to_string(s.mismatchedCalls) : "-";
        x.kernelTime = formatDuration(s.kernelNsPerCall());
        x.kernelRatio = ratioText(c.kernelRatio(row));
        const auto host = s.hostNsPerCall();
        x.hostTime = host ? formatDuration(*host) : "-";
        x.hostRatio = ratioText(c.hostRatio(row));
        const auto backward = s.backwardNsPerCall();
        x.backward = backward ? formatDuration(*backward) : "-";
        const auto bytes = s.bytesPerCall();
        x.bytes = bytes ? formatRate(*bytes, "B") : "-";
    }
    x.roles = roleMix(row);
    x.verdicts = verdictMix(s);
    return x;
}

std::string findingLine(const CompareRow::Brief& f) {
    return std::string(severityName(f.severity)) + " " + formatDuration(f.timeNs) + " " + f.title + " [" +
           f.id + "]";
}

std::string markdownCell(std::string s) {
    std::string out;
    for (char ch : s) {
        if (ch == '|') out += '\\';
        out += ch == '\n' ? ' ' : ch;
    }
    return out;
}

// Each row's note (callsNote), as "trace: note".
std::vector<std::string> rowNotes(const Comparison& c) {
    const std::vector<std::string> labels = traceLabels(c);
    std::vector<std::string> notes;
    for (std::size_t t = 0; t < c.traces.size(); ++t)
        for (const CompareRow& row : c.traces[t].rows)
            if (std::string note = callsNote(row.calls); !note.empty())
                notes.push_back(labels[t] + ": " + std::move(note));
    return notes;
}

json rowJson(const Comparison& c, const CompareRow& row) {
    const ImplCalls& s = row.calls;
    json j{
        {"implementation", row.impl}, {"calls", s.calls}, {"kernels", s.kernels}, {"kernel_ns", s.kernelNs}};
    auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
    if (!row.impl.empty()) {
        j["kernels_per_call"] = s.kernelsPerCall();
        j["expected_kernels_per_call"] = opt(s.expectedPerCall());
        j["mismatched_calls"] = s.mismatchedCalls;
        j["unexpected_kernels"] = s.unexpectedKernels;
        j["unexpected_ns"] = s.unexpectedNs;
        j["kernel_ns_per_call"] = s.kernelNsPerCall();
        j["host_ns_per_call"] = opt(s.hostNsPerCall());
        const std::string note = callsNote(s);
        j["note"] = note.empty() ? json(nullptr) : json(note);
        j["backward_calls"] = s.backwardCalls;
        j["backward_ns_per_call"] = opt(s.backwardNsPerCall());
        j["bytes_per_call"] = opt(s.bytesPerCall());
        j["kernel_ratio"] = opt(c.kernelRatio(row));
        j["host_ratio"] = opt(c.hostRatio(row));
    }
    json roles = json::object();
    for (std::size_t r = 0; r < row.roles.ns.size(); ++r)
        if (row.roles.count[r]) roles[std::string(roleName(KernelRole(r)))] = row.roles.ns[r];
    j["role_ns"] = roles;
    json verdicts = json::object();
    for (std::size_t v = 0; v < kVerdictCount; ++v)
        if (s.verdictNs[v]) verdicts[std::string(verdictName(Verdict(v)))] = s.verdictNs[v]; // as summary's
    j["kernel_ns_by_verdict"] = verdicts;
    json findings = json::array();
    for (const CompareRow::Brief& f : row.findings)
        findings.push_back({{"id", f.id},
                            {"severity", severityName(f.severity)},
                            {"title", f.title},
                            {"time_ns", f.timeNs}});
    j["findings"] = findings;
    if (row.inputs) {
        const CallInputs& in = *row.inputs;
        json inputs{
            {"batch", in.batch},
            {"heads", in.heads},
            {"kv_heads", in.kvHeads},
            {"query_len", in.queryLen},
            {"key_len", in.keyLen},
            {"head_dim", in.headDim},
            {"dtype", in.precision == Precision::Unknown ? json(nullptr) : json(precisionName(in.precision))},
            {"from", in.from},
            {"shapes", row.shapes}};
        if (in.optionsKnown) {
            inputs["causal"] = in.causal;
            inputs["mask"] = in.mask.empty() ? json(nullptr) : json(in.mask);
            inputs["dropout"] = in.dropout;
        }
        j["inputs"] = inputs;
    }
    return j;
}

} // namespace

CompareTable compareTable(const Comparison& c) {
    CompareTable table;
    // clang-format off
    table.header = {
        "trace", "implementation", "calls", "kernels/call", "expected", "calls off", "kernel/call", "vs base",
        "host/call", "vs base", "bytes/call", "kernel time by role", "by verdict"};
    // clang-format on
    const bool backward = std::any_of(c.traces.begin(), c.traces.end(), [](const ComparedTrace& tr) {
        return std::any_of(tr.rows.begin(), tr.rows.end(),
                           [](const CompareRow& row) { return row.calls.backwardCalls > 0; });
    });
    if (backward) {
        table.header.insert(table.header.begin() + 10, "backward/call");
        ++table.lastNumber;
    }
    const std::vector<std::string> labels = traceLabels(c);
    for (std::size_t t = 0; t < c.traces.size(); ++t) {
        const ComparedTrace& tr = c.traces[t];
        if (!tr.error.empty()) {
            table.lines.push_back({t, nullptr, {labels[t], "could not be read: " + tr.error}});
            continue;
        }
        for (const CompareRow& row : tr.rows) {
            const Cells x = cellsOf(c, labels[t], row);
            std::vector<std::string> cells{x.trace,      x.impl,       x.calls,       x.kernels,  x.expected,
                                           x.mismatched, x.kernelTime, x.kernelRatio, x.hostTime, x.hostRatio,
                                           x.bytes,      x.roles,      x.verdicts};
            if (backward) cells.insert(cells.begin() + 10, x.backward);
            table.lines.push_back({t, &row, std::move(cells)});
        }
    }
    return table;
}

std::string formatComparison(const Comparison& c, CompareFormat format, std::size_t topFindings) {
    const std::vector<std::string> labels = traceLabels(c);
    std::ostringstream out;
    if (format == CompareFormat::Json) {
        json traces = json::array();
        for (std::size_t t = 0; t < c.traces.size(); ++t) {
            const ComparedTrace& tr = c.traces[t];
            json j{{"path", tr.path}, {"label", labels[t]}};
            if (!tr.error.empty()) {
                j["error"] = tr.error;
            } else {
                j["span_ns"] = tr.spanNs;
                j["warnings"] = tr.warnings;
                json rows = json::array();
                for (const CompareRow& row : tr.rows)
                    rows.push_back(rowJson(c, row));
                j["rows"] = rows;
            }
            traces.push_back(j);
        }
        // The baseline as --baseline counts (from 1), null when it has no row to be measured against.
        const std::string shapes = c.shapeWarning();
        json all{{"baseline", c.baselineRow() ? json(c.baseline + 1) : json(nullptr)},
                 {"traces", traces},
                 {"shape_warning", shapes.empty() ? json(nullptr) : json(shapes)}};
        out << all.dump(2) << '\n';
        return out.str();
    }
    if (format == CompareFormat::Csv) {
        // Per call, then the calls' totals: kernel time per role and per verdict.
        out << "trace,implementation,calls,kernels_per_call,expected_kernels_per_call,mismatched_calls,"
               "unexpected_kernels,unexpected_ns,kernel_ns_per_call,kernel_ratio,host_ns_per_call,host_ratio,"
               "backward_ns_per_call,bytes_per_call";
        for (std::size_t r = 0; r < std::size_t(KernelRole::Count); ++r)
            out << ",total_ns_role_" << roleName(KernelRole(r));
        for (std::size_t v = 0; v < kVerdictCount; ++v)
            out << ",total_ns_verdict_" << shortVerdictName(Verdict(v));
        out << ",findings,error\n";
        auto num = [](const auto& v) { return v ? fixed(double(*v), 3) : std::string(); };
        for (std::size_t t = 0; t < c.traces.size(); ++t) {
            const ComparedTrace& tr = c.traces[t];
            if (!tr.error.empty()) {
                out << csvField(tr.path) << ",,,,,,,,,,,,,";
                for (std::size_t i = 0; i < std::size_t(KernelRole::Count) + kVerdictCount; ++i)
                    out << ',';
                out << ",," << csvField(tr.error) << '\n'; // no findings, then the reason
                continue;
            }
            for (const CompareRow& row : tr.rows) {
                const ImplCalls& s = row.calls;
                const bool calls = !row.impl.empty();
                out << csvField(tr.path) << ',' << csvField(row.impl) << ',' << s.calls << ','
                    << (calls ? fixed(s.kernelsPerCall(), 3) : "") << ',' << num(s.expectedPerCall()) << ','
                    << s.mismatchedCalls << ',' << s.unexpectedKernels << ',' << s.unexpectedNs << ','
                    << (calls ? std::to_string(s.kernelNsPerCall()) : "") << ',' << num(c.kernelRatio(row))
                    << ',' << (s.hostNsPerCall() ? std::to_string(*s.hostNsPerCall()) : "") << ','
                    << num(c.hostRatio(row)) << ','
                    << (s.backwardNsPerCall() ? std::to_string(*s.backwardNsPerCall()) : "") << ','
                    << num(s.bytesPerCall());
                for (std::size_t r = 0; r < std::size_t(KernelRole::Count); ++r)
                    out << ',' << row.roles.ns[r];
                for (std::size_t v = 0; v < kVerdictCount; ++v)
                    out << ',' << s.verdictNs[v];
                std::string ids;
                for (const CompareRow::Brief& f : row.findings)
                    ids += (ids.empty() ? "" : ";") + f.id;
                out << ',' << csvField(ids) << ",\n";
            }
        }
        return out.str();
    }
    // Text and Markdown: the post's table, a row per implementation of each trace.
    const CompareTable table = compareTable(c);
    const std::vector<std::string>& head = table.header;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::vector<const CompareRow::Brief*>> revealed;
    for (const CompareTable::Line& l : table.lines) {
        rows.push_back(l.cells);
        std::vector<const CompareRow::Brief*> top;
        for (std::size_t i = 0; l.row && i < l.row->findings.size() && i < topFindings; ++i)
            top.push_back(&l.row->findings[i]);
        revealed.push_back(top);
    }
    // What "vs base" is over: the baseline trace's first row, or nothing when it has none.
    const std::string base =
        c.baselineRow()
            ? "kernel and host time per call over " + labels[c.baseline] +
                  (c.baselineRow()->impl.empty() ? std::string() : " · " + c.baselineRow()->impl) + "'s"
            : std::string("none (the baseline trace has no attention call)");
    if (format == CompareFormat::Markdown) {
        out << '|';
        for (const std::string& h : head)
            out << ' ' << h << " |";
        out << " what the trace revealed |\n|";
        for (std::size_t i = 0; i <= head.size(); ++i)
            out << (table.numeric(i) ? " ---: |" : " --- |");
        out << '\n';
        for (std::size_t r = 0; r < rows.size(); ++r) {
            out << '|';
            for (std::size_t i = 0; i < head.size(); ++i)
                out << ' ' << markdownCell(i < rows[r].size() ? rows[r][i] : std::string()) << " |";
            std::string cell;
            for (const CompareRow::Brief* f : revealed[r])
                cell += (cell.empty() ? "" : "<br>") + markdownCell(f->title) + " (" +
                        formatDuration(f->timeNs) + ")";
            out << ' ' << (cell.empty() ? std::string("-") : cell) << " |\n";
        }
        out << "\n\"expected\": kernels per call of the expected call (built in, or in "
            << markdownCell(CallShapes::userFile())
            << "); \"calls off\": "
               "calls that ran otherwise; \"vs base\": "
            << markdownCell(base) << ".\n";
        for (std::size_t t = 0; t < c.traces.size(); ++t)
            for (const std::string& w : c.traces[t].warnings)
                out << "\n**" << markdownCell(labels[t]) << "**: warning: " << markdownCell(w) << '\n';
        if (const std::string shapes = c.shapeWarning(); !shapes.empty())
            out << "\n**warning**: " << markdownCell(shapes) << '\n';
        for (const std::string& note : rowNotes(c))
            out << '\n' << markdownCell(note) << '\n';
        return out.str();
    }
    // Text: columns padded to their widest cell (counting characters, not bytes).
    auto width = [](const std::string& s) {
        std::size_t n = 0;
        for (unsigned char ch : s)
            n += (ch & 0xC0) != 0x80;
        return n;
    };
    std::vector<std::size_t> w(head.size());
    for (std::size_t i = 0; i < head.size(); ++i) {
        w[i] = width(head[i]);
        for (const auto& r : rows)
            if (i < r.size() && r.size() > 2) w[i] = std::max(w[i], width(r[i]));
    }
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const bool right = table.numeric(i);
            const std::string pad(
                i < w.size() && cells.size() > 2 ? w[i] - std::min(w[i], width(cells[i])) : 0, ' ');
            s += (i ? "  " : "") + (right ? pad + cells[i] : cells[i] + (i + 1 < cells.size() ? pad : ""));
        }
        out << s << '\n';
    };
    line(head);
    for (const auto& r : rows)
        line(r);
    out << "\nexpected: kernels per call of the expected call (built in, or in " << CallShapes::userFile()
        << "); "
           "calls off: calls that ran otherwise; vs base: "
        << base << ".\n";
    for (std::size_t t = 0; t < c.traces.size(); ++t)
        for (const std::string& w : c.traces[t].warnings)
            out << labels[t] << ": warning: " << w << '\n';
    if (const std::string shapes = c.shapeWarning(); !shapes.empty()) out << "warning: " << shapes << '\n';
    for (const std::string& note : rowNotes(c))
        out << note << '\n';
    bool any = false;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (revealed[r].empty()) continue;
        if (!any) out << "\nwhat each trace revealed (most time at stake first):\n";
        any = true;
        out << "  " << rows[r][0] << (rows[r].size() > 1 ? " · " + rows[r][1] : std::string()) << '\n';
        for (const CompareRow::Brief* f : revealed[r])
            out << "    " << findingLine(*f) << '\n';
    }
    return out.str();
}

} // namespace attnscope
