/* An LD_PRELOAD library for the integration tests: the process that loads it is killed
 * (SIGKILL, which nothing can catch) just before its Nth rename(2) of a file into the directory
 * TTA_KILL_RENAME_DIR, where N is TTA_KILL_RENAME_AT: a compile that dies part-way through
 * putting its outputs in place (tests/integration/cache_trust_test.cpp). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rename(const char *from, const char *to) {
  static int (*real)(const char *, const char *);
  static int renames;
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "rename");
  const char *dir = getenv("TTA_KILL_RENAME_DIR");
  const char *at = getenv("TTA_KILL_RENAME_AT");
  size_t length = dir ? strlen(dir) : 0;
  if (dir && at && strncmp(to, dir, length) == 0 && to[length] == '/' &&
      !strchr(to + length + 1, '/') && ++renames == atoi(at))
    raise(SIGKILL);
  return real(from, to);
}
