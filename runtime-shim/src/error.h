/* This thread's last error message (bounded, thread-local) and helpers that format driver
 * failures into it. */
#ifndef TRITON_AOT_ERROR_H
#define TRITON_AOT_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size of the thread-local message buffer; longer messages are cut (ending in "..."). */
#define TTA_ERROR_MESSAGE_SIZE 2048

TRITON_AOT_HIDDEN triton_aot_status tta_failv(triton_aot_status status, const char *format,
                                              va_list args);

/* snprintf that never fails: always NUL-terminates, cuts long text with "...", and returns the
 * number of characters written (never more than size - 1). */
TRITON_AOT_HIDDEN size_t tta_format(char *buffer, size_t size, const char *format, ...)
    TRITON_AOT_PRINTF(3, 4);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_ERROR_H */
