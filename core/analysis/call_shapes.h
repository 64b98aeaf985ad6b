// SPDX-License-Identifier: MIT
#pragma once

// What one attention call of an implementation is expected to run ("guess first, then look"): its
// kernels by role, each role with how many of it a call holds (naive: a QKᵀ GEMM, one to three
// softmax kernels — scale, mask, softmax — and a PV GEMM; a fused backend: one kernel). Kept as data
// in resources/call_shapes.txt, which a user's own file extends (their record_function names too).
// A call's kernels are checked against the first shape whose key names its range or implementation;
// what it ran beyond the shape is unexpected, what it lacks is missing.
#include "core/model/role.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope {

struct CallShape {
    // An implementation as the summary names it ("naive", "SDPA math"), "@fused" (any call made of a
    // fused attention kernel), or the name of the range around the call (record_function("attn_fwd")).
    std::string key;
    // Kernels of a role (whose name, or the name of an op that asked for it, holds the pattern, in any
    // case, when there is one), from min to max of them (kAnyNumber: no limit). Slots with a pattern are
    // filled first.
    struct Slot {
        KernelRole role = KernelRole::Other;
        std::string pattern; // lower case; "" for any name
        std::uint32_t min = 1, max = 1;
    };
    static constexpr std::uint32_t kAnyNumber = UINT32_MAX;
    std::vector<Slot> slots;
    std::string text; // as written: "qk_gemm softmax{1,3} pv_gemm"
};

class CallShapes {
public:
    // Parses shapes, one a line: "KEY = SLOT SLOT …", a slot being a role, optionally a pattern its
    // kernels' names hold in parentheses, and a count — role (one), role? (at most one), role* (any),
    // role+ (at least one), role{N}, role{A,B}: "elementwise(mul){0,2}".
    // Lines it cannot read are reported in problems ("line 3: unknown role 'gem'").
    static CallShapes parse(std::string_view text, std::vector<std::string>* problems = nullptr);
    // The user's shapes (ATTNSCOPE_CALL_SHAPES, else ~/.config/attnscope/call_shapes.txt), then the
    // built-in ones; read once.
    static const CallShapes& standard();
    // Where the user's shapes go, as a person reads it (~/.config/attnscope/call_shapes.txt, or where
    // ATTNSCOPE_CALL_SHAPES or XDG_CONFIG_HOME puts it).
    static std::string userFile();

    // The first shape whose key is the call's range name, its implementation, or "@fused" for a call
    // made of a fused kernel; else the implementation's first word (a preset's "naive prefill"); null
    // when none is.
    const CallShape* find(std::string_view scopeName, std::string_view impl, bool fused) const;
    std::size_t size() const { return m_shapes.size(); }

private:
    std::vector<CallShape> m_shapes;
};

// A call's kernels held to a shape, in the call's order by start: each goes to the first slot of its
// role that fits its name and has room (slots with a pattern first). The kernels no slot has room for,
// and the slots left under their minimum (with how many are missing).
struct ShapeKernel {
    KernelRole role;
    std::string_view name;
    // The ops around it (around its launch), innermost first, within the call: a slot's pattern may
    // name one of them (dropout's kernels on a CPU are aten::mul and aten::div_ inside aten::dropout).
    std::vector<std::string_view> ops = {};
};
struct ShapeCheck {
    std::vector<std::size_t> unexpected;                       // positions in the kernels
    std::vector<std::pair<KernelRole, std::uint32_t>> missing; // a slot's role, how many
    std::uint32_t expected = 0; // the kernels the shape expected of this call: matched + missing
};
ShapeCheck checkShape(const CallShape& shape, const std::vector<ShapeKernel>& kernels);

} // namespace attnscope
