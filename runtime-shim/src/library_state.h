/* Per-library run-time state: the backend, one lazily built record per device (its facts, the
 * image chosen for each kernel, the loaded function of each slot), and the slow paths that
 * build them under one mutex per library. Readers on the fast path use acquire loads only. */
#ifndef TRITON_AOT_LIBRARY_STATE_H
#define TRITON_AOT_LIBRARY_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "driver_cuda.h"
#include "driver_hip.h"
#include "image_choice.h"
#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Slow and error paths: kept out of line so the launch path stays small. */
#if defined(__GNUC__)
#define TTA_COLD __attribute__((noinline, cold))
#define TTA_NOINLINE __attribute__((noinline))
#else
#define TTA_COLD
#define TTA_NOINLINE
#endif

/* Device ordinals 0 .. TTA_MAX_DEVICES - 1 are served; a higher one is an error. */
#define TTA_MAX_DEVICES 64

/* Grid limits of every CUDA device since compute capability 3.0: what a device that does not
 * answer the query is assumed to have. */
#define TTA_DEFAULT_MAX_GRID_X 2147483647u
#define TTA_DEFAULT_MAX_GRID_YZ 65535u

/* That limit along grid axis `axis`. */
static inline uint32_t tta_default_max_grid(int axis) {
  return axis == 0 ? TTA_DEFAULT_MAX_GRID_X : TTA_DEFAULT_MAX_GRID_YZ;
}

/* Shared memory a launch gets without raising the function's limit. */
#define TTA_DEFAULT_SHARED_LIMIT 49152u
/* Above this a block's shared memory is "oversized" (Rubin, CC 10.7): the function's shared
 * memory mode and a launch attribute must allow it, as Triton 3.9's launcher does (its
 * threshold: the per-SM shared memory of Hopper and Blackwell). */
#define TTA_OVERSIZED_SHARED_THRESHOLD (228u * 1024u)

/* CUDA: a slot's function in one context. Immutable once published;
 * a slot's list only grows (new heads), until unload. */
typedef struct tta_context_function {
  uint64_t context; /* the context's key (see tta_current) */
  void *function;
  struct tta_context_function *next;
} tta_context_function;

/* CUDA: which device a context belongs to, so a launch needs no cuCtxGetDevice. Immutable once
 * published; the list only grows until unload. */
typedef struct tta_context_record {
  uint64_t context;
  struct tta_device *device;
  struct tta_context_record *next;
} tta_context_record;

typedef struct tta_slot {
  void *function;                 /* atomic; hipFunction_t (HIP: one per device) */
  tta_context_function *contexts; /* atomic head; CUDA (one function per context) */
} tta_slot;

/* A loaded image (slow path only, under the library mutex). */
typedef struct tta_loaded_image {
  CUcontext context; /* CUDA: where it was loaded; HIP: NULL */
  uint64_t context_key;
  uint32_t image; /* index into library->images */
  void *handle;   /* CUmodule or hipModule_t */
  struct tta_loaded_image *next;
} tta_loaded_image;

/* A device fact asked of the driver only when first needed (tta_device.name_state). */
enum { TTA_FACT_UNKNOWN = 0, TTA_FACT_ASKING = 1, TTA_FACT_KNOWN = 2 };

/* What the runtime knows of one device. A first launch asks CUDA only the compute capability (the
 * image choice needs it); the rest is asked when first needed, since every query costs that
 * launch about a microsecond: the name when a message or log line names the device, the shared
 * memory limits when a function needs more than 48 KiB, the grid limits when a grid exceeds the
 * limits every CUDA device has (or the driver refuses a launch). HIP's device properties answer
 * everything in one call, so HIP records are complete when built. */
typedef struct tta_device {
  int ordinal;
  tta_device_arch arch;
  int name_state;            /* atomic: TTA_FACT_*; tta_device_name() */
  char name[128];
  int shared_known;          /* under the library mutex; tta_cuda_configure_shared() */
  uint32_t shared_limit;     /* the most dynamic shared memory a block can opt in to */
  uint32_t oversized_limit;  /* CUDA CC 10.7: the most with SHARED_MEMORY_MODE = ALLOW_OVERSIZED
                                (at or above shared_limit); 0 elsewhere */
  int grid_known;            /* atomic; tta_device_learn_grid_limits() */
  uint32_t max_grid[3];      /* atomic; blocks per grid axis (CUDA MAX_GRID_DIM_X/Y/Z, HIP
                                maxGridSize); CUDA: the defaults until asked */
  tta_image_choice *choices; /* [kernel_count]; immutable after publication */
  tta_slot *slots;           /* [slot_count] */
  tta_loaded_image *loaded;  /* under the mutex */
} tta_device;

typedef struct tta_library_state {
  uint32_t backend;     /* TRITON_AOT_BACKEND_* */
  const tta_cuda *cuda; /* set when backend is CUDA */
  const tta_hip *hip;   /* set when backend is HIP */
  pthread_mutex_t mutex;
  tta_device *devices[TTA_MAX_DEVICES]; /* atomic */
  tta_context_record *contexts;         /* atomic head; CUDA */
  void **raw_images; /* [image_count] once an image is decompressed: the copies; under the mutex */
  unsigned char *checked; /* [image_count], in the state's allocation: 1 once the image's bytes
                             matched its hash (tta_raw_image); under the mutex */
} tta_library_state;

/* Where a launch goes: filled by tta_current_device(). */
typedef struct tta_current {
  tta_library_state *state;
  tta_device *device;
  CUcontext context;    /* CUDA: the current context; HIP: NULL */
  uint64_t context_key; /* CUDA: its cuCtxGetId where the driver has it (ids are never
                           reused), else its address; HIP: the device ordinal */
} tta_current;

/* The device's name, asked of the driver the first time (any thread; the others wait for it):
 * for messages and log lines only. "unnamed GPU" while the driver will not say (asked again
 * next time). */
TRITON_AOT_HIDDEN const char *tta_device_name(const tta_device *device);

/* The device's limit of blocks along grid axis `axis` as known so far (see tta_device). */
static inline uint32_t tta_device_max_grid(const tta_device *device, int axis) {
  return __atomic_load_n(&device->max_grid[axis], __ATOMIC_RELAXED);
}

/* Asks the driver for the device's grid limits until it has answered (CUDA; HIP's are known):
 * returns 1 if they were not known before, so a check against the defaults is worth repeating. */
TRITON_AOT_HIDDEN int tta_device_learn_grid_limits(const tta_device *device);

/* Fast-path readers: acquire loads only. */
static inline struct tta_device *tta_context_lookup(const tta_library_state *state,
                                                    uint64_t context) {
  const tta_context_record *record;
  for (record = __atomic_load_n(&state->contexts, __ATOMIC_ACQUIRE); record != NULL;
       record = record->next)
    if (record->context == context)
      return record->device;
  return NULL;
}

static inline void *tta_published_function(const tta_library_state *state,
                                           const tta_current *current, tta_slot *slot) {
  const tta_context_function *entry;
  if (state->backend != TRITON_AOT_BACKEND_CUDA)
    return __atomic_load_n(&slot->function, __ATOMIC_ACQUIRE);
  for (entry = __atomic_load_n(&slot->contexts, __ATOMIC_ACQUIRE); entry != NULL;
       entry = entry->next)
    if (entry->context == current->context_key)
      return entry->function;
  return NULL;
}

/* The library's state (created on first use) and the calling thread's device (CUDA: the current
 * context's; device 0's primary context is made current when none is; HIP: hipGetDevice). */
TRITON_AOT_HIDDEN triton_aot_status tta_current_device(const triton_aot_library *library,
                                                       tta_current *current);

/* Is variant `variant` of kernel `kernel` a config not built for the target chosen on
 * current->device (preloading skips it; launching it fails with the reason)? */
TRITON_AOT_HIDDEN int tta_slot_refused(const triton_aot_library *library,
                                       const tta_current *current, uint32_t kernel,
                                       uint32_t variant);

/* The loaded function for variant `variant` of kernel `kernel` on current->device (loading it
 * on first use), and its descriptor for the chosen target. */
TRITON_AOT_HIDDEN triton_aot_status tta_slot_function(const triton_aot_library *library,
                                                      const tta_current *current, uint32_t kernel,
                                                      uint32_t variant, void **function,
                                                      const triton_aot_function **descriptor);

/* Forgets the library's state after unloading everything it loaded; the first image the driver
 * refused to unload is LOAD_FAILED (everything else is still unloaded and freed). */
TRITON_AOT_HIDDEN triton_aot_status tta_library_unload(const triton_aot_library *library);

/* How messages name a slot being loaded: "<kernel> variant <v> (sm_90a cubin) on device 0
 * (NVIDIA H100, sm_90a)". Formatted the first time a message needs it, so a load that succeeds
 * formats nothing and asks no device name. */
typedef struct tta_slot_what {
  const triton_aot_library *library;
  const triton_aot_kernel *kernel;
  uint32_t variant;
  const tta_image_choice *choice;
  const tta_device *device;
  char text[512]; /* "" until tta_what() */
} tta_slot_what;

TRITON_AOT_HIDDEN const char *tta_what(tta_slot_what *what);

/* Backend parts (library_cuda.c, library_hip.c). Called under the library mutex. */
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_current_context(const tta_cuda *cuda,
                                                             CUcontext *context, uint64_t *key);
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_context_device(const tta_cuda *cuda, int *ordinal);
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_device_facts(const tta_cuda *cuda, int ordinal,
                                                          tta_device *device);
/* The facts asked when first needed (see tta_device): the device's name into `name`, and its
 * grid limits (the defaults where refused); each returns 0 when the driver did not answer. */
TRITON_AOT_HIDDEN int tta_cuda_device_name(int ordinal, char *name, size_t size);
TRITON_AOT_HIDDEN int tta_cuda_grid_limits(int ordinal, uint32_t limits[3]);
/* Loads `image` into the calling thread's current context (the one it is loaded for). */
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_load(const tta_library_state *state,
                                                  const void *image, tta_slot_what *what,
                                                  void **handle);
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_get_function(const tta_library_state *state,
                                                          tta_device *device, void *handle,
                                                          const triton_aot_function *descriptor,
                                                          const char *entry, tta_slot_what *what,
                                                          void **function);
/* Unloads one loaded image; LOAD_FAILED naming the call (after `what`) when the driver refuses.
 * The handle is forgotten either way. */
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_unload(const tta_library_state *state,
                                                    const tta_loaded_image *loaded,
                                                    const char *what);

TRITON_AOT_HIDDEN triton_aot_status tta_hip_current(const tta_hip *hip, int *ordinal);
TRITON_AOT_HIDDEN triton_aot_status tta_hip_device_facts(const tta_hip *hip, int ordinal,
                                                         tta_device *device);
TRITON_AOT_HIDDEN triton_aot_status tta_hip_load(const tta_hip *hip, const void *image,
                                                 tta_slot_what *what, void **handle);
TRITON_AOT_HIDDEN triton_aot_status tta_hip_get_function(const tta_hip *hip,
                                                         const tta_device *device, void *handle,
                                                         const triton_aot_function *descriptor,
                                                         const char *entry, tta_slot_what *what,
                                                         void **function);
TRITON_AOT_HIDDEN triton_aot_status tta_hip_unload(const tta_hip *hip,
                                                   const tta_loaded_image *loaded,
                                                   const char *what);

/* "<kernel> variant <v> (sm_90a cubin)" for messages. */
TRITON_AOT_HIDDEN void tta_describe_slot(const triton_aot_library *library,
                                         const triton_aot_kernel *kernel, uint32_t variant,
                                         const tta_image_choice *choice, char *buffer, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_LIBRARY_STATE_H */
