// SPDX-License-Identifier: MIT
#include "core/io/json_scanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using attnscope::JsonElementScanner;

namespace {

// Element ends found when the text arrives in pieces of the given sizes.
std::vector<std::size_t> elementEnds(const std::string& text, const std::vector<std::size_t>& pieces,
                                     std::size_t* arrayEnd = nullptr) {
    // The scanner may read 64 bytes past what it is given, as the reader's buffer allows.
    std::string padded = text + std::string(128, ' ');
    JsonElementScanner scanner;
    std::vector<std::size_t> ends;
    std::size_t from = 0;
    for (std::size_t piece : pieces) {
        const std::size_t to = std::min(text.size(), from + piece);
        auto r = scanner.scan(padded.data(), from, to);
        // The scanner reports only the last end per call; check it is one of the true ends.
        if (r.lastElementEnd != JsonElementScanner::kNone) ends.push_back(r.lastElementEnd);
        if (r.arrayEnd != JsonElementScanner::kNone) {
            if (arrayEnd) *arrayEnd = r.arrayEnd;
            break;
        }
        from = to;
    }
    return ends;
}

std::string sampleArrayBody() {
    // Elements with the things that can fool a scanner: brackets and escaped quotes in strings,
    // nesting, scalars between objects.
    return R"( {"name": "a}b]c", "args": {"x": [1, {"y": "\"}"}]}}, {"name": "\\"}, 42, "str]", )"
           R"({"deep": [[[[{}]]]]}, true ])";
}

} // namespace

// A plain reference: positions just past each element of the array body, and the closing bracket.
std::pair<std::vector<std::size_t>, std::size_t> referenceEnds(const std::string& t) {
    std::vector<std::size_t> ends;
    int depth = 0;
    bool inString = false, inScalar = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"') {
                inString = false;
                if (depth == 0) ends.push_back(i + 1);
            }
            continue;
        }
        if (depth == 0 && inScalar && (c == ',' || c == ' ' || c == ']')) {
            inScalar = false;
            ends.push_back(i);
        }
        if (c == '"')
            inString = true;
        else if (c == '{' || c == '[')
            ++depth;
        else if ((c == '}' || c == ']') && depth > 0) {
            if (--depth == 0) ends.push_back(i + 1);
        } else if (c == ']' && depth == 0)
            return {ends, i};
        else if (depth == 0 && c != ',' && c != ' ' && c != '\n')
            inScalar = true;
    }
    return {ends, std::string::npos};
}

TEST(JsonElementScanner, FindsTheSameEndsWhateverTheSplit) {
    std::string body = sampleArrayBody();
    // Long enough for the 64-byte block path, with strings that cross block boundaries.
    for (int i = 0; i < 20; ++i)
        body.insert(0, R"({"name": ")" + std::string(37 + i, 'k') + R"(", "v": [1, 2]}, )");
    // Pretty-printed as libkineto writes: an element ends and the next opens inside one block,
    // strings run over blocks' ends, and strings hold brackets.
    for (int i = 0; i < 30; ++i)
        body.insert(0, "{\n    \"name\": \"" + std::string(5 + 7 * i, 'q') + "]}[{\", \"args\": {\"d\": [[" +
                           std::to_string(i) + ", 2], [3]]}\n  },\n  ");
    const auto [expected, expectedArrayEnd] = referenceEnds(body);
    ASSERT_NE(expectedArrayEnd, std::string::npos);

    std::mt19937 rng(7);
    std::vector<std::vector<std::size_t>> splits = {{body.size()}, std::vector<std::size_t>(body.size(), 1)};
    for (int k = 0; k < 50; ++k) {
        std::vector<std::size_t> pieces;
        for (std::size_t total = 0; total < body.size();) {
            const std::size_t n = 1 + rng() % 150;
            pieces.push_back(n);
            total += n;
        }
        splits.push_back(pieces);
    }
    for (const auto& pieces : splits) {
        std::size_t arrayEnd = 0;
        const auto ends = elementEnds(body, pieces, &arrayEnd);
        EXPECT_EQ(arrayEnd, expectedArrayEnd);
        ASSERT_FALSE(ends.empty());
        for (std::size_t e : ends)
            EXPECT_NE(std::find(expected.begin(), expected.end(), e), expected.end()) << e;
        EXPECT_EQ(ends.back(), expected.back());
    }
}

TEST(JsonElementScanner, SingleValueStopsAfterTheFirstValue) {
    for (const std::string value : {"12", "\"a,}b\"", "{\"a\": [1, 2]}", "[{}, []]", "null"}) {
        const std::string text = value + ", \"next\": [1, 2]}" + std::string(128, ' ');
        JsonElementScanner scanner(true);
        const auto r = scanner.scan(text.data(), 0, text.size() - 128);
        EXPECT_EQ(r.lastElementEnd, value.size()) << value;
    }
}

TEST(JsonElementScanner, DeepNestingNeedsNoStack) {
    const std::size_t depth = 1000000;
    const std::string text = std::string(depth, '[') + std::string(depth, ']') + "]" + std::string(128, ' ');
    JsonElementScanner scanner;
    const auto r = scanner.scan(text.data(), 0, text.size() - 128);
    EXPECT_EQ(r.lastElementEnd, 2 * depth);
    EXPECT_EQ(r.arrayEnd, 2 * depth);
}

TEST(JsonElementScanner, ReportsAPendingElement) {
    const std::string text = R"({"a": 1}, {"b": )" + std::string(128, ' ');
    JsonElementScanner scanner;
    const auto r = scanner.scan(text.data(), 0, 16);
    EXPECT_EQ(r.lastElementEnd, 8u);
    EXPECT_EQ(r.pendingStart, 10u);
    EXPECT_FALSE(scanner.idle());
}
