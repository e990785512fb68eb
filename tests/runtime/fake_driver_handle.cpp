#include "fake_driver_handle.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace tta::test {
namespace {

template <typename F> void take(void *handle, const char *library, const char *name, F &out) {
  void *symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "%s has no %s: it is not the fake driver (LD_LIBRARY_PATH must name %s)\n",
                 library, name, TTA_FAKE_DRIVER_DIR);
    std::abort();
  }
  std::memcpy(&out, &symbol, sizeof symbol);
}

FakeDriver open(const char *library) {
  FakeDriver driver;
  driver.handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (driver.handle == nullptr) {
    std::fprintf(stderr, "cannot open the fake %s: %s\n", library, dlerror());
    std::abort();
  }
  take(driver.handle, library, "tta_fake_reset", driver.reset);
  take(driver.handle, library, "tta_fake_set_driver_version", driver.setDriverVersion);
  take(driver.handle, library, "tta_fake_set_device_attribute", driver.setDeviceAttribute);
  take(driver.handle, library, "tta_fake_set_current_device", driver.setCurrentDevice);
  take(driver.handle, library, "tta_fake_create_context", driver.createContext);
  take(driver.handle, library, "tta_fake_destroy_context", driver.destroyContext);
  take(driver.handle, library, "tta_fake_fail", driver.fail);
  take(driver.handle, library, "tta_fake_clear_failures", driver.clearFailures);
  take(driver.handle, library, "tta_fake_call_count", driver.callCount);
  take(driver.handle, library, "tta_fake_live_modules", driver.liveModules);
  take(driver.handle, library, "tta_fake_live_allocations", driver.liveAllocations);
  take(driver.handle, library, "tta_fake_misuse_count", driver.misuseCount);
  take(driver.handle, library, "tta_fake_first_misuse", driver.firstMisuse);
  take(driver.handle, library, "tta_fake_load_count", driver.loadCount);
  take(driver.handle, library, "tta_fake_launch_count", driver.launchCount);
  take(driver.handle, library, "tta_fake_attribute_count", driver.attributeCount);
  take(driver.handle, library, "tta_fake_memory_count", driver.memoryCount);
  take(driver.handle, library, "tta_fake_get_load", driver.getLoad);
  take(driver.handle, library, "tta_fake_get_launch", driver.getLaunch);
  take(driver.handle, library, "tta_fake_get_attribute", driver.getAttribute);
  take(driver.handle, library, "tta_fake_get_memory", driver.getMemory);
  return driver;
}

template <typename Record, typename Count, typename Get>
std::vector<Record> collect(Count count, Get get) {
  std::vector<Record> records(static_cast<std::size_t>(count()));
  for (std::size_t i = 0; i < records.size(); ++i)
    if (get(static_cast<int>(i), &records[i]) != 0) records.resize(i);
  return records;
}

} // namespace

std::vector<tta_fake_load> FakeDriver::loads() const { return collect<tta_fake_load>(loadCount, getLoad); }
std::vector<tta_fake_launch> FakeDriver::launches() const { return collect<tta_fake_launch>(launchCount, getLaunch); }
std::vector<tta_fake_attribute> FakeDriver::attributes() const {
  return collect<tta_fake_attribute>(attributeCount, getAttribute);
}
std::vector<tta_fake_memory> FakeDriver::memory() const { return collect<tta_fake_memory>(memoryCount, getMemory); }

void *FakeDriver::symbol(const char *name) const { return dlsym(handle, name); }

const FakeDriver &fakeCuda() {
  static const FakeDriver driver = open("libcuda.so.1");
  return driver;
}

const FakeDriver &fakeHip() {
  static const FakeDriver driver = open("libamdhip64.so");
  return driver;
}

bool fakeCudaIsWhatDlopenFinds() {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  bool fake = dlsym(handle, "tta_fake_reset") != nullptr;
  dlclose(handle);
  return fake;
}

std::vector<unsigned char> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<unsigned char> paramBytes(const tta_fake_launch &launch, unsigned index) {
  if (index >= launch.param_count || index >= TTA_FAKE_MAX_PARAMS) return {};
  const unsigned char *start = launch.params + launch.param_offset[index];
  return std::vector<unsigned char>(start, start + launch.param_size[index]);
}

} // namespace tta::test
