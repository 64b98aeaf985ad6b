// SPDX-License-Identifier: MIT
#include "core/analysis/op_cost.h"

#include "core/analysis/attention_math.h"
#include "core/analysis/op_cost_memory.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace attnscope {

namespace {

double product(const std::vector<std::int64_t>& dims, std::size_t from = 0,
               std::size_t to = std::string::npos) {
    double p = 1;
    for (std::size_t i = from; i < std::min(to, dims.size()); ++i)
        p *= double(dims[i]);
    return p;
}

bool isTrue(const std::vector<std::string>& concrete, std::size_t index) {
    return index < concrete.size() && (concrete[index] == "True" || concrete[index] == "true");
}

} // namespace

namespace {

// The attention ops opCost models: where the heads sit in the shapes, and which input says causal.
struct Sdpa {
    std::string_view name;
    bool headsSecond; // [B, H, N, D] (else [B, N, H, D])
    std::size_t causalAt;
    bool causalIsMaskType; // _efficient_attention_forward: custom_mask_type != 0
};
constexpr Sdpa kSdpa[] = {
    {"aten::scaled_dot_product_attention", true, 5, false},
    {"aten::_scaled_dot_product_flash_attention", true, 4, false},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", true, 4, false},
    {"aten::_scaled_dot_product_efficient_attention", true, 6, false},
    {"aten::_scaled_dot_product_cudnn_attention", true, 6, false},
    {"aten::_flash_attention_forward", false, 8, false},
    {"aten::_efficient_attention_forward", false, 9, true},
};

constexpr std::string_view kConvolutionOps[] = {"aten::convolution", "aten::_convolution",
                                                "aten::conv2d",      "aten::conv1d",
                                                "aten::conv3d",      "aten::cudnn_convolution"};

// A convolution's FLOPs and bytes: input [N, C, spatial…], weight [K, C/groups, kernel…] (so grouped
// convolutions count each group's channels once); the output's spatial size from stride, padding and
// dilation. 2·N·K·(C/groups)·∏kernel·∏output FLOPs; input, weight and output moved once. Where the op
// keeps stride, padding and dilation among its inputs differs per op; without them: stride 1, no
// padding, dilation 1.
std::optional<OpCost> convolutionCost(std::string_view op, const std::vector<std::vector<std::int64_t>>& d,
                                      const std::vector<std::string>& concrete, Precision precision) {
    if (d.size() < 2 || d[0].size() < 3 || d[0].size() != d[1].size()) return std::nullopt;
    const std::size_t spatial = d[0].size() - 2;
    // Positions of stride, padding and dilation in the op's inputs.
    int strideAt = 3, paddingAt = 4, dilationAt = 5;
    if (op == "aten::cudnn_convolution") paddingAt = 2, strideAt = 3, dilationAt = 4;
    auto ints = [&](int at) {
        return at >= 0 && std::size_t(at) < concrete.size() ? parseInts(concrete[std::size_t(at)])
                                                            : std::vector<std::int64_t>{};
    };
    auto per = [&](const std::vector<std::int64_t>& v, std::size_t i, std::int64_t fallback) {
        return v.empty() ? fallback : v[std::min(i, v.size() - 1)];
    };
    const auto stride = ints(strideAt), padding = ints(paddingAt), dilation = ints(dilationAt);
    const double n = double(d[0][0]), k = double(d[1][0]), cPerGroup = double(d[1][1]);
    double kernel = 1, output = 1;
    for (std::size_t i = 0; i < spatial; ++i) {
        const std::int64_t in = d[0][2 + i], r = d[1][2 + i];
        const std::int64_t out = (in + 2 * per(padding, i, 0) - per(dilation, i, 1) * (r - 1) - 1) /
                                     std::max<std::int64_t>(1, per(stride, i, 1)) +
                                 1;
        if (out <= 0 || r <= 0) return std::nullopt;
        kernel *= double(r);
        output *= double(out);
    }
    OpCost c;
    c.precision = precision;
    c.role = KernelRole::Gemm;
    c.flops = 2 * n * k * cPerGroup * kernel * output;
    c.bytes = (product(d[0]) + product(d[1]) + n * k * output) * double(precisionBytes(precision));
    return c;
}

constexpr std::string_view kGemmAndSoftmaxOps[] = {"aten::mm",       "aten::addmm",  "aten::bmm",
                                                   "aten::baddbmm",  "aten::matmul", "aten::linear",
                                                   "aten::_softmax", "aten::softmax"};

} // namespace

bool opCostModels(std::string_view op) {
    for (std::string_view name : kGemmAndSoftmaxOps)
        if (op == name) return true;
    for (std::string_view name : kConvolutionOps)
        if (op == name) return true;
    for (const Sdpa& s : kSdpa)
        if (op == s.name) return true;
    return detail::memoryOpModelled(op);
}

std::optional<OpCost> opCost(std::string_view op, std::string_view inputDims, std::string_view inputTypes,
                             std::string_view concreteInputs) {
    const auto dims = parseDims(inputDims);
    if (!dims || dims->empty()) return std::nullopt;
    const std::vector<std::string> types = parseStrings(inputTypes);
    const std::vector<std::string> concrete = parseStrings(concreteInputs);
    auto precisionAt = [&](std::size_t i) {
        return i < types.size() ? precisionNamed(types[i]) : Precision::Unknown;
    };
    const auto& d = *dims;
    auto rank = [&](std::size_t i, std::size_t r) { return i < d.size() && d[i].size() == r; };
    OpCost c;
    auto gemm = [&](double batch, double m, double k, double n, double extraOutputs, Precision p) {
        c.precision = p;
        c.role = KernelRole::Gemm;
        c.flops = 2 * batch * m * n * k;
        c.bytes = batch * (m * k + k * n + m * n * (1 + extraOutputs)) * double(precisionBytes(p));
        return c;
    };
    if (op == "aten::mm" && rank(0, 2) && rank(1, 2) && d[0][1] == d[1][0])
        return gemm(1, double(d[0][0]), double(d[0][1]), double(d[1][1]), 0, precisionAt(0));
    if (op == "aten::addmm" && rank(1, 2) && rank(2, 2) && d[1][1] == d[2][0]) {
        OpCost g = gemm(1, double(d[1][0]), double(d[1][1]), double(d[2][1]), 0, precisionAt(1));
        g.bytes += product(d[0]) * double(precisionBytes(g.precision)); // the bias read
        return g;
    }
    if (op == "aten::bmm" && rank(0, 3) && rank(1, 3) && d[0][2] == d[1][1])
        return gemm(double(d[0][0]), double(d[0][1]), double(d[0][2]), double(d[1][2]), 0, precisionAt(0));
    if (op == "aten::baddbmm" && rank(1, 3) && rank(2, 3) && d[1][2] == d[2][1])
        return gemm(double(d[1][0]), double(d[1][1]), double(d[1][2]), double(d[2][2]), 1, precisionAt(1));
    if (op == "aten::matmul" && d.size() >= 2 && d[0].size() >= 2 && d[1].size() >= 2 &&
        d[0].back() == d[1][d[1].size() - 2]) {
        // Batched over the leading dims of the first operand (a 2-D second operand is broadcast).
        const auto& a = d[0];
        return gemm(product(a, 0, a.size() - 2), double(a[a.size() - 2]), double(a.back()),
                    double(d[1].back()), 0, precisionAt(0));
    }
    if (op == "aten::linear" && d.size() >= 2 && !d[0].empty() && rank(1, 2) && d[0].back() == d[1][1]) {
        OpCost g = gemm(1, product(d[0], 0, d[0].size() - 1), double(d[0].back()), double(d[1][0]), 0,
                        precisionAt(0));
        if (d.size() > 2) g.bytes += product(d[2]) * double(precisionBytes(g.precision));
        return g;
    }
    for (std::string_view name : kConvolutionOps)
        if (op == name) return convolutionCost(op, d, concrete, precisionAt(0));
    if ((op == "aten::_softmax" || op == "aten::softmax") && !d[0].empty()) {
        // 5 operations per element (scale, max, exp, sum, divide), one read and one write.
        const double n = product(d[0]);
        c.precision = precisionAt(0);
        c.role = KernelRole::Softmax;
        c.flops = softmaxFlops(n);
        c.bytes = 2 * n * double(precisionBytes(c.precision));
        return c;
    }
    // Attention: 2·B·H·N·S·D for Q·Kᵀ plus 2·B·H·N·S·Dv for P·V, halved when causal; Q, K, V, O moved once.
    for (const Sdpa& s : kSdpa) {
        if (op != s.name) continue;
        if (!rank(0, 4) || !rank(1, 4) || !rank(2, 4)) return std::nullopt;
        const auto& q = d[0];
        const auto& k = d[1];
        const auto& v = d[2];
        const double b = double(q[0]), h = double(s.headsSecond ? q[1] : q[2]);
        const double n = double(s.headsSecond ? q[2] : q[1]), sk = double(s.headsSecond ? k[2] : k[1]);
        const double dq = double(q[3]), dv = double(v[3]);
        bool causal = isTrue(concrete, s.causalAt);
        if (s.causalIsMaskType)
            causal =
                s.causalAt < concrete.size() && !concrete[s.causalAt].empty() && concrete[s.causalAt] != "0";
        c.precision = precisionAt(0);
        c.role = KernelRole::FusedAttention;
        c.flops = attentionFlops(b * h, n, sk, dq, dv, causal);
        c.bytes =
            (product(q) + product(k) + product(v) + b * h * n * dv) * double(precisionBytes(c.precision));
        return c;
    }
    return detail::memoryOpCost(op, d, types, concrete);
}

} // namespace attnscope
