// What the driver reads of a worker's hello beyond checkHello(): the targets a prepared pool's
// zygote warmed the worker up for (docs/frontend-protocol.md, "hello"), said under -v.
#include "compiler/frontend_client.h"

#include <gtest/gtest.h>

namespace tta {
namespace {

TEST(WarmedUpTargets, ShortTargetNamesInTheOrderGiven) {
  EXPECT_EQ(warmedUpTargets({{"event", "hello"}, {"warmed_up", {"cuda:80", "hip:gfx942"}}}),
            "cuda:80, hip:gfx942");
  EXPECT_EQ(warmedUpTargets({{"warmed_up", {"hip:gfx90a:xnack-"}}}), "hip:gfx90a:xnack-");
}

TEST(WarmedUpTargets, NoneWithoutTheField) {
  EXPECT_EQ(warmedUpTargets({{"event", "hello"}}), "");
  EXPECT_EQ(warmedUpTargets({{"warmed_up", nlohmann::json::array()}}), "");
  EXPECT_EQ(warmedUpTargets({{"warmed_up", "cuda:80"}}), "");   // not a list
  EXPECT_EQ(warmedUpTargets(nlohmann::json::array()), "");
}

TEST(WarmedUpTargets, EntriesThatAreNoTargetNameAreLeftOut) {
  const nlohmann::json hello = {
      {"warmed_up",
       {1, nullptr, "", "cuda:80\n\x1b[31mred", std::string(40, 'a'), "cuda:90 ; rm", "cuda:90"}}};
  EXPECT_EQ(warmedUpTargets(hello), "cuda:90");
}

} // namespace
} // namespace tta
