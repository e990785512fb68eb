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
