/* Status + thread-local message. A successful call leaves the message alone (no thread-local
 * write on the launch fast path); the generated API clears it where it owns the success path. */
#include "error.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char tta_error_message[TTA_ERROR_MESSAGE_SIZE];

static size_t tta_vformat(char *buffer, size_t size, const char *format, va_list args) {
  int written;
  if (size == 0)
    return 0;
  written = vsnprintf(buffer, size, format, args);
  if (written < 0) {
    buffer[0] = '\0';
    return 0;
  }
  if ((size_t)written >= size) {
    /* Cut: mark it, so a reader knows the text is incomplete. */
    if (size >= 4)
      memcpy(buffer + size - 4, "...", 4);
    return size - 1;
  }
  return (size_t)written;
}

size_t tta_format(char *buffer, size_t size, const char *format, ...) {
  va_list args;
  size_t written;
  va_start(args, format);
  written = tta_vformat(buffer, size, format, args);
  va_end(args);
  return written;
}

triton_aot_status tta_failv(triton_aot_status status, const char *format, va_list args) {
  /* The arguments may point into the message buffer itself (a message built on the previous
   * one), so format into a scratch copy first. */
  char message[TTA_ERROR_MESSAGE_SIZE];
  tta_vformat(message, sizeof message, format, args);
  memcpy(tta_error_message, message, sizeof message);
  return status;
}

triton_aot_status triton_aot_fail(triton_aot_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  tta_failv(status, format, args);
  va_end(args);
  return status;
}

void triton_aot_clear_error(void) { tta_error_message[0] = '\0'; }

const char *triton_aot_last_error(void) { return tta_error_message; }
