/* The launch path's shortcut to a slot's loaded function (launch_memo.c). */
#ifndef TRITON_AOT_LAUNCH_MEMO_H
#define TRITON_AOT_LAUNCH_MEMO_H

#include "library_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a launch needs to know about where it goes: a thread's memo entry. The key and all a plain
 * launch reads share the first cache line; the rest is for the general path. */
typedef struct tta_found {
  _Alignas(64) uint64_t serial;          /* the library state's (launch_memo.c); 0: empty */
  uint64_t context_key;                  /* see tta_current */
  uint32_t kernel, variant;
  void *function;                        /* CUfunction or hipFunction_t */
  /* A plain launch (CUDA, no cluster, no launch flags, no scratch, no tensor descriptors, no
   * oversized shared memory) needs only these. */
  uint32_t max_grid[3];
  uint32_t block_x, shared;
  uint32_t arg_count;
  uint16_t trailing_args;
  uint8_t plain;
  tta_library_state *state;
  const tta_device *device;
  const triton_aot_function *descriptor; /* the variant's function for the chosen target */
} tta_found;

/* The loaded function of variant `variant` of kernel `kernel_index` for the calling thread's
 * context (CUDA) or device (HIP), loading it on first use; INVALID_ARGUMENT for an index out of
 * range. *found points into the thread's memo, valid until its next launch. */
TRITON_AOT_HIDDEN triton_aot_status tta_find_function(const triton_aot_library *library,
                                                      uint32_t kernel_index, uint32_t variant,
                                                      const tta_found **found);

/* The calling thread's device record (triton_aot_kernel_target, once per tuned launch): the
 * last one this thread found for the state and context, else the full lookup. */
TRITON_AOT_HIDDEN triton_aot_status tta_find_device(const triton_aot_library *library,
                                                    const tta_device **device);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_LAUNCH_MEMO_H */
