// SPDX-License-Identifier: MIT
// The shapes expected of an attention call (resources/call_shapes.txt, the user's file first): the
// slots and their counts as written, what cannot be read, and a call's kernels held to a shape.
#include "support/test_support.h"

#include "core/analysis/call_shapes.h"
#include "core/analysis/resources.h"

#include <gtest/gtest.h>

using namespace attnscope;

namespace {

std::vector<ShapeKernel> kernels(std::initializer_list<std::pair<KernelRole, std::string_view>> list) {
    std::vector<ShapeKernel> out;
    for (const auto& [role, name] : list)
        out.push_back({role, name});
    return out;
}

} // namespace

TEST(CallShapes, SlotsCountAsWritten) {
    std::vector<std::string> problems;
    const CallShapes shapes =
        CallShapes::parse("# a comment\n"
                          "mine = qk_gemm softmax? elementwise* reduction+ copy{2} gemm{1,3} other{2,}\n"
                          "pat = elementwise(Mul){0,2} elementwise\n",
                          &problems);
    ASSERT_TRUE(problems.empty()) << problems.front();
    const CallShape* s = shapes.find("", "mine", false);
    ASSERT_NE(s, nullptr);
    ASSERT_EQ(s->slots.size(), 7u);
    const std::pair<std::uint32_t, std::uint32_t> counts[] = {
        {1, 1}, {0, 1}, {0, CallShape::kAnyNumber}, {1, CallShape::kAnyNumber},
        {2, 2}, {1, 3}, {2, CallShape::kAnyNumber}};
    for (std::size_t i = 0; i < 7; ++i) {
        EXPECT_EQ(s->slots[i].min, counts[i].first) << i;
        EXPECT_EQ(s->slots[i].max, counts[i].second) << i;
    }
    EXPECT_EQ(s->text, "qk_gemm softmax? elementwise* reduction+ copy{2} gemm{1,3} other{2,}");
    // A slot with a pattern comes first and takes only the names that hold it.
    const CallShape* p = shapes.find("", "pat", false);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->slots[0].pattern, "mul");
    const ShapeCheck c = checkShape(*p, kernels({{KernelRole::Elementwise, "aten::fill_"},
                                                 {KernelRole::Elementwise, "aten::mul"},
                                                 {KernelRole::Elementwise, "aten::MUL"},
                                                 {KernelRole::Elementwise, "aten::where"}}));
    EXPECT_EQ(c.unexpected, (std::vector<std::size_t>{3})); // fill_ took the plain slot; where has none
    EXPECT_EQ(c.expected, 3u);
    EXPECT_TRUE(c.missing.empty());
}

TEST(CallShapes, WhatCannotBeReadIsSaidWithItsLine) {
    std::vector<std::string> problems;
    const CallShapes shapes = CallShapes::parse("naive qk_gemm\n"
                                                "x = qk_gemm gem\n"
                                                "y = softmax{3,1}\n"
                                                "z = softmax{0}\n"
                                                "w = softmax(\n"
                                                " = softmax\n"
                                                "v = softmax()\n"
                                                "ok = softmax\n",
                                                &problems);
    EXPECT_EQ(shapes.size(), 1u);
    ASSERT_EQ(problems.size(), 7u);
    EXPECT_EQ(problems[0], "line 1: no ' = ' between the key and its kernels");
    EXPECT_NE(problems[1].find("line 2: cannot read 'gem'"), std::string::npos) << problems[1];
    EXPECT_NE(problems[2].find("line 3: cannot read 'softmax{3,1}'"), std::string::npos) << problems[2];
    EXPECT_NE(problems[3].find("line 4: cannot read 'softmax{0}'"), std::string::npos) << problems[3];
    EXPECT_NE(problems[4].find("line 5"), std::string::npos);
    EXPECT_NE(problems[5].find("line 6"), std::string::npos);
    EXPECT_NE(problems[6].find("line 7: cannot read 'softmax()'"), std::string::npos)
        << problems[6]; // no pattern
}

// The built-in shapes read whole, and find by range name, then implementation, then "@fused".
TEST(CallShapes, TheBuiltInShapesAndTheirOrder) {
    std::vector<std::string> problems;
    const CallShapes builtin = CallShapes::parse(builtinCallShapes(), &problems);
    EXPECT_TRUE(problems.empty()) << problems.front();
    ASSERT_NE(builtin.find("attn_fwd", "naive", false), nullptr);
    EXPECT_EQ(builtin.find("attn_fwd", "naive", false)->key, "naive");
    EXPECT_EQ(builtin.find("", "cuDNN", true)->key, "@fused");
    EXPECT_EQ(builtin.find("", "my own", false), nullptr);
    // Naive's call: QKᵀ, scale, mask, softmax, PV; a copy is unexpected, a missing PV is missing.
    const CallShape* naive = builtin.find("", "naive", false);
    const ShapeCheck fine = checkShape(*naive, kernels({{KernelRole::QkGemm, "bmm"},
                                                        {KernelRole::Softmax, "mul"},
                                                        {KernelRole::Softmax, "masked_fill_"},
                                                        {KernelRole::Softmax, "_softmax"},
                                                        {KernelRole::PvGemm, "bmm"}}));
    EXPECT_TRUE(fine.unexpected.empty());
    EXPECT_TRUE(fine.missing.empty());
    EXPECT_EQ(fine.expected, 5u);
    const ShapeCheck off = checkShape(*naive, kernels({{KernelRole::QkGemm, "bmm"},
                                                       {KernelRole::Copy, "copy_"},
                                                       {KernelRole::Softmax, "_softmax"}}));
    EXPECT_EQ(off.unexpected, (std::vector<std::size_t>{1}));
    ASSERT_EQ(off.missing.size(), 1u);
    EXPECT_EQ(off.missing[0].first, KernelRole::PvGemm);
    EXPECT_EQ(off.expected, 3u);
}

// A preset run's cases are named by implementation and case ("naive prefill", "flash decode"): each is held
// to its implementation's shape (the window's first run showed "Expected -" for naive); a name of two words
// that is a key ("SDPA math") stays its own.
TEST(CallShapes, APresetsCaseIsItsImplementations) {
    const CallShapes& shapes = CallShapes::standard();
    const CallShape* naive = shapes.find("", "naive prefill", false);
    ASSERT_NE(naive, nullptr);
    EXPECT_EQ(naive->key, "naive");
    const CallShape* math = shapes.find("", "SDPA math", false);
    ASSERT_NE(math, nullptr);
    EXPECT_EQ(math->key, "SDPA math");
    EXPECT_EQ(shapes.find("", "mine prefill", false), nullptr);
}

// Dropout on a CPU is aten::bernoulli_, aten::div_ and aten::mul inside aten::dropout: a slot's pattern
// names the op that asked for a kernel as well as the kernel; the same names from elsewhere stay
// unexpected.
TEST(CallShapes, APatternNamesTheOpThatAskedForTheKernel) {
    const CallShapes shapes = CallShapes::parse(std::string(builtinCallShapes()));
    const CallShape* naive = shapes.find("", "naive", false);
    ASSERT_NE(naive, nullptr);
    const std::vector<std::string_view> dropout = {"aten::dropout"};
    std::vector<ShapeKernel> training = {{KernelRole::QkGemm, "aten::bmm"},
                                         {KernelRole::Softmax, "aten::_softmax"},
                                         {KernelRole::Elementwise, "aten::bernoulli_", dropout},
                                         {KernelRole::Elementwise, "aten::div_", dropout},
                                         {KernelRole::Elementwise, "aten::mul", dropout},
                                         {KernelRole::PvGemm, "aten::bmm"}};
    const ShapeCheck fine = checkShape(*naive, training);
    EXPECT_TRUE(fine.unexpected.empty());
    EXPECT_EQ(fine.expected, 6u);
    // The same kernels asked for by another op: one goes to the plain elementwise slot, the others are
    // unexpected.
    for (std::size_t i = 2; i < 5; ++i)
        training[i].ops = {"aten::my_op"};
    EXPECT_EQ(checkShape(*naive, training).unexpected, (std::vector<std::size_t>{3, 4}));
}
