/* CUDA parts of the library state: the current device, device facts, loading images (one
 * module per context: cuModuleLoadDataEx), and the per-function attributes a launch needs.
 *
 * Why modules and not cuLibraryLoadData's context-independent CUkernels: measured on an H200,
 * a first launch through cuModuleLoadData + cuModuleGetFunction costs about 20 us less than
 * through cuLibraryLoadData + cuLibraryGetKernel (+ cuKernelGetFunction for the per-context
 * CUfunction, which later launches need to be as fast as a module's), and later launches cost
 * the same; a context is loaded into either way (docs/benchmarks.md, "First launch"). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "library_state.h"
#include "log.h"

/* NO_DRIVER naming a deferred entry point (cuda_api.h) every driver with cuGetProcAddress has,
 * which this one lacks. */
static triton_aot_status tta_cuda_missing(const char *name, const char *what) {
  return triton_aot_fail(TRITON_AOT_ERROR_NO_DRIVER,
                         "%s: the CUDA driver libcuda.so.1 has no %s; install an NVIDIA driver for "
                         "CUDA 11.3 or newer",
                         what, name);
}

/* tta_cuda_missing() unless `present`. */
static triton_aot_status tta_cuda_need(int present, const char *name, const char *what) {
  return present ? TRITON_AOT_SUCCESS : tta_cuda_missing(name, what);
}

/* Device 0's primary context, retained once per process (as the CUDA runtime and Triton do)
 * and made current on each thread that has no context. */
static pthread_mutex_t tta_primary_mutex = PTHREAD_MUTEX_INITIALIZER;
static CUcontext tta_primary_context;

static triton_aot_status tta_cuda_make_primary_current(const tta_cuda *cuda, CUcontext *context) {
  CUresult result = CUDA_SUCCESS;
  const char *what = NULL;
  triton_aot_status status;
  tta_cuda_resolve_deferred();
  if ((status = tta_cuda_need(cuda->cuDeviceGet != NULL, "cuDeviceGet", "making a context current")) !=
          TRITON_AOT_SUCCESS ||
      (status = tta_cuda_need(cuda->cuDevicePrimaryCtxRetain != NULL, "cuDevicePrimaryCtxRetain",
                              "making a context current")) != TRITON_AOT_SUCCESS ||
      (status = tta_cuda_need(cuda->cuCtxSetCurrent != NULL, "cuCtxSetCurrent",
                              "making a context current")) != TRITON_AOT_SUCCESS)
    return status;
  pthread_mutex_lock(&tta_primary_mutex);
  if (tta_primary_context == NULL) {
    CUdevice device = 0;
    result = cuda->cuDeviceGet(&device, 0);
    if (result != CUDA_SUCCESS)
      what = "cuDeviceGet(0)";
    else if ((result = cuda->cuDevicePrimaryCtxRetain(&tta_primary_context, device)) !=
             CUDA_SUCCESS)
      what = "cuDevicePrimaryCtxRetain";
  }
  *context = tta_primary_context;
  pthread_mutex_unlock(&tta_primary_mutex);
  if (what != NULL)
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_NO_DEVICE, result,
                         "no CUDA context is current, and device 0's primary context", what);
  result = cuda->cuCtxSetCurrent(*context);
  if (result != CUDA_SUCCESS)
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_NO_DEVICE, result,
                         "making device 0's primary context current", "cuCtxSetCurrent");
  return TRITON_AOT_SUCCESS;
}

/* With `id` the calling thread's current context's: does cuCtxGetId(NULL) answer the same (as
 * the driver documents)? Then a launch asks the driver once for its context's id
 * (launch_memo.c). A failed query decides nothing; the next first launch asks again. */
static void tta_cuda_learn_id_of_current(const tta_cuda *cuda, unsigned long long id) {
  unsigned long long current = 0;
  int *answer = (int *)&((tta_cuda *)cuda)->id_of_current;
  if (__atomic_load_n(answer, __ATOMIC_RELAXED) != 0 ||
      cuda->cuCtxGetId(NULL, &current) != CUDA_SUCCESS)
    return;
  __atomic_store_n(answer, current == id ? 1 : -1, __ATOMIC_RELEASE);
}

triton_aot_status tta_cuda_current_context(const tta_cuda *cuda, CUcontext *context,
                                           uint64_t *key) {
  CUresult result = cuda->cuCtxGetCurrent(context);
  if (result != CUDA_SUCCESS)
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_NO_DEVICE, result, NULL, "cuCtxGetCurrent");
  if (*context == NULL) {
    triton_aot_status status = tta_cuda_make_primary_current(cuda, context);
    if (status != TRITON_AOT_SUCCESS)
      return status;
  }
  if (cuda->cuCtxGetId != NULL) {
    unsigned long long id = 0;
    result = cuda->cuCtxGetId(*context, &id);
    if (result != CUDA_SUCCESS)
      return tta_cuda_fail(cuda, TRITON_AOT_ERROR_NO_DEVICE, result, NULL, "cuCtxGetId");
    *key = id;
    tta_cuda_learn_id_of_current(cuda, id);
  } else {
    *key = (uint64_t)(uintptr_t)*context;
  }
  return TRITON_AOT_SUCCESS;
}

triton_aot_status tta_cuda_context_device(const tta_cuda *cuda, int *ordinal) {
  CUdevice device = 0;
  CUresult result = cuda->cuCtxGetDevice(&device);
  if (result != CUDA_SUCCESS)
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_NO_DEVICE, result, NULL, "cuCtxGetDevice");
  /* A CUdevice is the device's ordinal (cuDeviceGet(&d, n) gives d == n). */
  *ordinal = device;
  return TRITON_AOT_SUCCESS;
}

/* The opt-in maximum of a block's shared memory, and on CC 10.7 (Rubin) the larger maximum of
 * an oversized block, which Triton 3.9 reads there instead. Both are kept: a block up to the
 * opt-in maximum still raises MAX_DYNAMIC_SHARED_SIZE_BYTES, which the driver refuses above it.
 * A driver that does not know an attribute (or answers less) leaves 48 KiB / no oversized.
 * Asked the first time a function needs more than 48 KiB (under the library mutex); a refused
 * opt-in query leaves 48 KiB for now and is asked again next time. Returns that query's result. */
static CUresult tta_cuda_learn_shared_limits(const tta_cuda *cuda, tta_device *device) {
  int optin = 0, oversized = 0;
  uint32_t major = device->arch.capability / 10, minor = device->arch.capability % 10;
  CUresult asked;
  if (device->shared_known)
    return CUDA_SUCCESS;
  asked = cuda->cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                     device->ordinal);
  if (asked != CUDA_SUCCESS || optin < (int)TTA_DEFAULT_SHARED_LIMIT)
    optin = (int)TTA_DEFAULT_SHARED_LIMIT;
  /* Elsewhere the attribute may not exist, or mean nothing: Triton asks only CC 10.7. */
  if (major != 10 || minor != 7 ||
      cuda->cuDeviceGetAttribute(&oversized,
                                 CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK,
                                 device->ordinal) != CUDA_SUCCESS ||
      oversized < optin)
    oversized = 0;
  device->shared_limit = (uint32_t)optin;
  device->oversized_limit = (uint32_t)oversized;
  device->shared_known = asked == CUDA_SUCCESS;
  return asked;
}

int tta_cuda_grid_limits(int ordinal, uint32_t limits[3]) {
  static const CUdevice_attribute attributes[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                                   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                                   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  int axis, answered = 1;
  for (axis = 0; axis < 3; ++axis) {
    int value = 0;
    if (tta_cuda_table.cuDeviceGetAttribute(&value, attributes[axis], ordinal) != CUDA_SUCCESS ||
        value <= 0) {
      value = (int)tta_default_max_grid(axis);
      answered = 0;
    }
    limits[axis] = (uint32_t)value;
  }
  return answered;
}

int tta_cuda_device_name(int ordinal, char *name, size_t size) {
  tta_cuda_resolve_deferred();
  if (tta_cuda_table.cuDeviceGetName == NULL ||
      tta_cuda_table.cuDeviceGetName(name, (int)size, ordinal) != CUDA_SUCCESS)
    return 0;
  name[size - 1] = '\0';
  return 1;
}

/* A first launch's facts: the compute capability only (see tta_device). */
triton_aot_status tta_cuda_device_facts(const tta_cuda *cuda, int ordinal, tta_device *device) {
  int major = 0, minor = 0, axis;
  CUresult result =
      cuda->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ordinal);
  if (result == CUDA_SUCCESS)
    result =
        cuda->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ordinal);
  if (result != CUDA_SUCCESS) {
    char context[64];
    tta_format(context, sizeof context, "device %d", ordinal);
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_NO_DEVICE, result, context,
                         "cuDeviceGetAttribute(COMPUTE_CAPABILITY)");
  }
  for (axis = 0; axis < 3; ++axis)
    device->max_grid[axis] = tta_default_max_grid(axis);
  device->arch.backend = TRITON_AOT_BACKEND_CUDA;
  device->arch.capability = (uint32_t)(major * 10 + minor);
  device->arch.xnack = device->arch.sramecc = -1;
  tta_cuda_arch_name(device->arch.capability, device->arch.arch, sizeof device->arch.arch);
  return TRITON_AOT_SUCCESS;
}

triton_aot_status tta_cuda_load(const tta_library_state *state, const void *image,
                                tta_slot_what *what, void **handle) {
  const tta_cuda *cuda = state->cuda;
  char log[2048] = "", description[256];
  CUjit_option options[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2];
  CUmodule module = NULL;
  CUresult result;
  values[0] = log;
  values[1] = (void *)(uintptr_t)sizeof log;
  result = cuda->cuModuleLoadDataEx(&module, image, 2, options, values);
  *handle = module;
  if (result == CUDA_SUCCESS)
    return TRITON_AOT_SUCCESS;
  log[sizeof log - 1] = '\0';
  tta_cuda_describe(cuda, result, description, sizeof description);
  return triton_aot_fail(TRITON_AOT_ERROR_LOAD_FAILED, "%s: cuModuleLoadDataEx failed: %s%s%s%s",
                         tta_what(what), description,
                         result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                             ? "; the PTX is newer than this driver: update the NVIDIA driver"
                             : "",
                         log[0] ? "; log: " : "", log);
}

/* `maximum` less the function's static shared memory: what its dynamic part may use. */
static uint32_t tta_dynamic_room(uint32_t maximum, uint32_t static_shared) {
  return maximum > static_shared ? maximum - static_shared : 0;
}

/* Shared memory above 48 KiB must be opted in to:
 * - within the device's opt-in maximum (and 228 KiB): MAX_DYNAMIC_SHARED_SIZE_BYTES raised to
 *   that maximum less the static part, Triton's legacy path (measured bit-equal with Triton on
 *   an H100; kept on purpose, on Rubin too);
 * - beyond it, within the oversized maximum (Rubin): SHARED_MEMORY_MODE = ALLOW_OVERSIZED, as
 *   Triton 3.9 sets it; launches above 228 KiB add the launch attribute (launch.c);
 * - else it fails here, naming the figures, before anything reaches the driver. */
static triton_aot_status tta_cuda_configure_shared(const tta_cuda *cuda, tta_device *device,
                                                   CUfunction function, uint32_t shared,
                                                   tta_slot_what *what) {
  char call[96];
  int static_shared = 0, static_known = 1;
  uint32_t legacy, legacy_serves, oversized;
  CUresult result, asked = tta_cuda_learn_shared_limits(cuda, device);
  if (cuda->cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) !=
          CUDA_SUCCESS ||
      static_shared < 0) {
    static_shared = 0;
    static_known = 0;
  }
  legacy = tta_dynamic_room(device->shared_limit, (uint32_t)static_shared);
  /* Without the static part, the opt-in maximum may be more than the driver grants (it refuses
   * a limit above the maximum less the static part): ask for what the launch needs, which it
   * grants whenever the launch fits at all. */
  if (!static_known && shared <= legacy)
    legacy = shared;
  oversized = tta_dynamic_room(device->oversized_limit, (uint32_t)static_shared);
  /* A launch above 228 KiB needs the oversized mode whatever the opt-in maximum says. */
  legacy_serves = legacy < TTA_OVERSIZED_SHARED_THRESHOLD ? legacy : TTA_OVERSIZED_SHARED_THRESHOLD;
  if (shared <= legacy_serves) {
    result = cuda->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      (int)legacy);
    tta_format(call, sizeof call, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %u)", legacy);
  } else if (shared <= oversized) {
    result = cuda->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE,
                                      CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY);
    tta_format(call, sizeof call, "cuFuncSetAttribute(SHARED_MEMORY_MODE, ALLOW_OVERSIZED)");
  } else {
    char why[320] = "";
    if (asked != CUDA_SUCCESS) {
      char description[256];
      tta_cuda_describe(cuda, asked, description, sizeof description);
      tta_format(why, sizeof why,
                 " (its opt-in maximum is unknown: "
                 "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) failed: %s)",
                 description);
    }
    return triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED,
                           "%s needs %u bytes of shared memory; device %d (%s) allows at most %u%s",
                           tta_what(what), shared, device->ordinal, tta_device_name(device),
                           oversized > legacy_serves ? oversized : legacy_serves, why);
  }
  if (result != CUDA_SUCCESS)
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_LAUNCH_FAILED, result, tta_what(what), call);
  return TRITON_AOT_SUCCESS;
}

/* Shared memory above 48 KiB (above); clusters above the portable size 8 need the non-portable
 * attribute. */
static triton_aot_status tta_cuda_configure(const tta_cuda *cuda, tta_device *device,
                                            CUfunction function,
                                            const triton_aot_function *descriptor,
                                            tta_slot_what *what) {
  const triton_aot_launch_info *launch = &descriptor->launch;
  uint64_t cluster = (uint64_t)launch->cluster[0] * launch->cluster[1] * launch->cluster[2];
  triton_aot_status status = TRITON_AOT_SUCCESS;
  CUresult result;
  if (launch->shared <= TTA_DEFAULT_SHARED_LIMIT && cluster <= 8)
    return TRITON_AOT_SUCCESS;
  tta_cuda_resolve_deferred();
  if (cuda->cuFuncGetAttribute == NULL)
    return tta_cuda_missing("cuFuncGetAttribute", tta_what(what));
  if (cuda->cuFuncSetAttribute == NULL)
    return tta_cuda_missing("cuFuncSetAttribute", tta_what(what));
  if (launch->shared > TTA_DEFAULT_SHARED_LIMIT) {
    status = tta_cuda_configure_shared(cuda, device, function, launch->shared, what);
    if (status != TRITON_AOT_SUCCESS)
      return status;
  }
  if (cluster > 8) {
    result = cuda->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                      1);
    if (result != CUDA_SUCCESS)
      return tta_cuda_fail(cuda, TRITON_AOT_ERROR_LAUNCH_FAILED, result, tta_what(what),
                           "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)");
  }
  return TRITON_AOT_SUCCESS;
}

triton_aot_status tta_cuda_get_function(const tta_library_state *state, tta_device *device,
                                        void *handle, const triton_aot_function *descriptor,
                                        const char *entry, tta_slot_what *what, void **function) {
  const tta_cuda *cuda = state->cuda;
  triton_aot_status status;
  CUfunction found = NULL;
  CUresult result;
  *function = NULL;
  result = cuda->cuModuleGetFunction(&found, (CUmodule)handle, entry);
  if (result != CUDA_SUCCESS || found == NULL) {
    char call[320];
    tta_format(call, sizeof call, "cuModuleGetFunction(\"%s\")", entry);
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_LOAD_FAILED,
                         result != CUDA_SUCCESS ? result : CUDA_ERROR_NOT_FOUND, tta_what(what),
                         call);
  }
  status = tta_cuda_configure(cuda, device, found, descriptor, what);
  if (status == TRITON_AOT_SUCCESS)
    *function = found;
  return status;
}

triton_aot_status tta_cuda_unload(const tta_library_state *state, const tta_loaded_image *loaded,
                                  const char *what) {
  const tta_cuda *cuda = state->cuda;
  CUcontext previous = NULL;
  CUresult result;
  triton_aot_status status;
  tta_cuda_resolve_deferred();
  if ((status = tta_cuda_need(cuda->cuCtxSetCurrent != NULL, "cuCtxSetCurrent", what)) !=
          TRITON_AOT_SUCCESS ||
      (status = tta_cuda_need(cuda->cuModuleUnload != NULL, "cuModuleUnload", what)) != TRITON_AOT_SUCCESS)
    return status;
  /* cuModuleUnload works on the current context: switch to the module's and back. A context
   * that cannot be made current was destroyed, and its modules with it: the handle is stale (a
   * later module may even have its address), so it is not passed to the driver. */
  if (cuda->cuCtxGetCurrent(&previous) != CUDA_SUCCESS)
    previous = NULL;
  if (previous != loaded->context && cuda->cuCtxSetCurrent(loaded->context) != CUDA_SUCCESS) {
    tta_log("%s: its context is gone, and its module with it", what);
    return TRITON_AOT_SUCCESS;
  }
  result = cuda->cuModuleUnload((CUmodule)loaded->handle);
  if (previous != loaded->context)
    cuda->cuCtxSetCurrent(previous);
  if (result != CUDA_SUCCESS) {
    status = tta_cuda_fail(cuda, TRITON_AOT_ERROR_LOAD_FAILED, result, what, "cuModuleUnload");
    tta_log("%s", triton_aot_last_error());
    return status;
  }
  return TRITON_AOT_SUCCESS;
}
