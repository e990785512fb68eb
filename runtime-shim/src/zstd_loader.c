/* libzstd, opened once on first need. */
#include "zstd_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

typedef size_t (*tta_zstd_decompress_fn)(void *dst, size_t dst_capacity, const void *src,
                                         size_t src_size);
typedef unsigned (*tta_zstd_is_error_fn)(size_t code);
typedef const char *(*tta_zstd_error_name_fn)(size_t code);

static pthread_once_t tta_zstd_once = PTHREAD_ONCE_INIT;
static tta_zstd_decompress_fn tta_zstd_decompress_frame;
static tta_zstd_is_error_fn tta_zstd_is_error;
static tta_zstd_error_name_fn tta_zstd_error_name;

static void tta_zstd_open(void) {
  void *library = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  void *symbols[3];
  if (library == NULL)
    return;
  symbols[0] = dlsym(library, "ZSTD_decompress");
  symbols[1] = dlsym(library, "ZSTD_isError");
  symbols[2] = dlsym(library, "ZSTD_getErrorName");
  if (symbols[0] == NULL || symbols[1] == NULL || symbols[2] == NULL)
    return;
  memcpy(&tta_zstd_is_error, &symbols[1], sizeof symbols[1]);
  memcpy(&tta_zstd_error_name, &symbols[2], sizeof symbols[2]);
  memcpy(&tta_zstd_decompress_frame, &symbols[0], sizeof symbols[0]);
}

triton_aot_status tta_zstd_decompress(const void *data, size_t size, size_t raw_size,
                                      const char *what, void **out) {
  size_t produced;
  void *buffer;
  *out = NULL;
  pthread_once(&tta_zstd_once, tta_zstd_open);
  if (tta_zstd_decompress_frame == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_LOAD_FAILED,
                           "%s is zstd-compressed, and libzstd.so.1 cannot be loaded; install "
                           "libzstd (Debian/Ubuntu: libzstd1)",
                           what);
  buffer = malloc(raw_size ? raw_size : 1);
  if (buffer == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY,
                           "cannot allocate %zu bytes to decompress %s", raw_size, what);
  produced = tta_zstd_decompress_frame(buffer, raw_size, data, size);
  if (tta_zstd_is_error(produced) || produced != raw_size) {
    /* A frame the linker wrote decompresses to raw_size bytes and matches its checksum: else
     * the library is damaged. */
    triton_aot_status status = triton_aot_fail(
        TRITON_AOT_ERROR_LOAD_FAILED,
        "%s is damaged: decompressing it failed: %s; rebuild or reinstall the library", what,
        tta_zstd_is_error(produced) ? tta_zstd_error_name(produced) : "wrong decompressed size");
    free(buffer);
    return status;
  }
  *out = buffer;
  return TRITON_AOT_SUCCESS;
}
