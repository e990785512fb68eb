/* The control API of the fake GPU drivers (fake libcuda.so.1 and fake libamdhip64.so) that the
 * runtime tests load through the runtime's own dlopen path. Each fake library exports these
 * functions under the same names; a test takes them from the library's handle with dlsym
 * (dlopen("libcuda.so.1") gives the same handle the runtime gets), so nothing links a fake at
 * link time. Records are plain fixed-size structs, copied out under the fake's lock.
 *
 * Everything is thread-safe. The "current" context (CUDA) or device (HIP) is per thread, as in
 * the real drivers. */
#ifndef TTA_FAKE_DRIVER_H
#define TTA_FAKE_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TTA_FAKE_MAX_DEVICES 8
#define TTA_FAKE_MAX_PARAMS 32
#define TTA_FAKE_PARAM_BYTES 512

/* What the fake found an image to be. */
enum {
  TTA_FAKE_IMAGE_UNKNOWN = 0,
  TTA_FAKE_IMAGE_CUBIN = 1,
  TTA_FAKE_IMAGE_PTX = 2,
  TTA_FAKE_IMAGE_HSACO = 3
};

/* One image the runtime asked the driver to load (successfully or not). */
typedef struct tta_fake_load {
  char api[32];          /* "cuLibraryLoadData", "cuModuleLoadDataEx", "hipModuleLoadData" */
  int device;            /* the current device when loading (-1: none) */
  int context;           /* CUDA: the current context's id (-1: none); HIP: the device */
  int kind;              /* TTA_FAKE_IMAGE_* */
  char arch[64];         /* "sm_80", "sm_90a", "gfx942", "gfx90a:xnack-" ("" if unknown) */
  uint64_t size;         /* bytes of the image (ELF extent; PTX text without its NUL) */
  uint64_t hash;         /* tta_fake_hash() of those bytes: equals the hash of the file */
  unsigned char head[16];
  int result;            /* what the call returned */
  int handle;            /* id of the module / library created (0 on failure) */
} tta_fake_load;

/* One launch call. */
typedef struct tta_fake_launch {
  char api[40];          /* "cuLaunchKernel", "cuLaunchKernelEx", "hipModuleLaunchKernel", ... */
  char function[128];    /* the entry's name */
  int kind;              /* TTA_FAKE_IMAGE_* of the image the function came from */
  char arch[64];         /* that image's arch */
  uint64_t image_hash;   /* that image's hash */
  int image_handle;      /* the module / library id it came from */
  int device;            /* where it launched */
  int context;
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  uint64_t stream;
  unsigned num_attrs;    /* cuLaunchKernelEx attributes (all recorded below) */
  unsigned cluster[3];   /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, {0,0,0} if absent */
  int cluster_policy;    /* ..._CLUSTER_SCHEDULING_POLICY_PREFERENCE, -1 if absent */
  int cooperative;       /* ..._COOPERATIVE value (or 1 for a cooperative entry point), -1 if absent */
  int pdl;               /* ..._PROGRAMMATIC_STREAM_SERIALIZATION value, -1 if absent */
  int shared_mode;       /* ..._SHARED_MEMORY_MODE value (Rubin), -1 if absent */
  int has_extra;         /* `extra` was non-NULL */
  unsigned param_count;  /* from the image: the kernel's declared parameters */
  unsigned param_size[TTA_FAKE_MAX_PARAMS];
  unsigned param_offset[TTA_FAKE_MAX_PARAMS]; /* into `params` (packed, in declaration order) */
  unsigned char params[TTA_FAKE_PARAM_BYTES];  /* each kernelParams[i]'s bytes, param_size[i] of them */
  int result;
} tta_fake_launch;

/* cuFuncSetAttribute / cuKernelSetAttribute (HIP: none). */
typedef struct tta_fake_attribute {
  char api[32];
  char function[128];
  int attribute;         /* CUfunction_attribute */
  int value;
  int device;            /* cuKernelSetAttribute's device, else the function's */
  int result;
} tta_fake_attribute;

/* cuMemAllocAsync / cuMemFreeAsync / hipMallocAsync / hipFreeAsync. */
typedef struct tta_fake_memory {
  char api[32];
  uint64_t address;
  uint64_t size;         /* allocations; frees: the size that was allocated */
  uint64_t stream;
  int device;
  int result;
} tta_fake_memory;

/* The last cuTensorMapEncodeTiled call (CUDA). The fake refuses, as the driver does, a base not
 * 16-byte aligned, a byte stride not a multiple of 16, a zero dimension or a box entry above
 * 256, with CUDA_ERROR_INVALID_VALUE; on success it writes the map's first words as
 * {0x7e50, address, dims[0], dims[1], ...} so a launch's parameter bytes show which map came. */
typedef struct tta_fake_tensor_map {
  int data_type;
  unsigned rank;
  uint64_t address;
  uint64_t dims[5];
  uint64_t strides[4];   /* bytes, rank - 1 of them */
  unsigned box[5];
  unsigned element_strides[5];
  int interleave, swizzle, l2_promotion, oob_fill;
  int result;
} tta_fake_tensor_map;
typedef int (*tta_fake_last_tensor_map_fn)(tta_fake_tensor_map *out); /* 0, or -1 if none */

/* Streams and events created and not destroyed (triton-aot-tune's; cleared by reset). */
typedef int (*tta_fake_live_streams_and_events_fn)(void);

/* FNV-1a, 64 bits: what tta_fake_load.hash holds (tests hash the image files the same way). */
static inline uint64_t tta_fake_hash(const void *data, size_t size) {
  const unsigned char *bytes = (const unsigned char *)data;
  uint64_t hash = 1469598103934665603ull;
  size_t i;
  for (i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

/* The control API: exported as tta_fake_reset, tta_fake_set_driver_version,
 * tta_fake_set_device_attribute, tta_fake_set_current_device, tta_fake_create_context,
 * tta_fake_destroy_context, tta_fake_fail, tta_fake_clear_failures, tta_fake_call_count,
 * tta_fake_{load,launch,attribute,memory}_count, tta_fake_get_{load,launch,attribute,memory},
 * tta_fake_live_modules, tta_fake_live_allocations, tta_fake_misuse_count and
 * tta_fake_first_misuse; the types below are for dlsym. */

/* Forgets every record, handle, failure and setting, then configures the devices from a
 * comma-separated list: CUDA "sm_80,sm_86,sm_90" (capability; an "a" suffix is ignored),
 * HIP "gfx942:sramecc+:xnack-,gfx90a" (gcnArchName: features as the device reports them).
 * "" = no device. Returns 0, or -1 for a malformed list. The current context / device of every
 * thread becomes none (CUDA) / 0 (HIP). Initial state: the environment variable
 * TTA_FAKE_CUDA_DEVICES / TTA_FAKE_HIP_DEVICES, else "sm_90" / "gfx942:sramecc+:xnack-".
 * TTA_FAKE_CUDA_STUB=1 makes the CUDA fake answer CUDA_ERROR_STUB_LIBRARY everywhere, like
 * the CUDA toolkit's stub libcuda.so; TTA_FAKE_CUDA_HIDE="cuKernelGetFunction,cuCtxGetId" makes
 * cuGetProcAddress deny having the entry points listed; TTA_FAKE_CUDA_NULL_CONTEXT_ID=0 makes
 * cuCtxGetId(NULL) refuse (CUDA_ERROR_INVALID_CONTEXT) instead of naming the current context. */
typedef int (*tta_fake_reset_fn)(const char *devices);

/* CUDA: the version cuDriverGetVersion reports and cuGetProcAddress honours (an entry point
 * introduced after it is not found; a request above it is CUDA_ERROR_INVALID_VALUE). Initial:
 * TTA_FAKE_CUDA_VERSION, else 13000. HIP: hipRuntimeGetVersion's value (initial 60400000).
 * Not reset by tta_fake_reset (the runtime resolves entry points once per process). */
typedef void (*tta_fake_set_driver_version_fn)(int version);

/* Overrides a device attribute (CUDA: a CUdevice_attribute, e.g.
 * MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97; HIP: the same ids map to the matching properties). */
typedef int (*tta_fake_set_device_attribute_fn)(int device, int attribute, int value);

/* The calling thread's current device: CUDA makes the device's primary context current
 * (cuCtxSetCurrent); HIP sets it as hipSetDevice would. -1 (CUDA): no current context. */
typedef int (*tta_fake_set_current_device_fn)(int device);

/* CUDA only: creates another context on `device` and makes it current; returns its id. */
typedef int (*tta_fake_create_context_fn)(int device);

/* The next `times` calls of entry point `name` (after `skip` calls that succeed normally)
 * return `error` without doing anything; times < 0: every call. So the Nth call alone is
 * (name, error, N - 1, 1), and every call from the Nth on is (name, error, N - 1, -1). Up to 16
 * failures at once; the first one set for a name that applies wins. */
typedef void (*tta_fake_fail_fn)(const char *name, int error, int skip, int times);

/* Forgets the failures set for entry point `name` (NULL or "": every one); the next call of it
 * behaves normally. Records and counts are kept (tta_fake_reset forgets everything). */
typedef void (*tta_fake_clear_failures_fn)(const char *name);

/* CUDA only: destroys context `id` (one tta_fake_create_context made) as cuCtxDestroy called on
 * another thread would: the modules loaded in it are unloaded with it (no longer live), its
 * CUfunctions die, and every call that uses it, also on threads where it is still current,
 * fails with CUDA_ERROR_CONTEXT_IS_DESTROYED (cuCtxGetCurrent still returns it, like the
 * driver). Returns 0, or -1 when there is no such live context. HIP: -1. */
typedef int (*tta_fake_destroy_context_fn)(int id);

/* How many calls of entry point `name` were made since the last reset ("" = all). */
typedef int (*tta_fake_call_count_fn)(const char *name);

/* Records, oldest first. get_* return 0 and copy record `index`, or -1 if out of range. */
typedef int (*tta_fake_count_fn)(void);
typedef int (*tta_fake_get_load_fn)(int index, tta_fake_load *out);
typedef int (*tta_fake_get_launch_fn)(int index, tta_fake_launch *out);
typedef int (*tta_fake_get_attribute_fn)(int index, tta_fake_attribute *out);
typedef int (*tta_fake_get_memory_fn)(int index, tta_fake_memory *out);

/* Live objects: loaded modules/libraries not unloaded, allocations not freed. */
typedef int (*tta_fake_live_modules_fn)(void);
typedef int (*tta_fake_live_allocations_fn)(void);

/* Misuse the runtime must never commit (a launch with an unloaded function, a handle from
 * another context, a double unload, freeing an unknown pointer, ...): how many, and the first
 * one's description. */
typedef int (*tta_fake_misuse_count_fn)(void);
typedef const char *(*tta_fake_first_misuse_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* TTA_FAKE_DRIVER_H */
