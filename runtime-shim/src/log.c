/* Load-decision logging, off unless TRITON_AOT_LOG is set. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"

static int tta_log_on;

/* Read when the library is loaded, so a first launch does not pay for the environment scan
 * (about 2 us cold); a library loaded before the variable is set stays silent. */
__attribute__((constructor)) static void tta_log_read_environment(void) {
  const char *value = getenv("TRITON_AOT_LOG");
  tta_log_on = value != NULL && value[0] != '\0' && !(value[0] == '0' && value[1] == '\0');
}

int tta_log_enabled(void) { return tta_log_on; }

void tta_log(const char *format, ...) {
  char line[TTA_ERROR_MESSAGE_SIZE + 256];
  va_list args;
  if (!tta_log_enabled())
    return;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  /* One fputs per line so lines from different threads do not interleave. */
  fprintf(stderr, "triton-aot: %s\n", line);
}
