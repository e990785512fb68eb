// The runtime's CPU tests need the fake drivers to be what dlopen("libcuda.so.1") finds. CTest
// sets LD_LIBRARY_PATH; run by hand, the program sets it and runs itself again. Child processes
// (child_process.h) choose their own environment and are left alone.
#include "child_process.h"
#include "fake_driver_handle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char **argv) {
  if (std::getenv("TTA_RUNTIME_CHILD") == nullptr && !tta::test::fakeCudaIsWhatDlopenFinds()) {
    if (std::getenv("TTA_RUNTIME_TESTS_REEXEC") != nullptr) {
      std::fprintf(stderr, "the fake drivers in %s are not found by dlopen\n", TTA_FAKE_DRIVER_DIR);
      return 1;
    }
    std::string path = TTA_FAKE_DRIVER_DIR;
    if (const char *old = std::getenv("LD_LIBRARY_PATH"); old != nullptr && *old != '\0')
      path += std::string(":") + old;
    setenv("LD_LIBRARY_PATH", path.c_str(), 1);
    setenv("TTA_RUNTIME_TESTS_REEXEC", "1", 1);
    execv("/proc/self/exe", argv);
    std::perror("execv");
    return 1;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
