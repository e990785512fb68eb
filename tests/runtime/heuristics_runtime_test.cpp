// @triton.heuristics at launch, through the fake CUDA driver: the dispatcher computes each
// heuristic from the arguments and launches the variant compiled with those values
// (rt_heuristics.json: scale_rows with BLOCK_N listed as 1024, EVEN_N and HAS_BIAS both ways);
// an integer heuristic's value that no variant has fails before anything launches.
#include "runtime_fixture.h"

#include <set>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x7f0000100000);
const void *kBias = devicePointer(0x7f0000200000);
const void *kOut = devicePointer(0x7f0000300000);

using HeuristicLaunch = RuntimeTest;

/// The image the one launch since the last reset came from.
std::uint64_t launchedImage(const HeuristicLaunch &test, const FakeDriver &cuda) {
  auto all = cuda.launches();
  EXPECT_FALSE(all.empty());
  (void)test;
  return all.empty() ? 0 : all.back().image_hash;
}

TEST_F(HeuristicLaunch, EachCombinationOfBoolValuesLaunchesItsOwnVariant) {
  useCudaDevices("sm_90");
  ASSERT_EQ(rth_scale_rows_config_count(), 1);
  // n_cols 1024 and 1000 both give BLOCK_N 1024; EVEN_N is 1024 % 1024 == 0 / 1000 % 1024 != 0;
  // HAS_BIAS is bias != NULL.
  struct Case { int nCols; const void *bias; };
  const Case cases[] = {{1024, kBias}, {1024, nullptr}, {1000, kBias}, {1000, nullptr}};
  std::vector<std::uint64_t> images;
  for (const Case &c : cases) {
    ASSERT_EQ(rth_scale_rows(nullptr, kX, c.bias, kOut, 3, c.nCols, 2.0f), TRITON_AOT_SUCCESS)
        << rth_last_error();
    images.push_back(launchedImage(*this, cuda));
  }
  ASSERT_EQ(launches().size(), 4u);
  EXPECT_EQ(std::set<std::uint64_t>(images.begin(), images.end()).size(), 4u)
      << "four combinations of EVEN_N and HAS_BIAS, four images";
  for (const auto &launch : launches()) {
    EXPECT_EQ(launch.grid[0], 3u) << "n_rows";
    EXPECT_EQ(launch.param_count, 8u) << "x, bias, y, n_rows, n_cols, scale and two scratch pointers";
  }
  // The same arguments choose the same variant again.
  ASSERT_EQ(rth_scale_rows(nullptr, kX, nullptr, kOut, 3, 1000, 2.0f), TRITON_AOT_SUCCESS);
  EXPECT_EQ(launchedImage(*this, cuda), images[3]);
}

TEST_F(HeuristicLaunch, AnIntegerValueNoVariantHasIsAnInvalidArgument) {
  useCudaDevices("sm_90");
  // n_cols 100: BLOCK_N = min(next_power_of_2(100), 4096) = 128, not compiled.
  EXPECT_EQ(rth_scale_rows(nullptr, kX, kBias, kOut, 3, 100, 2.0f), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  const std::string message = rth_last_error();
  EXPECT_NE(message.find("heuristic BLOCK_N is 128"), std::string::npos) << message;
  EXPECT_NE(message.find("(values: 1024)"), std::string::npos) << message;
  // 5000 columns: 4096, also not compiled.
  EXPECT_EQ(rth_scale_rows(nullptr, kX, kBias, kOut, 3, 5000, 2.0f), TRITON_AOT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(rth_last_error()).find("is 4096"), std::string::npos);
  EXPECT_TRUE(launches().empty());
}

} // namespace
} // namespace tta::test
