/* first_launch's "resolve" method: what the runtime does when it opens the CUDA driver
 * (runtime-shim/src/driver_cuda.c), without the rest of its first call: dlopen libcuda.so.1,
 * find cuGetProcAddress_v2, and resolve every entry point of TTA_CUDA_ENTRY_POINTS. */
#include <dlfcn.h>
#include <string.h>

#include "cuda_api.h"

int tta_bench_resolve_runtime_entry_points(void) {
  PFN_cuGetProcAddress_v2 get = NULL;
  int resolved = 0;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), *symbol;
  if (library == NULL || (symbol = dlsym(library, "cuGetProcAddress_v2")) == NULL)
    return -1;
  memcpy(&get, &symbol, sizeof symbol);
#define TTA_BENCH_RESOLVE(name, version, required)                                                 \
  {                                                                                                \
    void *pfn = NULL;                                                                              \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;                            \
    if (get(#name, &pfn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&          \
        found == CU_GET_PROC_ADDRESS_SUCCESS && pfn != NULL)                                       \
      ++resolved;                                                                                  \
  }
  TTA_CUDA_ENTRY_POINTS(TTA_BENCH_RESOLVE)
#undef TTA_BENCH_RESOLVE
  return resolved; /* libcuda stays open, as the runtime keeps it */
}

/* The same entry points found with plain dlsym of their base names, as Triton's own launcher
 * finds its few: what resolving them costs without cuGetProcAddress. */
int tta_bench_dlsym_runtime_entry_points(void) {
  int resolved = 0;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL)
    return -1;
#define TTA_BENCH_DLSYM(name, version, required)                                                   \
  if (dlsym(library, #name) != NULL)                                                               \
    ++resolved;
  TTA_CUDA_ENTRY_POINTS(TTA_BENCH_DLSYM)
#undef TTA_BENCH_DLSYM
  return resolved;
}

/* dlopen alone: what opening the already-loaded driver costs before any entry point. */
int tta_bench_dlopen_driver(void) {
  return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) != NULL ? 1 : -1;
}

/* dlopen with RTLD_NOLOAD: a handle to the driver only if the process has it loaded already. */
int tta_bench_dlopen_driver_noload(void) {
  return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) != NULL ? 1 : -1;
}
