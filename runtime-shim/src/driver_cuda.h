/* The CUDA driver, opened once per process: libcuda.so.1 through dlopen, every entry point
 * through cuGetProcAddress at the version pinned in cuda_api.h. */
#ifndef TRITON_AOT_DRIVER_CUDA_H
#define TRITON_AOT_DRIVER_CUDA_H

#include "cuda_api.h"
#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tta_cuda {
  /* Does cuCtxGetId(NULL) give the current context's id (one driver call per launch instead of
   * cuCtxGetCurrent + cuCtxGetId)? 0 not yet known, 1 yes, -1 no. Atomic (release / acquire):
   * set once the driver is open, by the first thread that finds out (library_cuda.c
   * tta_cuda_current_context). First, so that it shares a cache line with the launch's entry
   * points (the first list). */
  int id_of_current __attribute__((aligned(64)));
  /* Set (release) once the driver is open and usable, never cleared: tta_cuda_driver() answers
   * from it, and a launch reads the table only after an acquire load of this or of
   * id_of_current. */
  int ready;
  /* Unloads so far of any library of this runtime copy (launch_memo.h: an entry made before one
   * misses). Not the driver's, but kept in the line every launch reads anyway: the flags, this,
   * cuCtxGetId and cuLaunchKernel (the first two of the launch's entry points). */
  uint64_t memo_unloads;
#define TTA_CUDA_MEMBER(name, version, required) PFN_##name name;
  TTA_CUDA_ENTRY_POINTS(TTA_CUDA_MEMBER)
#undef TTA_CUDA_MEMBER
  int driver_version; /* cuDriverGetVersion: 1000 * major + 10 * minor (deferred) */
} tta_cuda;

/* The process's one table, which the launch path reads directly (launch_memo.c, launch.c): its
 * entry points are set once tta_cuda_driver() has returned it. */
TRITON_AOT_HIDDEN extern tta_cuda tta_cuda_table;

/* The driver, or NULL with this thread's error set (NO_DRIVER: library missing, a stub, too old
 * or broken; NO_DEVICE: cuInit says there is no GPU). The outcome of the first call is kept for
 * the life of the process. */
TRITON_AOT_HIDDEN const tta_cuda *tta_cuda_driver(triton_aot_status *status);

/* Resolves the entry points a first launch does not need (cuda_api.h), once; a no-op before the
 * driver's cuGetProcAddress is found. Call before using one of TTA_CUDA_DEFERRED_ENTRY_POINTS or driver_version. */
TRITON_AOT_HIDDEN void tta_cuda_resolve_deferred(void);

/* Records "<what> failed: CUDA_ERROR_X (text)" (prefixed by `context` when not NULL) as this
 * thread's error and returns `status`. */
TRITON_AOT_HIDDEN triton_aot_status tta_cuda_fail(const tta_cuda *cuda, triton_aot_status status,
                                                  CUresult result, const char *context,
                                                  const char *what);

/* "CUDA_ERROR_X (text)" for `result` into buffer. */
TRITON_AOT_HIDDEN void tta_cuda_describe(const tta_cuda *cuda, CUresult result, char *buffer,
                                         size_t size);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_DRIVER_CUDA_H */
