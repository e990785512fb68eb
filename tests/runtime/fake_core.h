/* What both fake drivers share: one lock, the records, call counting, injected failures and
 * the misuse log. Each fake library compiles its own copy (hidden), so the two never share
 * state. */
#ifndef TTA_FAKE_CORE_H
#define TTA_FAKE_CORE_H

#include <pthread.h>

#include "fake_driver.h"
#include "fake_image.h"

/* Every fake entry point takes this lock for the time it touches shared state. */
FAKE_HIDDEN extern pthread_mutex_t fake_mutex;
#define FAKE_LOCK() pthread_mutex_lock(&fake_mutex)
#define FAKE_UNLOCK() pthread_mutex_unlock(&fake_mutex)

/* The helpers below take their own lock (never the driver's), so they may be called with or
 * without fake_mutex held. */

/* Counts a call of entry point `name` and returns the error injected for it, or 0. */
/* The constructor's configuration, published: each fake's constructor calls
 * fake_publish_configuration() last, and every entry point fake_see_configuration() first.
 * Another thread's dlopen returns only after the constructor ran, under the loader's lock, which
 * ThreadSanitizer cannot see; this release/acquire pair is what it can. */
FAKE_HIDDEN void fake_publish_configuration(void);
FAKE_HIDDEN void fake_see_configuration(void);

FAKE_HIDDEN int fake_enter(const char *name);

/* Appends a record. */
FAKE_HIDDEN void fake_record_load(const tta_fake_load *record);
FAKE_HIDDEN void fake_record_launch(const tta_fake_launch *record);
FAKE_HIDDEN void fake_record_attribute(const tta_fake_attribute *record);
FAKE_HIDDEN void fake_record_memory(const tta_fake_memory *record);

/* Notes something the runtime must never do. */
FAKE_HIDDEN void fake_misuse(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Live object counters (under fake_mutex). */
FAKE_HIDDEN extern int fake_live_modules;
FAKE_HIDDEN extern int fake_live_allocations;

/* Clears records, counters and failures (caller holds fake_mutex). */
FAKE_HIDDEN void fake_core_clear(void);

/* Copies kernelParams[i] (param_size[i] bytes each) into the launch record. */
FAKE_HIDDEN void fake_copy_params(tta_fake_launch *record, const fake_entry *entry, void **params);

/* "sm_86" → 86; returns -1 when malformed. */
FAKE_HIDDEN int fake_parse_sm(const char *text, size_t length);

FAKE_HIDDEN void fake_copy_text(char *out, size_t size, const char *text);

#endif /* TTA_FAKE_CORE_H */
