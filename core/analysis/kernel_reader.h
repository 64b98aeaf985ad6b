// SPDX-License-Identifier: MIT
#pragma once

// Inside analyzeTrace: the reader of a range of a trace's kernels (each kernel's role, its exact cost
// for AttnScope's own runs, and the modelled op that launched it). Not for other users.
#include "core/analysis/analysis.h"
#include "core/model/args_codec.h"
#include "core/model/kineto_args.h"
#include "core/model/run_args.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace attnscope::detail {

// Which args shapes (args_codec.h) hold any of some keys: events of one kind share a shape, so the
// walk over an event's args is skipped when its shape has none of the keys wanted (a PyTorch kernel's
// fifteen args hold none of the keys of AttnScope's own runs).
class ArgShapes {
public:
    ArgShapes(const Trace& trace, std::initializer_list<std::string_view> keys)
        : m_trace(trace), m_keys(keys) {}
    bool has(EventRef e) const {
        const StringId shape = encodedArgsShape(m_trace.encodedArgs(e));
        if (!shape.valid() || shape.value >= m_trace.strings().size()) return false;
        auto [it, added] = m_known.try_emplace(shape.value, false);
        if (added) {
            std::string_view keys = m_trace.strings().get(shape);
            while (!keys.empty() && !it->second) {
                const std::size_t end = std::min(keys.find('\0'), keys.size());
                it->second = std::find(m_keys.begin(), m_keys.end(), keys.substr(0, end)) != m_keys.end();
                keys.remove_prefix(std::min(keys.size(), end + 1));
            }
        }
        return it->second;
    }

private:
    const Trace& m_trace;
    std::vector<std::string_view> m_keys;
    mutable std::unordered_map<std::uint32_t, bool> m_known;
};

inline std::string jsonUnquote(std::string_view v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return std::string(v.substr(1, v.size() - 2));
    return std::string(v);
}

// A modelled op and its cost (owned by the reader that read it): the op that launched a kernel, or
// the aten:: op standing for one.
struct ModelledOp {
    EventRef op;
    const OpCost* cost = nullptr; // nullptr: none
};

// A contiguous range of the trace's kernels read on one thread, with caches of its own: each
// kernel's role, its exact cost (own runs), its call (own runs) and the modelled op that launched it,
// written in place into the analysis' arrays (the ranges of the threads do not overlap).
class KernelReader {
public:
    std::vector<std::tuple<std::uint32_t, std::string, long>> ownCalls; // (kernel, impl, call) of own runs

    KernelReader(const Trace& trace, const RoleRules& rules)
        : trace(trace), rules(rules), modelledOp(trace.strings().size(), -1) {}

    void read(const std::vector<EventRef>& refs, std::size_t from, std::size_t to, KernelAnalysis* kernels,
              ModelledOp* ops) {
        for (std::size_t r = from; r < to; ++r)
            readOne(refs[r], std::uint32_t(r), kernels[r], ops[r]);
    }

private:
    void readOne(EventRef ref, std::uint32_t index, KernelAnalysis& k, ModelledOp& op) {
        const Track& track = trace.track(ref.track);
        const StringId name = track.events.name[ref.index], category = track.events.category[ref.index];
        k.event = ref;
        std::string role, impl, call, flops, bytes, dtype;
        if (ownArgs.has(ref))
            trace.forEachArg(ref, [&](std::string_view key, std::string_view value) {
                if (key == runargs::kRole) role = jsonUnquote(value);
                if (key == runargs::kImpl) impl = jsonUnquote(value);
                if (key == runargs::kCall) call = value;
                if (key == runargs::kFlops) flops = value;
                if (key == runargs::kBytes) bytes = value;
                if (key == runargs::kDtype) dtype = jsonUnquote(value);
            });
        if (const auto own = roleNamed(role)) {
            k.role = *own;
        } else {
            auto [it, added] = byName.try_emplace(std::uint64_t(name.value) << 32 | category.value);
            if (added) it->second = rules.classify(trace.str(name), trace.str(category));
            k.role = it->second;
        }
        if (!flops.empty() && !bytes.empty()) {
            k.cost = CostSource::Exact;
            k.flops = std::atof(flops.c_str());
            k.bytes = std::atof(bytes.c_str());
            const Precision named = precisionNamed(dtype);
            k.precision = named == Precision::Unknown ? Precision::F32 : named;
        }
        if (!impl.empty() && !call.empty()) ownCalls.emplace_back(index, impl, std::atol(call.c_str()));
        if (k.cost == CostSource::Unknown && (track.events.flags[ref.index] & kOpKernel))
            op = modelledCost(ref); // an aten:: op standing for a kernel: its own inputs' cost
        else if (k.cost == CostSource::Unknown && !isCpuTrack(trace, ref.track))
            op = launchingOp(ref);
    }

    // The op that launched a kernel, with its cost: kernel → runtime call (correlation) → the
    // innermost enclosing cpu_op the cost model knows; costs cached per op (many kernels share one).
    ModelledOp launchingOp(EventRef kernel) {
        const auto launch = trace.launchOf(kernel);
        if (!launch) return {};
        ModelledOp found;
        forEachEnclosingEvent(trace, *launch, [&](EventRef op) {
            found = modelledCost(op);
            return found.cost != nullptr;
        });
        return found;
    }

    // A cpu_op's cost from its input shapes when the cost model knows the op; cached for the last few
    // ops (an op's kernels are read one after another), and per signature (name and the three args it
    // reads): a step repeats the same ops with the same shapes, so each signature's args are parsed
    // once (the analysis' kernel pass on a 400 MB trace spent a third of its time parsing the shapes
    // of ops it had seen before).
    ModelledOp modelledCost(EventRef op) {
        const Track& ot = trace.track(op.track);
        if (trace.categoryKind(ot.events.category[op.index]) != CategoryKind::CpuOp) return {};
        const StringId name = ot.events.name[op.index];
        std::int8_t& modelled = modelledOp[name.value];
        if (modelled < 0) modelled = opCostModels(trace.str(name));
        if (!modelled) return {};
        ModelledOp* it = std::find_if(std::begin(recent), std::end(recent),
                                      [&](const ModelledOp& r) { return r.op == op; });
        if (it == std::end(recent)) {
            it = &recent[nextRecent++ % std::size(recent)];
            it->op = op;
            std::string_view dims, types, concrete;
            trace.forEachArg(op, [&](std::string_view key, std::string_view value) {
                if (key == kineto::kInputDims)
                    dims = value;
                else if (key == kineto::kInputType)
                    types = value;
                else if (key == kineto::kConcreteInputs)
                    concrete = value;
            });
            signature.assign(reinterpret_cast<const char*>(&name.value), sizeof name.value);
            for (std::string_view part : {dims, types, concrete}) {
                const auto size = std::uint32_t(part.size());
                signature.append(reinterpret_cast<const char*>(&size), sizeof size).append(part);
            }
            auto known = bySignature.find(signature);
            if (known == bySignature.end())
                known = bySignature.emplace(signature, opCost(trace.str(name), dims, types, concrete)).first;
            it->cost = known->second ? &*known->second : nullptr;
        }
        if (!it->cost) return {};
        return {op, it->cost};
    }

    const Trace& trace;
    const RoleRules& rules;
    std::unordered_map<std::uint64_t, KernelRole> byName; // (name, category) → role
    std::array<ModelledOp, 8> recent{};                   // the last ops read, each with its cost (or none)
    std::size_t nextRecent = 0;
    std::unordered_map<std::string, std::optional<OpCost>> bySignature; // nodes stay where they are
    std::string signature;
    std::vector<std::int8_t> modelledOp; // per op name: -1 not known yet
    const ArgShapes ownArgs{
        trace,
        {runargs::kRole, runargs::kImpl, runargs::kCall, runargs::kFlops, runargs::kBytes, runargs::kDtype}};
};

} // namespace attnscope::detail
