// A config not built for a target (archs=90a in a library for cuda:80 and cuda:90a): on an
// sm_80 device its launch returns TRITON_AOT_ERROR_NO_IMAGE naming config, target and device,
// preloading skips it, and the other config runs; on sm_90 both run. A config refused on
// every target (archs=100a), declared second, is still in the library in its place, and refused
// on every device.
#include "runtime_fixture.h"

#include <rt_per_target.h>

#include <string>

namespace tta::test {
namespace {

const void *kX = devicePointer(0x10000);
const void *kY = devicePointer(0x20000);
const void *kOut = devicePointer(0x30000);

class PerTargetConfigs : public RuntimeTest {
protected:
  void TearDown() override {
    EXPECT_EQ(ptg_unload(), TRITON_AOT_SUCCESS) << ptg_last_error();
    RuntimeTest::TearDown();
  }
};

TEST_F(PerTargetConfigs, TheRefusedConfigSaysWhyAndTheOthersRun) {
  useCudaDevices("sm_80,sm_90");
  selectDevice(0);
  EXPECT_EQ(ptg_preload(), TRITON_AOT_SUCCESS) << ptg_last_error();
  EXPECT_EQ(ptg_vector_add_config(nullptr, ptg_vector_add_CONFIG_anywhere, kX, kY, kOut, 4096),
            TRITON_AOT_SUCCESS)
      << ptg_last_error();
  EXPECT_EQ(ptg_vector_add_config(nullptr, ptg_vector_add_CONFIG_hopper, kX, kY, kOut, 4096),
            TRITON_AOT_ERROR_NO_IMAGE);
  const std::string message = ptg_last_error();
  EXPECT_NE(message.find("config hopper is not built for cuda:80: the config is limited to "
                         "archs=90a"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("sm_80"), std::string::npos) << "names the device: " << message;
  EXPECT_EQ(launches().size(), 1u);

  selectDevice(1);
  EXPECT_EQ(ptg_vector_add_config(nullptr, ptg_vector_add_CONFIG_hopper, kX, kY, kOut, 4096),
            TRITON_AOT_SUCCESS)
      << ptg_last_error();
  EXPECT_EQ(ptg_vector_add(nullptr, kX, kY, kOut, 4096), TRITON_AOT_SUCCESS) << ptg_last_error();
  EXPECT_EQ(launches().size(), 3u);
}

TEST_F(PerTargetConfigs, AConfigRefusedOnEveryTargetIsRefusedOnEveryDevice) {
  useCudaDevices("sm_80,sm_90");
  EXPECT_EQ(ptg_vector_add_config_count(), 3u);
  // Declaration order, whichever targets built each config.
  EXPECT_EQ(ptg_vector_add_CONFIG_anywhere, 0);
  EXPECT_EQ(ptg_vector_add_CONFIG_blackwell, 1);
  EXPECT_EQ(ptg_vector_add_CONFIG_hopper, 2);
  EXPECT_STREQ(ptg_vector_add_config_name(1), "blackwell");
  for (int device : {0, 1}) {
    selectDevice(device);
    EXPECT_EQ(ptg_preload(), TRITON_AOT_SUCCESS) << ptg_last_error();
    EXPECT_EQ(ptg_vector_add_config(nullptr, ptg_vector_add_CONFIG_blackwell, kX, kY, kOut, 4096),
              TRITON_AOT_ERROR_NO_IMAGE);
    const std::string target = device == 0 ? "cuda:80" : "cuda:90a";
    const std::string message = ptg_last_error();
    EXPECT_NE(message.find("config blackwell is not built for " + target +
                           ": the config is limited to archs=100a"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(device == 0 ? "sm_80" : "sm_90"), std::string::npos)
        << "names the device: " << message;
  }
  EXPECT_TRUE(launches().empty());
}

} // namespace
} // namespace tta::test
