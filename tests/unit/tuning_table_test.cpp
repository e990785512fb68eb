// Tuning tables (contract/tuning_table.h): reading every malformed table as an error that names the
// member, writing and merging, and the nearest rule of the shape dispatch on both sides of every
// boundary.
#include "contract/tuning_table.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tta {
namespace {

using nlohmann::json;

json shape(std::vector<std::int64_t> key, const std::string &best, json times = nullptr) {
  if (times.is_null())
    times = {{best, 10.0}, {"other", 20.0}};
  return {{"key", key}, {"best", best}, {"times_us", times}};
}

// The shapes as a vector: `table({shape(...)})` with a `json` parameter is a one-element array
// under gcc and a copy of that element under clang (nlohmann/json's brace initialisation).
json table(const std::vector<json> &shapeList, json key = {"M", "N"}) {
  json shapes = json::array();
  for (const json &one : shapeList) shapes.push_back(one);
  return {{"schema", "triton-aot-tuning"},
          {"version", 1},
          {"kernels",
           {{{"kernel", "matmul"},
             {"key", key},
             {"targets",
              {{{"target", "cuda:90a"},
                {"device", "NVIDIA H100 80GB HBM3"},
                {"triton_version", "3.6.0"},
                {"library", "mm"},
                {"library_hash", "ab"},
                {"source", "triton-aot-tune"},
                {"method", {{"repetitions", 100}}},
                {"shapes", shapes}}}}}}}};
}

std::string errorOf(const json &j) {
  auto parsed = parseTuningTable(j, "mm.tuning.json");
  EXPECT_FALSE(parsed);
  if (parsed)
    return "";
  EXPECT_EQ(parsed.error().file, "mm.tuning.json");
  return parsed.error().message;
}

TEST(TuningTable, ReadsAndWritesTheSameTable) {
  json original = table({shape({512, 512}, "a"), shape({1024, 4096}, "b", {{"a", 3.5}, {"b", 2.0}, {"c", nullptr}})});
  auto parsed = parseTuningTable(original, "t");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const TunedTarget &target = parsed->kernels[0].targets[0];
  EXPECT_EQ(target.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(target.shapes[1].key, (std::vector<std::int64_t>{1024, 4096}));
  EXPECT_FALSE(target.shapes[1].timesUs.at("c"));
  EXPECT_EQ(tuningTableJson(*parsed), original);
}

TEST(TuningTable, EveryMalformedTableNamesTheMember) {
  EXPECT_EQ(errorOf(json::array()), "(top level): expected an object with \"schema\": \"triton-aot-tuning\"");
  json wrongSchema = table({shape({1, 1}, "a")});
  wrongSchema["schema"] = "triton-aot-library";
  EXPECT_EQ(errorOf(wrongSchema), "schema: expected \"triton-aot-tuning\", got \"triton-aot-library\"");
  // Found by fuzz_tuning_table: a schema that is not a string threw (json::value) instead.
  wrongSchema["schema"] = 20.0;
  EXPECT_EQ(errorOf(wrongSchema), "schema: expected \"triton-aot-tuning\", got 20.0");
  EXPECT_EQ(errorOf(json::object()), "schema: expected \"triton-aot-tuning\", got nothing");
  json newer = table({shape({1, 1}, "a")});
  newer["version"] = 2;
  EXPECT_EQ(errorOf(newer), "version: expected 1, got 2; this triton-aot reads version 1");
  EXPECT_EQ(errorOf(table({})),
            "kernels[0].targets[0].shapes: is empty; a tuned target has at least one shape");
  EXPECT_EQ(errorOf(table({shape({1, 2, 3}, "a")})),
            "kernels[0].targets[0].shapes[0].key: has 3 values; the kernel's key has 2");
  EXPECT_EQ(errorOf(table({shape({1, 0}, "a")})),
            "kernels[0].targets[0].shapes[0].key[1]: expected a positive integer, got 0");
  EXPECT_EQ(errorOf(table({shape({1, 2}, "z", {{"a", 1.0}})})),
            "kernels[0].targets[0].shapes[0].best: 'z' is not a config with a time in times_us");
  EXPECT_EQ(errorOf(table({shape({1, 2}, "a", {{"a", nullptr}})})),
            "kernels[0].targets[0].shapes[0].best: 'a' is not a config with a time in times_us");
  EXPECT_EQ(errorOf(table({shape({1, 2}, "a", {{"a", -1}})})),
            "kernels[0].targets[0].shapes[0].times_us.a: expected microseconds (>= 0) or null, got -1");
  EXPECT_EQ(errorOf(table({shape({1, 2}, "a"), shape({1, 2}, "other")})),
            "kernels[0].targets[0].shapes[1].key: is tuned twice for cuda:90a");
  EXPECT_EQ(errorOf(table({shape({1}, "a")}, json::array())),
            "kernels[0].key: is empty; name the integer parameters the dispatch keys on");
  json noTarget = table({shape({1, 2}, "a")});
  noTarget["kernels"][0]["targets"][0].erase("target");
  EXPECT_EQ(errorOf(noTarget), "kernels[0].targets[0].target: missing; expected a string");
  json twice = table({shape({1, 2}, "a")});
  twice["kernels"].push_back(twice["kernels"][0]);
  EXPECT_EQ(errorOf(twice), "kernels[1].kernel: 'matmul' is listed twice");
}

// Names are matched against the library's C names and land in the generated C's comments:
// the reader refuses what no tuner writes.
TEST(TuningTable, NamesAreCIdentifiersAndTextIsOneLine) {
  const std::string notAName = " is not a C identifier (ASCII letters, digits and '_', not "
                               "starting with a digit), so it cannot be a name in generated C";
  json injected = table({shape({1, 2}, "a")});
  injected["kernels"][0]["kernel"] = "matmul\n#error X";
  EXPECT_EQ(errorOf(injected), R"(kernels[0].kernel: "matmul\n#error X" holds a line break or )"
                               "another control character");
  injected["kernels"][0]["kernel"] = "matmul; int x";
  EXPECT_EQ(errorOf(injected), R"(kernels[0].kernel: "matmul; int x")" + notAName);
  EXPECT_EQ(errorOf(table({shape({1, 2}, "a")}, {"M", "N */"})),
            R"(kernels[0].key[1]: "N */")" + notAName);
  json device = table({shape({1, 2}, "a")});
  device["kernels"][0]["targets"][0]["device"] = "H100 */\n#error X";
  EXPECT_EQ(errorOf(device), R"(kernels[0].targets[0].device: "H100 */\n#error X" holds a line )"
                             "break or another control character");
  json target = table({shape({1, 2}, "a")});
  target["kernels"][0]["targets"][0]["target"] = "sm_90a";
  EXPECT_EQ(errorOf(target).rfind("kernels[0].targets[0].target: ", 0), 0u) << errorOf(target);
  json hash = table({shape({1, 2}, "a")});
  hash["kernels"][0]["targets"][0]["library_hash"] = "AB";
  EXPECT_EQ(errorOf(hash), "kernels[0].targets[0].library_hash: expected lower-case hex digits, got 'AB'");
}

TEST(TuningTable, AFileThatIsNoTableIsAnErrorNotAHang) {
  auto fromDevice = readTuningTable("/dev/zero");
  ASSERT_FALSE(fromDevice);
  EXPECT_EQ(fromDevice.error().message, "cannot read '/dev/zero': not a regular file");
  EXPECT_EQ(fromDevice.error().file, "/dev/zero");
}

TEST(TuningTable, MergeKeepsOldShapesAndTakesNewTimes) {
  auto old = parseTuningTable(table({shape({512, 512}, "a"), shape({64, 64}, "a")}), "old");
  auto fresh = parseTuningTable(table({shape({512, 512}, "other", {{"a", 9.0}, {"other", 5.0}})}), "new");
  ASSERT_TRUE(old && fresh);
  ASSERT_TRUE(mergeTuningTables(*old, *fresh));
  const auto &shapes = old->kernels[0].targets[0].shapes;
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0].best, "other");
  EXPECT_EQ(shapes[1].key, (std::vector<std::int64_t>{64, 64}));

  auto rekeyed = parseTuningTable(table({shape({1}, "a")}, {"M"}), "k");
  ASSERT_TRUE(rekeyed);
  EXPECT_FALSE(mergeTuningTables(*old, *rekeyed));
}

TEST(ShapeDispatch, SnapsEachDimensionAtTheGeometricMean) {
  auto parsed = parseTuningTable(
      table({shape({256, 64}, "small"), shape({4096, 64}, "tall"), shape({256, 8192}, "wide"),
             shape({4096, 8192}, "big")}),
      "t");
  ASSERT_TRUE(parsed);
  auto dispatch = shapeDispatch(parsed->kernels[0].targets[0], 2);
  ASSERT_TRUE(dispatch) << dispatch.error().message;
  EXPECT_EQ(dispatch->values[0], (std::vector<std::int64_t>{256, 4096}));
  ASSERT_EQ(dispatch->boundaries[0].size(), 1u);
  EXPECT_DOUBLE_EQ(dispatch->boundaries[0][0], 1024.0);   // sqrt(256 * 4096)
  EXPECT_DOUBLE_EQ(dispatch->boundaries[1][0], std::sqrt(64.0 * 8192.0));
  // Both sides of each boundary, and the tuned points themselves.
  EXPECT_EQ(dispatchedConfig(*dispatch, {1023, 64}), "small");
  EXPECT_EQ(dispatchedConfig(*dispatch, {1024, 64}), "tall");
  EXPECT_EQ(dispatchedConfig(*dispatch, {1, 1}), "small");
  EXPECT_EQ(dispatchedConfig(*dispatch, {1 << 30, 1 << 30}), "big");
  EXPECT_EQ(dispatchedConfig(*dispatch, {256, 723}), "small");   // sqrt(64 * 8192) = 724.08
  EXPECT_EQ(dispatchedConfig(*dispatch, {256, 725}), "wide");
  EXPECT_EQ(dispatchedConfig(*dispatch, {4096, 8192}), "big");
}

TEST(ShapeDispatch, AnUntunedCombinationTakesTheNearestTunedShape) {
  // Two shapes: (256, 64) and (4096, 8192). The combination (4096, 64) is 4 octaves from the
  // first and 7 from the second; (256, 8192) is 7 from the first and 4 from the second.
  auto parsed = parseTuningTable(table({shape({256, 64}, "first"), shape({4096, 8192}, "second")}), "t");
  ASSERT_TRUE(parsed);
  auto dispatch = shapeDispatch(parsed->kernels[0].targets[0], 2);
  ASSERT_TRUE(dispatch);
  EXPECT_EQ(dispatch->grid, (std::vector<std::string>{"first", "second", "first", "second"}));
  // Equidistant: the earlier shape in the table wins.
  auto tie = parseTuningTable(table({shape({64, 4096}, "a"), shape({4096, 64}, "b")}), "t");
  ASSERT_TRUE(tie);
  auto tied = shapeDispatch(tie->kernels[0].targets[0], 2);
  ASSERT_TRUE(tied);
  EXPECT_EQ(dispatchedConfig(*tied, {64, 64}), "a");
  EXPECT_EQ(dispatchedConfig(*tied, {4096, 4096}), "a");
}

TEST(ShapeDispatch, AGridTooLargeIsRefused) {
  json shapes = json::array();
  for (int i = 1; i <= 300; ++i)
    shapes.push_back(shape({i, 1000 + i}, "a"));
  auto parsed = parseTuningTable(table(shapes), "t");
  ASSERT_TRUE(parsed);
  auto dispatch = shapeDispatch(parsed->kernels[0].targets[0], 2);
  ASSERT_FALSE(dispatch);
  EXPECT_NE(dispatch.error().message.find("more than 65536 cells"), std::string::npos);
}

} // namespace
} // namespace tta
