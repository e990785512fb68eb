#include "contract/bounded_json.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

TEST(BoundedJsonTest, CountsNestingOutsideStrings) {
  EXPECT_EQ(jsonNestingDepth("1"), 0);
  EXPECT_EQ(jsonNestingDepth(R"({"a": [1, {"b": []}], "c": {}})"), 4);
  EXPECT_EQ(jsonNestingDepth(R"(["[[[[", "\"{{{{", "\\"])"), 1);
  EXPECT_EQ(jsonNestingDepth(std::string(1000, '['), 10), 11);   // stops past the limit
}

TEST(BoundedJsonTest, ParsesWhatIsWithinTheLimits) {
  auto parsed = parseBoundedJson(R"({"a": [1, 2, {"b": "[[["}]})", 100, 3);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ((*parsed)["a"][2]["b"], "[[[");
}

TEST(BoundedJsonTest, RefusesDeepSmallRecordsWithoutRecursing) {
  // 50,000 nested brackets in 100 KB: nlohmann::json would overflow the stack copying it.
  std::string deep = std::string(50000, '[') + std::string(50000, ']');
  auto parsed = parseBoundedJson(deep, 1 << 20);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "nested deeper than 100 levels");
  std::string objects;
  for (int i = 0; i < 50000; ++i)
    objects += "{\"a\":";
  objects += "1" + std::string(50000, '}');
  EXPECT_FALSE(parseBoundedJson(objects, 1 << 20));
  // Unbalanced closing brackets neither count nor crash.
  EXPECT_FALSE(parseBoundedJson(std::string(10, ']'), 100));
}

TEST(BoundedJsonTest, RefusesLargeTextBeforeParsing) {
  auto parsed = parseBoundedJson(std::string(101, ' ') + "1", 100);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "102 bytes, over the limit of 100");
}

TEST(BoundedJsonTest, SaysWhereTextIsNotJson) {
  auto parsed = parseBoundedJson("{\"a\": tru}", 100);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "not JSON (at byte 10)");
}

} // namespace
} // namespace tta
