// SPDX-License-Identifier: MIT
// The cost of the ops that move memory more than they compute: elementwise ops (in place or not),
// copies and casts, fills, reductions, normalizations and their backward ops, and a convolution's
// backward (its two GEMMs). Bytes are what the op must read and write at least (each input once,
// the output once; a broadcast input once at its own size); FLOPs are counted where the op does
// arithmetic (one per output element for an elementwise op, one per input element for a reduction, a
// fixed count per element for a normalization), none for pure data movement.
#include "core/analysis/op_cost_memory.h"

#include <algorithm>
#include <cmath>

namespace attnscope::detail {

namespace {

enum class Kind : std::uint8_t {
    Pointwise, // out = f(inputs), broadcast
    Compare,   // the same with a bool output
    Copy,      // copy_(dst, src)
    Cast,      // _to_copy(self, dtype, …), clone(self)
    Fill,      // fill_(self, value), zero_(self): written only
    Reduction, // reduces its first input over the dims its second names (all of them when none)
    Norm,      // a normalization forward: reads its input, writes as much
    NormBack,  // its backward: reads the output's gradient and the input, writes the input's gradient
    SoftmaxBack,
    ConvBack, // convolution_backward: the input's and the weight's gradients
};

struct MemoryOp {
    std::string_view name; // without "aten::" and without the in-place "_"
    Kind kind;
    double flopsPerElement;
    KernelRole role;
};

constexpr KernelRole E = KernelRole::Elementwise, R = KernelRole::Reduction, C = KernelRole::Copy;
// clang-format off
constexpr MemoryOp kOps[] = {
    {"add", Kind::Pointwise, 1, E}, {"sub", Kind::Pointwise, 1, E}, {"rsub", Kind::Pointwise, 1, E},
    {"mul", Kind::Pointwise, 1, E}, {"div", Kind::Pointwise, 1, E}, {"neg", Kind::Pointwise, 1, E},
    {"abs", Kind::Pointwise, 1, E}, {"exp", Kind::Pointwise, 1, E}, {"log", Kind::Pointwise, 1, E},
    {"sqrt", Kind::Pointwise, 1, E}, {"rsqrt", Kind::Pointwise, 1, E}, {"reciprocal", Kind::Pointwise, 1, E},
    {"pow", Kind::Pointwise, 1, E}, {"sigmoid", Kind::Pointwise, 1, E}, {"tanh", Kind::Pointwise, 1, E},
    {"relu", Kind::Pointwise, 1, E}, {"gelu", Kind::Pointwise, 1, E}, {"silu", Kind::Pointwise, 1, E},
    {"threshold", Kind::Pointwise, 1, E}, {"threshold_backward", Kind::Pointwise, 1, E},
    {"gelu_backward", Kind::Pointwise, 1, E}, {"silu_backward", Kind::Pointwise, 1, E},
    {"sigmoid_backward", Kind::Pointwise, 1, E}, {"tanh_backward", Kind::Pointwise, 1, E},
    {"clamp", Kind::Pointwise, 1, E}, {"clamp_min", Kind::Pointwise, 1, E}, {"clamp_max", Kind::Pointwise, 1, E},
    {"maximum", Kind::Pointwise, 1, E}, {"minimum", Kind::Pointwise, 1, E},
    {"addcmul", Kind::Pointwise, 2, E}, {"addcdiv", Kind::Pointwise, 2, E}, {"lerp", Kind::Pointwise, 2, E},
    {"where", Kind::Pointwise, 1, E}, {"masked_fill", Kind::Pointwise, 1, E},
    {"native_dropout", Kind::Pointwise, 2, E}, {"tril", Kind::Pointwise, 0, E}, {"triu", Kind::Pointwise, 0, E},
    {"eq", Kind::Compare, 1, E}, {"ne", Kind::Compare, 1, E}, {"lt", Kind::Compare, 1, E},
    {"le", Kind::Compare, 1, E}, {"gt", Kind::Compare, 1, E}, {"ge", Kind::Compare, 1, E},
    {"isneginf", Kind::Compare, 1, E}, {"isposinf", Kind::Compare, 1, E}, {"isinf", Kind::Compare, 1, E},
    {"isnan", Kind::Compare, 1, E}, {"isfinite", Kind::Compare, 1, E}, {"logical_not", Kind::Compare, 1, E},
    {"logical_and", Kind::Compare, 1, E}, {"logical_or", Kind::Compare, 1, E},
    {"copy", Kind::Copy, 0, C}, {"_to_copy", Kind::Cast, 0, C}, {"clone", Kind::Cast, 0, C},
    {"fill", Kind::Fill, 0, E}, {"zero", Kind::Fill, 0, E},
    {"sum", Kind::Reduction, 1, R}, {"mean", Kind::Reduction, 1, R}, {"amax", Kind::Reduction, 1, R},
    {"amin", Kind::Reduction, 1, R}, {"all", Kind::Reduction, 1, R}, {"any", Kind::Reduction, 1, R},
    {"norm", Kind::Reduction, 2, R}, {"linalg_vector_norm", Kind::Reduction, 2, R},
    {"var", Kind::Reduction, 3, R}, {"std", Kind::Reduction, 3, R}, {"prod", Kind::Reduction, 1, R},
    {"logsumexp", Kind::Reduction, 3, R}, {"argmax", Kind::Reduction, 1, R}, {"argmin", Kind::Reduction, 1, R},
    // Normalizations: mean, variance, normalize, scale and shift (about 8 operations per element
    // forward, 12 backward).
    {"native_layer_norm", Kind::Norm, 8, R}, {"native_batch_norm", Kind::Norm, 8, R},
    {"cudnn_batch_norm", Kind::Norm, 8, R}, {"native_group_norm", Kind::Norm, 8, R},
    {"_fused_rms_norm", Kind::Norm, 6, R}, {"rms_norm", Kind::Norm, 6, R},
    {"native_layer_norm_backward", Kind::NormBack, 12, R}, {"native_batch_norm_backward", Kind::NormBack, 12, R},
    {"cudnn_batch_norm_backward", Kind::NormBack, 12, R}, {"native_group_norm_backward", Kind::NormBack, 12, R},
    {"_softmax_backward_data", Kind::SoftmaxBack, 4, KernelRole::Softmax},
    {"_log_softmax_backward_data", Kind::SoftmaxBack, 4, KernelRole::Softmax},
    {"convolution_backward", Kind::ConvBack, 0, KernelRole::Gemm},
};
// clang-format on

const MemoryOp* memoryOp(std::string_view op, bool* inPlace = nullptr) {
    if (!op.starts_with("aten::")) return nullptr;
    op.remove_prefix(6);
    const bool trailing = op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_';
    for (const MemoryOp& m : kOps) {
        const bool plain = op == m.name;
        const bool underscore = trailing && op.substr(0, op.size() - 1) == m.name;
        if (!plain && !underscore) continue;
        if (inPlace) *inPlace = underscore || m.kind == Kind::Copy;
        return &m;
    }
    return nullptr;
}

double elements(const std::vector<std::int64_t>& dims) {
    double n = 1;
    for (std::int64_t d : dims)
        n *= double(d);
    return dims.empty() ? 0 : n;
}

} // namespace

bool memoryOpModelled(std::string_view op) {
    return memoryOp(op) != nullptr;
}

std::optional<OpCost> memoryOpCost(std::string_view op, const std::vector<std::vector<std::int64_t>>& d,
                                   const std::vector<std::string>& types,
                                   const std::vector<std::string>& concrete) {
    bool inPlace = false;
    const MemoryOp* m = memoryOp(op, &inPlace);
    if (!m || d.empty()) return std::nullopt;
    auto size = [&](std::size_t i) { return i < types.size() ? inputTypeBytes(types[i]) : 0; };
    // The tensor inputs (a known type and at least one dimension): their elements, sizes, and the
    // broadcast shape of them all; the widest element of any tensor (a 0-dim one too) is the output's.
    double read = 0;
    int widest = 0, widestScalar = 0, firstSize = 0;
    std::vector<std::int64_t> shape;
    for (std::size_t i = 0; i < d.size(); ++i) {
        const int bytes = size(i);
        if (bytes == 0) continue;
        // A 0-dim tensor (a Python number wrapped, as in scores * scale) does not widen the result of
        // tensors with dims of its kind; it gives the result its type only when those are all bool
        // (where(mask, 0., x)), as PyTorch's type promotion does.
        int& widestOfItsKind = d[i].empty() ? widestScalar : widest;
        if (types[i] != "bool") widestOfItsKind = std::max(widestOfItsKind, bytes);
        if (d[i].empty()) continue;
        if (!firstSize) firstSize = bytes;
        read += elements(d[i]) * bytes;
        if (d[i].size() > shape.size()) shape.insert(shape.begin(), d[i].size() - shape.size(), 1);
        for (std::size_t j = 0; j < d[i].size(); ++j) {
            std::int64_t& s = shape[shape.size() - d[i].size() + j];
            s = std::max(s, d[i][j]);
        }
    }
    if (!firstSize) return std::nullopt;
    if (!widest) widest = widestScalar;
    const double first = elements(d[0]), out = elements(shape);
    OpCost c;
    c.role = m->role;
    c.precision = types.empty() ? Precision::Unknown : precisionNamed(types[0]);
    switch (m->kind) {
    case Kind::Pointwise:
    case Kind::Compare: {
        const int outSize = m->kind == Kind::Compare ? 1 : widest ? widest : firstSize;
        c.flops = m->flopsPerElement * out;
        c.bytes = read + (inPlace ? first * firstSize : out * outSize);
        break;
    }
    case Kind::Copy: // copy_(dst, src): the source read, the destination written
        c.bytes = read;
        if (types.size() > 1) c.precision = precisionNamed(types[1]);
        break;
    case Kind::Cast: { // the result in the dtype asked for (the first concrete input that names one)
        int outSize = firstSize;
        if (op.ends_with("_to_copy") && concrete.size() > 1 && !concrete[1].empty()) {
            const std::vector<std::int64_t> dtype = parseInts(concrete[1]);
            if (dtype.size() == 1 && scalarTypeBytes(dtype[0])) outSize = scalarTypeBytes(dtype[0]);
        }
        c.bytes = first * (firstSize + outSize);
        break;
    }
    case Kind::Fill:
        c.bytes = first * firstSize;
        break;
    case Kind::Reduction: {
        // The dims reduced: the second input's integers (negative from the end); none given: all.
        double kept = 1;
        const std::vector<std::int64_t> dims =
            concrete.size() > 1 ? parseInts(concrete[1]) : std::vector<std::int64_t>{};
        if (!dims.empty()) {
            kept = first;
            for (std::int64_t dim : dims) {
                const std::int64_t at = dim < 0 ? std::int64_t(d[0].size()) + dim : dim;
                if (at < 0 || at >= std::int64_t(d[0].size()) || d[0][std::size_t(at)] == 0)
                    return std::nullopt;
                kept /= double(d[0][std::size_t(at)]);
            }
        }
        c.flops = m->flopsPerElement * first;
        c.bytes = first * firstSize + kept * (widest ? widest : firstSize);
        break;
    }
    case Kind::Norm: // input read, output written (the parameters and statistics are small)
        c.flops = m->flopsPerElement * first;
        c.bytes = 2 * first * firstSize;
        break;
    case Kind::NormBack:    // the output's gradient and the input read, the input's gradient written
    case Kind::SoftmaxBack: // the output's gradient and the output read, the input's gradient written
        c.flops = m->flopsPerElement * first;
        c.bytes = 3 * first * firstSize;
        break;
    case Kind::ConvBack: {
        // grad_output [N, K, out…], input [N, C, in…], weight [K, C/groups, kernel…]: each gradient is a
        // GEMM of the forward's FLOPs, 2·N·K·(C/groups)·∏kernel·∏out; the input's gradient (cuDNN's
        // dgrad) reads grad_output and weight and writes the input's size, the weight's (wgrad) reads
        // grad_output and input and writes the weight's size.
        if (d.size() < 3 || d[0].size() < 3 || d[1].size() != d[0].size() || d[2].size() != d[0].size())
            return std::nullopt;
        const double perGemm = 2 * elements(d[0]) * double(d[2][1]) *
                               elements(std::vector<std::int64_t>(d[2].begin() + 2, d[2].end()));
        const double g = elements(d[0]) * firstSize, in = elements(d[1]) * firstSize,
                     w = elements(d[2]) * firstSize;
        c.flops = 2 * perGemm;
        c.bytes = 2 * g + 2 * in + 2 * w;
        c.parts = {{"dgrad", perGemm, g + w + in}, {"wgrad", perGemm, g + in + w}};
        break;
    }
    }
    if (c.bytes <= 0) return std::nullopt; // a scalar's op: nothing to hold to a roof
    return c;
}

} // namespace attnscope::detail
