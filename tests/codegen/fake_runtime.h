/* A recording stand-in for the runtime shim. A generated <lib>.c compiled with fake_runtime.c
 * (instead of linking triton_aot_runtime) calls these triton_aot_* functions, which record what
 * the dispatcher passed, so its tests need neither a driver nor the real runtime.
 * The test reaches the record through fake_runtime_state() (dlsym). */
#ifndef TTA_FAKE_RUNTIME_H
#define TTA_FAKE_RUNTIME_H

#include <triton_aot/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FAKE_MAX_ARGS 16
#define FAKE_MESSAGE_SIZE 1024
#define FAKE_MAX_TENSORS 4
#define FAKE_PLACE_KEY 0x7000u

typedef struct fake_runtime {
  /* Set by the test before a call. */
  size_t arg_sizes[FAKE_MAX_ARGS]; /* bytes to copy from each args[i] (0: copy none) */
  triton_aot_status launch_result; /* what triton_aot_launch returns */

  /* Recorded. */
  int launches;                      /* triton_aot_launch calls */
  const triton_aot_library *library; /* of the last launch, preload or unload */
  uint32_t kernel, variant;
  void *stream;
  uint64_t grid[3];
  uint32_t arg_count; /* library->kernels[kernel].arg_count at the launch */
  unsigned char arg_bytes[FAKE_MAX_ARGS][8];
  int fails; /* triton_aot_fail calls */
  triton_aot_status fail_status;
  char message[FAKE_MESSAGE_SIZE]; /* the thread's last error, as the runtime keeps it */
  int clears;                      /* triton_aot_clear_error calls */
  int preloads, unloads;
  const triton_aot_allocator *allocator;
  int allocator_calls;
  /* triton_aot_launch_tensors: the caller's descriptors as the dispatcher passed them. */
  int tensor_launches;
  uint32_t tensor_count; /* library->kernels[kernel].tensor_count */
  triton_aot_tensor_arg tensors[FAKE_MAX_TENSORS];
  int storage_aligned;   /* the storage was 64-byte aligned */
  int tensor_slots_null; /* every descriptor's 1 + 2 * rank argument slots (rank from the
                          * variant's first function's map) were left NULL for the runtime */
  /* Tuned dispatch: what triton_aot_kernel_target returns (set by the test), and what the
   * dispatcher logged. */
  int kernel_target;
  int target_queries;
  /* The place triton_aot_kernel_target_at hands out (FAKE_PLACE_KEY + the query's number) and
   * the one the last launch got (0: a launch without one). */
  uint64_t launch_place;
  int logged_target, logged_config;
  char logged_name[64];
} fake_runtime;

typedef fake_runtime *(*fake_runtime_state_fn)(void);

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
fake_runtime *
fake_runtime_state(void);

#ifdef __cplusplus
}
#endif
#endif
