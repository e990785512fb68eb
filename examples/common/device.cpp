#include "device.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace examples {

/// What the examples need from a GPU API; one implementation per backend below.
class Device::Backend {
public:
  virtual ~Backend() = default;
  virtual void *allocate(std::size_t bytes) const = 0;
  virtual void release(void *pointer) const noexcept = 0;
  virtual void upload(void *device, const void *host, std::size_t bytes) const = 0;
  virtual void download(void *host, const void *device, std::size_t bytes) const = 0;
  virtual void synchronize() const = 0;
};

namespace {

/// A symbol of \p library as a function pointer of type F; records the name when missing.
template <class F> void bind(void *library, const char *name, F &function, std::string &missing) {
  void *symbol = dlsym(library, name);
  if (!symbol)
    missing += (missing.empty() ? "" : ", ") + std::string(name);
  function = reinterpret_cast<F>(symbol);
}

std::string dlopenError() {
  const char *why = dlerror();
  return why ? why : "unknown reason";
}

// The driver API's own declarations (ABI-identical to cuda.h); the _v2 entry points are the
// 64-bit ones that cuda.h maps the plain names to.
class Cuda final : public Device::Backend {
public:
  using CUresult = int;
  using CUdevice = int;
  using CUdeviceptr = unsigned long long;
  using CUcontext = struct CUctx_st *;
  static constexpr int kComputeCapabilityMajor = 75; // CU_DEVICE_ATTRIBUTE_...
  static constexpr int kComputeCapabilityMinor = 76;

  /// Opens the driver and makes device 0's primary context current; "" or why not.
  std::string open(std::string &description) {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); // never closed
    if (!library)
      return "no CUDA driver (" + dlopenError() + ")";
    std::string missing;
    bind(library, "cuGetErrorName", cuGetErrorName, missing);
    bind(library, "cuInit", cuInit, missing);
    bind(library, "cuDeviceGetCount", cuDeviceGetCount, missing);
    bind(library, "cuDeviceGet", cuDeviceGet, missing);
    bind(library, "cuDeviceGetName", cuDeviceGetName, missing);
    bind(library, "cuDeviceGetAttribute", cuDeviceGetAttribute, missing);
    bind(library, "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain, missing);
    bind(library, "cuCtxSetCurrent", cuCtxSetCurrent, missing);
    bind(library, "cuCtxSynchronize", cuCtxSynchronize, missing);
    bind(library, "cuMemAlloc_v2", cuMemAlloc, missing);
    bind(library, "cuMemFree_v2", cuMemFree, missing);
    bind(library, "cuMemcpyHtoD_v2", cuMemcpyHtoD, missing);
    bind(library, "cuMemcpyDtoH_v2", cuMemcpyDtoH, missing);
    if (!missing.empty())
      return "the CUDA driver lacks " + missing;
    if (CUresult r = cuInit(0); r != 0)
      return "CUDA driver: cuInit: " + name(r);
    int count = 0;
    if (CUresult r = cuDeviceGetCount(&count); r != 0)
      return "CUDA driver: cuDeviceGetCount: " + name(r);
    if (count == 0)
      return "the CUDA driver reports no GPU";
    CUdevice device = 0;
    char text[256] = {};
    int major = 0, minor = 0;
    CUcontext context = nullptr;
    if (CUresult r = cuDeviceGet(&device, 0); r != 0)
      return "cuDeviceGet: " + name(r);
    if (CUresult r = cuDeviceGetName(text, sizeof text, device); r != 0)
      return "cuDeviceGetName: " + name(r);
    if (CUresult r = cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device); r != 0)
      return "cuDeviceGetAttribute: " + name(r);
    if (CUresult r = cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device); r != 0)
      return "cuDeviceGetAttribute: " + name(r);
    // The primary context: the one the CUDA runtime API and other libraries share.
    if (CUresult r = cuDevicePrimaryCtxRetain(&context, device); r != 0)
      return "cuDevicePrimaryCtxRetain: " + name(r);
    if (CUresult r = cuCtxSetCurrent(context); r != 0)
      return "cuCtxSetCurrent: " + name(r);
    description = std::string(text) + " (CUDA, compute capability " + std::to_string(major) + "." +
                  std::to_string(minor) + ")";
    return "";
  }

  void *allocate(std::size_t bytes) const override {
    CUdeviceptr pointer = 0;
    check(cuMemAlloc(&pointer, bytes), "cuMemAlloc");
    return reinterpret_cast<void *>(static_cast<std::uintptr_t>(pointer));
  }
  void release(void *pointer) const noexcept override { cuMemFree(address(pointer)); }
  void upload(void *device, const void *host, std::size_t bytes) const override {
    check(cuMemcpyHtoD(address(device), host, bytes), "cuMemcpyHtoD");
  }
  void download(void *host, const void *device, std::size_t bytes) const override {
    check(cuMemcpyDtoH(host, address(device), bytes), "cuMemcpyDtoH");
  }
  void synchronize() const override { check(cuCtxSynchronize(), "cuCtxSynchronize"); }

private:
  static CUdeviceptr address(const void *pointer) {
    return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer));
  }
  std::string name(CUresult result) const {
    const char *text = nullptr;
    if (cuGetErrorName && cuGetErrorName(result, &text) == 0 && text)
      return text;
    return "CUresult " + std::to_string(result);
  }
  void check(CUresult result, const char *call) const {
    if (result != 0)
      throw std::runtime_error(std::string(call) + " failed: " + name(result));
  }

  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, std::size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, std::size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, std::size_t) = nullptr;
};

// The HIP runtime API's own declarations (hip_runtime_api.h, ROCm 6 and 7).
class Hip final : public Device::Backend {
public:
  using hipError_t = int;
  static constexpr int kHostToDevice = 1; // hipMemcpyKind
  static constexpr int kDeviceToHost = 2;

  /// Opens the runtime and makes device 0 current; "" or why not.
  std::string open(std::string &description) {
    // The names the triton-aot runtime tries, in its order, so both use one HIP runtime.
    void *library = nullptr;
    for (const char *file : {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"})
      if ((library = dlopen(file, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!library)
      return "no HIP runtime (" + dlopenError() + ")";
    std::string missing;
    bind(library, "hipGetErrorString", hipGetErrorString, missing);
    bind(library, "hipInit", hipInit, missing);
    bind(library, "hipGetDeviceCount", hipGetDeviceCount, missing);
    bind(library, "hipSetDevice", hipSetDevice, missing);
    bind(library, "hipDeviceGetName", hipDeviceGetName, missing);
    bind(library, "hipMalloc", hipMalloc, missing);
    bind(library, "hipFree", hipFree, missing);
    bind(library, "hipMemcpy", hipMemcpy, missing);
    bind(library, "hipDeviceSynchronize", hipDeviceSynchronize, missing);
    if (!missing.empty())
      return "the HIP runtime lacks " + missing;
    if (hipError_t r = hipInit(0); r != 0)
      return "HIP runtime: hipInit: " + text(r);
    int count = 0;
    if (hipError_t r = hipGetDeviceCount(&count); r != 0)
      return "HIP runtime: hipGetDeviceCount: " + text(r);
    if (count == 0)
      return "the HIP runtime reports no GPU";
    if (hipError_t r = hipSetDevice(0); r != 0)
      return "hipSetDevice: " + text(r);
    char name[256] = {};
    if (hipError_t r = hipDeviceGetName(name, sizeof name, 0); r != 0)
      return "hipDeviceGetName: " + text(r);
    description = std::string(name) + " (HIP)";
    return "";
  }

  void *allocate(std::size_t bytes) const override {
    void *pointer = nullptr;
    check(hipMalloc(&pointer, bytes), "hipMalloc");
    return pointer;
  }
  void release(void *pointer) const noexcept override { hipFree(pointer); }
  void upload(void *device, const void *host, std::size_t bytes) const override {
    check(hipMemcpy(device, host, bytes, kHostToDevice), "hipMemcpy");
  }
  void download(void *host, const void *device, std::size_t bytes) const override {
    check(hipMemcpy(host, device, bytes, kDeviceToHost), "hipMemcpy");
  }
  void synchronize() const override { check(hipDeviceSynchronize(), "hipDeviceSynchronize"); }

private:
  std::string text(hipError_t error) const {
    const char *message = hipGetErrorString ? hipGetErrorString(error) : nullptr;
    return message ? message : "hipError_t " + std::to_string(error);
  }
  void check(hipError_t result, const char *call) const {
    if (result != 0)
      throw std::runtime_error(std::string(call) + " failed: " + text(result));
  }

  const char *(*hipGetErrorString)(hipError_t) = nullptr;
  hipError_t (*hipInit)(unsigned) = nullptr;
  hipError_t (*hipGetDeviceCount)(int *) = nullptr;
  hipError_t (*hipSetDevice)(int) = nullptr;
  hipError_t (*hipDeviceGetName)(char *, int, int) = nullptr;
  hipError_t (*hipMalloc)(void **, std::size_t) = nullptr;
  hipError_t (*hipFree)(void *) = nullptr;
  hipError_t (*hipMemcpy)(void *, const void *, std::size_t, int) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
};

} // namespace

Device Device::openOrShowInventory(const char *inventory) {
  setenv("TRITON_AOT_LOG", "1", 0);
  Device device = open();
  if (device.available()) {
    std::printf("device: %s\n", device.description().c_str());
  } else {
    std::printf("no GPU: %s\n", device.why().c_str());
    std::fputs(inventory, stdout);
  }
  return device;
}

Device Device::open() {
  Device device;
  auto cuda = std::make_shared<Cuda>();
  const std::string noCuda = cuda->open(device.description_);
  if (noCuda.empty()) {
    device.backend_ = cuda;
    return device;
  }
  auto hip = std::make_shared<Hip>();
  const std::string noHip = hip->open(device.description_);
  if (noHip.empty()) {
    device.backend_ = hip;
    return device;
  }
  device.why_ = noCuda + "; " + noHip;
  return device;
}

void *Device::allocate(std::size_t bytes) const { return backend_->allocate(bytes); }
void Device::release(void *pointer) const noexcept { backend_->release(pointer); }
void Device::upload(void *device, const void *host, std::size_t bytes) const {
  backend_->upload(device, host, bytes);
}
void Device::download(void *host, const void *device, std::size_t bytes) const {
  backend_->download(host, device, bytes);
}
void Device::synchronize() const { backend_->synchronize(); }

} // namespace examples
