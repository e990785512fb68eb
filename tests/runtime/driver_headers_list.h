/* Every number and struct layout the runtime's own driver declarations (cuda_api.h, hip_api.h)
 * share with the real headers: X(what, value in ours, value in the real header). Compiled once
 * against each side (driver_headers_ours.c, driver_headers_real.c); the test compares. */
#define TTA_DRIVER_FACTS(X)                                                                       \
  X("CUDA_ERROR_INVALID_VALUE", CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE)               \
  X("CUDA_ERROR_OUT_OF_MEMORY", CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY)               \
  X("CUDA_ERROR_NOT_INITIALIZED", CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED)         \
  X("CUDA_ERROR_STUB_LIBRARY", CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY)                  \
  X("CUDA_ERROR_NO_DEVICE", CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE)                           \
  X("CUDA_ERROR_INVALID_DEVICE", CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE)            \
  X("CUDA_ERROR_INVALID_IMAGE", CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_INVALID_IMAGE)               \
  X("CUDA_ERROR_INVALID_CONTEXT", CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT)         \
  X("CUDA_ERROR_NO_BINARY_FOR_GPU", CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU)   \
  X("CUDA_ERROR_INVALID_PTX", CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_PTX)                     \
  X("CUDA_ERROR_UNSUPPORTED_PTX_VERSION", CUDA_ERROR_UNSUPPORTED_PTX_VERSION,                     \
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION)                                                           \
  X("CUDA_ERROR_INVALID_HANDLE", CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_HANDLE)            \
  X("CUDA_ERROR_NOT_FOUND", CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND)                           \
  X("CUDA_ERROR_NOT_SUPPORTED", CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED)               \
  X("CUDA_ERROR_INVALID_CLUSTER_SIZE", CUDA_ERROR_INVALID_CLUSTER_SIZE,                           \
    CUDA_ERROR_INVALID_CLUSTER_SIZE)                                                              \
  X("CUDA_ERROR_UNKNOWN", CUDA_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN)                                 \
  X("CU_TENSOR_MAP_DATA_TYPE_UINT8", CU_TENSOR_MAP_DATA_TYPE_UINT8, CU_TENSOR_MAP_DATA_TYPE_UINT8) \
  X("CU_TENSOR_MAP_DATA_TYPE_FLOAT16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16) \
  X("CU_TENSOR_MAP_DATA_TYPE_FLOAT32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32) \
  X("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16) \
  X("CU_TENSOR_MAP_DATA_TYPE_TFLOAT32", CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32) \
  X("CU_TENSOR_MAP_INTERLEAVE_NONE", CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_INTERLEAVE_NONE) \
  X("CU_TENSOR_MAP_SWIZZLE_NONE", CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE) \
  X("CU_TENSOR_MAP_SWIZZLE_32B", CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_32B) \
  X("CU_TENSOR_MAP_SWIZZLE_64B", CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_64B) \
  X("CU_TENSOR_MAP_SWIZZLE_128B", CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B) \
  X("CU_TENSOR_MAP_L2_PROMOTION_L2_128B", CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B) \
  X("CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE", CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) \
  X("CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA", CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) \
  X("CU_TENSOR_MAP_NUM_QWORDS", CU_TENSOR_MAP_NUM_QWORDS, CU_TENSOR_MAP_NUM_QWORDS) \
  X("sizeof(CUtensorMap)", sizeof(CUtensorMap), sizeof(CUtensorMap)) \
  X("_Alignof(CUtensorMap)", _Alignof(CUtensorMap), _Alignof(CUtensorMap)) \
  X("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,       \
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)                                                    \
  X("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,                     \
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)                                                           \
  X("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,                     \
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)                                                           \
  X("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,                     \
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)                                                           \
  X("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK",                                            \
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,                                              \
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)                                              \
  X("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,         \
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)                                                     \
  X("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",                                               \
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)   \
  X("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",                                               \
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)   \
  X("CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH", CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,             \
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)                                                       \
  X("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",                                      \
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,                                        \
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)                                        \
  X("CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED", CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,     \
    CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)                                                   \
  X("CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH", CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,                     \
    CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)                                                           \
  X("CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,           \
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)                                                      \
  X("CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,                   \
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)                                                          \
  X("CU_FUNC_ATTRIBUTE_NUM_REGS", CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_NUM_REGS)         \
  X("CU_FUNC_ATTRIBUTE_PTX_VERSION", CU_FUNC_ATTRIBUTE_PTX_VERSION, CU_FUNC_ATTRIBUTE_PTX_VERSION) \
  X("CU_FUNC_ATTRIBUTE_BINARY_VERSION", CU_FUNC_ATTRIBUTE_BINARY_VERSION,                         \
    CU_FUNC_ATTRIBUTE_BINARY_VERSION)                                                             \
  X("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",                                            \
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,                                              \
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)                                              \
  X("CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED",                                        \
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,                                          \
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)                                          \
  X("CU_JIT_ERROR_LOG_BUFFER", CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER)                  \
  X("CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES", CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,                     \
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)                                                           \
  X("CU_LIBRARY_BINARY_IS_PRESERVED", CU_LIBRARY_BINARY_IS_PRESERVED,                             \
    CU_LIBRARY_BINARY_IS_PRESERVED)                                                               \
  X("CU_GET_PROC_ADDRESS_SUCCESS", CU_GET_PROC_ADDRESS_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS)      \
  X("CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND", CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,                 \
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)                                                         \
  X("CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT", CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,     \
    CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)                                                   \
  X("CU_LAUNCH_ATTRIBUTE_COOPERATIVE", CU_LAUNCH_ATTRIBUTE_COOPERATIVE,                           \
    CU_LAUNCH_ATTRIBUTE_COOPERATIVE)                                                              \
  X("CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,               \
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)                                                        \
  X("CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE",                                   \
    CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,                                     \
    CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)                                     \
  X("CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION",                                      \
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,                                        \
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)                                        \
  X("CU_CLUSTER_SCHEDULING_POLICY_SPREAD", CU_CLUSTER_SCHEDULING_POLICY_SPREAD,                   \
    CU_CLUSTER_SCHEDULING_POLICY_SPREAD)                                                          \
  X("sizeof(CUlaunchAttributeValue)", sizeof(CUlaunchAttributeValue),                             \
    sizeof(CUlaunchAttributeValue))                                                               \
  X("sizeof(CUlaunchAttribute)", sizeof(CUlaunchAttribute), sizeof(CUlaunchAttribute))            \
  X("offsetof(CUlaunchAttribute, value)", offsetof(CUlaunchAttribute, value),                     \
    offsetof(CUlaunchAttribute, value))                                                           \
  X("offsetof(CUlaunchAttributeValue, clusterDim.y)", offsetof(CUlaunchAttributeValue, clusterDim.y), \
    offsetof(CUlaunchAttributeValue, clusterDim.y))                                               \
  X("sizeof(CUlaunchConfig)", sizeof(CUlaunchConfig), sizeof(CUlaunchConfig))                     \
  X("offsetof(CUlaunchConfig, sharedMemBytes)", offsetof(CUlaunchConfig, sharedMemBytes),         \
    offsetof(CUlaunchConfig, sharedMemBytes))                                                     \
  X("offsetof(CUlaunchConfig, hStream)", offsetof(CUlaunchConfig, hStream),                       \
    offsetof(CUlaunchConfig, hStream))                                                            \
  X("offsetof(CUlaunchConfig, attrs)", offsetof(CUlaunchConfig, attrs),                           \
    offsetof(CUlaunchConfig, attrs))                                                              \
  X("offsetof(CUlaunchConfig, numAttrs)", offsetof(CUlaunchConfig, numAttrs),                     \
    offsetof(CUlaunchConfig, numAttrs))                                                           \
  X("sizeof(CUdeviceptr)", sizeof(CUdeviceptr), sizeof(CUdeviceptr))                              \
  X("hipErrorInvalidValue", hipErrorInvalidValue, hipErrorInvalidValue)                           \
  X("hipErrorOutOfMemory", hipErrorOutOfMemory, hipErrorOutOfMemory)                              \
  X("hipErrorNotInitialized", hipErrorNotInitialized, hipErrorNotInitialized)                     \
  X("hipErrorInsufficientDriver", hipErrorInsufficientDriver, hipErrorInsufficientDriver)         \
  X("hipErrorNoDevice", hipErrorNoDevice, hipErrorNoDevice)                                       \
  X("hipErrorInvalidDevice", hipErrorInvalidDevice, hipErrorInvalidDevice)                        \
  X("hipErrorInvalidImage", hipErrorInvalidImage, hipErrorInvalidImage)                           \
  X("hipErrorNoBinaryForGpu", hipErrorNoBinaryForGpu, hipErrorNoBinaryForGpu)                     \
  X("hipErrorSharedObjectInitFailed", hipErrorSharedObjectInitFailed,                             \
    hipErrorSharedObjectInitFailed)                                                               \
  X("hipErrorNotFound", hipErrorNotFound, hipErrorNotFound)                                       \
  X("hipErrorNotSupported", hipErrorNotSupported, hipErrorNotSupported)                           \
  X("hipErrorUnknown", hipErrorUnknown, hipErrorUnknown)                                          \
  X("HIP_GET_PROC_ADDRESS_SUCCESS", HIP_GET_PROC_ADDRESS_SUCCESS, HIP_GET_PROC_ADDRESS_SUCCESS)   \
  X("HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND", HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,               \
    HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)                                                        \
  X("HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT", HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,   \
    HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)                                                  \
  X("sizeof(hipDeviceProp_tR0600)", TTA_HIP_DEVICE_PROP_SIZE, sizeof(hipDeviceProp_tR0600))       \
  X("offsetof(hipDeviceProp_tR0600, name)", TTA_HIP_PROP_NAME,                                    \
    offsetof(hipDeviceProp_tR0600, name))                                                         \
  X("offsetof(hipDeviceProp_tR0600, sharedMemPerBlock)", TTA_HIP_PROP_SHARED_MEM_PER_BLOCK,       \
    offsetof(hipDeviceProp_tR0600, sharedMemPerBlock))                                            \
  X("offsetof(hipDeviceProp_tR0600, maxGridSize)", TTA_HIP_PROP_MAX_GRID_SIZE,                    \
    offsetof(hipDeviceProp_tR0600, maxGridSize))                                                  \
  X("offsetof(hipDeviceProp_tR0600, multiProcessorCount)", TTA_HIP_PROP_MULTIPROCESSOR_COUNT,     \
    offsetof(hipDeviceProp_tR0600, multiProcessorCount))                                          \
  X("offsetof(hipDeviceProp_tR0600, cooperativeLaunch)", TTA_HIP_PROP_COOPERATIVE_LAUNCH,         \
    offsetof(hipDeviceProp_tR0600, cooperativeLaunch))                                            \
  X("offsetof(hipDeviceProp_tR0600, sharedMemPerBlockOptin)",                                     \
    TTA_HIP_PROP_SHARED_MEM_PER_BLOCK_OPTIN, offsetof(hipDeviceProp_tR0600, sharedMemPerBlockOptin)) \
  X("offsetof(hipDeviceProp_tR0600, memoryPoolsSupported)", TTA_HIP_PROP_MEMORY_POOLS_SUPPORTED,  \
    offsetof(hipDeviceProp_tR0600, memoryPoolsSupported))                                         \
  X("offsetof(hipDeviceProp_tR0600, gcnArchName)", TTA_HIP_PROP_GCN_ARCH_NAME,                    \
    offsetof(hipDeviceProp_tR0600, gcnArchName))

/* Numbers the runtime uses that the real header does not name yet: Rubin's oversized shared
 * memory (Triton 3.9's own values; no cuda.h up to CUDA 13.1 has them, neither the 13.0
 * toolkit's nor the 13.1 of Triton 3.9's wheel). X(what, value in ours, the header's *_MAX, the
 * first value it leaves free): ours must not be below it, so no name of that header uses the
 * number. A header that names them fails this; they then move to TTA_DRIVER_FACTS.
 * CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE (18) is not here: cuda.h declares
 * CU_LAUNCH_ATTRIBUTE_MAX only for its own build (the highest public name is 16 in 13.1). */
#define TTA_DRIVER_UNNAMED_FACTS(X)                                                               \
  X("CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK",                                  \
    CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX)           \
  X("CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE", CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE,                 \
    CU_FUNC_ATTRIBUTE_MAX)

/* Fills values[i] with fact i (in list order); returns the number of facts. */
#ifdef __cplusplus
extern "C" {
#endif
int tta_driver_facts_ours(long long *values, const char **names, int capacity);
int tta_driver_facts_real(long long *values, const char **names, int capacity);
/* The same for TTA_DRIVER_UNNAMED_FACTS. */
int tta_driver_unnamed_facts_ours(long long *values, const char **names, int capacity);
int tta_driver_unnamed_facts_real(long long *values, const char **names, int capacity);
#ifdef __cplusplus
}
#endif
