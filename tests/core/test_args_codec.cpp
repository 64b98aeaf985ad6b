// SPDX-License-Identifier: MIT
#include "core/model/args_codec.h"
#include "core/model/string_pool.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace attnscope;

TEST(ArgsCodec, RoundTripsKeysAndValuesAsWritten) {
    StringPool pool;
    ArgsEncoder enc;
    enc.add("External id", "18446744073709551615"); // above INT64_MAX, kept as text
    enc.add("grid", "[256, 1, 1]");
    enc.add("name", R"("a,\"b\",c")");
    enc.add(R"(we\"ird)", "null");
    enc.add("nested", R"({"x":[1,{"y":","}]})");
    enc.add("blocks per SM", "1.939394");
    std::string blob;
    enc.encode(pool, blob);

    std::vector<std::pair<std::string, std::string>> seen;
    forEachEncodedArg(pool, blob, [&](std::string_view k, std::string_view v) { seen.emplace_back(k, v); });
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"External id", "18446744073709551615"},
        {"grid", "[256, 1, 1]"},
        {"name", R"("a,\"b\",c")"},
        {R"(we\"ird)", "null"},
        {"nested", R"({"x":[1,{"y":","}]})"},
        {"blocks per SM", "1.939394"}};
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(encodedArgsToJson(pool, blob),
              R"({"External id":18446744073709551615,"grid":[256, 1, 1],"name":"a,\"b\",c","we\"ird":null,)"
              R"("nested":{"x":[1,{"y":","}]},"blocks per SM":1.939394})");
}

TEST(ArgsCodec, SharesOneShapeBetweenEventsWithTheSameKeys) {
    StringPool pool;
    ArgsEncoder enc;
    std::string a, b;
    enc.add("device", "0");
    enc.add("stream", "7");
    enc.encode(pool, a);
    const std::size_t stringsAfterFirst = pool.size();
    enc.clear();
    enc.add("device", "1");
    enc.add("stream", "13");
    enc.encode(pool, b);
    EXPECT_EQ(pool.size(), stringsAfterFirst);
    EXPECT_EQ(encodedArgsToJson(pool, b), R"({"device":1,"stream":13})");
    EXPECT_LT(b.size(), std::string_view(R"({"device":1,"stream":13})").size());
}

TEST(ArgsCodec, TruncatedBlobDecodesToNothingRatherThanReadingPastIt) {
    StringPool pool;
    ArgsEncoder enc;
    enc.add("k", "12345");
    std::string blob;
    enc.encode(pool, blob);
    EXPECT_EQ(encodedArgsToJson(pool, std::string_view(blob).substr(0, 2)), "{}");
    EXPECT_EQ(encodedArgsToJson(pool, ""), "{}");
}
