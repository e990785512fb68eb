/* A fake CUDA driver (libcuda.so.1) for the runtime's CPU tests. It serves its entry points
 * through cuGetProcAddress_v2 at the versions a real driver would (cuda_api.h has the types),
 * checks what it is asked to do like a driver does (image fits the device, block size the
 * kernel was built for, shared memory limits, cluster shape, handles of the right context) and
 * records every load, launch, attribute and allocation for the tests (fake_driver.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "fake_core.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

enum { FAKE_CUDA_ERROR_NOT_PERMITTED = 800, FAKE_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
       FAKE_CUDA_ERROR_ILLEGAL_ADDRESS = 700, FAKE_CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
       FAKE_CUDA_ERROR_DEINITIALIZED = 4, FAKE_CUDA_ERROR_CONTEXT_IS_DESTROYED = 709 };

enum { MAGIC_CONTEXT = 0x78746366, MAGIC_MODULE = 0x646f6d66, MAGIC_FUNCTION = 0x636e7566,
       MAGIC_KERNEL = 0x6e726b66 };

#define FAKE_ATTRIBUTES 256
#define DEFAULT_SHARED 49152

struct CUctx_st {
  uint32_t magic;
  int id;
  int device;
  int generation;
  int destroyed;              /* tta_fake_destroy_context */
};

/* A loaded module (one context) or library (context-independent). */
typedef struct fake_module {
  uint32_t magic;
  int id;
  int is_library;
  int alive;
  int generation;
  struct CUctx_st *context;   /* modules */
  int device;                 /* where it was loaded (-1: no context was current) */
  fake_image image;           /* image.data: our copy, or the caller's when preserved */
  unsigned char *copy;
  struct fake_function *functions;
  struct fake_module *next_all;
} fake_module;

/* A CUfunction (of a module, or of a CUkernel in one context) or a CUkernel (library mode;
 * attributes per device). */
typedef struct fake_function {
  uint32_t magic;             /* MAGIC_FUNCTION or MAGIC_KERNEL */
  int id;
  fake_module *owner;
  struct CUctx_st *context;   /* a CUfunction's context; NULL for a CUkernel */
  struct fake_function *kernel;   /* cuKernelGetFunction: the CUkernel it belongs to */
  struct fake_function *in_contexts; /* a CUkernel's functions (cuKernelGetFunction) */
  char name[128];
  fake_entry entry;
  int max_dynamic_shared[TTA_FAKE_MAX_DEVICES]; /* -1: default */
  int non_portable_cluster[TTA_FAKE_MAX_DEVICES];
  int oversized_shared[TTA_FAKE_MAX_DEVICES]; /* SHARED_MEMORY_MODE = ALLOW_OVERSIZED */
  struct fake_function *next;
} fake_function;

typedef struct fake_device {
  int sm;
  int attributes[FAKE_ATTRIBUTES];
  struct CUctx_st primary;
} fake_device;

typedef struct fake_allocation {
  CUdeviceptr address;
  size_t size;
  int live;
} fake_allocation;

static fake_device devices[TTA_FAKE_MAX_DEVICES];
static int device_count;
static int generation = 1;
static int initialized;            /* cuInit succeeded (process lifetime, like a driver) */
static int driver_version = 13000; /* CUDA 13.0: PTX ISA 9.0, what the newest Triton writes fits */
static int stub_library;           /* TTA_FAKE_CUDA_STUB: behave like the toolkit's stub */
static char hidden_entry_points[512]; /* TTA_FAKE_CUDA_HIDE: ",name,name," not served */
static int null_context_id = 1; /* TTA_FAKE_CUDA_NULL_CONTEXT_ID=0: cuCtxGetId(NULL) refused */
static int next_id = 1;
static fake_module *all_modules;   /* never freed: handles stay valid (and reachable for LSan) */
static struct CUctx_st *extra_contexts[64];
static int extra_context_count;
static fake_allocation *allocations;
static int allocation_count, allocation_capacity;
static CUdeviceptr next_address = 0x7f0000000000ull;

static volatile uint64_t image_probe; /* reads a preserved image at launch (ASan sees a freed one) */
static __thread struct CUctx_st *tls_context;
static __thread int tls_generation;

/* ---------------------------------------------------------------------------------------- */
/* Devices                                                                                     */

static void device_defaults(fake_device *device, int sm) {
  int *a = device->attributes;
  memset(device->attributes, 0, sizeof device->attributes);
  device->sm = sm;
  a[CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK] = 1024;
  a[CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X] = 2147483647;
  a[CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y] = 65535;
  a[CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z] = 65535;
  a[CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK] = DEFAULT_SHARED;
  a[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR] = sm / 10;
  a[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR] = sm % 10;
  a[CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH] = 1;
  a[CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED] = 1;
  a[CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH] = sm >= 90;
  /* Opt-in shared memory and SM counts of A100, RTX 30xx, L4/RTX 40xx, H100, B200, Rubin. */
  a[CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN] =
      sm == 80 ? 166912 : sm == 90 || sm == 100 || sm == 107 ? 232448 : 101376;
  /* Rubin's oversized blocks: 328 KiB per SM less the 1 KiB the system reserves. */
  a[CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK] = sm == 107 ? 334848 : 0;
  a[CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT] =
      sm == 80 ? 108 : sm == 86 ? 84 : sm == 89 ? 58 : sm == 90 ? 132 : sm == 100 ? 148 : 40;
}

/* Under the lock. */
static int configure_devices(const char *list) {
  int count = 0;
  const char *p = list ? list : "";
  while (*p != '\0') {
    const char *end = strchr(p, ',');
    size_t length = end ? (size_t)(end - p) : strlen(p);
    int sm = fake_parse_sm(p, length);
    if (sm < 0 || count == TTA_FAKE_MAX_DEVICES) return -1;
    device_defaults(&devices[count], sm);
    count++;
    p += length;
    if (*p == ',') ++p;
  }
  device_count = count;
  return 0;
}

static int max_ptx_version(void) {
  static const int table[][2] = {{13000, 90}, {12090, 88}, {12080, 87}, {12070, 86},
                                 {12050, 85}, {12040, 84}, {12030, 83}, {12020, 82},
                                 {12010, 81}, {12000, 80}, {11080, 78}, {0, 70}};
  int i;
  for (i = 0; table[i][0] > driver_version; ++i) {}
  return table[i][1];
}

static void init_primary_contexts(void) {
  int d;
  for (d = 0; d < TTA_FAKE_MAX_DEVICES; ++d) {
    devices[d].primary.magic = MAGIC_CONTEXT;
    devices[d].primary.id = d + 1;
    devices[d].primary.device = d;
    devices[d].primary.generation = generation;
  }
}

__attribute__((constructor)) static void fake_cuda_start(void) {
  const char *list = getenv("TTA_FAKE_CUDA_DEVICES");
  const char *version = getenv("TTA_FAKE_CUDA_VERSION");
  const char *stub = getenv("TTA_FAKE_CUDA_STUB");
  if (configure_devices(list ? list : "sm_90") != 0) configure_devices("sm_90");
  if (version != NULL) driver_version = atoi(version);
  stub_library = stub != NULL && stub[0] == '1';
  null_context_id = !(getenv("TTA_FAKE_CUDA_NULL_CONTEXT_ID") != NULL &&
                      getenv("TTA_FAKE_CUDA_NULL_CONTEXT_ID")[0] == '0');
  snprintf(hidden_entry_points, sizeof hidden_entry_points, ",%s,",
           getenv("TTA_FAKE_CUDA_HIDE") ? getenv("TTA_FAKE_CUDA_HIDE") : "");
  init_primary_contexts();
  fake_publish_configuration();
}

/* The calling thread's current context (NULL: none, or one from before the last reset). */
static struct CUctx_st *current_context(void) {
  return tls_context != NULL && tls_generation == generation ? tls_context : NULL;
}

static int device_of(const struct CUctx_st *context) { return context ? context->device : -1; }

/* What a call that needs `context` answers: 0, or why it cannot use it. */
static int context_error(const struct CUctx_st *context) {
  if (context == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  return context->destroyed ? FAKE_CUDA_ERROR_CONTEXT_IS_DESTROYED : 0;
}

static int begin(const char *name) {
  fake_see_configuration();
  if (stub_library) return CUDA_ERROR_STUB_LIBRARY;
  return fake_enter(name);
}

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                      */

static const struct { int code; const char *name, *text; } errors[] = {
  {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
  {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
  {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
  {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
  {FAKE_CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
  {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
  {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
  {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
  {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
  {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
  {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
  {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
  {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
  {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
  {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
  {FAKE_CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
  {FAKE_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
  {FAKE_CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
  {FAKE_CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
  {FAKE_CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
  {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
  {CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "invalid cluster size"},
  {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **text) {
  size_t i;
  int injected = fake_enter("cuGetErrorName");
  if (injected) return injected;
  if (text == NULL) return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < sizeof errors / sizeof errors[0]; ++i)
    if (errors[i].code == error) {
      *text = errors[i].name;
      return CUDA_SUCCESS;
    }
  *text = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  size_t i;
  int injected = fake_enter("cuGetErrorString");
  if (injected) return injected;
  if (text == NULL) return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < sizeof errors / sizeof errors[0]; ++i)
    if (errors[i].code == error) {
      *text = errors[i].text;
      return CUDA_SUCCESS;
    }
  *text = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* ---------------------------------------------------------------------------------------- */
/* Initialisation, devices, contexts                                                          */

FAKE_EXPORT CUresult cuInit(unsigned int flags) {
  int error = begin("cuInit"), result;
  if (error) return error;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  result = device_count == 0 ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
  if (result == CUDA_SUCCESS) initialized = 1;
  FAKE_UNLOCK();
  return result;
}

/* 0 when cuInit has succeeded (every other entry point needs it). */
static int need_init(void) {
  int ok;
  FAKE_LOCK();
  ok = initialized;
  FAKE_UNLOCK();
  return ok ? 0 : CUDA_ERROR_NOT_INITIALIZED;
}

#define ENTER(name)                       \
  do {                                    \
    int entered_ = begin(name);           \
    if (entered_) return entered_;        \
    entered_ = need_init();               \
    if (entered_) return entered_;        \
  } while (0)

FAKE_EXPORT CUresult cuDriverGetVersion(int *version) {
  int error = begin("cuDriverGetVersion");
  if (error) return error;
  if (version == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  *version = driver_version;
  FAKE_UNLOCK();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  ENTER("cuDeviceGetCount");
  if (count == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  *count = device_count;
  FAKE_UNLOCK();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  int result;
  ENTER("cuDeviceGet");
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  result = ordinal >= 0 && ordinal < device_count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
  if (result == CUDA_SUCCESS) *device = ordinal;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device) {
  int result = CUDA_SUCCESS;
  ENTER("cuDeviceGetAttribute");
  if (value == NULL || attribute < 0 || attribute >= FAKE_ATTRIBUTES) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  if (device < 0 || device >= device_count) result = CUDA_ERROR_INVALID_DEVICE;
  else *value = devices[device].attributes[attribute];
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  int result = CUDA_SUCCESS;
  ENTER("cuDeviceGetName");
  if (name == NULL || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  if (device < 0 || device >= device_count) result = CUDA_ERROR_INVALID_DEVICE;
  else snprintf(name, (size_t)length, "Fake GPU sm_%d", devices[device].sm);
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  int result = CUDA_SUCCESS;
  ENTER("cuDevicePrimaryCtxRetain");
  if (context == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  if (device < 0 || device >= device_count) result = CUDA_ERROR_INVALID_DEVICE;
  else *context = &devices[device].primary;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *context) {
  ENTER("cuCtxGetCurrent");
  if (context == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  *context = current_context();
  FAKE_UNLOCK();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  int result = CUDA_SUCCESS;
  ENTER("cuCtxSetCurrent");
  FAKE_LOCK();
  if (context != NULL && (context->magic != MAGIC_CONTEXT || context->generation != generation)) {
    result = CUDA_ERROR_INVALID_CONTEXT;
  } else if (context != NULL && context->destroyed) {
    result = FAKE_CUDA_ERROR_CONTEXT_IS_DESTROYED;
  } else {
    tls_context = context;
    tls_generation = generation;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  int result = CUDA_SUCCESS;
  ENTER("cuCtxGetDevice");
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  result = context_error(current_context());
  if (result == CUDA_SUCCESS) *device = current_context()->device;
  FAKE_UNLOCK();
  return result;
}

/* ---------------------------------------------------------------------------------------- */
/* Loading                                                                                     */

static void write_jit_log(unsigned count, const CUjit_option *options, void **values,
                          const char *text) {
  char *buffer = NULL;
  size_t size = 0;
  unsigned i;
  for (i = 0; i < count && options != NULL && values != NULL; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) buffer = (char *)values[i];
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) size = (size_t)(uintptr_t)values[i];
  }
  if (buffer != NULL && size > 0) snprintf(buffer, size, "%s", text);
}

/* Loads `code` for the current context's device (library: checked there when one is current).
 * Under the lock. */
static int load(const char *api, const void *code, int is_library, int preserved,
                unsigned jit_count, CUjit_option *jit_options, void **jit_values,
                fake_module **out) {
  struct CUctx_st *context = current_context();
  tta_fake_load record;
  fake_image image;
  char log[256] = "";
  int result = CUDA_SUCCESS;
  memset(&record, 0, sizeof record);
  fake_copy_text(record.api, sizeof record.api, api);
  record.device = device_of(context);
  record.context = context ? context->id : -1;
  if (code == NULL) {
    result = CUDA_ERROR_INVALID_VALUE;
  } else if (fake_image_read(code, &image) != 0) {
    memcpy(record.head, code, sizeof record.head);
    snprintf(log, sizeof log, "fake driver: not a cubin or PTX image");
    result = CUDA_ERROR_INVALID_IMAGE;
  } else {
    record.kind = image.kind;
    fake_copy_text(record.arch, sizeof record.arch, image.arch);
    record.size = image.size;
    record.hash = image.hash;
    memcpy(record.head, code, image.size < sizeof record.head ? image.size : sizeof record.head);
    if (image.kind == TTA_FAKE_IMAGE_HSACO) {
      result = CUDA_ERROR_INVALID_IMAGE;
      snprintf(log, sizeof log, "fake driver: an AMDGPU code object is not a CUDA image");
    } else if (!is_library && context == NULL) {
      result = CUDA_ERROR_INVALID_CONTEXT;
    } else if (context != NULL && context->destroyed) {
      result = FAKE_CUDA_ERROR_CONTEXT_IS_DESTROYED;
    } else if (context != NULL) {
      result = fake_image_cuda_check(&image, devices[context->device].sm, max_ptx_version(), log,
                                     sizeof log);
    }
  }
  if (result == CUDA_SUCCESS) {
    fake_module *module = (fake_module *)calloc(1, sizeof *module);
    size_t bytes = image.size + (image.kind == TTA_FAKE_IMAGE_PTX ? 1 : 0);
    if (module == NULL) abort();
    module->magic = MAGIC_MODULE;
    module->id = next_id++;
    module->is_library = is_library;
    module->alive = 1;
    module->generation = generation;
    module->context = is_library ? NULL : context;
    module->device = device_of(context);
    if (!preserved) { /* a driver copies the image unless told it stays alive */
      module->copy = (unsigned char *)malloc(bytes);
      if (module->copy == NULL) abort();
      memcpy(module->copy, code, bytes);
      fake_image_read(module->copy, &image);
    }
    module->image = image;
    module->next_all = all_modules;
    all_modules = module;
    fake_live_modules++;
    record.handle = module->id;
    *out = module;
  } else {
    write_jit_log(jit_count, jit_options, jit_values, log);
  }
  record.result = result;
  fake_record_load(&record);
  return result;
}

FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int count,
                                        CUjit_option *options, void **values) {
  fake_module *loaded = NULL;
  int result;
  ENTER("cuModuleLoadDataEx");
  if (module == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  result = load("cuModuleLoadDataEx", image, 0, 0, count, options, values, &loaded);
  FAKE_UNLOCK();
  if (result == CUDA_SUCCESS) *module = (CUmodule)(void *)loaded;
  return result;
}

FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  fake_module *loaded = NULL;
  int result;
  ENTER("cuModuleLoadData");
  if (module == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  result = load("cuModuleLoadData", image, 0, 0, 0, NULL, NULL, &loaded);
  FAKE_UNLOCK();
  if (result == CUDA_SUCCESS) *module = (CUmodule)(void *)loaded;
  return result;
}

FAKE_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code,
                                       CUjit_option *jit_options, void **jit_values,
                                       unsigned int jit_count, CUlibraryOption *library_options,
                                       void **library_values, unsigned int library_count) {
  fake_module *loaded = NULL;
  int result, preserved = 0;
  unsigned i;
  ENTER("cuLibraryLoadData");
  if (library == NULL) return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < library_count && library_options && library_values; ++i)
    if (library_options[i] == CU_LIBRARY_BINARY_IS_PRESERVED)
      preserved = library_values[i] != NULL; /* the value travels in the pointer */
  FAKE_LOCK();
  result = load("cuLibraryLoadData", code, 1, preserved, jit_count, jit_options, jit_values, &loaded);
  FAKE_UNLOCK();
  if (result == CUDA_SUCCESS) *library = (CUlibrary)(void *)loaded;
  return result;
}

/* Unloads `module` (under the lock): a driver's handle dies, and the fake's copy of the image
 * goes with it. */
static void release_module(fake_module *module) {
  module->alive = 0;
  free(module->copy);
  module->copy = NULL;
  module->image.data = NULL;
  fake_live_modules--;
}

/* Under the lock: the module behind a handle, or NULL (misuse noted when it was unloaded). */
static fake_module *live_module(const void *handle, int is_library, const char *api) {
  fake_module *module = (fake_module *)handle;
  if (module == NULL || module->magic != MAGIC_MODULE || module->is_library != is_library) {
    fake_misuse("%s: not a %s handle", api, is_library ? "CUlibrary" : "CUmodule");
    return NULL;
  }
  if (module->generation != generation) return NULL;
  if (!module->alive) {
    fake_misuse("%s: %s %d was already unloaded", api, is_library ? "library" : "module", module->id);
    return NULL;
  }
  return module;
}

static int unload(const void *handle, int is_library, const char *api) {
  fake_module *module;
  int result = CUDA_SUCCESS;
  FAKE_LOCK();
  module = live_module(handle, is_library, api);
  if (module == NULL) {
    result = CUDA_ERROR_INVALID_HANDLE;
  } else {
    release_module(module);
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule module) {
  ENTER("cuModuleUnload");
  return unload(module, 0, "cuModuleUnload");
}

FAKE_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  ENTER("cuLibraryUnload");
  return unload(library, 1, "cuLibraryUnload");
}

/* Under the lock: the function `name` of `module` (one handle per name, like a driver). */
static int get_function(fake_module *module, const char *name, uint32_t magic, fake_function **out) {
  fake_function *function;
  fake_entry entry;
  int d;
  if (name == NULL) return CUDA_ERROR_INVALID_VALUE;
  for (function = module->functions; function != NULL; function = function->next)
    if (strcmp(function->name, name) == 0) {
      *out = function;
      return CUDA_SUCCESS;
    }
  fake_image_entry(&module->image, name, &entry);
  if (!entry.found) return CUDA_ERROR_NOT_FOUND;
  function = (fake_function *)calloc(1, sizeof *function);
  if (function == NULL) abort();
  function->magic = magic;
  function->id = next_id++;
  function->owner = module;
  function->context = module->context;
  fake_copy_text(function->name, sizeof function->name, name);
  function->entry = entry;
  for (d = 0; d < TTA_FAKE_MAX_DEVICES; ++d) function->max_dynamic_shared[d] = -1;
  function->next = module->functions;
  module->functions = function;
  *out = function;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *out, CUmodule handle, const char *name) {
  fake_module *module;
  fake_function *function = NULL;
  int result;
  ENTER("cuModuleGetFunction");
  if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  module = live_module(handle, 0, "cuModuleGetFunction");
  result = module ? get_function(module, name, MAGIC_FUNCTION, &function) : CUDA_ERROR_INVALID_HANDLE;
  FAKE_UNLOCK();
  if (result == CUDA_SUCCESS) *out = (CUfunction)(void *)function;
  return result;
}

FAKE_EXPORT CUresult cuLibraryGetKernel(CUkernel *out, CUlibrary handle, const char *name) {
  fake_module *module;
  fake_function *kernel = NULL;
  int result;
  ENTER("cuLibraryGetKernel");
  if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  module = live_module(handle, 1, "cuLibraryGetKernel");
  result = module ? get_function(module, name, MAGIC_KERNEL, &kernel) : CUDA_ERROR_INVALID_HANDLE;
  FAKE_UNLOCK();
  if (result == CUDA_SUCCESS) *out = (CUkernel)(void *)kernel;
  return result;
}

/* ---------------------------------------------------------------------------------------- */
/* Function attributes                                                                         */

/* Under the lock: a function or kernel handle whose module is loaded, else NULL. */
static fake_function *live_function(const void *handle, const char *api) {
  fake_function *function = (fake_function *)handle;
  if (function == NULL || (function->magic != MAGIC_FUNCTION && function->magic != MAGIC_KERNEL)) {
    fake_misuse("%s: not a CUfunction or CUkernel handle", api);
    return NULL;
  }
  if (function->owner->generation != generation) return NULL;
  if (!function->owner->alive) {
    fake_misuse("%s: %s of an unloaded %s", api, function->name,
                function->owner->is_library ? "library" : "module");
    return NULL;
  }
  return function;
}

/* The device a function's attributes apply to: its context's, or (kernels) `device`. */
static int function_device(const fake_function *function, int device) {
  return function->context != NULL ? function->context->device : device;
}

static int oversized_shared(const fake_function *function, int device) {
  if (device < 0 || device >= TTA_FAKE_MAX_DEVICES) return 0;
  return function->oversized_shared[device] ||
         (function->kernel != NULL && function->kernel->oversized_shared[device]);
}

/* A CUfunction's own setting, else its CUkernel's for the device (cuKernelSetAttribute), else
 * the default. */
static int dynamic_limit(const fake_function *function, int device) {
  int set = device >= 0 && device < TTA_FAKE_MAX_DEVICES ? function->max_dynamic_shared[device] : -1;
  if (oversized_shared(function, device))   /* the mode lifts the limit to the oversized maximum */
    return devices[device].attributes[CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK] -
           (int)function->entry.static_shared;
  if (set < 0 && function->kernel != NULL) return dynamic_limit(function->kernel, device);
  return set >= 0 ? set : DEFAULT_SHARED - (int)function->entry.static_shared;
}

static int non_portable_cluster(const fake_function *function, int device) {
  if (device < 0 || device >= TTA_FAKE_MAX_DEVICES) return 0;
  return function->non_portable_cluster[device] ||
         (function->kernel != NULL && function->kernel->non_portable_cluster[device]);
}

static int get_attribute(const fake_function *function, int attribute, int device, int *value) {
  const fake_entry *entry = &function->entry;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = entry->reqntid[0] ? (int)(entry->reqntid[0] * entry->reqntid[1] * entry->reqntid[2]) : 1024;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)entry->static_shared; return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 32; return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *value = function->owner->image.kind == TTA_FAKE_IMAGE_PTX ? function->owner->image.sm : 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *value = device >= 0 && device < device_count ? devices[device].sm : 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = dynamic_limit(function, device); return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    *value = non_portable_cluster(function, device);
    return CUDA_SUCCESS;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
}

static int set_attribute(fake_function *function, int attribute, int value, int device) {
  if (device < 0 || device >= device_count) return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
    int optin = devices[device].attributes[CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN];
    if (value < 0 || value > optin - (int)function->entry.static_shared) return CUDA_ERROR_INVALID_VALUE;
    function->max_dynamic_shared[device] = value;
    return CUDA_SUCCESS;
  }
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    function->non_portable_cluster[device] = value != 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE:   /* only devices with oversized blocks know it */
    if (devices[device].attributes[CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK] == 0)
      return CUDA_ERROR_INVALID_VALUE;
    function->oversized_shared[device] = value == CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

static void record_attribute(const char *api, const fake_function *function, int attribute,
                             int value, int device, int result) {
  tta_fake_attribute record;
  memset(&record, 0, sizeof record);
  fake_copy_text(record.api, sizeof record.api, api);
  fake_copy_text(record.function, sizeof record.function, function ? function->name : "");
  record.attribute = attribute;
  record.value = value;
  record.device = device;
  record.result = result;
  fake_record_attribute(&record);
}

FAKE_EXPORT CUresult cuFuncSetAttribute(CUfunction handle, CUfunction_attribute attribute, int value) {
  fake_function *function;
  int result, device = -1;
  ENTER("cuFuncSetAttribute");
  FAKE_LOCK();
  function = live_function(handle, "cuFuncSetAttribute");
  if (function == NULL) {
    result = CUDA_ERROR_INVALID_HANDLE;
  } else {
    device = function_device(function, device_of(current_context()));
    result = set_attribute(function, attribute, value, device);
  }
  FAKE_UNLOCK();
  record_attribute("cuFuncSetAttribute", function, attribute, value, device, result);
  return result;
}

FAKE_EXPORT CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction handle) {
  fake_function *function;
  int result;
  ENTER("cuFuncGetAttribute");
  if (value == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  function = live_function(handle, "cuFuncGetAttribute");
  result = function ? get_attribute(function, attribute,
                                    function_device(function, device_of(current_context())), value)
                    : CUDA_ERROR_INVALID_HANDLE;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel handle,
                                          CUdevice device) {
  fake_function *kernel;
  int result;
  ENTER("cuKernelSetAttribute");
  FAKE_LOCK();
  kernel = live_function(handle, "cuKernelSetAttribute");
  if (kernel == NULL || kernel->magic != MAGIC_KERNEL) {
    if (kernel != NULL) fake_misuse("cuKernelSetAttribute: %s is a CUfunction, not a CUkernel", kernel->name);
    result = CUDA_ERROR_INVALID_HANDLE;
  } else {
    result = set_attribute(kernel, attribute, value, device);
  }
  FAKE_UNLOCK();
  record_attribute("cuKernelSetAttribute", kernel, attribute, value, device, result);
  return result;
}

FAKE_EXPORT CUresult cuKernelGetAttribute(int *value, CUfunction_attribute attribute, CUkernel handle,
                                          CUdevice device) {
  fake_function *kernel;
  int result;
  ENTER("cuKernelGetAttribute");
  if (value == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  kernel = live_function(handle, "cuKernelGetAttribute");
  if (kernel == NULL || kernel->magic != MAGIC_KERNEL) result = CUDA_ERROR_INVALID_HANDLE;
  else if (device < 0 || device >= device_count) result = CUDA_ERROR_INVALID_DEVICE;
  else result = get_attribute(kernel, attribute, device, value);
  FAKE_UNLOCK();
  return result;
}

/* The CUfunction of a CUkernel in the current context (one per context, as the driver keeps). */
FAKE_EXPORT CUresult cuKernelGetFunction(CUfunction *out, CUkernel handle) {
  struct CUctx_st *context;
  fake_function *kernel, *function = NULL;
  int result = CUDA_SUCCESS, d;
  char log[256];
  ENTER("cuKernelGetFunction");
  if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  context = current_context();
  kernel = live_function(handle, "cuKernelGetFunction");
  if (kernel == NULL || kernel->magic != MAGIC_KERNEL) {
    result = CUDA_ERROR_INVALID_HANDLE;
  } else if (context_error(context)) {
    result = context_error(context);
  } else {
    /* The library is loaded into this context now: its image must run on the device. */
    result = fake_image_cuda_check(&kernel->owner->image, devices[context->device].sm,
                                   max_ptx_version(), log, sizeof log);
    for (function = kernel->in_contexts; result == CUDA_SUCCESS && function != NULL;
         function = function->next)
      if (function->context == context) break;
    if (result == CUDA_SUCCESS && function == NULL) {
      function = (fake_function *)calloc(1, sizeof *function);
      if (function == NULL) abort();
      *function = *kernel;
      function->magic = MAGIC_FUNCTION;
      function->id = next_id++;
      function->context = context;
      function->kernel = kernel;
      function->in_contexts = NULL;
      for (d = 0; d < TTA_FAKE_MAX_DEVICES; ++d) {
        function->max_dynamic_shared[d] = -1;
        function->non_portable_cluster[d] = 0;
      }
      function->next = kernel->in_contexts;
      kernel->in_contexts = function;
    }
  }
  FAKE_UNLOCK();
  if (result == CUDA_SUCCESS) *out = (CUfunction)(void *)function;
  return result;
}

/* Unique for the life of the process: a context of a later reset gets a new id. NULL names the
 * current context, as the driver documents (unless TTA_FAKE_CUDA_NULL_CONTEXT_ID=0). */
FAKE_EXPORT CUresult cuCtxGetId(CUcontext handle, unsigned long long *id) {
  struct CUctx_st *context;
  int result = CUDA_SUCCESS;
  ENTER("cuCtxGetId");
  if (id == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (handle == NULL && !null_context_id) return CUDA_ERROR_INVALID_CONTEXT;
  FAKE_LOCK();
  context = handle != NULL ? handle : current_context();
  if (context == NULL || context->magic != MAGIC_CONTEXT || context->generation != generation)
    result = CUDA_ERROR_INVALID_CONTEXT;
  else if (context->destroyed)
    result = FAKE_CUDA_ERROR_CONTEXT_IS_DESTROYED;
  else
    *id = (unsigned long long)context->generation * 100000ull + (unsigned long long)context->id;
  FAKE_UNLOCK();
  return result;
}

/* ---------------------------------------------------------------------------------------- */
/* Launching                                                                                   */

typedef struct launch_request {
  const char *api;
  const void *function;
  unsigned grid[3], block[3], shared;
  CUstream stream;
  void **params, **extra;
  const CUlaunchAttribute *attributes;
  unsigned attribute_count;
} launch_request;

/* Under the lock: checks the launch as a driver would and fills the record. */
static int check_launch(const launch_request *request, tta_fake_launch *record) {
  struct CUctx_st *context = current_context();
  fake_function *function =
      context != NULL && context->destroyed ? NULL : live_function(request->function, request->api);
  const fake_entry *entry;
  unsigned i, threads, cluster[3] = {0, 0, 0};
  int device, non_portable;
  /* A destroyed context refuses everything first: its functions died with it. */
  if (context != NULL && context->destroyed) return FAKE_CUDA_ERROR_CONTEXT_IS_DESTROYED;
  if (function == NULL) return CUDA_ERROR_INVALID_HANDLE;
  fake_copy_text(record->function, sizeof record->function, function->name);
  record->kind = function->owner->image.kind;
  fake_copy_text(record->arch, sizeof record->arch, function->owner->image.arch);
  record->image_hash = function->owner->image.hash;
  record->image_handle = function->owner->id;
  if (context_error(context)) return context_error(context);
  device = context->device;
  record->device = device;
  record->context = context->id;
  entry = &function->entry;
  if (function->magic == MAGIC_FUNCTION && function->context != context) {
    fake_misuse("%s: %s belongs to context %d, launched in context %d", request->api,
                function->name, function->context->id, context->id);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (function->magic == MAGIC_KERNEL) {
    char log[256];
    /* A library loads into each context lazily: the image must fit this device too. The
     * preserved image must still be there. */
    int fits = fake_image_cuda_check(&function->owner->image, devices[device].sm,
                                     max_ptx_version(), log, sizeof log);
    if (function->owner->image.data != NULL)
      image_probe = tta_fake_hash(function->owner->image.data, 64);
    if (fits != CUDA_SUCCESS) {
      fake_misuse("%s: %s (%s) launched on sm_%d, where its image does not run", request->api,
                  function->name, function->owner->image.arch, devices[device].sm);
      return fits;
    }
  }
  threads = request->block[0] * request->block[1] * request->block[2];
  if (threads == 0 || threads > 1024) return CUDA_ERROR_INVALID_VALUE;
  if (entry->reqntid[0] != 0 && (entry->reqntid[0] != request->block[0] ||
                                 entry->reqntid[1] != request->block[1] ||
                                 entry->reqntid[2] != request->block[2])) {
    fake_misuse("%s: %s needs a block of %ux%ux%u, launched with %ux%ux%u", request->api,
                function->name, entry->reqntid[0], entry->reqntid[1], entry->reqntid[2],
                request->block[0], request->block[1], request->block[2]);
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (i = 0; i < 3; ++i) {
    static const int limits[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
    if (request->grid[i] == 0) fake_misuse("%s: %s launched with an empty grid", request->api, function->name);
    if (request->grid[i] == 0 || request->grid[i] > (unsigned)devices[device].attributes[limits[i]])
      return CUDA_ERROR_INVALID_VALUE;
  }
  if ((int)request->shared > dynamic_limit(function, device)) return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < request->attribute_count; ++i) {
    const CUlaunchAttribute *attribute = &request->attributes[i];
    switch (attribute->id) {
    case CU_LAUNCH_ATTRIBUTE_IGNORE: break;
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE: record->cooperative = attribute->value.cooperative; break;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
      record->cluster[0] = cluster[0] = attribute->value.clusterDim.x;
      record->cluster[1] = cluster[1] = attribute->value.clusterDim.y;
      record->cluster[2] = cluster[2] = attribute->value.clusterDim.z;
      break;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      record->cluster_policy = attribute->value.clusterSchedulingPolicyPreference;
      break;
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
      record->pdl = attribute->value.programmaticStreamSerializationAllowed;
      break;
    case CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE:
      record->shared_mode = attribute->value.sharedMemoryMode;
      break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
  }
  /* An oversized block needs the launch to allow it too, not only the function. */
  if (request->shared > 228u * 1024u &&
      record->shared_mode != CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY)
    return CUDA_ERROR_INVALID_VALUE;
  /* A kernel built for a cluster shape launches with it (explicitly, or implied). */
  if (entry->cluster[0] != 0) {
    if (cluster[0] == 0) memcpy(cluster, entry->cluster, sizeof cluster);
    else if (memcmp(cluster, entry->cluster, sizeof cluster) != 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  if (cluster[0] != 0) {
    if (cluster[0] * cluster[1] * cluster[2] == 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (!devices[device].attributes[CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH]) return CUDA_ERROR_NOT_SUPPORTED;
    non_portable = non_portable_cluster(function, device);
    if (cluster[0] * cluster[1] * cluster[2] > 8 && !non_portable) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    for (i = 0; i < 3; ++i)
      if (request->grid[i] % cluster[i] != 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  /* Every block of a cooperative grid must be resident at once (here: 2048 threads per SM). */
  if (record->cooperative == 1) {
    unsigned long long blocks = (unsigned long long)request->grid[0] * request->grid[1] * request->grid[2];
    unsigned long long resident = (unsigned long long)devices[device].attributes[CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT] *
                                  (threads >= 2048 ? 1 : 2048 / threads);
    if (!devices[device].attributes[CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH]) return CUDA_ERROR_NOT_SUPPORTED;
    if (blocks > resident) return FAKE_CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  }
  if (request->params == NULL && entry->param_count > 0) {
    fake_misuse("%s: %s takes %u parameters, kernelParams is NULL", request->api, function->name,
                entry->param_count);
    return CUDA_ERROR_INVALID_VALUE;
  }
  fake_copy_params(record, entry, request->params);
  return CUDA_SUCCESS;
}

static void advance_stream(CUstream stream, uint64_t ns);

static int launch(const launch_request *request) {
  tta_fake_launch record;
  int result = begin(request->api);
  if (result == 0) result = need_init();
  memset(&record, 0, sizeof record);
  fake_copy_text(record.api, sizeof record.api, request->api);
  memcpy(record.grid, request->grid, sizeof record.grid);
  memcpy(record.block, request->block, sizeof record.block);
  record.shared = request->shared;
  record.stream = (uint64_t)(uintptr_t)request->stream;
  record.num_attrs = request->attribute_count;
  record.cluster_policy = record.cooperative = record.pdl = record.shared_mode = -1;
  record.has_extra = request->extra != NULL;
  record.device = record.context = -1;
  if (result == 0) {
    FAKE_LOCK();
    result = check_launch(request, &record);
    /* A kernel takes 1 ns per thread on the stream's virtual clock (events read it). */
    if (result == CUDA_SUCCESS)
      advance_stream(request->stream, (uint64_t)request->grid[0] * request->grid[1] * request->grid[2] *
                                          request->block[0] * request->block[1] * request->block[2]);
    FAKE_UNLOCK();
  }
  record.result = result;
  fake_record_launch(&record);
  return result;
}

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                    unsigned int bx, unsigned int by, unsigned int bz,
                                    unsigned int shared, CUstream stream, void **params,
                                    void **extra) {
  launch_request request = {"cuLaunchKernel", f, {gx, gy, gz}, {bx, by, bz}, shared, stream,
                            params, extra, NULL, 0};
  return launch(&request);
}

FAKE_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
                                      void **extra) {
  launch_request request;
  if (config == NULL) return CUDA_ERROR_INVALID_VALUE;
  request.api = "cuLaunchKernelEx";
  request.function = f;
  request.grid[0] = config->gridDimX;
  request.grid[1] = config->gridDimY;
  request.grid[2] = config->gridDimZ;
  request.block[0] = config->blockDimX;
  request.block[1] = config->blockDimY;
  request.block[2] = config->blockDimZ;
  request.shared = config->sharedMemBytes;
  request.stream = config->hStream;
  request.params = params;
  request.extra = extra;
  request.attributes = config->attrs;
  request.attribute_count = config->numAttrs;
  if (config->numAttrs > 0 && config->attrs == NULL) return CUDA_ERROR_INVALID_VALUE;
  return launch(&request);
}

/* ---------------------------------------------------------------------------------------- */
/* Stream-ordered memory                                                                       */

static void record_memory(const char *api, CUdeviceptr address, size_t size, CUstream stream,
                          int device, int result) {
  tta_fake_memory record;
  memset(&record, 0, sizeof record);
  fake_copy_text(record.api, sizeof record.api, api);
  record.address = address;
  record.size = size;
  record.stream = (uint64_t)(uintptr_t)stream;
  record.device = device;
  record.result = result;
  fake_record_memory(&record);
}

FAKE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t size, CUstream stream) {
  int result = begin("cuMemAllocAsync"), device = -1;
  CUdeviceptr address = 0;
  if (result == 0) result = need_init();
  if (result == 0 && pointer == NULL) result = CUDA_ERROR_INVALID_VALUE;
  if (result == 0 && size == 0) result = CUDA_ERROR_INVALID_VALUE;
  if (result == 0) {
    FAKE_LOCK();
    device = device_of(current_context());
    if (context_error(current_context())) {
      result = context_error(current_context());
    } else {
      if (allocation_count == allocation_capacity) {
        int capacity = allocation_capacity ? allocation_capacity * 2 : 64;
        fake_allocation *grown = (fake_allocation *)realloc(allocations, (size_t)capacity * sizeof *grown);
        if (grown == NULL) abort();
        allocations = grown;
        allocation_capacity = capacity;
      }
      address = next_address;
      next_address += (size + 511) & ~(CUdeviceptr)511; /* 512-byte aligned, like cudaMalloc */
      allocations[allocation_count].address = address;
      allocations[allocation_count].size = size;
      allocations[allocation_count].live = 1;
      allocation_count++;
      fake_live_allocations++;
      *pointer = address;
    }
    FAKE_UNLOCK();
  }
  record_memory("cuMemAllocAsync", address, size, stream, device, result);
  return result;
}

FAKE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr address, CUstream stream) {
  int result = begin("cuMemFreeAsync"), device = -1, i;
  size_t size = 0;
  if (result == 0) result = need_init();
  if (result == 0) {
    FAKE_LOCK();
    device = device_of(current_context());
    for (i = allocation_count - 1; i >= 0; --i)
      if (allocations[i].address == address && allocations[i].live) break;
    if (i < 0) {
      fake_misuse("cuMemFreeAsync: %#llx was not allocated, or was freed already", address);
      result = CUDA_ERROR_INVALID_VALUE;
    } else {
      allocations[i].live = 0;
      size = allocations[i].size;
      fake_live_allocations--;
    }
    FAKE_UNLOCK();
  }
  record_memory("cuMemFreeAsync", address, size, stream, device, result);
  return result;
}

/* ---------------------------------------------------------------------------------------- */
/* Synchronous memory, streams and events (what triton-aot-tune uses)                         */
/* Streams and events live in fixed tables: a handle is an element's address, so a pointer
 * the fake never gave out (tests pass made-up streams to launches) is recognised without
 * being read. Each stream has a virtual clock in nanoseconds that launches and memsets
 * advance; an event records its stream's clock, so elapsed times are exact and repeatable. */

typedef struct CUevent_st *CUevent;
struct CUstream_st { int live; int device; uint64_t clock_ns; };
struct CUevent_st { int live; int recorded; uint64_t time_ns; };
#define FAKE_STREAMS 64
#define FAKE_EVENTS 4096
static struct CUstream_st streams[FAKE_STREAMS];
static struct CUevent_st events[FAKE_EVENTS];
static uint64_t default_stream_clock;

/* The clock of a stream the fake created (NULL: the default stream), or NULL. */
static uint64_t *stream_clock(CUstream stream) {
  if (stream == NULL) return &default_stream_clock;
  if (stream >= streams && stream < streams + FAKE_STREAMS && stream->live) return &stream->clock_ns;
  return NULL;
}

static void advance_stream(CUstream stream, uint64_t ns) {
  uint64_t *clock = stream_clock(stream);
  if (clock != NULL) *clock += ns;
}

static int live_event(CUevent event) {
  return event >= events && event < events + FAKE_EVENTS && event->live;
}

/* The live allocation holding [address, address + size), or -1 (caller holds the lock). */
static int find_allocation(CUdeviceptr address, size_t size) {
  int i;
  for (i = allocation_count - 1; i >= 0; --i)
    if (allocations[i].live && address >= allocations[i].address &&
        address + size <= allocations[i].address + allocations[i].size)
      return i;
  return -1;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  ENTER("cuDevicePrimaryCtxRelease");
  return device < 0 || device >= device_count ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

/* Recorded as a stream-ordered allocation on the default stream: the same table, so the
 * tests' live allocation count covers both. */
FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr *pointer, size_t size) {
  return cuMemAllocAsync(pointer, size, NULL);
}

FAKE_EXPORT CUresult cuMemFree(CUdeviceptr address) { return cuMemFreeAsync(address, NULL); }

FAKE_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr destination, const void *source, size_t size) {
  int result = CUDA_SUCCESS;
  ENTER("cuMemcpyHtoD");
  if (source == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  if (find_allocation(destination, size) < 0) {
    fake_misuse("cuMemcpyHtoD: %zu bytes at %#llx are not inside one allocation", size, destination);
    result = CUDA_ERROR_INVALID_VALUE;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuMemsetD8Async(CUdeviceptr destination, unsigned char value, size_t size,
                                     CUstream stream) {
  int result = CUDA_SUCCESS;
  (void)value;
  ENTER("cuMemsetD8Async");
  FAKE_LOCK();
  if (find_allocation(destination, size) < 0) {
    fake_misuse("cuMemsetD8Async: %zu bytes at %#llx are not inside one allocation", size, destination);
    result = CUDA_ERROR_INVALID_VALUE;
  } else if (stream_clock(stream) == NULL) {
    result = CUDA_ERROR_INVALID_HANDLE;
  } else {
    advance_stream(stream, size / 1024); /* 1 ns per KiB: not what a timed launch measures */
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  int result = CUDA_ERROR_OUT_OF_MEMORY, i;
  ENTER("cuStreamCreate");
  if (stream == NULL || flags > 1) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  if (current_context() == NULL) {
    result = CUDA_ERROR_INVALID_CONTEXT;
  } else {
    for (i = 0; i < FAKE_STREAMS; ++i)
      if (!streams[i].live) {
        memset(&streams[i], 0, sizeof streams[i]);
        streams[i].live = 1;
        streams[i].device = device_of(current_context());
        *stream = &streams[i];
        result = CUDA_SUCCESS;
        break;
      }
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuStreamDestroy(CUstream stream) {
  int result = CUDA_SUCCESS;
  ENTER("cuStreamDestroy");
  FAKE_LOCK();
  if (stream == NULL || stream_clock(stream) == NULL) {
    fake_misuse("cuStreamDestroy: %p is not a live stream", (void *)stream);
    result = CUDA_ERROR_INVALID_HANDLE;
  } else {
    stream->live = 0;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  int result;
  ENTER("cuStreamSynchronize");
  FAKE_LOCK();
  result = stream_clock(stream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  int result = CUDA_ERROR_OUT_OF_MEMORY, i;
  ENTER("cuEventCreate");
  if (event == NULL || flags != 0) return CUDA_ERROR_INVALID_VALUE; /* timing events only */
  FAKE_LOCK();
  for (i = 0; i < FAKE_EVENTS; ++i)
    if (!events[i].live) {
      memset(&events[i], 0, sizeof events[i]);
      events[i].live = 1;
      *event = &events[i];
      result = CUDA_SUCCESS;
      break;
    }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  int result = CUDA_SUCCESS;
  uint64_t *clock;
  ENTER("cuEventRecord");
  FAKE_LOCK();
  clock = stream_clock(stream);
  if (!live_event(event) || clock == NULL) {
    result = CUDA_ERROR_INVALID_HANDLE;
  } else {
    event->recorded = 1;
    event->time_ns = *clock;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  int result = CUDA_SUCCESS;
  ENTER("cuEventElapsedTime");
  if (ms == NULL) return CUDA_ERROR_INVALID_VALUE;
  FAKE_LOCK();
  if (!live_event(start) || !live_event(end) || !start->recorded || !end->recorded)
    result = CUDA_ERROR_INVALID_HANDLE;
  else
    *ms = (float)((double)(end->time_ns - start->time_ns) / 1e6);
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT CUresult cuEventDestroy(CUevent event) {
  int result = CUDA_SUCCESS;
  ENTER("cuEventDestroy");
  FAKE_LOCK();
  if (!live_event(event)) {
    fake_misuse("cuEventDestroy: %p is not a live event", (void *)event);
    result = CUDA_ERROR_INVALID_HANDLE;
  } else {
    event->live = 0;
  }
  FAKE_UNLOCK();
  return result;
}

/* Streams and events not destroyed (cleared by tta_fake_reset). */
FAKE_EXPORT int tta_fake_live_streams_and_events(void) {
  int live = 0, i;
  FAKE_LOCK();
  for (i = 0; i < FAKE_STREAMS; ++i) live += streams[i].live;
  for (i = 0; i < FAKE_EVENTS; ++i) live += events[i].live;
  FAKE_UNLOCK();
  return live;
}

/* ---------------------------------------------------------------------------------------- */
/* cuGetProcAddress                                                                            */

FAKE_EXPORT CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                                            void *address, const cuuint64_t *dims,
                                            const cuuint64_t *strides, const cuuint32_t *box,
                                            const cuuint32_t *element_strides,
                                            CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                            CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob);
#define FAKE_ENTRY(name, version) {#name, version, (void (*)(void))name}
static const struct { const char *name; int version; void (*function)(void); } entry_points[] = {
  FAKE_ENTRY(cuInit, 2000), FAKE_ENTRY(cuDriverGetVersion, 2020),
  FAKE_ENTRY(cuDeviceGet, 2000), FAKE_ENTRY(cuDeviceGetCount, 2000),
  FAKE_ENTRY(cuDeviceGetAttribute, 2000), FAKE_ENTRY(cuDeviceGetName, 2000),
  FAKE_ENTRY(cuCtxGetCurrent, 4000), FAKE_ENTRY(cuCtxSetCurrent, 4000),
  FAKE_ENTRY(cuCtxGetDevice, 2000), FAKE_ENTRY(cuDevicePrimaryCtxRetain, 7000),
  FAKE_ENTRY(cuModuleLoadData, 2000), FAKE_ENTRY(cuModuleLoadDataEx, 2010),
  FAKE_ENTRY(cuModuleGetFunction, 2000), FAKE_ENTRY(cuModuleUnload, 2000),
  FAKE_ENTRY(cuFuncSetAttribute, 9000), FAKE_ENTRY(cuFuncGetAttribute, 2020),
  FAKE_ENTRY(cuLaunchKernel, 4000), FAKE_ENTRY(cuGetErrorName, 6000),
  FAKE_ENTRY(cuGetErrorString, 6000), FAKE_ENTRY(cuLibraryLoadData, 12000),
  FAKE_ENTRY(cuLibraryGetKernel, 12000), FAKE_ENTRY(cuLibraryUnload, 12000),
  FAKE_ENTRY(cuKernelSetAttribute, 12000), FAKE_ENTRY(cuKernelGetAttribute, 12000),
  FAKE_ENTRY(cuKernelGetFunction, 12000), FAKE_ENTRY(cuCtxGetId, 12000),
  FAKE_ENTRY(cuLaunchKernelEx, 11060), FAKE_ENTRY(cuMemAllocAsync, 11020),
  FAKE_ENTRY(cuMemFreeAsync, 11020), FAKE_ENTRY(cuTensorMapEncodeTiled, 12000),
  FAKE_ENTRY(cuDevicePrimaryCtxRelease, 11000), FAKE_ENTRY(cuMemAlloc, 3020),
  FAKE_ENTRY(cuMemFree, 3020), FAKE_ENTRY(cuMemcpyHtoD, 3020), FAKE_ENTRY(cuMemsetD8Async, 3020),
  FAKE_ENTRY(cuStreamCreate, 2000), FAKE_ENTRY(cuStreamDestroy, 4000),
  FAKE_ENTRY(cuStreamSynchronize, 2000), FAKE_ENTRY(cuEventCreate, 2000),
  FAKE_ENTRY(cuEventRecord, 2000), FAKE_ENTRY(cuEventElapsedTime, 2000),
  FAKE_ENTRY(cuEventDestroy, 4000),
};

static CUresult get_proc_address(const char *symbol, void **pfn, int version,
                                 CUdriverProcAddressQueryResult *status) {
  size_t i;
  int driver, result = begin("cuGetProcAddress");
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (result) return result;
  if (symbol == NULL || pfn == NULL) return CUDA_ERROR_INVALID_VALUE;
  *pfn = NULL;
  FAKE_LOCK();
  driver = driver_version;
  FAKE_UNLOCK();
  if (version > driver) return CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < sizeof entry_points / sizeof entry_points[0]; ++i) {
    char listed[80];
    snprintf(listed, sizeof listed, ",%s,", symbol);
    if (strcmp(entry_points[i].name, symbol) != 0 || entry_points[i].version > driver ||
        strstr(hidden_entry_points, listed) != NULL)
      continue;
    if (entry_points[i].version > version) {
      found = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    } else {
      memcpy(pfn, &entry_points[i].function, sizeof *pfn);
      found = CU_GET_PROC_ADDRESS_SUCCESS;
    }
    break;
  }
  if (status != NULL) *status = found;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                                         CUdriverProcAddressQueryResult *status) {
  (void)flags;
  return get_proc_address(symbol, pfn, version, status);
}

FAKE_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags) {
  (void)flags;
  return get_proc_address(symbol, pfn, version, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Control API (fake_driver.h)                                                                */

static tta_fake_tensor_map last_tensor_map;
static int have_tensor_map;

FAKE_EXPORT CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                                            void *address, const cuuint64_t *dims,
                                            const cuuint64_t *strides, const cuuint32_t *box,
                                            const cuuint32_t *element_strides,
                                            CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                            CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  tta_fake_tensor_map record;
  unsigned i;
  int result = CUDA_SUCCESS;
  ENTER("cuTensorMapEncodeTiled");
  if (map == NULL || ((uintptr_t)map & 63u) != 0 || rank < 1 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  memset(&record, 0, sizeof record);
  record.data_type = type;
  record.rank = rank;
  record.address = (uint64_t)(uintptr_t)address;
  record.interleave = interleave;
  record.swizzle = swizzle;
  record.l2_promotion = l2;
  record.oob_fill = oob;
  if ((record.address & 15u) != 0) result = CUDA_ERROR_INVALID_VALUE;
  for (i = 0; i < rank; ++i) {
    record.dims[i] = dims[i];
    record.box[i] = box[i];
    record.element_strides[i] = element_strides[i];
    if (dims[i] == 0 || box[i] == 0 || box[i] > 256) result = CUDA_ERROR_INVALID_VALUE;
    if (i + 1 < rank) {
      record.strides[i] = strides[i];
      if (strides[i] % 16 != 0) result = CUDA_ERROR_INVALID_VALUE;
    }
  }
  record.result = result;
  if (result == CUDA_SUCCESS) {
    memset(map, 0, sizeof *map);
    map->opaque[0] = 0x7e50;
    map->opaque[1] = record.address;
    for (i = 0; i < rank; ++i) map->opaque[2 + i] = dims[i];
  }
  FAKE_LOCK();
  last_tensor_map = record;
  have_tensor_map = 1;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT int tta_fake_last_tensor_map(tta_fake_tensor_map *out) {
  int have;
  FAKE_LOCK();
  have = have_tensor_map;
  if (have && out) *out = last_tensor_map;
  FAKE_UNLOCK();
  return have ? 0 : -1;
}

FAKE_EXPORT int tta_fake_reset(const char *list) {
  int result;
  FAKE_LOCK();
  result = configure_devices(list);
  generation++;
  init_primary_contexts();
  fake_core_clear();
  allocation_count = 0;
  have_tensor_map = 0;
  memset(streams, 0, sizeof streams);
  memset(events, 0, sizeof events);
  default_stream_clock = 0;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT void tta_fake_set_driver_version(int version) {
  FAKE_LOCK();
  driver_version = version;
  FAKE_UNLOCK();
}

FAKE_EXPORT int tta_fake_set_device_attribute(int device, int attribute, int value) {
  int result = -1;
  FAKE_LOCK();
  if (device >= 0 && device < device_count && attribute >= 0 && attribute < FAKE_ATTRIBUTES) {
    devices[device].attributes[attribute] = value;
    result = 0;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT int tta_fake_set_current_device(int device) {
  int result = 0;
  FAKE_LOCK();
  if (device < 0) {
    tls_context = NULL;
  } else if (device < device_count) {
    tls_context = &devices[device].primary;
    tls_generation = generation;
  } else {
    result = -1;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT int tta_fake_destroy_context(int id) {
  struct CUctx_st *context = NULL;
  fake_module *module;
  int i;
  FAKE_LOCK();
  for (i = 0; i < extra_context_count; ++i)
    if (extra_contexts[i]->id == id && extra_contexts[i]->generation == generation &&
        !extra_contexts[i]->destroyed)
      context = extra_contexts[i];
  if (context != NULL) {
    context->destroyed = 1;
    /* Its modules go with it; a CUfunction of it dies with the context (check_launch). */
    for (module = all_modules; module != NULL; module = module->next_all)
      if (module->context == context && module->alive && module->generation == generation)
        release_module(module);
  }
  FAKE_UNLOCK();
  return context != NULL ? 0 : -1;
}

FAKE_EXPORT int tta_fake_create_context(int device) {
  struct CUctx_st *context;
  int id = -1;
  FAKE_LOCK();
  if (device >= 0 && device < device_count &&
      extra_context_count < (int)(sizeof extra_contexts / sizeof extra_contexts[0])) {
    context = (struct CUctx_st *)calloc(1, sizeof *context);
    if (context == NULL) abort();
    context->magic = MAGIC_CONTEXT;
    context->id = id = 100 + extra_context_count;
    context->device = device;
    context->generation = generation;
    extra_contexts[extra_context_count++] = context;
    tls_context = context;
    tls_generation = generation;
  }
  FAKE_UNLOCK();
  return id;
}
