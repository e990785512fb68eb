/* The hash every image carries in its library's table (triton_aot_image.hash): XXH3-64 of the
 * bytes the driver gets, which triton-aot-ld computes with the same library (xxHash, inlined
 * here from its header, so the runtime needs nothing more at run time). It detects damage
 * (a flipped byte, a truncated copy), not tampering: whoever can rewrite an image can rewrite
 * its hash too. */
#ifndef TRITON_AOT_IMAGE_HASH_H
#define TRITON_AOT_IMAGE_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* XXH3-64 (seed 0) of `size` bytes at `data`: about 20 GB/s, so a 100 KiB cubin costs a first
 * load about 5 µs and a typical one (5-30 KiB) well under 2 µs. */
TRITON_AOT_HIDDEN uint64_t tta_image_hash(const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_IMAGE_HASH_H */
