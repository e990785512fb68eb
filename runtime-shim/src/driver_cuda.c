/* Opening libcuda.so.1. Only cuGetProcAddress comes from dlsym: a plain dlsym of a base name
 * binds the oldest ABI (cuMemAlloc is the 32-bit-size v1), which pinned versions avoid. */
#include "driver_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "error.h"
#include "log.h"

/* The driver is opened once, under a mutex rather than pthread_once: a first launch locks
 * mutexes anyway, and each other libc function it calls costs a lazily bound library about a
 * microsecond to bind on that first call. */
static pthread_mutex_t tta_cuda_open_mutex = PTHREAD_MUTEX_INITIALIZER;
static int tta_cuda_opened; /* atomic: tta_cuda_open() has run */
tta_cuda tta_cuda_table;
static triton_aot_status tta_cuda_load_status;
static char tta_cuda_load_message[512];

static void tta_cuda_set_failure(triton_aot_status status, const char *message) {
  tta_cuda_load_status = status;
  tta_format(tta_cuda_load_message, sizeof tta_cuda_load_message, "%s", message);
  tta_log("%s", message);
}

void tta_cuda_describe(const tta_cuda *cuda, CUresult result, char *buffer, size_t size) {
  const char *name = NULL, *text = NULL;
  tta_cuda_resolve_deferred();
  if (cuda != NULL && cuda->cuGetErrorName != NULL)
    cuda->cuGetErrorName(result, &name);
  if (cuda != NULL && cuda->cuGetErrorString != NULL)
    cuda->cuGetErrorString(result, &text);
  if (name != NULL)
    tta_format(buffer, size, "%s (%s)", name, text != NULL ? text : "no description");
  else
    tta_format(buffer, size, "CUresult %d", result);
}

triton_aot_status tta_cuda_fail(const tta_cuda *cuda, triton_aot_status status, CUresult result,
                                const char *context, const char *what) {
  char description[256];
  tta_cuda_describe(cuda, result, description, sizeof description);
  return triton_aot_fail(status, "%s%s%s failed: %s", context ? context : "", context ? ": " : "",
                         what, description);
}

/* cuGetProcAddress, found with dlsym when the driver is opened. */
static PFN_cuGetProcAddress_v2 tta_get_v2;
static PFN_cuGetProcAddress_v1 tta_get_v1;

static int tta_cuda_find_resolver(void *library) {
  void *symbol = dlsym(library, "cuGetProcAddress_v2");
  if (symbol != NULL) {
    memcpy(&tta_get_v2, &symbol, sizeof symbol);
    return 1;
  }
  /* 11.3 - 11.8 drivers: only the v1 signature, which has no symbolStatus. */
  symbol = dlsym(library, "cuGetProcAddress");
  if (symbol == NULL)
    return 0;
  memcpy(&tta_get_v1, &symbol, sizeof symbol);
  return 1;
}

/* One entry point at `version`; NULL when the driver lacks it. *stub is set when
 * cuGetProcAddress itself answers CUDA_ERROR_STUB_LIBRARY. */
static void *tta_cuda_entry(const char *name, int version, int *stub) {
  void *pfn = NULL;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
  CUresult result = tta_get_v2
                        ? tta_get_v2(name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found)
                        : tta_get_v1(name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT);
  if (result == CUDA_ERROR_STUB_LIBRARY)
    *stub = 1;
  /* A version above the driver's is CUDA_ERROR_INVALID_VALUE: the same as missing. */
  return result == CUDA_SUCCESS && found == CU_GET_PROC_ADDRESS_SUCCESS ? pfn : NULL;
}

/* Resolves a first launch's entry points; returns the name of a missing required one, or NULL. */
static const char *tta_cuda_resolve(tta_cuda *cuda, int *stub) {
#define TTA_CUDA_RESOLVE(name, version, required)                                                  \
  {                                                                                                \
    void *pfn = tta_cuda_entry(#name, version, stub);                                              \
    memcpy(&cuda->name, &pfn, sizeof pfn);                                                         \
    if (pfn == NULL && (required))                                                                 \
      return #name;                                                                                \
  }
  TTA_CUDA_LAUNCH_ENTRY_POINTS(TTA_CUDA_RESOLVE)
#undef TTA_CUDA_RESOLVE
  return NULL;
}

static pthread_once_t tta_cuda_deferred_once = PTHREAD_ONCE_INIT;

static void tta_cuda_resolve_deferred_once(void) {
  int stub = 0;
#define TTA_CUDA_RESOLVE_DEFERRED(name, version, required)                                         \
  {                                                                                                \
    void *pfn = tta_cuda_entry(#name, version, &stub);                                             \
    memcpy(&tta_cuda_table.name, &pfn, sizeof pfn);                                                \
  }
  TTA_CUDA_DEFERRED_ENTRY_POINTS(TTA_CUDA_RESOLVE_DEFERRED)
#undef TTA_CUDA_RESOLVE_DEFERRED
  if (tta_cuda_table.cuDriverGetVersion == NULL ||
      tta_cuda_table.cuDriverGetVersion(&tta_cuda_table.driver_version) != CUDA_SUCCESS)
    tta_cuda_table.driver_version = 0;
}

void tta_cuda_resolve_deferred(void) {
  /* Only once cuGetProcAddress is found (the driver is being opened, or open). */
  if (tta_get_v2 != NULL || tta_get_v1 != NULL)
    pthread_once(&tta_cuda_deferred_once, tta_cuda_resolve_deferred_once);
}

static void tta_cuda_open(void) {
  char message[512], description[256];
  const char *missing;
  int stub = 0;
  CUresult result;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *why = dlerror();
    tta_format(message, sizeof message,
               "cannot load the CUDA driver libcuda.so.1 (%s); install the NVIDIA driver, or "
               "make its libcuda.so.1 visible to the loader (ldconfig, LD_LIBRARY_PATH)",
               why ? why : "not found");
    tta_cuda_set_failure(TRITON_AOT_ERROR_NO_DRIVER, message);
    return;
  }
  if (!tta_cuda_find_resolver(library)) {
    tta_cuda_set_failure(TRITON_AOT_ERROR_NO_DRIVER,
                         "the CUDA driver libcuda.so.1 is too old: it has no cuGetProcAddress; "
                         "install an NVIDIA driver for CUDA 11.3 or newer");
    return;
  }
  missing = tta_cuda_resolve(&tta_cuda_table, &stub);
  if (missing != NULL && stub) {
    tta_cuda_set_failure(TRITON_AOT_ERROR_NO_DRIVER,
                         "the libcuda.so.1 found is the CUDA toolkit's stub library, not a "
                         "driver (cuGetProcAddress answered CUDA_ERROR_STUB_LIBRARY); install the "
                         "NVIDIA driver, or remove the toolkit's lib64/stubs directory from the "
                         "library path");
    return;
  }
  if (missing != NULL) {
    tta_format(message, sizeof message,
               "the CUDA driver libcuda.so.1 is too old: it has no %s; install an NVIDIA "
               "driver for CUDA 11.3 or newer",
               missing);
    tta_cuda_set_failure(TRITON_AOT_ERROR_NO_DRIVER, message);
    return;
  }
  /* Already initialised (by the application, a framework or another library) when a context
   * query answers: cuInit (a deferred entry point) is then neither found nor called, which a
   * first launch would otherwise pay for. */
  {
    CUcontext current = NULL;
    result = tta_cuda_table.cuCtxGetCurrent(&current);
  }
  if (result != CUDA_SUCCESS) {
    tta_cuda_resolve_deferred();
    if (tta_cuda_table.cuInit == NULL) {
      tta_cuda_set_failure(TRITON_AOT_ERROR_NO_DRIVER,
                           "the CUDA driver libcuda.so.1 is too old: it has no cuInit; install an "
                           "NVIDIA driver for CUDA 11.3 or newer");
      return;
    }
    result = tta_cuda_table.cuInit(0);
  }
  if (result != CUDA_SUCCESS) {
    tta_cuda_describe(&tta_cuda_table, result, description, sizeof description);
    if (result == CUDA_ERROR_STUB_LIBRARY)
      tta_format(message, sizeof message,
                 "the libcuda.so.1 found is the CUDA toolkit's stub library, not a driver "
                 "(cuInit failed: %s); install the NVIDIA driver, or remove the toolkit's "
                 "lib64/stubs directory from the library path",
                 description);
    else if (result == CUDA_ERROR_NO_DEVICE)
      tta_format(message, sizeof message, "the CUDA driver reports no GPU (cuInit failed: %s)",
                 description);
    else
      tta_format(message, sizeof message, "the CUDA driver failed to start (cuInit failed: %s)",
                 description);
    tta_cuda_set_failure(result == CUDA_ERROR_NO_DEVICE ? TRITON_AOT_ERROR_NO_DEVICE
                                                        : TRITON_AOT_ERROR_NO_DRIVER,
                         message);
    return;
  }
  /* The library stays open for the life of the process (handles outlive any unload). */
  __atomic_store_n(&tta_cuda_table.ready, 1, __ATOMIC_RELEASE);
  if (!tta_log_enabled())
    return;
  tta_cuda_resolve_deferred(); /* the driver's version and cuLaunchKernelEx, for the line below */
  tta_log("CUDA driver %d.%d loaded (libcuda.so.1)%s%s", tta_cuda_table.driver_version / 1000,
          tta_cuda_table.driver_version % 1000 / 10,
          tta_cuda_table.cuCtxGetId ? "" : "; no cuCtxGetId: contexts told apart by address",
          tta_cuda_table.cuLaunchKernelEx ? "" : "; no cuLaunchKernelEx");
}

const tta_cuda *tta_cuda_driver(triton_aot_status *status) {
  if (!__atomic_load_n(&tta_cuda_opened, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&tta_cuda_open_mutex);
    if (!tta_cuda_opened) {
      tta_cuda_open();
      __atomic_store_n(&tta_cuda_opened, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tta_cuda_open_mutex);
  }
  if (!__atomic_load_n(&tta_cuda_table.ready, __ATOMIC_ACQUIRE)) {
    *status = triton_aot_fail(tta_cuda_load_status, "%s", tta_cuda_load_message);
    return NULL;
  }
  *status = TRITON_AOT_SUCCESS;
  return &tta_cuda_table;
}
