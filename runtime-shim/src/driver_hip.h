/* The HIP runtime, opened once per process: a libamdhip64 already in the process first, else
 * the names in TTA_HIP_LIBRARY_NAMES; entry points through hipGetProcAddress where it exists. */
#ifndef TRITON_AOT_DRIVER_HIP_H
#define TRITON_AOT_DRIVER_HIP_H

#include "hip_api.h"
#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tta_hip {
#define TTA_HIP_MEMBER(name, required) PFN_##name name;
  TTA_HIP_ENTRY_POINTS(TTA_HIP_MEMBER)
#undef TTA_HIP_MEMBER
  PFN_hipGetDevicePropertiesR0600 hipGetDevicePropertiesR0600;
  int runtime_version; /* hipRuntimeGetVersion */
  char library_name[32];
} tta_hip;

/* The runtime, or NULL with this thread's error set (NO_DRIVER: missing or older than ROCm 6;
 * NO_DEVICE: it reports no GPU). The outcome of the first call is kept for the process. */
TRITON_AOT_HIDDEN const tta_hip *tta_hip_driver(triton_aot_status *status);

/* Records "<context>: <what> failed: hipErrorX (text)" and returns `status`. */
TRITON_AOT_HIDDEN triton_aot_status tta_hip_fail(const tta_hip *hip, triton_aot_status status,
                                                 hipError_t result, const char *context,
                                                 const char *what);

TRITON_AOT_HIDDEN void tta_hip_describe(const tta_hip *hip, hipError_t result, char *buffer,
                                        size_t size);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_DRIVER_HIP_H */
