/* The facts of driver_headers_list.h as the runtime's own cuda_api.h / hip_api.h state them. */
#include <stddef.h>

#include "cuda_api.h"
#include "driver_headers_list.h"
#include "hip_api.h"

int tta_driver_facts_ours(long long *values, const char **names, int capacity) {
  int count = 0;
#define TTA_FACT(what, ours, real)                 \
  if (count < capacity) {                          \
    values[count] = (long long)(ours);             \
    names[count] = what;                           \
  }                                                \
  ++count;
  TTA_DRIVER_FACTS(TTA_FACT)
#undef TTA_FACT
  return count;
}

int tta_driver_unnamed_facts_ours(long long *values, const char **names, int capacity) {
  int count = 0;
#define TTA_FACT(what, ours, real)                 \
  if (count < capacity) {                          \
    values[count] = (long long)(ours);             \
    names[count] = what;                           \
  }                                                \
  ++count;
  TTA_DRIVER_UNNAMED_FACTS(TTA_FACT)
#undef TTA_FACT
  return count;
}
