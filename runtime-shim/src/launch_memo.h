/* The launch path's shortcut to a slot's loaded function (launch_memo.c). */
#ifndef TRITON_AOT_LAUNCH_MEMO_H
#define TRITON_AOT_LAUNCH_MEMO_H

#include "library_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a launch needs to know about where it goes. */
typedef struct tta_found {
  tta_library_state *state;
  const tta_device *device;
  void *function;                        /* CUfunction or hipFunction_t */
  const triton_aot_function *descriptor; /* the variant's function for the chosen target */
  /* CUDA, no cluster, no launch flags, no scratch, no tensor descriptors, no oversized shared
   * memory: cuLaunchKernel with the grid as given (launch.c's short path). */
  int plain;
} tta_found;

/* The loaded function of variant `variant` of kernel `kernel_index` for the calling thread's
 * context (CUDA) or device (HIP), loading it on first use. Both indices are in range. */
TRITON_AOT_HIDDEN triton_aot_status tta_find_function(const triton_aot_library *library,
                                                      uint32_t kernel_index, uint32_t variant,
                                                      tta_found *found);

/* The calling thread's device record (triton_aot_kernel_target, once per tuned launch): the
 * last one this thread found for the state and context, else the full lookup. */
TRITON_AOT_HIDDEN triton_aot_status tta_find_device(const triton_aot_library *library,
                                                    const tta_device **device);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_LAUNCH_MEMO_H */
