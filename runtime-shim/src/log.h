/* TRITON_AOT_LOG: when the variable is set (to anything but "" or "0") as the library is loaded,
 * the runtime writes one stderr line per load decision and per load failure, prefixed
 * "triton-aot: ". Silent otherwise. */
#ifndef TRITON_AOT_LOG_H
#define TRITON_AOT_LOG_H

#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read once, when the library is loaded. */
TRITON_AOT_HIDDEN int tta_log_enabled(void);

/* Writes one line (the newline is added) when logging is enabled. */
TRITON_AOT_HIDDEN void tta_log(const char *format, ...) TRITON_AOT_PRINTF(1, 2);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_LOG_H */
