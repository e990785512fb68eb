// The runtime declares the driver APIs itself (no toolkit needed to build); the fakes are built
// from the same declarations, so they cannot catch a wrong number. This compares every number
// and struct layout with the real cuda.h and hip_runtime_api.h that Triton's wheel bundles.
#include "driver_headers_list.h"

#include <gtest/gtest.h>

namespace {

TEST(DriverHeaders, RuntimeDeclarationsMatchTheRealCudaAndHipHeaders) {
  long long ours[256], real[256];
  const char *ourNames[256], *realNames[256];
  int count = tta_driver_facts_ours(ours, ourNames, 256);
  ASSERT_EQ(count, tta_driver_facts_real(real, realNames, 256));
  ASSERT_LE(count, 256);
  for (int i = 0; i < count; ++i) EXPECT_EQ(ours[i], real[i]) << ourNames[i];
}

// Numbers the real header does not name yet must not be ones it gives another name.
TEST(DriverHeaders, NumbersTheRealHeaderLacksAreNotOnesItUses) {
  long long ours[16], firstFree[16];
  const char *ourNames[16], *realNames[16];
  int count = tta_driver_unnamed_facts_ours(ours, ourNames, 16);
  ASSERT_EQ(count, tta_driver_unnamed_facts_real(firstFree, realNames, 16));
  ASSERT_LE(count, 16);
  for (int i = 0; i < count; ++i)
    EXPECT_GE(ours[i], firstFree[i]) << ourNames[i] << ": the real header names it now (move it to "
                                     << "TTA_DRIVER_FACTS) or uses the number for something else";
}

} // namespace
