/* The subset of the CUDA driver API the runtime uses, declared here so that building needs no
 * CUDA toolkit. Numbers and struct layouts are those of cuda.h (CUDA 13.0); the declarations are
 * our own. Every entry point except cuGetProcAddress is resolved through cuGetProcAddress at the
 * version listed in TTA_CUDA_ENTRY_POINTS (the lowest with the ABI the runtime calls).
 *
 * Stable contract: the fake driver used by the tests is built from this header. */
#ifndef TRITON_AOT_CUDA_API_H
#define TRITON_AOT_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUjit_option;
typedef int CUlibraryOption;
typedef int CUdriverProcAddressQueryResult;

/* CUresult values the runtime tells apart. */
enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
  CUDA_ERROR_UNKNOWN = 999
};

/* CUdevice_attribute */
enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
  CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
  /* Rubin (CC 10.7): the per-block maximum with oversized shared memory. This and the other
   * "oversized" names below are in no cuda.h up to CUDA 13.1 (the 13.0 toolkit's, Triton 3.9's
   * wheel's 13.1), only in later ones; the values are those Triton 3.9's launcher defines for
   * itself (backends/nvidia/driver.c). */
  CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK = 150
};

/* CUfunction_attribute */
enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
  CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE = 17 /* after CUDA 13.1, as CU_DEVICE_..._OVERSIZED_... */
};

/* CUsharedMemoryMode (after CUDA 13.1): a block may use more than 228 KiB (L1 shrinks to
 * 8 KiB). */
enum {
  CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY = 3
};

/* CUjit_option (error log of a failed load or PTX JIT) */
enum {
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

/* CUlibraryOption */
enum {
  CU_LIBRARY_BINARY_IS_PRESERVED = 1
};

/* cuGetProcAddress flags and symbolStatus values */
enum {
  CU_GET_PROC_ADDRESS_DEFAULT = 0
};
enum {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2
};

/* CUlaunchAttributeID */
enum {
  CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
  CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
  CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE = 18 /* after CUDA 13.1 */
};

/* CUclusterSchedulingPolicy */
enum {
  CU_CLUSTER_SCHEDULING_POLICY_DEFAULT = 0,
  CU_CLUSTER_SCHEDULING_POLICY_SPREAD = 1
};

/* CUlaunchAttributeValue: a 64-byte union; only the members the runtime writes. */
typedef union CUlaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  int clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
  int sharedMemoryMode; /* after CUDA 13.1; Triton's launcher writes the value at offset 0 too */
} CUlaunchAttributeValue;

/* CUlaunchAttribute: 4-byte id, 4 bytes of padding, the 64-byte value (72 bytes). */
typedef struct CUlaunchAttribute {
  int id;
  char pad[4];
  CUlaunchAttributeValue value;
} CUlaunchAttribute;

/* CUlaunchConfig (56 bytes on LP64: hStream at offset 32, attrs at 40, numAttrs at 48). */
typedef struct CUlaunchConfig {
  unsigned int gridDimX;
  unsigned int gridDimY;
  unsigned int gridDimZ;
  unsigned int blockDimX;
  unsigned int blockDimY;
  unsigned int blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned int numAttrs;
} CUlaunchConfig;

/* CUtensorMap: the 128-byte TMA descriptor cuTensorMapEncodeTiled writes (cuda.h aligns it to
 * 128 bytes; the driver needs at least 64). */
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
#define CU_TENSOR_MAP_NUM_QWORDS 16
typedef struct CUtensorMap_st {
#if defined(__cplusplus)
  alignas(128)
#else
  _Alignas(128)
#endif
  cuuint64_t opaque[CU_TENSOR_MAP_NUM_QWORDS];
} CUtensorMap;
typedef int CUtensorMapDataType;
typedef int CUtensorMapInterleave;
typedef int CUtensorMapSwizzle;
typedef int CUtensorMapL2promotion;
typedef int CUtensorMapFloatOOBfill;
enum {
  CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6,
  CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7,
  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9,
  CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 = 11
};
enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 };
enum {
  CU_TENSOR_MAP_SWIZZLE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_32B = 1,
  CU_TENSOR_MAP_SWIZZLE_64B = 2,
  CU_TENSOR_MAP_SWIZZLE_128B = 3
};
enum { CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2 };
enum {
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1
};

/* Function pointer types, one per entry point (signatures as in cuda.h for the pinned version). */
typedef CUresult (*PFN_cuGetProcAddress_v2)(const char *symbol, void **pfn, int cudaVersion,
                                            uint64_t flags,
                                            CUdriverProcAddressQueryResult *symbolStatus);
typedef CUresult (*PFN_cuGetProcAddress_v1)(const char *symbol, void **pfn, int cudaVersion,
                                            uint64_t flags);
typedef CUresult (*PFN_cuInit)(unsigned int flags);
typedef CUresult (*PFN_cuDriverGetVersion)(int *driverVersion);
typedef CUresult (*PFN_cuDeviceGet)(CUdevice *device, int ordinal);
typedef CUresult (*PFN_cuDeviceGetCount)(int *count);
typedef CUresult (*PFN_cuDeviceGetAttribute)(int *pi, CUdevice_attribute attrib, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetName)(char *name, int len, CUdevice dev);
typedef CUresult (*PFN_cuCtxGetCurrent)(CUcontext *pctx);
typedef CUresult (*PFN_cuCtxSetCurrent)(CUcontext ctx);
typedef CUresult (*PFN_cuCtxGetDevice)(CUdevice *device); /* v1: the current context's device */
typedef CUresult (*PFN_cuCtxGetId)(CUcontext ctx, unsigned long long *ctxId);
typedef CUresult (*PFN_cuDevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
typedef CUresult (*PFN_cuLibraryLoadData)(CUlibrary *library, const void *code,
                                          CUjit_option *jitOptions, void **jitOptionsValues,
                                          unsigned int numJitOptions,
                                          CUlibraryOption *libraryOptions,
                                          void **libraryOptionValues,
                                          unsigned int numLibraryOptions);
typedef CUresult (*PFN_cuLibraryGetKernel)(CUkernel *pKernel, CUlibrary library, const char *name);
typedef CUresult (*PFN_cuLibraryUnload)(CUlibrary library);
typedef CUresult (*PFN_cuKernelSetAttribute)(CUfunction_attribute attrib, int val, CUkernel kernel,
                                             CUdevice dev);
typedef CUresult (*PFN_cuKernelGetFunction)(CUfunction *pFunc, CUkernel kernel);
typedef CUresult (*PFN_cuKernelGetAttribute)(int *pi, CUfunction_attribute attrib, CUkernel kernel,
                                             CUdevice dev);
typedef CUresult (*PFN_cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                           unsigned int numOptions, CUjit_option *options,
                                           void **optionValues);
typedef CUresult (*PFN_cuModuleGetFunction)(CUfunction *hfunc, CUmodule hmod, const char *name);
typedef CUresult (*PFN_cuModuleUnload)(CUmodule hmod);
typedef CUresult (*PFN_cuFuncSetAttribute)(CUfunction hfunc, CUfunction_attribute attrib, int value);
typedef CUresult (*PFN_cuFuncGetAttribute)(int *pi, CUfunction_attribute attrib, CUfunction hfunc);
typedef CUresult (*PFN_cuLaunchKernel)(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX,
                                       unsigned int blockDimY, unsigned int blockDimZ,
                                       unsigned int sharedMemBytes, CUstream hStream,
                                       void **kernelParams, void **extra);
typedef CUresult (*PFN_cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction f,
                                         void **kernelParams, void **extra);
typedef CUresult (*PFN_cuMemAllocAsync)(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
typedef CUresult (*PFN_cuMemFreeAsync)(CUdeviceptr dptr, CUstream hStream);
typedef CUresult (*PFN_cuTensorMapEncodeTiled)(
    CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
    void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
    const cuuint32_t *boxDim, const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill);
typedef CUresult (*PFN_cuGetErrorName)(CUresult error, const char **pStr);
typedef CUresult (*PFN_cuGetErrorString)(CUresult error, const char **pStr);

/* X(name, version requested from cuGetProcAddress, required): the driver is unusable without a
 * required entry point (every driver with cuGetProcAddress has them all); a missing optional
 * one switches its feature off (cuLaunchKernelEx: no cluster / PDL / cooperative launches;
 * cuMemAllocAsync / cuMemFreeAsync: the default scratch allocator fails; cuCtxGetId: contexts
 * are told apart by their address, which a destroyed context's successor may reuse;
 * cuTensorMapEncodeTiled: a kernel with host tensor descriptor parameters fails to launch;
 * cuGetErrorName / cuGetErrorString: errors give the CUresult's number only).
 * cuGetProcAddress itself is found with dlsym: "cuGetProcAddress_v2" (CUDA 12.0+ drivers),
 * else "cuGetProcAddress" (11.3 - 11.8, the v1 signature without symbolStatus).
 *
 * Two lists, because each entry point costs a first launch about half a microsecond to find:
 * those of a first launch in a process whose driver is initialised, resolved when the driver is
 * opened (a missing required one fails the open), and the rest, resolved the first time one is
 * needed (tta_cuda_resolve_deferred: cuInit when nothing initialised the driver, the device's
 * name when a message or log line names it), whose users check for NULL (a missing required one
 * fails that call, NO_DRIVER naming it). */
#define TTA_CUDA_LAUNCH_ENTRY_POINTS(X)       \
  X(cuCtxGetId, 12000, 0)                     \
  X(cuLaunchKernel, 4000, 1)                  \
  X(cuCtxGetCurrent, 4000, 1)                 \
  X(cuDeviceGetAttribute, 2000, 1)            \
  X(cuCtxGetDevice, 2000, 1)                  \
  X(cuModuleLoadDataEx, 2010, 1)              \
  X(cuModuleGetFunction, 2000, 1)

#define TTA_CUDA_DEFERRED_ENTRY_POINTS(X)     \
  X(cuInit, 2000, 1)                          \
  X(cuDeviceGetName, 2000, 1)                 \
  X(cuDeviceGet, 2000, 1)                     \
  X(cuCtxSetCurrent, 4000, 1)                 \
  X(cuDevicePrimaryCtxRetain, 7000, 1)        \
  X(cuModuleUnload, 2000, 1)                  \
  X(cuFuncSetAttribute, 9000, 1)              \
  X(cuFuncGetAttribute, 2020, 1)              \
  X(cuDriverGetVersion, 2020, 0)              \
  X(cuGetErrorName, 6000, 0)                  \
  X(cuGetErrorString, 6000, 0)                \
  X(cuLaunchKernelEx, 11060, 0)               \
  X(cuMemAllocAsync, 11020, 0)                \
  X(cuMemFreeAsync, 11020, 0)                 \
  X(cuTensorMapEncodeTiled, 12000, 0)

#define TTA_CUDA_ENTRY_POINTS(X) TTA_CUDA_LAUNCH_ENTRY_POINTS(X) TTA_CUDA_DEFERRED_ENTRY_POINTS(X)

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_CUDA_API_H */
