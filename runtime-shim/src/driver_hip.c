/* Opening libamdhip64. Two HIP runtimes in one process break each other, so one the process
 * already has (PyTorch's, the application's) is reused before any name is opened. */
#include "driver_hip.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "error.h"
#include "log.h"

static pthread_once_t tta_hip_once = PTHREAD_ONCE_INIT;
static tta_hip tta_hip_table;
static const tta_hip *tta_hip_loaded;
static triton_aot_status tta_hip_load_status;
static char tta_hip_load_message[512];

static void tta_hip_set_failure(triton_aot_status status, const char *message) {
  tta_hip_load_status = status;
  tta_format(tta_hip_load_message, sizeof tta_hip_load_message, "%s", message);
  tta_log("%s", message);
}

void tta_hip_describe(const tta_hip *hip, hipError_t result, char *buffer, size_t size) {
  const char *name = hip && hip->hipGetErrorName ? hip->hipGetErrorName(result) : NULL;
  const char *text = hip && hip->hipGetErrorString ? hip->hipGetErrorString(result) : NULL;
  if (name != NULL)
    tta_format(buffer, size, "%s (%s)", name, text != NULL ? text : "no description");
  else
    tta_format(buffer, size, "hipError_t %d", result);
}

triton_aot_status tta_hip_fail(const tta_hip *hip, triton_aot_status status, hipError_t result,
                               const char *context, const char *what) {
  char description[256];
  tta_hip_describe(hip, result, description, sizeof description);
  return triton_aot_fail(status, "%s%s%s failed: %s", context ? context : "", context ? ": " : "",
                         what, description);
}

static void *tta_hip_open_library(const char **opened) {
  static const char *const names[] = TTA_HIP_LIBRARY_NAMES;
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
    void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (library != NULL) {
      *opened = names[i];
      return library;
    }
  }
  for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
    void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library != NULL) {
      *opened = names[i];
      return library;
    }
  }
  return NULL;
}

/* Returns the name of a missing required entry point, or NULL. */
static const char *tta_hip_resolve(void *library, tta_hip *hip) {
  PFN_hipGetProcAddress get = NULL;
  void *symbol = dlsym(library, "hipGetProcAddress");
  memcpy(&get, &symbol, sizeof symbol);
#define TTA_HIP_RESOLVE(name, required)                                                            \
  {                                                                                                \
    void *pfn = NULL;                                                                              \
    hipDriverProcAddressQueryResult found = HIP_GET_PROC_ADDRESS_SUCCESS;                          \
    if (get == NULL || get(#name, &pfn, TTA_HIP_PROC_VERSION, 0, &found) != hipSuccess ||          \
        found != HIP_GET_PROC_ADDRESS_SUCCESS)                                                     \
      pfn = NULL;                                                                                  \
    if (pfn == NULL)                                                                               \
      pfn = dlsym(library, #name);                                                                 \
    memcpy(&hip->name, &pfn, sizeof pfn);                                                          \
    if (pfn == NULL && (required))                                                                 \
      return #name;                                                                                \
  }
  TTA_HIP_ENTRY_POINTS(TTA_HIP_RESOLVE)
#undef TTA_HIP_RESOLVE
  /* By its exact name: the struct layout hip_api.h reads is this symbol's ABI. */
  symbol = dlsym(library, "hipGetDevicePropertiesR0600");
  memcpy(&hip->hipGetDevicePropertiesR0600, &symbol, sizeof symbol);
  if (symbol == NULL)
    return "hipGetDevicePropertiesR0600 (ROCm 6.0)";
  return NULL;
}

static void tta_hip_open(void) {
  char message[512], description[256];
  const char *opened = NULL, *missing;
  int count = 0;
  hipError_t result;
  void *library = tta_hip_open_library(&opened);
  if (library == NULL) {
    tta_hip_set_failure(TRITON_AOT_ERROR_NO_DRIVER,
                        "cannot load the HIP runtime (libamdhip64.so, .so.7 or .so.6); install "
                        "ROCm 6.0 or newer, or make its lib directory visible to the loader "
                        "(ldconfig, LD_LIBRARY_PATH)");
    return;
  }
  tta_format(tta_hip_table.library_name, sizeof tta_hip_table.library_name, "%s", opened);
  missing = tta_hip_resolve(library, &tta_hip_table);
  if (missing != NULL) {
    tta_format(message, sizeof message,
               "the HIP runtime %s is too old: it has no %s; install ROCm 6.0 or newer", opened,
               missing);
    tta_hip_set_failure(TRITON_AOT_ERROR_NO_DRIVER, message);
    return;
  }
  if (tta_hip_table.hipRuntimeGetVersion(&tta_hip_table.runtime_version) != hipSuccess)
    tta_hip_table.runtime_version = 0;
  result = tta_hip_table.hipGetDeviceCount(&count);
  if (result != hipSuccess || count <= 0) {
    tta_hip_describe(&tta_hip_table, result, description, sizeof description);
    tta_format(message, sizeof message, "the HIP runtime %s reports no GPU (hipGetDeviceCount: %s)",
               opened, result == hipSuccess ? "0 devices" : description);
    tta_hip_set_failure(TRITON_AOT_ERROR_NO_DEVICE, message);
    return;
  }
  tta_log("HIP runtime %d loaded (%s), %d device(s)", tta_hip_table.runtime_version, opened, count);
  tta_hip_loaded = &tta_hip_table;
}

const tta_hip *tta_hip_driver(triton_aot_status *status) {
  pthread_once(&tta_hip_once, tta_hip_open);
  if (tta_hip_loaded == NULL) {
    *status = triton_aot_fail(tta_hip_load_status, "%s", tta_hip_load_message);
    return NULL;
  }
  *status = TRITON_AOT_SUCCESS;
  return tta_hip_loaded;
}
