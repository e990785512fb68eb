/* zstd decompression through dlopen("libzstd.so.1"), so a library without compressed images
 * never needs libzstd. */
#ifndef TRITON_AOT_ZSTD_LOADER_H
#define TRITON_AOT_ZSTD_LOADER_H

#include <stddef.h>

#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decompresses one zstd frame of exactly `raw_size` bytes into a new malloc'd buffer (*out; the
 * caller frees it); a frame with a content checksum (triton-aot-ld writes one) is checked
 * against it. LOAD_FAILED (libzstd.so.1 missing, or the data corrupt, of another size or not
 * matching its checksum) or OUT_OF_MEMORY, with this thread's error set. `what` names the
 * image in messages. */
TRITON_AOT_HIDDEN triton_aot_status tta_zstd_decompress(const void *data, size_t size,
                                                        size_t raw_size, const char *what,
                                                        void **out);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_ZSTD_LOADER_H */
