/* Host tensor descriptors: the CUtensorMap (TMA descriptor) of a tensordesc parameter, encoded
 * per launch through the dlopen'd driver's cuTensorMapEncodeTiled as Triton's launcher encodes
 * it (driver.c fillTMADescriptorTiled). */
#ifndef TRITON_AOT_TENSOR_MAP_H
#define TRITON_AOT_TENSOR_MAP_H

#include "driver_cuda.h"
#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Encodes `arg` for `map` into `out` (64-byte aligned, caller's storage). Errors name `kernel`
 * and `param`: an innermost stride other than 1 or a bad rank is INVALID_ARGUMENT; a driver
 * without cuTensorMapEncodeTiled is LAUNCH_FAILED; a refusal by the driver (misaligned base,
 * strides not multiples of 16 bytes, a box the shape cannot hold...) is INVALID_ARGUMENT with
 * the driver's error. */
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_encode_tensor_map(const tta_cuda *cuda,
                                                               const triton_aot_tensor_map *map,
                                                               const triton_aot_tensor_arg *arg,
                                                               const char *kernel,
                                                               const char *param, CUtensorMap *out);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_TENSOR_MAP_H */
