/* Scratch allocation: the replaceable allocator and the default one (cuMemAllocAsync /
 * hipMallocAsync on the launch stream, freed on the same stream after the launch). */
#include "scratch.h"

#include <string.h>

#include "error.h"
#include "log.h"

/* Set only while no launch is in flight (the documented contract), so plain storage. */
static triton_aot_allocator tta_user_allocator;
static int tta_has_user_allocator;

void triton_aot_set_allocator(const triton_aot_allocator *allocator) {
  if (allocator != NULL && allocator->allocate != NULL) {
    tta_user_allocator = *allocator;
    tta_has_user_allocator = 1;
  } else {
    memset(&tta_user_allocator, 0, sizeof tta_user_allocator);
    tta_has_user_allocator = 0;
  }
}

static uintptr_t tta_align_up(uintptr_t value, uint64_t align) {
  uintptr_t rest = (uintptr_t)(value % align);
  return rest ? value + (uintptr_t)(align - rest) : value;
}

static triton_aot_status tta_default_allocate(const tta_library_state *state, size_t size,
                                              void *stream, const char *what, void **base) {
  if (state->backend == TRITON_AOT_BACKEND_CUDA) {
    CUdeviceptr pointer = 0;
    CUresult result;
    tta_cuda_resolve_deferred();
    if (state->cuda->cuMemAllocAsync == NULL)
      return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY,
                             "%s needs scratch memory, and this CUDA driver has no cuMemAllocAsync "
                             "(CUDA 11.2); set an allocator with <prefix>_set_allocator()",
                             what);
    result = state->cuda->cuMemAllocAsync(&pointer, size, (CUstream)stream);
    if (result != CUDA_SUCCESS) {
      char call[96];
      tta_format(call, sizeof call, "cuMemAllocAsync(%zu bytes of scratch)", size);
      return tta_cuda_fail(state->cuda, TRITON_AOT_ERROR_OUT_OF_MEMORY, result, what, call);
    }
    *base = (void *)(uintptr_t)pointer;
  } else {
    hipError_t result;
    if (state->hip->hipMallocAsync == NULL)
      return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY,
                             "%s needs scratch memory, and this HIP runtime has no hipMallocAsync; "
                             "set an allocator with <prefix>_set_allocator()",
                             what);
    result = state->hip->hipMallocAsync(base, size, (hipStream_t)stream);
    if (result != hipSuccess) {
      char call[96];
      tta_format(call, sizeof call, "hipMallocAsync(%zu bytes of scratch)", size);
      return tta_hip_fail(state->hip, TRITON_AOT_ERROR_OUT_OF_MEMORY, result, what, call);
    }
  }
  return TRITON_AOT_SUCCESS;
}

/* A refused free cannot undo the launch it follows, which was enqueued: the launch keeps its
 * status and the refusal goes to the log (TRITON_AOT_LOG), naming the call. */
static void tta_default_free(const tta_library_state *state, void *base, void *stream) {
  char description[256];
  if (state->backend == TRITON_AOT_BACKEND_CUDA) {
    CUresult result = CUDA_SUCCESS;
    tta_cuda_resolve_deferred();
    if (state->cuda->cuMemFreeAsync != NULL)
      result = state->cuda->cuMemFreeAsync((CUdeviceptr)(uintptr_t)base, (CUstream)stream);
    if (result != CUDA_SUCCESS) {
      tta_cuda_describe(state->cuda, result, description, sizeof description);
      tta_log("cuMemFreeAsync(%p, scratch) failed: %s", base, description);
    }
  } else if (state->hip->hipFreeAsync != NULL) {
    hipError_t result = state->hip->hipFreeAsync(base, (hipStream_t)stream);
    if (result != hipSuccess) {
      tta_hip_describe(state->hip, result, description, sizeof description);
      tta_log("hipFreeAsync(%p, scratch) failed: %s", base, description);
    }
  }
}

triton_aot_status tta_scratch_allocate(const tta_library_state *state, uint64_t size,
                                       uint64_t align, void *stream, const char *what,
                                       tta_scratch *scratch) {
  triton_aot_status status;
  memset(scratch, 0, sizeof *scratch);
  if (size == 0)
    return TRITON_AOT_SUCCESS;
  if (align == 0)
    align = 1;
  if (size > SIZE_MAX || align > SIZE_MAX || size > SIZE_MAX - align)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY,
                           "%s needs %llu bytes of scratch memory, more than can be addressed",
                           what, (unsigned long long)size);
  if (tta_has_user_allocator) {
    int result;
    scratch->allocator = tta_user_allocator;
    scratch->user = 1;
    result = scratch->allocator.allocate(scratch->allocator.user, (size_t)size, (size_t)align,
                                         stream, &scratch->pointer);
    if (result != 0 || scratch->pointer == NULL) {
      scratch->pointer = NULL;
      return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY,
                             "%s: the scratch allocator failed to allocate %llu bytes aligned to "
                             "%llu (it returned %d)",
                             what, (unsigned long long)size, (unsigned long long)align, result);
    }
    return TRITON_AOT_SUCCESS;
  }
  /* Stream-ordered pools return 256-byte aligned blocks; a larger alignment over-allocates. */
  status = tta_default_allocate(state, (size_t)(align > 256 ? size + align - 1 : size), stream,
                                what, &scratch->base);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  if ((uintptr_t)scratch->base % align != 0 && align <= 256) {
    /* Not what the pool promises; retry with room to align. */
    tta_default_free(state, scratch->base, stream);
    scratch->base = NULL;
    status = tta_default_allocate(state, (size_t)(size + align - 1), stream, what, &scratch->base);
    if (status != TRITON_AOT_SUCCESS)
      return status;
  }
  scratch->pointer = (void *)tta_align_up((uintptr_t)scratch->base, align);
  return TRITON_AOT_SUCCESS;
}

void tta_scratch_release(const tta_library_state *state, tta_scratch *scratch, void *stream) {
  if (scratch->pointer == NULL)
    return;
  if (scratch->user) {
    if (scratch->allocator.release != NULL)
      scratch->allocator.release(scratch->allocator.user, scratch->pointer, stream);
  } else {
    tta_default_free(state, scratch->base, stream);
  }
  scratch->pointer = NULL;
  scratch->base = NULL;
}
