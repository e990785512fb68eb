// The fixture of the runtime tests: every test starts with the fake drivers reset to the
// devices it names and every test library unloaded, and ends by checking that the runtime
// left nothing loaded or allocated and never misused the driver.
#pragma once

#include "child_process.h"
#include "fake_driver_handle.h"
#include "library_files.h"

#include <rt_heuristics.h>
#include <rt_hopper.h>
#include <rt_kernels.h>
#include <rt_shared.h>
#ifdef TTA_RUNTIME_HAVE_RUBIN
#include <rt_rubin.h>
#endif
#include <triton_aot/runtime.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tta::test {

/// Device pointers as the API takes them: `const void *` with a chosen address.
inline const void *devicePointer(std::uintptr_t address) { return reinterpret_cast<const void *>(address); }
inline void *streamHandle(std::uintptr_t value) { return reinterpret_cast<void *>(value); }

/// Whether an error message contains `part`.
inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Unloads every test library (each must succeed).
void unloadAllLibraries();

class RuntimeTest : public ::testing::Test {
protected:
  const FakeDriver &cuda = fakeCuda();
  const FakeDriver &hip = fakeHip();

  void SetUp() override { useCudaDevices("sm_90"); }
  void TearDown() override;

  /// Unloads every library, then resets the fake CUDA driver to `devices` ("sm_80,sm_90"); no
  /// context is current afterwards on this thread.
  void useCudaDevices(const char *devices);
  /// The same for the fake HIP runtime (device 0 is current).
  void useHipDevices(const char *devices);
  /// Makes `device`'s primary context current on this thread (cudaSetDevice).
  void selectDevice(int device) { ASSERT_EQ(cuda.setCurrentDevice(device), 0); }

  /// The launches / loads recorded so far by the fake CUDA driver.
  std::vector<tta_fake_launch> launches() const { return cuda.launches(); }
  std::vector<tta_fake_load> loads() const { return cuda.loads(); }
  /// The one launch recorded (fails the test unless exactly one).
  tta_fake_launch onlyLaunch(const FakeDriver &driver) const;
  tta_fake_launch onlyLaunch() const { return onlyLaunch(cuda); }
};

/// The message of the last failed call on this thread.
inline std::string lastError() { return rt_kernels_last_error(); }

} // namespace tta::test
