/* Scratch buffers for kernels whose metadata asks for global or profile scratch: allocated per
 * launch through the user's allocator, or the default stream-ordered one. */
#ifndef TRITON_AOT_SCRATCH_H
#define TRITON_AOT_SCRATCH_H

#include <stdint.h>

#include "library_state.h"
#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tta_scratch {
  void *pointer;                  /* what the kernel gets (aligned); NULL for size 0 */
  void *base;                     /* default allocator: what the driver returned */
  triton_aot_allocator allocator; /* the user allocator that made it, if any */
  int user;
} tta_scratch;

/* Allocates `size` bytes aligned to `align` for work on `stream` (size 0: pointer NULL, nothing
 * allocated). OUT_OF_MEMORY with the driver's or allocator's reason on failure. */
TRITON_AOT_HIDDEN triton_aot_status tta_scratch_allocate(const tta_library_state *state,
                                                         uint64_t size, uint64_t align,
                                                         void *stream, const char *what,
                                                         tta_scratch *scratch);

/* Gives the buffer back on `stream` (after the launch that uses it was enqueued). */
TRITON_AOT_HIDDEN void tta_scratch_release(const tta_library_state *state, tta_scratch *scratch,
                                           void *stream);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_SCRATCH_H */
