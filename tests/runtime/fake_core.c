/* Records, call counts, injected failures and misuse: shared by both fakes (one copy each). */
#include "fake_core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pthread_mutex_t fake_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Records, counts, failures and misuse: taken after fake_mutex when both are held, so every
 * helper here works with or without the driver's lock. */
static pthread_mutex_t record_mutex = PTHREAD_MUTEX_INITIALIZER;
#define RECORD_LOCK() pthread_mutex_lock(&record_mutex)
#define RECORD_UNLOCK() pthread_mutex_unlock(&record_mutex)
int fake_live_modules;
int fake_live_allocations;

#define FAKE_MAX_FAILURES 16
#define FAKE_MAX_CALL_NAMES 64

typedef struct fake_failure {
  char name[64];
  int error, skip, times; /* times < 0: forever */
} fake_failure;

typedef struct fake_call_count {
  char name[64];
  int count;
} fake_call_count;

/* A growing array of fixed-size records. */
typedef struct fake_log {
  void *items;
  int count, capacity;
} fake_log;

static fake_failure failures[FAKE_MAX_FAILURES];
static int failure_count;
static fake_call_count calls[FAKE_MAX_CALL_NAMES];
static int call_name_count, total_calls;
static fake_log loads, launches, attributes, memory;
static int misuse_count;
static char first_misuse[512];

void fake_copy_text(char *out, size_t size, const char *text) {
  snprintf(out, size, "%s", text ? text : "");
}

static void log_append(fake_log *log, const void *record, size_t size) {
  RECORD_LOCK();
  if (log->count == log->capacity) {
    int capacity = log->capacity ? log->capacity * 2 : 64;
    void *items = realloc(log->items, (size_t)capacity * size);
    if (items == NULL) {
      RECORD_UNLOCK();
      abort(); /* a test helper out of memory: nothing sensible to report */
    }
    log->items = items;
    log->capacity = capacity;
  }
  memcpy((char *)log->items + (size_t)log->count * size, record, size);
  log->count++;
  RECORD_UNLOCK();
}

static int log_get(fake_log *log, int index, void *out, size_t size) {
  int found = 0;
  RECORD_LOCK();
  if (index >= 0 && index < log->count) {
    memcpy(out, (char *)log->items + (size_t)index * size, size);
    found = 1;
  }
  RECORD_UNLOCK();
  return found ? 0 : -1;
}

static int log_count(fake_log *log) {
  int count;
  RECORD_LOCK();
  count = log->count;
  RECORD_UNLOCK();
  return count;
}

void fake_record_load(const tta_fake_load *record) { log_append(&loads, record, sizeof *record); }
void fake_record_launch(const tta_fake_launch *record) { log_append(&launches, record, sizeof *record); }
void fake_record_attribute(const tta_fake_attribute *record) { log_append(&attributes, record, sizeof *record); }
void fake_record_memory(const tta_fake_memory *record) { log_append(&memory, record, sizeof *record); }

static int configuration_published;

void fake_publish_configuration(void) {
  __atomic_store_n(&configuration_published, 1, __ATOMIC_RELEASE);
}

void fake_see_configuration(void) {
  (void)__atomic_load_n(&configuration_published, __ATOMIC_ACQUIRE);
}

int fake_enter(const char *name) {
  int i, error = 0;
  fake_see_configuration();
  RECORD_LOCK();
  total_calls++;
  for (i = 0; i < call_name_count && strcmp(calls[i].name, name) != 0; ++i) {}
  if (i == call_name_count && call_name_count < FAKE_MAX_CALL_NAMES) {
    fake_copy_text(calls[i].name, sizeof calls[i].name, name);
    calls[i].count = 0;
    call_name_count++;
  }
  if (i < call_name_count) calls[i].count++;
  for (i = 0; i < failure_count; ++i) {
    fake_failure *failure = &failures[i];
    if (strcmp(failure->name, name) != 0 || failure->times == 0) continue;
    if (failure->skip > 0) {
      failure->skip--;
      continue;
    }
    if (failure->times > 0) failure->times--;
    error = failure->error;
    break;
  }
  RECORD_UNLOCK();
  return error;
}

void fake_misuse(const char *format, ...) {
  va_list args;
  RECORD_LOCK();
  if (misuse_count++ == 0) {
    va_start(args, format);
    vsnprintf(first_misuse, sizeof first_misuse, format, args);
    va_end(args);
  }
  RECORD_UNLOCK();
}

void fake_core_clear(void) {
  RECORD_LOCK();
  failure_count = 0;
  call_name_count = 0;
  total_calls = 0;
  loads.count = launches.count = attributes.count = memory.count = 0;
  misuse_count = 0;
  first_misuse[0] = '\0';
  RECORD_UNLOCK();
  fake_live_modules = 0;
  fake_live_allocations = 0;
}

void fake_copy_params(tta_fake_launch *record, const fake_entry *entry, void **params) {
  unsigned i, offset = 0;
  record->param_count = entry->param_count;
  for (i = 0; i < entry->param_count && i < TTA_FAKE_MAX_PARAMS; ++i) {
    unsigned size = entry->param_size[i];
    record->param_size[i] = size;
    record->param_offset[i] = offset;
    /* Like the driver: read exactly the declared size through each pointer. */
    if (params != NULL && params[i] != NULL && offset + size <= TTA_FAKE_PARAM_BYTES)
      memcpy(record->params + offset, params[i], size);
    else if (params == NULL || params[i] == NULL)
      fake_misuse("%s: kernelParams[%u] is NULL", record->function, i);
    offset += size;
  }
}

int fake_parse_sm(const char *text, size_t length) {
  int sm = 0;
  size_t i = 3;
  if (length < 5 || strncmp(text, "sm_", 3) != 0) return -1;
  for (; i < length && text[i] >= '0' && text[i] <= '9'; ++i) sm = sm * 10 + (text[i] - '0');
  if (i < length && text[i] == 'a') ++i;
  return i == length && sm >= 10 ? sm : -1;
}

/* ---------------------------------------------------------------------------------------- */
/* The exported part of the control API that both fakes share.                               */

__attribute__((visibility("default"))) void tta_fake_fail(const char *name, int error, int skip,
                                                          int times) {
  RECORD_LOCK();
  if (failure_count < FAKE_MAX_FAILURES) {
    fake_failure *failure = &failures[failure_count++];
    fake_copy_text(failure->name, sizeof failure->name, name);
    failure->error = error;
    failure->skip = skip;
    failure->times = times;
  }
  RECORD_UNLOCK();
}

__attribute__((visibility("default"))) void tta_fake_clear_failures(const char *name) {
  int i, kept = 0;
  RECORD_LOCK();
  for (i = 0; i < failure_count; ++i)
    if (name != NULL && name[0] != '\0' && strcmp(failures[i].name, name) != 0)
      failures[kept++] = failures[i];
  failure_count = kept;
  RECORD_UNLOCK();
}

__attribute__((visibility("default"))) int tta_fake_call_count(const char *name) {
  int i, count = 0;
  RECORD_LOCK();
  if (name == NULL || name[0] == '\0') {
    count = total_calls;
  } else {
    for (i = 0; i < call_name_count; ++i)
      if (strcmp(calls[i].name, name) == 0) count = calls[i].count;
  }
  RECORD_UNLOCK();
  return count;
}

__attribute__((visibility("default"))) int tta_fake_load_count(void) { return log_count(&loads); }
__attribute__((visibility("default"))) int tta_fake_launch_count(void) { return log_count(&launches); }
__attribute__((visibility("default"))) int tta_fake_attribute_count(void) { return log_count(&attributes); }
__attribute__((visibility("default"))) int tta_fake_memory_count(void) { return log_count(&memory); }

__attribute__((visibility("default"))) int tta_fake_get_load(int index, tta_fake_load *out) {
  return log_get(&loads, index, out, sizeof *out);
}
__attribute__((visibility("default"))) int tta_fake_get_launch(int index, tta_fake_launch *out) {
  return log_get(&launches, index, out, sizeof *out);
}
__attribute__((visibility("default"))) int tta_fake_get_attribute(int index, tta_fake_attribute *out) {
  return log_get(&attributes, index, out, sizeof *out);
}
__attribute__((visibility("default"))) int tta_fake_get_memory(int index, tta_fake_memory *out) {
  return log_get(&memory, index, out, sizeof *out);
}

__attribute__((visibility("default"))) int tta_fake_live_modules(void) {
  int count;
  FAKE_LOCK();
  count = fake_live_modules;
  FAKE_UNLOCK();
  return count;
}

__attribute__((visibility("default"))) int tta_fake_live_allocations(void) {
  int count;
  FAKE_LOCK();
  count = fake_live_allocations;
  FAKE_UNLOCK();
  return count;
}

__attribute__((visibility("default"))) int tta_fake_misuse_count(void) {
  int count;
  RECORD_LOCK();
  count = misuse_count;
  RECORD_UNLOCK();
  return count;
}

/* The text stays valid until the next reset; a misuse is rare and reported once. */
__attribute__((visibility("default"))) const char *tta_fake_first_misuse(void) {
  return first_misuse;
}
