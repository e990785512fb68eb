/* Each CUDA thread remembers, for a few slots, what it last launched in a context: the function,
 * and for a plain launch everything the launch reads (block, shared memory, the trailing
 * arguments). Launching a slot again then costs the driver call that names the current context
 * (cuCtxGetId(NULL), or cuCtxGetCurrent + cuCtxGetId where the driver does not answer for NULL)
 * and one cache line of thread-local memo: no list walks, no image checks, no reads of the
 * library's tables or state. Measured on an H200 the walks cost about 2% of a launch
 * (docs/benchmarks.md, "Launch overhead"). HIP takes the full lookup each time (hipGetDevice,
 * then the device's records).
 *
 * An entry can never point into freed memory: it was made after the last unload of any library
 * of this runtime copy (tta_cuda_table.memo_unloads), so after an unload every entry misses; and it names the
 * context by its key, which a later context never reuses (cuCtxGetId), so a function loaded in a
 * destroyed context is never found for a new one. Loaded functions are immutable until unload,
 * so a hit needs no lock. */
#include "launch_memo.h"

_Thread_local tta_found tta_memo[TTA_MEMO_ENTRIES];

/* HIP's result of a launch's lookup: never in the memo, whose keys are CUDA's contexts. */
static _Thread_local tta_found tta_hip_found;

static int tta_plain_launch(const tta_library_state *state, const triton_aot_kernel *kernel,
                            const triton_aot_launch_info *launch) {
  return state->backend == TRITON_AOT_BACKEND_CUDA && kernel->tensor_count == 0 &&
         launch->cluster[0] <= 1 && launch->cluster[1] <= 1 && launch->cluster[2] <= 1 &&
         launch->flags == 0 && launch->global_scratch_size == 0 &&
         launch->profile_scratch_size == 0 && launch->shared <= TTA_OVERSIZED_SHARED_THRESHOLD;
}

/* First launch of the slot on this thread in this context (HIP, and CUDA without cuCtxGetId:
 * every launch): the indices checked, the full lookup, then remembered. */
triton_aot_status tta_find_function(const triton_aot_library *library, uint32_t kernel_index,
                                    uint32_t variant, const tta_found **found) {
  const triton_aot_kernel *kernel;
  const triton_aot_function *descriptor = NULL;
  tta_current current;
  tta_found *entry;
  void *function = NULL;
  triton_aot_status status;
  if (kernel_index >= library->kernel_count)
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT, "library %s has no kernel %u",
                           library->name, kernel_index);
  kernel = &library->kernels[kernel_index];
  if (variant >= kernel->variant_count)
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT, "%s has no variant %u (it has %u)",
                           kernel->name, variant, kernel->variant_count);
  status = tta_current_device(library, &current);
  if (status == TRITON_AOT_SUCCESS)
    status = tta_slot_function(library, &current, kernel_index, variant, &function, &descriptor);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  entry = current.state->backend == TRITON_AOT_BACKEND_CUDA
              ? tta_memo_entry_for(library, kernel_index, variant)
              : &tta_hip_found;
  entry->library = library;
  entry->unloads = tta_memo_unloads();
  entry->context_key = current.context_key;
  entry->kernel = kernel_index;
  entry->variant = variant;
  entry->state = current.state;
  entry->device = current.device;
  entry->descriptor = descriptor;
  entry->function = function;
  entry->plain = (uint8_t)tta_plain_launch(current.state, kernel, &descriptor->launch);
  entry->block_x = descriptor->launch.block_x;
  entry->shared = descriptor->launch.shared;
  entry->arg_count = kernel->arg_count;
  entry->trailing_args = (uint16_t)kernel->trailing_args;
  *found = entry;
  return TRITON_AOT_SUCCESS;
}

/* The device of the last context this thread asked about (tta_find_device). */
static _Thread_local struct {
  const triton_aot_library *library; /* NULL: none */
  uint64_t unloads;
  uint64_t context_key;
  const tta_device *device;
} tta_last_device;

triton_aot_status tta_find_device(const triton_aot_library *library, const tta_device **device,
                                  uint64_t *context_key) {
  tta_current current;
  triton_aot_status status;
  uint64_t key = 0;
  const int keyed = tta_fast_key(&key);
  *context_key = keyed ? key : 0;
  if (keyed && tta_memo_holds(tta_last_device.library, tta_last_device.unloads,
                             tta_last_device.context_key, library, key)) {
    *device = tta_last_device.device;
    return TRITON_AOT_SUCCESS;
  }
  status = tta_current_device(library, &current);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  if (current.state->backend == TRITON_AOT_BACKEND_CUDA) {
    tta_last_device.library = library;
    tta_last_device.unloads = tta_memo_unloads();
    tta_last_device.context_key = current.context_key;
    tta_last_device.device = current.device;
  } else {
    *context_key = 0; /* HIP: no memo to key */
  }
  *device = current.device;
  return TRITON_AOT_SUCCESS;
}
