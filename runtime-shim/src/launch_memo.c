/* Each thread remembers, for a few slots, the function and descriptor it last launched in a
 * context, so launching a slot again costs only the driver calls that name the current context
 * (CUDA: cuCtxGetCurrent + cuCtxGetId; HIP: hipGetDevice): no list walks, no image checks, few
 * dependent loads. Measured on an H100/H200, those walks cost 2-3% of a launch (docs/benchmarks.md,
 * "Launch overhead").
 *
 * An entry can never point into freed memory: it names the library state by its serial, which no
 * later state reuses (its address may be), so after an unload every entry misses; and it names
 * the context by its key, which a later context never reuses (cuCtxGetId), so a function loaded
 * in a destroyed context is never found for a new one. Loaded functions are immutable until
 * unload, so a hit needs no lock. */
#include "launch_memo.h"

/* Per thread, direct-mapped by (state serial, slot): two kernels launched in turn by one thread
 * keep their entries unless they share an index. */
#define TTA_MEMO_ENTRIES 16

typedef struct tta_memo_entry {
  uint64_t serial; /* the state's; 0: empty */
  uint64_t context_key;
  uint32_t slot;
  const tta_device *device;
  void *function;
  const triton_aot_function *descriptor;
  int plain;
} tta_memo_entry;

static _Thread_local tta_memo_entry tta_memo[TTA_MEMO_ENTRIES];

static tta_memo_entry *tta_memo_entry_for(uint64_t serial, uint32_t slot) {
  return &tta_memo[(serial * 7u + slot) % TTA_MEMO_ENTRIES];
}

static int tta_plain_launch(const tta_library_state *state, const triton_aot_kernel *kernel,
                            const triton_aot_launch_info *launch) {
  return state->backend == TRITON_AOT_BACKEND_CUDA && kernel->tensor_count == 0 &&
         launch->cluster[0] <= 1 && launch->cluster[1] <= 1 && launch->cluster[2] <= 1 &&
         launch->flags == 0 && launch->global_scratch_size == 0 &&
         launch->profile_scratch_size == 0 && launch->shared <= TTA_OVERSIZED_SHARED_THRESHOLD;
}

/* First launch of the slot on this thread in this context: the full lookup, then remembered. */
static TTA_COLD triton_aot_status tta_find_and_remember(const triton_aot_library *library,
                                                        uint32_t kernel_index, uint32_t variant,
                                                        tta_found *found) {
  tta_current current;
  tta_memo_entry *entry;
  uint32_t slot = library->kernels[kernel_index].first_slot + variant;
  triton_aot_status status = tta_current_device(library, &current);
  if (status == TRITON_AOT_SUCCESS)
    status = tta_slot_function(library, &current, kernel_index, variant, &found->function,
                               &found->descriptor);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  found->state = current.state;
  found->device = current.device;
  found->plain = tta_plain_launch(current.state, &library->kernels[kernel_index],
                                  &found->descriptor->launch);
  entry = tta_memo_entry_for(current.state->serial, slot);
  entry->serial = current.state->serial;
  entry->context_key = current.context_key;
  entry->slot = slot;
  entry->device = current.device;
  entry->function = found->function;
  entry->descriptor = found->descriptor;
  entry->plain = found->plain;
  return TRITON_AOT_SUCCESS;
}

triton_aot_status tta_find_function(const triton_aot_library *library, uint32_t kernel_index,
                                    uint32_t variant, tta_found *found) {
  tta_library_state *state =
      __atomic_load_n((tta_library_state **)library->state, __ATOMIC_ACQUIRE);
  if (state != NULL) {
    uint32_t slot = library->kernels[kernel_index].first_slot + variant;
    const tta_memo_entry *entry;
    CUcontext context;
    uint64_t key = 0;
    triton_aot_status status = tta_current_key(state, &context, &key);
    if (status != TRITON_AOT_SUCCESS)
      return status;
    entry = tta_memo_entry_for(state->serial, slot);
    if (entry->serial == state->serial && entry->slot == slot && entry->context_key == key) {
      found->state = state;
      found->device = entry->device;
      found->function = entry->function;
      found->descriptor = entry->descriptor;
      found->plain = entry->plain;
      return TRITON_AOT_SUCCESS;
    }
  }
  return tta_find_and_remember(library, kernel_index, variant, found);
}

/* The device of the last context this thread asked about (tta_find_device). */
static _Thread_local struct {
  uint64_t serial; /* 0: none */
  uint64_t context_key;
  const tta_device *device;
} tta_last_device;

triton_aot_status tta_find_device(const triton_aot_library *library, const tta_device **device) {
  tta_library_state *state =
      __atomic_load_n((tta_library_state **)library->state, __ATOMIC_ACQUIRE);
  tta_current current;
  triton_aot_status status;
  if (state != NULL) {
    CUcontext context;
    uint64_t key = 0;
    status = tta_current_key(state, &context, &key);
    if (status != TRITON_AOT_SUCCESS)
      return status;
    if (tta_last_device.serial == state->serial && tta_last_device.context_key == key) {
      *device = tta_last_device.device;
      return TRITON_AOT_SUCCESS;
    }
  }
  status = tta_current_device(library, &current);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  tta_last_device.serial = current.state->serial;
  tta_last_device.context_key = current.context_key;
  tta_last_device.device = current.device;
  *device = current.device;
  return TRITON_AOT_SUCCESS;
}
