#include "cuda_driver.h"

#include <dlfcn.h>

#include <utility>

namespace tta::gpu {
namespace {

using GetProcAddressV2 = CUresult (*)(const char *symbol, void **pfn, int version,
                                      std::uint64_t flags, int *status);
using GetProcAddressV1 = CUresult (*)(const char *symbol, void **pfn, int version,
                                      std::uint64_t flags);

// Resolves entry points at the lowest ABI version with the signature declared in CudaDriver
// (cudaTypedefs.h), so a newer driver never binds a different ABI under the same name.
class Resolver {
 public:
  explicit Resolver(void *library) {
    v2_ = reinterpret_cast<GetProcAddressV2>(dlsym(library, "cuGetProcAddress_v2"));
    if (!v2_) v1_ = reinterpret_cast<GetProcAddressV1>(dlsym(library, "cuGetProcAddress"));
  }
  bool usable() const { return v2_ || v1_; }

  template <typename Function>
  bool get(Function *function, const char *symbol, int version, std::string *missing) {
    void *pointer = nullptr;
    CUresult result = v2_ ? v2_(symbol, &pointer, version, 0, nullptr)
                          : v1_(symbol, &pointer, version, 0);
    if (result != CUDA_SUCCESS || !pointer) {
      *missing += std::string(missing->empty() ? "" : ", ") + symbol;
      return false;
    }
    *function = reinterpret_cast<Function>(pointer);
    return true;
  }

 private:
  GetProcAddressV2 v2_ = nullptr;
  GetProcAddressV1 v1_ = nullptr;
};

CudaDriver load() {
  CudaDriver d;
  // Never closed: the driver stays loaded for the life of the process, as in the runtime.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    d.unavailable = std::string("no CUDA driver: cannot load libcuda.so.1 (") +
                    (why ? why : "unknown reason") + ")";
    return d;
  }
  Resolver resolver(library);
  if (!resolver.usable()) {
    d.unavailable = "the CUDA driver is older than 11.3 (no cuGetProcAddress)";
    return d;
  }
  std::string missing;
  resolver.get(&d.cuInit, "cuInit", 2000, &missing);
  resolver.get(&d.cuDriverGetVersion, "cuDriverGetVersion", 2020, &missing);
  resolver.get(&d.cuGetErrorName, "cuGetErrorName", 6000, &missing);
  resolver.get(&d.cuGetErrorString, "cuGetErrorString", 6000, &missing);
  resolver.get(&d.cuDeviceGetCount, "cuDeviceGetCount", 2000, &missing);
  resolver.get(&d.cuDeviceGet, "cuDeviceGet", 2000, &missing);
  resolver.get(&d.cuDeviceGetName, "cuDeviceGetName", 2000, &missing);
  resolver.get(&d.cuDeviceGetAttribute, "cuDeviceGetAttribute", 2000, &missing);
  resolver.get(&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000, &missing);
  resolver.get(&d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000, &missing);
  resolver.get(&d.cuCtxSetCurrent, "cuCtxSetCurrent", 4000, &missing);
  resolver.get(&d.cuCtxGetCurrent, "cuCtxGetCurrent", 4000, &missing);
  resolver.get(&d.cuCtxGetDevice, "cuCtxGetDevice", 2000, &missing);
  resolver.get(&d.cuMemAlloc, "cuMemAlloc", 3020, &missing);
  resolver.get(&d.cuMemFree, "cuMemFree", 3020, &missing);
  resolver.get(&d.cuMemcpyHtoD, "cuMemcpyHtoD", 3020, &missing);
  resolver.get(&d.cuMemcpyDtoH, "cuMemcpyDtoH", 3020, &missing);
  resolver.get(&d.cuMemsetD8, "cuMemsetD8", 3020, &missing);
  resolver.get(&d.cuStreamCreate, "cuStreamCreate", 2000, &missing);
  resolver.get(&d.cuStreamDestroy, "cuStreamDestroy", 4000, &missing);
  resolver.get(&d.cuStreamSynchronize, "cuStreamSynchronize", 2000, &missing);
  resolver.get(&d.cuModuleLoadData, "cuModuleLoadData", 2000, &missing);
  resolver.get(&d.cuModuleLoadDataEx, "cuModuleLoadDataEx", 2010, &missing);
  resolver.get(&d.cuModuleUnload, "cuModuleUnload", 2000, &missing);
  resolver.get(&d.cuModuleGetFunction, "cuModuleGetFunction", 2000, &missing);
  resolver.get(&d.cuFuncSetAttribute, "cuFuncSetAttribute", 9000, &missing);
  resolver.get(&d.cuLaunchKernel, "cuLaunchKernel", 4000, &missing);
  if (!missing.empty()) {
    d.unavailable = "the CUDA driver lacks " + missing;
    return d;
  }
  std::string optional;  // left NULL on drivers before 12.0
  if (!resolver.get(&d.cuCtxGetId, "cuCtxGetId", 12000, &optional))
    d.cuCtxGetId = nullptr;
  if (!resolver.get(&d.cuLibraryLoadData, "cuLibraryLoadData", 12000, &optional) ||
      !resolver.get(&d.cuLibraryGetKernel, "cuLibraryGetKernel", 12000, &optional) ||
      !resolver.get(&d.cuLibraryUnload, "cuLibraryUnload", 12000, &optional))
    d.cuLibraryLoadData = nullptr;
  if (!resolver.get(&d.cuKernelGetFunction, "cuKernelGetFunction", 12000, &optional))
    d.cuKernelGetFunction = nullptr;
  if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    d.unavailable = "cuInit failed: " + d.describe(r);
    return d;
  }
  d.cuDriverGetVersion(&d.driver_version);
  if (CUresult r = d.cuDeviceGetCount(&d.device_count); r != CUDA_SUCCESS) {
    d.unavailable = "cuDeviceGetCount failed: " + d.describe(r);
    return d;
  }
  if (d.device_count == 0) d.unavailable = "the CUDA driver reports no GPU";
  return d;
}

}  // namespace

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName) cuGetErrorName(result, &name);
  if (cuGetErrorString) cuGetErrorString(result, &text);
  if (!name) return "CUresult " + std::to_string(result);
  return std::string(name) + " (" + (text ? text : "") + ")";
}

const CudaDriver &cudaDriver() {
  static const CudaDriver driver = load();
  return driver;
}

std::string queryDevice(int ordinal, DeviceInfo *info) {
  const CudaDriver &d = cudaDriver();
  if (!d.available()) return d.unavailable;
  CUdevice device = 0;
  if (CUresult r = d.cuDeviceGet(&device, ordinal); r != CUDA_SUCCESS)
    return "cuDeviceGet(" + std::to_string(ordinal) + "): " + d.describe(r);
  char name[256] = {};
  if (CUresult r = d.cuDeviceGetName(name, sizeof name, device); r != CUDA_SUCCESS)
    return "cuDeviceGetName: " + d.describe(r);
  info->name = name;
  const std::pair<int, int *> attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info->major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info->minor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info->multiprocessors},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &info->shared_optin}};
  for (const auto &[attribute, value] : attributes)
    if (CUresult r = d.cuDeviceGetAttribute(value, attribute, device); r != CUDA_SUCCESS)
      return "cuDeviceGetAttribute(" + std::to_string(attribute) + "): " + d.describe(r);
  return {};
}

}  // namespace tta::gpu
