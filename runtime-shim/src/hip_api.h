/* The subset of the HIP runtime API the runtime uses, declared here so that building needs no
 * ROCm. Numbers are those of hip_runtime_api.h (ROCm/HIP c5e11fca, 2024-10, ROCm 6.x; the same
 * in ROCm/rocm-systems 01b49548, ROCm 7); the declarations are our own.
 *
 * Entry points are resolved with hipGetProcAddress(name, &pfn, TTA_HIP_PROC_VERSION, 0, &status)
 * where libamdhip64 exports it, else with dlsym(name). hipGetDevicePropertiesR0600 is always
 * taken with dlsym under that exact name: it is the ABI of the struct layout below, and a HIP
 * runtime without it (before ROCm 6.0) is reported as too old.
 *
 * Stable contract: the fake HIP runtime used by the tests is built from this header. */
#ifndef TRITON_AOT_HIP_API_H
#define TRITON_AOT_HIP_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int hipError_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
typedef int hipDriverProcAddressQueryResult;

/* hipError_t values the runtime tells apart. */
enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorInsufficientDriver = 35,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorSharedObjectInitFailed = 303,
  hipErrorNotFound = 500,
  hipErrorNotSupported = 801,
  hipErrorUnknown = 999
};

/* hipGetProcAddress: "HIP version is defined as 100*version_major + version_minor". */
#define TTA_HIP_PROC_VERSION 600
enum {
  HIP_GET_PROC_ADDRESS_SUCCESS = 0,
  HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
};

/* hipDeviceProp_tR0600, read as bytes: only the fields the runtime uses, at their offsets in
 * the x86-64 / aarch64 LP64 layout of `struct hipDeviceProp_t` (hip_runtime_api.h, where
 * hipDeviceProp_t is #defined to hipDeviceProp_tR0600). The offsets were computed by compiling
 * that struct definition with offsetof(). The runtime passes a buffer of TTA_HIP_DEVICE_PROP_BUFFER
 * bytes (larger than the struct) to hipGetDevicePropertiesR0600. */
enum {
  TTA_HIP_DEVICE_PROP_SIZE = 1472,                          /* sizeof(hipDeviceProp_tR0600) */
  TTA_HIP_DEVICE_PROP_BUFFER = 4096,
  TTA_HIP_PROP_NAME = 0,                                     /* char name[256] */
  TTA_HIP_PROP_SHARED_MEM_PER_BLOCK = 296,                   /* size_t sharedMemPerBlock */
  TTA_HIP_PROP_MAX_GRID_SIZE = 336,                          /* int maxGridSize[3] */
  TTA_HIP_PROP_MULTIPROCESSOR_COUNT = 388,                   /* int multiProcessorCount */
  TTA_HIP_PROP_COOPERATIVE_LAUNCH = 688,                     /* int cooperativeLaunch */
  TTA_HIP_PROP_SHARED_MEM_PER_BLOCK_OPTIN = 696,             /* size_t sharedMemPerBlockOptin */
  TTA_HIP_PROP_MEMORY_POOLS_SUPPORTED = 744,                 /* int memoryPoolsSupported */
  TTA_HIP_PROP_GCN_ARCH_NAME = 1160                          /* char gcnArchName[256], "gfx90a:sramecc+:xnack-" */
};

typedef hipError_t (*PFN_hipGetProcAddress)(const char *symbol, void **pfn, int hipVersion,
                                            uint64_t flags,
                                            hipDriverProcAddressQueryResult *symbolStatus);
typedef hipError_t (*PFN_hipRuntimeGetVersion)(int *runtimeVersion);
typedef hipError_t (*PFN_hipGetDeviceCount)(int *count);
typedef hipError_t (*PFN_hipGetDevice)(int *deviceId);
typedef hipError_t (*PFN_hipGetDevicePropertiesR0600)(void *prop, int deviceId);
typedef hipError_t (*PFN_hipModuleLoadData)(hipModule_t *module, const void *image);
typedef hipError_t (*PFN_hipModuleGetFunction)(hipFunction_t *function, hipModule_t module,
                                               const char *kname);
typedef hipError_t (*PFN_hipModuleUnload)(hipModule_t module);
typedef hipError_t (*PFN_hipModuleLaunchKernel)(hipFunction_t f, unsigned int gridDimX,
                                                unsigned int gridDimY, unsigned int gridDimZ,
                                                unsigned int blockDimX, unsigned int blockDimY,
                                                unsigned int blockDimZ,
                                                unsigned int sharedMemBytes, hipStream_t stream,
                                                void **kernelParams, void **extra);
typedef hipError_t (*PFN_hipModuleLaunchCooperativeKernel)(
    hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
    unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
    unsigned int sharedMemBytes, hipStream_t stream, void **kernelParams);
typedef hipError_t (*PFN_hipMallocAsync)(void **dev_ptr, size_t size, hipStream_t stream);
typedef hipError_t (*PFN_hipFreeAsync)(void *dev_ptr, hipStream_t stream);
/* These two return the text, not an error code. */
typedef const char *(*PFN_hipGetErrorName)(hipError_t error);
typedef const char *(*PFN_hipGetErrorString)(hipError_t error);

/* X(name, required). A missing optional one switches its feature off (cooperative launches;
 * the default scratch allocator). hipGetDevicePropertiesR0600 is looked up separately (above). */
#define TTA_HIP_ENTRY_POINTS(X)                 \
  X(hipRuntimeGetVersion, 1)                    \
  X(hipGetDeviceCount, 1)                       \
  X(hipGetDevice, 1)                            \
  X(hipModuleLoadData, 1)                       \
  X(hipModuleGetFunction, 1)                    \
  X(hipModuleUnload, 1)                         \
  X(hipModuleLaunchKernel, 1)                   \
  X(hipGetErrorName, 1)                         \
  X(hipGetErrorString, 1)                       \
  X(hipModuleLaunchCooperativeKernel, 0)        \
  X(hipMallocAsync, 0)                          \
  X(hipFreeAsync, 0)

/* Names tried by dlopen, in order, after RTLD_NOLOAD of each (a HIP runtime the process already
 * has is reused, never a second copy). */
#define TTA_HIP_LIBRARY_NAMES { "libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6" }

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_HIP_API_H */
