/* The facts of driver_headers_list.h as the real cuda.h (CUDA 12.8 in Triton 3.5-3.6, 13.1 in
 * 3.7-3.9) and hip_runtime_api.h that Triton's wheel bundles state them. */
#include <stddef.h>

#include <cuda.h>
#include <hip/hip_runtime_api.h>

#include "driver_headers_list.h"

int tta_driver_facts_real(long long *values, const char **names, int capacity) {
  int count = 0;
#define TTA_FACT(what, ours, real)                 \
  if (count < capacity) {                          \
    values[count] = (long long)(real);             \
    names[count] = what;                           \
  }                                                \
  ++count;
  TTA_DRIVER_FACTS(TTA_FACT)
#undef TTA_FACT
  return count;
}

int tta_driver_unnamed_facts_real(long long *values, const char **names, int capacity) {
  int count = 0;
#define TTA_FACT(what, ours, real)                 \
  if (count < capacity) {                          \
    values[count] = (long long)(real);             \
    names[count] = what;                           \
  }                                                \
  ++count;
  TTA_DRIVER_UNNAMED_FACTS(TTA_FACT)
#undef TTA_FACT
  return count;
}
