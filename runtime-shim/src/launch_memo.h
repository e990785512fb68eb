/* The launch path's shortcut to a slot's loaded function (launch_memo.c). */
#ifndef TRITON_AOT_LAUNCH_MEMO_H
#define TRITON_AOT_LAUNCH_MEMO_H

#include "library_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a launch needs to know about where it goes: a thread's memo entry (CUDA). The key and all
 * a plain launch reads share the first cache line; the rest is for the general path. */
typedef struct tta_found {
  _Alignas(64) const triton_aot_library *library; /* NULL: empty */
  uint64_t unloads;                      /* tta_cuda_table.memo_unloads when the entry was made */
  uint64_t context_key;                  /* see tta_current */
  uint32_t kernel, variant;
  void *function;                        /* CUfunction or hipFunction_t */
  /* A plain launch (CUDA, no cluster, no launch flags, no scratch, no tensor descriptors, no
   * oversized shared memory, a grid within the limits every CUDA device has) needs only these. */
  uint32_t block_x, shared;
  uint32_t arg_count;
  uint16_t trailing_args;
  uint8_t plain;
  tta_library_state *state;
  const tta_device *device;
  const triton_aot_function *descriptor; /* the variant's function for the chosen target */
} tta_found;

/* Unloads so far of any library of this runtime copy are counted in tta_cuda_table.memo_unloads:
 * an entry made before one misses, so no entry is ever used after the state it points into is
 * freed. */
static inline uint64_t tta_memo_unloads(void) {
  return __atomic_load_n(&tta_cuda_table.memo_unloads, __ATOMIC_ACQUIRE);
}

/* Whether what a thread remembered for `made_for` after `unloads` unloads, in the context
 * `made_in`, still holds for `library` in the context `key`: the thread's memo entries and its
 * last device (launch_memo.c). */
static inline __attribute__((always_inline)) int
tta_memo_holds(const triton_aot_library *made_for, uint64_t unloads, uint64_t made_in,
               const triton_aot_library *library, uint64_t key) {
  return made_for == library && unloads == tta_memo_unloads() && made_in == key;
}

/* Per thread, direct-mapped by (library, kernel, variant): two kernels launched in turn by one
 * thread keep their entries unless they share an index. */
#define TTA_MEMO_ENTRIES 16
TRITON_AOT_HIDDEN extern _Thread_local tta_found tta_memo[TTA_MEMO_ENTRIES];

static inline tta_found *tta_memo_entry_for(const triton_aot_library *library, uint32_t kernel,
                                            uint32_t variant) {
  return &tta_memo[((uintptr_t)library / 64u * 7u + kernel * 5u + variant) % TTA_MEMO_ENTRIES];
}

/* CUDA's context key with one driver call where it can be had so (cuCtxGetId(NULL)), else two;
 * 0 for anything else (no context, an error, an old driver, no CUDA driver open yet): the full
 * lookup's. The table is read only after an acquire load that says it is complete: another
 * thread may be opening the driver. */
static inline __attribute__((always_inline)) int tta_fast_key(uint64_t *key) {
  CUcontext context = NULL;
  unsigned long long id = 0;
  if (__atomic_load_n(&tta_cuda_table.id_of_current, __ATOMIC_ACQUIRE) > 0) {
    if (tta_cuda_table.cuCtxGetId(NULL, &id) != CUDA_SUCCESS)
      return 0;
  } else if (!__atomic_load_n(&tta_cuda_table.ready, __ATOMIC_ACQUIRE) ||
             tta_cuda_table.cuCtxGetId == NULL ||
             tta_cuda_table.cuCtxGetCurrent(&context) != CUDA_SUCCESS || context == NULL ||
             tta_cuda_table.cuCtxGetId(context, &id) != CUDA_SUCCESS) {
    return 0;
  }
  *key = id;
  return 1;
}

/* The calling thread's entry for variant `variant` of kernel `kernel_index` in the context whose
 * key is `key` (tta_fast_key's, asked by this launch or by the tuned entry's target query just
 * before), or NULL (tta_find_function then). A hit reads no library state and needs no index
 * check: the entry was made by a launch that passed them, and no unload has happened since.
 * Inline, so a launch that hits calls nothing but the driver. */
static inline __attribute__((always_inline)) const tta_found *
tta_memo_hit_in(const triton_aot_library *library, uint32_t kernel_index, uint32_t variant,
                uint64_t key) {
  const tta_found *entry = tta_memo_entry_for(library, kernel_index, variant);
  if (tta_memo_holds(entry->library, entry->unloads, entry->context_key, library, key) &&
      entry->kernel == kernel_index && entry->variant == variant)
    return entry;
  return NULL;
}

/* tta_memo_hit_in for the calling thread's current context, asking the driver for its key. */
static inline __attribute__((always_inline)) const tta_found *
tta_memo_hit(const triton_aot_library *library, uint32_t kernel_index, uint32_t variant) {
  uint64_t key = 0;
  if (!tta_fast_key(&key))
    return NULL;
  return tta_memo_hit_in(library, kernel_index, variant, key);
}

/* The loaded function of variant `variant` of kernel `kernel_index` for the calling thread's
 * context (CUDA) or device (HIP), loading it on first use, remembered in the thread's memo (a
 * launch whose tta_memo_hit missed); INVALID_ARGUMENT for an index out of range. *found points
 * into the memo, valid until the thread's next launch. */
TRITON_AOT_HIDDEN triton_aot_status tta_find_function(const triton_aot_library *library,
                                                      uint32_t kernel_index, uint32_t variant,
                                                      const tta_found **found);

/* The calling thread's device record (triton_aot_kernel_target, once per tuned launch): the
 * last one this thread found for the state and context, else the full lookup. *context_key is
 * the current context's key as tta_fast_key gives it, for the launch that follows; 0 where
 * tta_fast_key has none (the launch then asks itself). */
TRITON_AOT_HIDDEN triton_aot_status tta_find_device(const triton_aot_library *library,
                                                    const tta_device **device,
                                                    uint64_t *context_key);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_LAUNCH_MEMO_H */
