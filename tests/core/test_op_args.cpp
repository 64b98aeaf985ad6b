// SPDX-License-Identifier: MIT
// The record_shapes args of PyTorch ops, read (op_args.h): what a trace from a stranger may hold,
// well formed or not. A value that is not the expected shape reads as nothing, never as a guess.
#include "core/model/op_args.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

using namespace attnscope;

using Dims = std::vector<std::vector<std::int64_t>>;

TEST(OpArgs, InputDimsAsPyTorchWritesThem) {
    EXPECT_EQ(parseDims("[[16, 559, 1024], [1024, 1024], []]"), (Dims{{16, 559, 1024}, {1024, 1024}, {}}));
    EXPECT_EQ(parseDims("[[16,559,1024],[1024,1024],[]]"), (Dims{{16, 559, 1024}, {1024, 1024}, {}}));
    EXPECT_EQ(parseDims("[]"), Dims{});
    EXPECT_EQ(parseDims("  [[0]]"), (Dims{{0}}));
}

TEST(OpArgs, InputDimsNotOfThatShapeReadAsNothing) {
    for (const char* bad :
         {"", "[", "[[", "[[1,2]", "[[1,2],", "[1,2]", "[[1,[2]]]", "[[-1]]", "[[a]]", "{\"x\":1}",
          "[[99999999999999999999999]]", "[[1.5]]", "null", "[[1]] trailing"}) {
        const auto dims = parseDims(bad);
        // Trailing text after a whole value is ignored; everything else is refused.
        if (std::string(bad) == "[[1]] trailing")
            EXPECT_EQ(dims, (Dims{{1}})) << bad;
        else
            EXPECT_EQ(dims, std::nullopt) << bad;
    }
}

TEST(OpArgs, StringsAndIntsFromAnyValue) {
    EXPECT_EQ(parseStrings(R"(["c10::BFloat16", "", "True"])"),
              (std::vector<std::string>{"c10::BFloat16", "", "True"}));
    EXPECT_EQ(parseStrings(R"(["unterminated)"), std::vector<std::string>{});
    EXPECT_EQ(parseStrings(R"(["a", "b)"), std::vector<std::string>{"a"});
    EXPECT_EQ(parseStrings("no quotes at all"), std::vector<std::string>{});
    EXPECT_EQ(parseInts("[1, 1]"), (std::vector<std::int64_t>{1, 1}));
    EXPECT_EQ(parseInts("2"), (std::vector<std::int64_t>{2}));
    EXPECT_EQ(parseInts("[-3, 4]"), (std::vector<std::int64_t>{-3, 4}));
    EXPECT_EQ(parseInts(""), std::vector<std::int64_t>{});
    EXPECT_EQ(parseInts("[a, b]"), std::vector<std::int64_t>{});
    // A lone minus or a number too large stops the reading there: what came before stays.
    EXPECT_EQ(parseInts("[7, -]"), std::vector<std::int64_t>{7});
    EXPECT_EQ(parseInts("[7, 99999999999999999999999, 8]"), std::vector<std::int64_t>{7});
}

TEST(OpArgs, ElementsOfTheTensorsNeverOverflow) {
    EXPECT_EQ(inputElements({{16, 559, 1024}, {1024, 1024}, {}}), 16u * 559 * 1024 + 1024u * 1024);
    EXPECT_EQ(inputElements({{}, {}}), 0u);
    EXPECT_EQ(inputElements({{0, 5}}), 0u);
    const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(inputElements({{huge, huge}}), std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(inputElements({{huge, 2}, {huge, 2}}), std::numeric_limits<std::uint64_t>::max());
}

// A tensor laid out row-major needs no copy to be reshaped: what layout_copies leaves out. The
// projection's [b, s, h, d] seen as [b, h, s, d] (transpose(1, 2)) is not; a dimension of one element may
// have any stride (PyTorch gives it one of its own choosing).
TEST(OpArgs, RowMajorIsTheLayoutAReshapeDoesNotCopy) {
    EXPECT_TRUE(rowMajor({2, 8, 384, 32}, {98304, 12288, 32, 1}));
    EXPECT_FALSE(rowMajor({2, 8, 384, 32}, {98304, 32, 256, 1}));   // q.view(b, s, h, d).transpose(1, 2)
    EXPECT_FALSE(rowMajor({2, 384, 8, 32}, {98304, 32, 12288, 1})); // the output transposed back
    EXPECT_TRUE(rowMajor({1, 8, 1, 32}, {7, 32, 5, 1}));            // dims of one: any stride
    EXPECT_FALSE(rowMajor({2, 8}, {8}));                            // strides not of those dims
}
