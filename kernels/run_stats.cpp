// SPDX-License-Identifier: MIT
// What a run measured, per implementation, and how `attnscope run` prints it.
#include "kernels/run_session.h"
#include "kernels/torch_backend.h"

#include "core/model/categories.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace attnscope::kernels {

namespace {

constexpr KernelRole kRoles[] = {KernelRole::QkGemm, KernelRole::Softmax, KernelRole::PvGemm,
                                 KernelRole::FusedAttention};

} // namespace

double ImplStats::meanMs() const {
    if (callMs.empty()) return 0;
    double sum = 0;
    for (double ms : callMs)
        sum += ms;
    return sum / double(callMs.size());
}

std::vector<ImplStats> runStats(const RunConfig& config, const std::vector<RunEvent>& events) {
    std::vector<ImplStats> out;
    for (const RunCase& rc : runCases(config)) {
        const std::string& impl = rc.label;
        ImplStats st;
        st.impl = impl;
        std::set<int> calls; // PyTorch runs: kernels a measured call
        std::uint64_t kernels = 0;
        st.flopsPerCall = kernelCost(rc.shape, KernelRole::FusedAttention).flops;
        // A kernel's time in a call: from its first worker's start to its last worker's end.
        std::map<std::pair<int, std::string>, std::pair<std::int64_t, std::int64_t>> kernelSpan;
        for (const RunEvent& e : events) {
            if (e.impl != impl || e.warmup) continue;
            if (e.category == category::kUserAnnotation) {
                if (e.call < 0) continue; // an NVTX range
                st.callMs.push_back(double(e.measuredNs > 0 ? e.measuredNs : e.endNs - e.startNs) / 1e6);
            } else if (!e.role.empty()) {
                calls.insert(e.call);
                ++kernels;
                auto [it, added] = kernelSpan.try_emplace({e.call, e.role}, e.startNs, e.endNs);
                if (!added) {
                    it->second.first = std::min(it->second.first, e.startNs);
                    it->second.second = std::max(it->second.second, e.endNs);
                }
            }
        }
        for (KernelRole role : kRoles) {
            double total = 0;
            int calls = 0;
            for (const auto& [key, span] : kernelSpan)
                if (key.second == roleName(role)) {
                    total += double(span.second - span.first) / 1e6;
                    ++calls;
                }
            if (calls) st.roleMs.emplace_back(std::string(roleName(role)), total / calls);
        }
        if (config.backend == Backend::Torch && !calls.empty())
            st.kernelsPerCall = double(kernels) / double(calls.size());
        out.push_back(std::move(st));
    }
    return out;
}

std::string runHeadline(const RunConfig& config, unsigned workers) {
    // The PyTorch backend's Python in full: which one ran is what a user asks first.
    const std::string where =
        config.backend == Backend::Torch ? "PyTorch backend (" + torchPython(config) + ")"
        : config.backend == Backend::Cuda
            ? std::string("CUDA backend, device 0") + (config.collect ? "" : ", CUPTI off")
            : "CPU backend, " + std::to_string(workers) + " workers";
    std::string shapes = describeShape(config.shape);
    if (!config.variants.empty()) {
        shapes.clear();
        for (const RunVariant& v : config.variants)
            shapes += (shapes.empty() ? "" : "; ") + v.name + " " + describeShape(v.shape);
    }
    char line[160];
    std::snprintf(line, sizeof line, " · warm-up %d, %d measured calls\n", config.warmup, config.iters);
    return "attnscope run: " + where + " · " + shapes + line;
}

std::string formatRunStats(const std::vector<ImplStats>& stats) {
    std::string out;
    char cell[128];
    auto add = [&](const char* format, auto... values) {
        std::snprintf(cell, sizeof cell, format, values...);
        out += cell;
    };
    int width = 10;
    for (const ImplStats& st : stats)
        width = std::max(width, int(st.impl.size()));
    const bool counted =
        std::any_of(stats.begin(), stats.end(), [](const ImplStats& st) { return st.kernelsPerCall > 0; });
    add("\n%-*s %12s %22s %10s", width, "impl", "mean/call", "spread (min - max)", "GFLOP/s");
    if (counted) add(" %14s", "kernels/call");
    for (KernelRole role : kRoles)
        add(" %16s", std::string(roleName(role)).c_str());
    out += '\n';
    for (const ImplStats& st : stats) {
        if (st.callMs.empty()) {
            add("%-*s %12s\n", width, st.impl.c_str(),
                st.unavailable ? "not available here (see above)" : "no measured call");
            continue;
        }
        const auto [lo, hi] = std::minmax_element(st.callMs.begin(), st.callMs.end());
        add("%-*s %9.3f ms %9.3f - %7.3f ms %10.2f", width, st.impl.c_str(), st.meanMs(), *lo, *hi,
            st.gflops());
        if (counted) add(" %14.1f", st.kernelsPerCall);
        for (KernelRole role : kRoles) {
            auto it = std::find_if(st.roleMs.begin(), st.roleMs.end(),
                                   [&](const auto& p) { return p.first == roleName(role); });
            if (it == st.roleMs.end())
                add(" %16s", "-");
            else
                add(" %13.3f ms", it->second);
        }
        out += '\n';
    }
    if (stats.size() == 2 && stats[0].meanMs() > 0 && stats[1].meanMs() > 0)
        add("\n%s / %s time: %.2fx\n", stats[1].impl.c_str(), stats[0].impl.c_str(),
            stats[1].meanMs() / stats[0].meanMs());
    return out;
}

} // namespace attnscope::kernels
