// Status names and the thread-local last-error message of the runtime shim.
#include "error.h"
#include "triton_aot/runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(RuntimeErrorTest, StatusNames) {
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_SUCCESS), "TRITON_AOT_SUCCESS");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_NO_DRIVER), "TRITON_AOT_ERROR_NO_DRIVER");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_NO_DEVICE), "TRITON_AOT_ERROR_NO_DEVICE");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_NO_IMAGE), "TRITON_AOT_ERROR_NO_IMAGE");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_LOAD_FAILED),
               "TRITON_AOT_ERROR_LOAD_FAILED");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_LAUNCH_FAILED),
               "TRITON_AOT_ERROR_LAUNCH_FAILED");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_INVALID_ARGUMENT),
               "TRITON_AOT_ERROR_INVALID_ARGUMENT");
  EXPECT_STREQ(triton_aot_status_name(TRITON_AOT_ERROR_OUT_OF_MEMORY),
               "TRITON_AOT_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(triton_aot_status_name(42), "unknown status");
  EXPECT_STREQ(triton_aot_status_name(-1), "unknown status");
}

TEST(RuntimeErrorTest, FailRecordsTheMessageAndReturnsTheStatus) {
  triton_aot_clear_error();
  EXPECT_STREQ(triton_aot_last_error(), "");
  EXPECT_EQ(triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED, "%s failed: %d", "cuLaunchKernel", 7),
            TRITON_AOT_ERROR_LAUNCH_FAILED);
  EXPECT_STREQ(triton_aot_last_error(), "cuLaunchKernel failed: 7");
  triton_aot_clear_error();
  EXPECT_STREQ(triton_aot_last_error(), "");
}

TEST(RuntimeErrorTest, AMessageMayQuoteThePreviousOne) {
  triton_aot_fail(TRITON_AOT_ERROR_NO_DRIVER, "inner");
  triton_aot_fail(TRITON_AOT_ERROR_NO_DRIVER, "outer: %s", triton_aot_last_error());
  EXPECT_STREQ(triton_aot_last_error(), "outer: inner");
}

TEST(RuntimeErrorTest, LongMessagesAreCutAndMarked) {
  std::string longText(3 * TTA_ERROR_MESSAGE_SIZE, 'x');
  triton_aot_fail(TRITON_AOT_ERROR_LOAD_FAILED, "%s", longText.c_str());
  const char *message = triton_aot_last_error();
  ASSERT_EQ(std::strlen(message), static_cast<size_t>(TTA_ERROR_MESSAGE_SIZE - 1));
  EXPECT_STREQ(message + TTA_ERROR_MESSAGE_SIZE - 4, "...");
  char small[8];
  EXPECT_EQ(tta_format(small, sizeof small, "%s", "abcdefghij"), sizeof small - 1);
  EXPECT_STREQ(small, "abcd...");
  EXPECT_EQ(tta_format(small, sizeof small, "%d", 42), 2u);
  EXPECT_STREQ(small, "42");
}

TEST(RuntimeErrorTest, EachThreadHasItsOwnMessage) {
  triton_aot_fail(TRITON_AOT_ERROR_NO_IMAGE, "main thread");
  constexpr int kThreads = 8;
  std::vector<std::string> seen(kThreads), seenAfterClear(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([i, &seen, &seenAfterClear] {
      seenAfterClear[i] = triton_aot_last_error(); // a new thread starts with ""
      for (int round = 0; round < 1000; ++round)
        triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED, "thread %d round %d", i, round);
      seen[i] = triton_aot_last_error();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(seenAfterClear[i], "");
    EXPECT_EQ(seen[i], "thread " + std::to_string(i) + " round 999");
  }
  EXPECT_STREQ(triton_aot_last_error(), "main thread");
}

} // namespace
