// The few CUDA driver API calls the GPU tests and the launch-overhead benchmark make themselves
// (memory, streams, contexts, device facts, and a raw launch to compare with), reached the way
// the runtime reaches them: dlopen("libcuda.so.1") and cuGetProcAddress at pinned ABI versions.
// So the test programs build and start on machines without the driver or its headers, and a
// missing driver is a reason to skip, not a link error.
#ifndef TTA_TESTS_GPU_CUDA_DRIVER_H
#define TTA_TESTS_GPU_CUDA_DRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tta::gpu {

// The driver's types, declared here so no CUDA header is needed (ABI-identical to cuda.h).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUlibrary = struct CUlib_st *;
using CUkernel = struct CUkern_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

struct CudaDriver {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char **name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char **text) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *context) = nullptr;
  CUresult (*cuCtxGetDevice)(CUdevice *device) = nullptr;
  CUresult (*cuCtxGetId)(CUcontext context, unsigned long long *id) = nullptr;   ///< 12.0+
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr ptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t bytes) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned count,
                                 int *options, void **values) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module, const char *name) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void **params,
                             void **extra) = nullptr;
  // CUDA 12.0 and later; NULL with older drivers.
  CUresult (*cuLibraryLoadData)(CUlibrary *library, const void *image, void *jit_options,
                                void **jit_values, unsigned jit_count, void *library_options,
                                void **library_values, unsigned library_count) = nullptr;
  CUresult (*cuLibraryGetKernel)(CUkernel *kernel, CUlibrary library, const char *name) = nullptr;
  CUresult (*cuLibraryUnload)(CUlibrary library) = nullptr;
  CUresult (*cuKernelGetFunction)(CUfunction *function, CUkernel kernel) = nullptr;

  int device_count = 0;
  int driver_version = 0;
  // Empty when the driver is loaded, initialised and has at least one device; else why not.
  std::string unavailable;

  bool available() const { return unavailable.empty(); }
  // "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or "CUresult 999" without the driver's names.
  std::string describe(CUresult result) const;
};

// Loads and initialises the driver on first use (thread-safe); never fails, never exits:
// check available().
const CudaDriver &cudaDriver();

// What the tests print about a device.
struct DeviceInfo {
  std::string name;
  int major = 0;
  int minor = 0;
  int multiprocessors = 0;
  int shared_optin = 0;  // bytes of dynamic shared memory a block may opt in to
};
// Empty string on success, else the failing call and its error.
std::string queryDevice(int ordinal, DeviceInfo *info);

}  // namespace tta::gpu

#endif  // TTA_TESTS_GPU_CUDA_DRIVER_H
