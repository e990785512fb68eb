// The control API of a fake driver, taken with dlsym from the handle dlopen gives for its real
// name: the same library the runtime opens (fake_driver.h describes the functions).
#pragma once

#include "fake_driver.h"

#include <string>
#include <vector>

namespace tta::test {

struct FakeDriver {
  void *handle = nullptr;
  tta_fake_reset_fn reset = nullptr;
  tta_fake_set_driver_version_fn setDriverVersion = nullptr;
  tta_fake_set_device_attribute_fn setDeviceAttribute = nullptr;
  tta_fake_set_current_device_fn setCurrentDevice = nullptr;
  tta_fake_create_context_fn createContext = nullptr;
  tta_fake_destroy_context_fn destroyContext = nullptr;
  tta_fake_fail_fn fail = nullptr;
  tta_fake_clear_failures_fn clearFailures = nullptr;
  tta_fake_call_count_fn callCount = nullptr;
  tta_fake_live_modules_fn liveModules = nullptr;
  tta_fake_live_allocations_fn liveAllocations = nullptr;
  tta_fake_misuse_count_fn misuseCount = nullptr;
  tta_fake_first_misuse_fn firstMisuse = nullptr;

  std::vector<tta_fake_load> loads() const;
  std::vector<tta_fake_launch> launches() const;
  std::vector<tta_fake_attribute> attributes() const;
  std::vector<tta_fake_memory> memory() const;
  /// An entry point of the fake itself (cuGetProcAddress_v2, hipModuleLoadData...).
  void *symbol(const char *name) const;

  tta_fake_count_fn loadCount = nullptr, launchCount = nullptr, attributeCount = nullptr,
                    memoryCount = nullptr;
  tta_fake_get_load_fn getLoad = nullptr;
  tta_fake_get_launch_fn getLaunch = nullptr;
  tta_fake_get_attribute_fn getAttribute = nullptr;
  tta_fake_get_memory_fn getMemory = nullptr;
};

/// The fakes behind dlopen("libcuda.so.1") and dlopen("libamdhip64.so"). Aborts with a clear
/// message when the library found is not a fake (LD_LIBRARY_PATH does not name the fakes).
const FakeDriver &fakeCuda();
const FakeDriver &fakeHip();

/// Whether dlopen("libcuda.so.1") finds the fake (false: no library, or a real driver).
bool fakeCudaIsWhatDlopenFinds();

/// The bytes of a file (tests read images to compare with what the fake recorded).
std::vector<unsigned char> readFile(const std::string &path);

/// A value's bytes, for comparing with recorded kernel parameters.
template <typename T> std::vector<unsigned char> bytesOf(const T &value) {
  const auto *p = reinterpret_cast<const unsigned char *>(&value);
  return std::vector<unsigned char>(p, p + sizeof value);
}

/// Parameter `index` of a recorded launch, as bytes.
std::vector<unsigned char> paramBytes(const tta_fake_launch &launch, unsigned index);

} // namespace tta::test
