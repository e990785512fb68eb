/* Calls both kernels of the two_kernels library through its generated C API.
 *
 * Without a GPU: both entry points must fail cleanly with TRITON_AOT_ERROR_NO_DRIVER or
 * _NO_DEVICE; the program says so, prints the library's inventory and exits 0 (77 with
 * --require-gpu, CTest's skip code). With a CUDA GPU: runs every config of `add` and both
 * branches of `scale_shift`, checks them against the CPU, exits 0 when all match, else 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <two_kernels.h>

#include "gpu_memory.h"

enum { SKIP = 77 };

static int no_gpu(const char *why, int require_gpu) {
  triton_aot_status add = two_kernels_add(NULL, NULL, NULL, NULL, 1024);
  const char *add_error = two_kernels_last_error();
  char message[512];
  triton_aot_status scale = two_kernels_scale_shift(NULL, NULL, NULL, 2.0f, 0, 1024, true);
  snprintf(message, sizeof message, "%s", add_error);
  if ((add != TRITON_AOT_ERROR_NO_DRIVER && add != TRITON_AOT_ERROR_NO_DEVICE) || scale != add) {
    fprintf(stderr, "without a GPU the launches returned %d and %d: %s\n", add, scale, message);
    return 1;
  }
  printf("no GPU (%s); two_kernels_add returned %d: %s\n", why, add, message);
  printf("%s", two_kernels_inventory());
  return require_gpu ? SKIP : 0;
}

/* out = x + y, exactly, for every config of `add`, at a size that takes the :16 variant and
 * at one that takes the generic one. */
static int run_add(float *x, float *y, float *out, float *dx, float *dy, float *dout) {
  static const int sizes[] = {1 << 20, 1000003};
  int failures = 0;
  for (int config = 0; config < two_kernels_add_config_count(); ++config) {
    for (int s = 0; s < 2; ++s) {
      int n = sizes[s], wrong = 0;
      memset(out, 0, (size_t)n * sizeof *out);
      if (gpu_upload(dout, out, (size_t)n * sizeof *out) != 0)
        return 1;
      if (two_kernels_add_config(NULL, config, dx, dy, dout, n) != TRITON_AOT_SUCCESS ||
          gpu_synchronize() != 0 || gpu_download(out, dout, (size_t)n * sizeof *out) != 0) {
        printf("add config %s n=%d: FAILED: %s\n", two_kernels_add_config_name(config), n,
               two_kernels_last_error());
        ++failures;
        continue;
      }
      for (int i = 0; i < n; ++i)
        wrong += out[i] != x[i] + y[i];
      printf("add config %s n=%d: %s (%d wrong)\n", two_kernels_add_config_name(config), n,
             wrong ? "FAILED" : "ok", wrong);
      failures += wrong != 0;
    }
  }
  return failures;
}

/* out = x * alpha (+ beta), alpha fp32, beta fp16 0.25, n i64, use_beta i1. The fp16 pattern
 * is spelled out: an installed library's consumer has no <triton_aot/runtime.h> and its
 * triton_aot_fp16(). */
#define FP16_QUARTER 0x3400 /* 0.25: exponent -2 + 15 = 13, mantissa 0 */
static int run_scale_shift(float *x, float *out, float *dx, float *dout) {
  const int64_t n = 1 << 20;
  int failures = 0;
  for (int use_beta = 0; use_beta < 2; ++use_beta) {
    int wrong = 0;
    if (two_kernels_scale_shift(NULL, dx, dout, 1.5f, FP16_QUARTER, n, use_beta) !=
            TRITON_AOT_SUCCESS ||
        gpu_synchronize() != 0 || gpu_download(out, dout, (size_t)n * sizeof *out) != 0) {
      printf("scale_shift use_beta=%d: FAILED: %s\n", use_beta, two_kernels_last_error());
      ++failures;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      float reference = x[i] * 1.5f + (use_beta ? 0.25f : 0.0f);
      wrong += fabsf(out[i] - reference) > 1e-5f * (1.0f + fabsf(reference));
    }
    printf("scale_shift use_beta=%d: %s (%d wrong)\n", use_beta, wrong ? "FAILED" : "ok", wrong);
    failures += wrong != 0;
  }
  return failures;
}

int main(int argc, char **argv) {
  const size_t n = 1 << 20, bytes = n * sizeof(float);
  int require_gpu = argc > 1 && strcmp(argv[1], "--require-gpu") == 0;
  char device[256] = "";
  const char *why = gpu_open(device, sizeof device);
  float *x, *y, *out, *dx, *dy, *dout;
  int failures;
  if (*why)
    return no_gpu(why, require_gpu);

  printf("device: %s\n", device);
  x = malloc(bytes), y = malloc(bytes), out = malloc(bytes);
  dx = gpu_alloc(bytes), dy = gpu_alloc(bytes), dout = gpu_alloc(bytes);
  if (!x || !y || !out || !dx || !dy || !dout) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < n; ++i) {
    x[i] = (float)(i % 1000) * 0.5f - 250.0f;
    y[i] = (float)(i % 77) * 0.25f;
  }
  if (gpu_upload(dx, x, bytes) != 0 || gpu_upload(dy, y, bytes) != 0) {
    fprintf(stderr, "upload failed\n");
    return 1;
  }
  failures = run_add(x, y, out, dx, dy, dout) + run_scale_shift(x, out, dx, dout);
  gpu_free(dx), gpu_free(dy), gpu_free(dout);
  free(x), free(y), free(out);
  printf("%s\n", failures ? "FAILED" : "all results match the CPU");
  return failures ? 1 : 0;
}
