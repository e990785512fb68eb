/* A fake HIP runtime (libamdhip64.so) for the runtime's CPU tests: devices with a gcnArchName,
 * modules loaded per device, launches checked against the kernel's metadata and recorded
 * (fake_driver.h). Types and property offsets come from hip_api.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h" /* the device attribute ids tta_fake_set_device_attribute takes */
#include "fake_core.h"
#include "hip_api.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

enum { FAKE_hipErrorInvalidDeviceFunction = 98, FAKE_hipErrorInvalidContext = 201,
       FAKE_hipErrorInvalidHandle = 400, FAKE_hipErrorIllegalAddress = 700,
       FAKE_hipErrorLaunchOutOfResources = 701, FAKE_hipErrorContextIsDestroyed = 709,
       FAKE_hipErrorLaunchFailure = 719 };
enum { MAGIC_MODULE = 0x646f6d68, MAGIC_FUNCTION = 0x636e7568 };

typedef struct fake_device {
  char arch[64];              /* gcnArchName */
  size_t shared_per_block;
  size_t shared_optin;
  int max_grid[3];
  int multiprocessors;
  int cooperative;
  int memory_pools;
} fake_device;

typedef struct fake_function fake_function;

typedef struct fake_module {
  uint32_t magic;
  int id;
  int alive;
  int generation;
  int device;
  fake_image image;
  unsigned char *copy;
  fake_function *functions;
  struct fake_module *next_all;
} fake_module;

struct fake_function {
  uint32_t magic;
  fake_module *owner;
  char name[128];
  fake_entry entry;
  fake_function *next;
};

typedef struct fake_allocation {
  uintptr_t address;
  size_t size;
  int live;
} fake_allocation;

static fake_device devices[TTA_FAKE_MAX_DEVICES];
static int device_count;
static int generation = 1;
static int runtime_version = 60400000;
static int next_id = 1;
static fake_module *all_modules; /* never freed: handles stay valid (and reachable for LSan) */
static fake_allocation *allocations;
static int allocation_count, allocation_capacity;
static uintptr_t next_address = 0x7e0000000000ull;
static __thread int tls_device;
static __thread int tls_generation;

/* Under the lock. */
static int current_device(void) { return tls_generation == generation ? tls_device : 0; }

static int configure_devices(const char *list) {
  int count = 0;
  const char *p = list ? list : "";
  while (*p != '\0') {
    const char *end = strchr(p, ',');
    size_t length = end ? (size_t)(end - p) : strlen(p);
    fake_device *device = &devices[count];
    if (length < 4 || strncmp(p, "gfx", 3) != 0 || length >= sizeof device->arch ||
        count == TTA_FAKE_MAX_DEVICES)
      return -1;
    memset(device, 0, sizeof *device);
    memcpy(device->arch, p, length);
    device->shared_per_block = 65536;
    device->shared_optin = 65536;
    device->max_grid[0] = 2147483647;
    device->max_grid[1] = device->max_grid[2] = 65536;
    device->multiprocessors = strncmp(device->arch, "gfx942", 6) == 0 ? 304 : 110;
    device->cooperative = 1;
    device->memory_pools = 1;
    count++;
    p += length;
    if (*p == ',') ++p;
  }
  device_count = count;
  return 0;
}

__attribute__((constructor)) static void fake_hip_start(void) {
  const char *list = getenv("TTA_FAKE_HIP_DEVICES");
  if (configure_devices(list ? list : "gfx942:sramecc+:xnack-") != 0)
    configure_devices("gfx942:sramecc+:xnack-");
  fake_publish_configuration();
}

/* ---------------------------------------------------------------------------------------- */

static const struct { int code; const char *name, *text; } errors[] = {
  {hipSuccess, "hipSuccess", "no error"},
  {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
  {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
  {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
  {hipErrorInsufficientDriver, "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
  {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
  {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
  {FAKE_hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction", "invalid device function"},
  {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
  {FAKE_hipErrorInvalidContext, "hipErrorInvalidContext", "invalid device context"},
  {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device"},
  {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed", "shared object initialization failed"},
  {FAKE_hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
  {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
  {FAKE_hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
  {FAKE_hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
  {FAKE_hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed", "context is destroyed"},
  {FAKE_hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
  {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
  {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
};

FAKE_EXPORT const char *hipGetErrorName(hipError_t error) {
  size_t i;
  for (i = 0; i < sizeof errors / sizeof errors[0]; ++i)
    if (errors[i].code == error) return errors[i].name;
  return "hipErrorUnknown";
}

FAKE_EXPORT const char *hipGetErrorString(hipError_t error) {
  size_t i;
  for (i = 0; i < sizeof errors / sizeof errors[0]; ++i)
    if (errors[i].code == error) return errors[i].text;
  return "unknown error";
}

#define ENTER(name)                     \
  do {                                  \
    int entered_ = fake_enter(name);    \
    if (entered_) return entered_;      \
  } while (0)

FAKE_EXPORT hipError_t hipRuntimeGetVersion(int *version) {
  ENTER("hipRuntimeGetVersion");
  if (version == NULL) return hipErrorInvalidValue;
  FAKE_LOCK();
  *version = runtime_version;
  FAKE_UNLOCK();
  return hipSuccess;
}

FAKE_EXPORT hipError_t hipGetDeviceCount(int *count) {
  int result;
  ENTER("hipGetDeviceCount");
  if (count == NULL) return hipErrorInvalidValue;
  FAKE_LOCK();
  *count = device_count;
  result = device_count ? hipSuccess : hipErrorNoDevice;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT hipError_t hipGetDevice(int *device) {
  int result = hipSuccess;
  ENTER("hipGetDevice");
  if (device == NULL) return hipErrorInvalidValue;
  FAKE_LOCK();
  if (device_count == 0) result = hipErrorNoDevice;
  else *device = current_device();
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT hipError_t hipSetDevice(int device) {
  int result = hipSuccess;
  ENTER("hipSetDevice");
  FAKE_LOCK();
  if (device < 0 || device >= device_count) {
    result = hipErrorInvalidDevice;
  } else {
    tls_device = device;
    tls_generation = generation;
  }
  FAKE_UNLOCK();
  return result;
}

static void put(unsigned char *buffer, size_t offset, const void *value, size_t size) {
  memcpy(buffer + offset, value, size);
}

/* Writes exactly sizeof(hipDeviceProp_tR0600) bytes, like the real runtime. */
FAKE_EXPORT hipError_t hipGetDevicePropertiesR0600(void *properties, int device) {
  unsigned char *buffer = (unsigned char *)properties;
  int result = hipSuccess;
  ENTER("hipGetDevicePropertiesR0600");
  if (buffer == NULL) return hipErrorInvalidValue;
  FAKE_LOCK();
  if (device < 0 || device >= device_count) {
    result = hipErrorInvalidDevice;
  } else {
    const fake_device *d = &devices[device];
    char name[256] = "";
    snprintf(name, sizeof name, "Fake AMD GPU %s", d->arch);
    memset(buffer, 0, TTA_HIP_DEVICE_PROP_SIZE);
    put(buffer, TTA_HIP_PROP_NAME, name, sizeof name);
    put(buffer, TTA_HIP_PROP_SHARED_MEM_PER_BLOCK, &d->shared_per_block, sizeof(size_t));
    put(buffer, TTA_HIP_PROP_MAX_GRID_SIZE, d->max_grid, sizeof d->max_grid);
    put(buffer, TTA_HIP_PROP_MULTIPROCESSOR_COUNT, &d->multiprocessors, sizeof(int));
    put(buffer, TTA_HIP_PROP_COOPERATIVE_LAUNCH, &d->cooperative, sizeof(int));
    put(buffer, TTA_HIP_PROP_SHARED_MEM_PER_BLOCK_OPTIN, &d->shared_optin, sizeof(size_t));
    put(buffer, TTA_HIP_PROP_MEMORY_POOLS_SUPPORTED, &d->memory_pools, sizeof(int));
    memset(name, 0, sizeof name);
    snprintf(name, sizeof name, "%s", d->arch);
    put(buffer, TTA_HIP_PROP_GCN_ARCH_NAME, name, sizeof name);
  }
  FAKE_UNLOCK();
  return result;
}

/* ---------------------------------------------------------------------------------------- */

FAKE_EXPORT hipError_t hipModuleLoadData(hipModule_t *module, const void *code) {
  tta_fake_load record;
  fake_image image;
  int result = hipSuccess, device;
  ENTER("hipModuleLoadData");
  if (module == NULL) return hipErrorInvalidValue;
  memset(&record, 0, sizeof record);
  fake_copy_text(record.api, sizeof record.api, "hipModuleLoadData");
  FAKE_LOCK();
  device = device_count ? current_device() : -1;
  record.device = record.context = device;
  if (code == NULL) {
    result = hipErrorInvalidValue;
  } else if (fake_image_read(code, &image) != 0) {
    memcpy(record.head, code, sizeof record.head);
    result = hipErrorInvalidImage;
  } else {
    record.kind = image.kind;
    fake_copy_text(record.arch, sizeof record.arch, image.arch);
    record.size = image.size;
    record.hash = image.hash;
    memcpy(record.head, code, image.size < sizeof record.head ? image.size : sizeof record.head);
    if (device < 0) result = hipErrorNoDevice;
    else if (image.kind != TTA_FAKE_IMAGE_HSACO) result = hipErrorInvalidImage;
    else result = fake_image_hip_check(&image, devices[device].arch);
  }
  if (result == hipSuccess) {
    fake_module *loaded = (fake_module *)calloc(1, sizeof *loaded);
    if (loaded == NULL) abort();
    loaded->magic = MAGIC_MODULE;
    loaded->id = next_id++;
    loaded->alive = 1;
    loaded->generation = generation;
    loaded->device = device;
    loaded->copy = (unsigned char *)malloc(image.size);
    if (loaded->copy == NULL) abort();
    memcpy(loaded->copy, code, image.size);
    fake_image_read(loaded->copy, &loaded->image);
    loaded->next_all = all_modules;
    all_modules = loaded;
    fake_live_modules++;
    record.handle = loaded->id;
    *module = (hipModule_t)(void *)loaded;
  }
  record.result = result;
  FAKE_UNLOCK();
  fake_record_load(&record);
  return result;
}

/* Under the lock. */
static fake_module *live_module(const void *handle, const char *api) {
  fake_module *module = (fake_module *)handle;
  if (module == NULL || module->magic != MAGIC_MODULE) {
    fake_misuse("%s: not a hipModule_t", api);
    return NULL;
  }
  if (module->generation != generation) return NULL;
  if (!module->alive) {
    fake_misuse("%s: module %d was already unloaded", api, module->id);
    return NULL;
  }
  return module;
}

FAKE_EXPORT hipError_t hipModuleUnload(hipModule_t handle) {
  fake_module *module;
  int result = hipSuccess;
  ENTER("hipModuleUnload");
  FAKE_LOCK();
  module = live_module(handle, "hipModuleUnload");
  if (module == NULL) {
    result = FAKE_hipErrorInvalidHandle;
  } else {
    module->alive = 0;
    free(module->copy);
    module->copy = NULL;
    module->image.data = NULL;
    fake_live_modules--;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT hipError_t hipModuleGetFunction(hipFunction_t *out, hipModule_t handle, const char *name) {
  fake_module *module;
  fake_function *function = NULL;
  fake_entry entry;
  int result = hipSuccess;
  ENTER("hipModuleGetFunction");
  if (out == NULL || name == NULL) return hipErrorInvalidValue;
  FAKE_LOCK();
  module = live_module(handle, "hipModuleGetFunction");
  if (module == NULL) {
    result = FAKE_hipErrorInvalidHandle;
  } else {
    for (function = module->functions; function && strcmp(function->name, name) != 0;
         function = function->next) {}
    if (function == NULL) {
      fake_image_entry(&module->image, name, &entry);
      if (!entry.found) {
        result = hipErrorNotFound;
      } else {
        function = (fake_function *)calloc(1, sizeof *function);
        if (function == NULL) abort();
        function->magic = MAGIC_FUNCTION;
        function->owner = module;
        fake_copy_text(function->name, sizeof function->name, name);
        function->entry = entry;
        function->next = module->functions;
        module->functions = function;
      }
    }
  }
  FAKE_UNLOCK();
  if (result == hipSuccess) *out = (hipFunction_t)(void *)function;
  return result;
}

/* Under the lock. */
static int check_launch(const void *handle, const unsigned grid[3], const unsigned block[3],
                        unsigned shared, void **params, const char *api, tta_fake_launch *record) {
  fake_function *function = (fake_function *)handle;
  const fake_device *device;
  unsigned i, threads;
  if (function == NULL || function->magic != MAGIC_FUNCTION) {
    fake_misuse("%s: not a hipFunction_t", api);
    return FAKE_hipErrorInvalidHandle;
  }
  fake_copy_text(record->function, sizeof record->function, function->name);
  record->kind = function->owner->image.kind;
  fake_copy_text(record->arch, sizeof record->arch, function->owner->image.arch);
  record->image_hash = function->owner->image.hash;
  record->image_handle = function->owner->id;
  if (function->owner->generation != generation) return FAKE_hipErrorInvalidHandle;
  if (!function->owner->alive) {
    fake_misuse("%s: %s of an unloaded module", api, function->name);
    return FAKE_hipErrorInvalidHandle;
  }
  if (device_count == 0) return hipErrorNoDevice;
  record->device = record->context = current_device();
  if (function->owner->device != current_device()) {
    fake_misuse("%s: %s was loaded on device %d, launched on device %d", api, function->name,
                function->owner->device, current_device());
    return FAKE_hipErrorInvalidDeviceFunction;
  }
  device = &devices[current_device()];
  threads = block[0] * block[1] * block[2];
  if (threads == 0 || threads > 1024) return hipErrorInvalidValue;
  if (function->entry.max_threads != 0 && threads > function->entry.max_threads) {
    fake_misuse("%s: %s allows %u threads per block, launched with %u", api, function->name,
                function->entry.max_threads, threads);
    return hipErrorInvalidValue;
  }
  for (i = 0; i < 3; ++i) {
    if (grid[i] == 0) fake_misuse("%s: %s launched with an empty grid", api, function->name);
    if (grid[i] == 0 || grid[i] > (unsigned)device->max_grid[i]) return hipErrorInvalidValue;
  }
  if (shared > device->shared_per_block) return hipErrorInvalidValue;
  if (params == NULL && function->entry.param_count > 0) {
    fake_misuse("%s: %s takes %u parameters, kernelParams is NULL", api, function->name,
                function->entry.param_count);
    return hipErrorInvalidValue;
  }
  fake_copy_params(record, &function->entry, params);
  return hipSuccess;
}

static hipError_t launch(const char *api, hipFunction_t f, unsigned gx, unsigned gy, unsigned gz,
                         unsigned bx, unsigned by, unsigned bz, unsigned shared, hipStream_t stream,
                         void **params, void **extra, int cooperative) {
  tta_fake_launch record;
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  int result = fake_enter(api);
  memset(&record, 0, sizeof record);
  fake_copy_text(record.api, sizeof record.api, api);
  memcpy(record.grid, grid, sizeof grid);
  memcpy(record.block, block, sizeof block);
  record.shared = shared;
  record.stream = (uint64_t)(uintptr_t)stream;
  record.cluster_policy = record.pdl = record.shared_mode = -1;
  record.cooperative = cooperative ? 1 : -1;
  record.has_extra = extra != NULL;
  record.device = record.context = -1;
  if (result == 0) {
    FAKE_LOCK();
    result = check_launch(f, grid, block, shared, params, api, &record);
    FAKE_UNLOCK();
  }
  record.result = result;
  fake_record_launch(&record);
  return result;
}

FAKE_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy,
                                             unsigned int gz, unsigned int bx, unsigned int by,
                                             unsigned int bz, unsigned int shared,
                                             hipStream_t stream, void **params, void **extra) {
  return launch("hipModuleLaunchKernel", f, gx, gy, gz, bx, by, bz, shared, stream, params, extra, 0);
}

FAKE_EXPORT hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gx,
                                                        unsigned int gy, unsigned int gz,
                                                        unsigned int bx, unsigned int by,
                                                        unsigned int bz, unsigned int shared,
                                                        hipStream_t stream, void **params) {
  return launch("hipModuleLaunchCooperativeKernel", f, gx, gy, gz, bx, by, bz, shared, stream,
                params, NULL, 1);
}

/* ---------------------------------------------------------------------------------------- */

static void record_memory(const char *api, uintptr_t address, size_t size, hipStream_t stream,
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

FAKE_EXPORT hipError_t hipMallocAsync(void **pointer, size_t size, hipStream_t stream) {
  int result = fake_enter("hipMallocAsync"), device = -1;
  uintptr_t address = 0;
  if (result == 0 && (pointer == NULL || size == 0)) result = hipErrorInvalidValue;
  if (result == 0) {
    FAKE_LOCK();
    device = current_device();
    if (allocation_count == allocation_capacity) {
      int capacity = allocation_capacity ? allocation_capacity * 2 : 64;
      fake_allocation *grown = (fake_allocation *)realloc(allocations, (size_t)capacity * sizeof *grown);
      if (grown == NULL) abort();
      allocations = grown;
      allocation_capacity = capacity;
    }
    address = next_address;
    next_address += (size + 511) & ~(uintptr_t)511;
    allocations[allocation_count].address = address;
    allocations[allocation_count].size = size;
    allocations[allocation_count].live = 1;
    allocation_count++;
    fake_live_allocations++;
    *pointer = (void *)address;
    FAKE_UNLOCK();
  }
  record_memory("hipMallocAsync", address, size, stream, device, result);
  return result;
}

FAKE_EXPORT hipError_t hipFreeAsync(void *pointer, hipStream_t stream) {
  int result = fake_enter("hipFreeAsync"), device = -1, i;
  size_t size = 0;
  if (result == 0) {
    FAKE_LOCK();
    device = current_device();
    for (i = allocation_count - 1; i >= 0; --i)
      if (allocations[i].address == (uintptr_t)pointer && allocations[i].live) break;
    if (i < 0) {
      fake_misuse("hipFreeAsync: %p was not allocated, or was freed already", pointer);
      result = hipErrorInvalidValue;
    } else {
      allocations[i].live = 0;
      size = allocations[i].size;
      fake_live_allocations--;
    }
    FAKE_UNLOCK();
  }
  record_memory("hipFreeAsync", (uintptr_t)pointer, size, stream, device, result);
  return result;
}

/* ---------------------------------------------------------------------------------------- */

#define FAKE_ENTRY(name) {#name, (void (*)(void))name}
static const struct { const char *name; void (*function)(void); } entry_points[] = {
  FAKE_ENTRY(hipRuntimeGetVersion), FAKE_ENTRY(hipGetDeviceCount), FAKE_ENTRY(hipGetDevice),
  FAKE_ENTRY(hipSetDevice), FAKE_ENTRY(hipGetDevicePropertiesR0600),
  FAKE_ENTRY(hipModuleLoadData), FAKE_ENTRY(hipModuleGetFunction), FAKE_ENTRY(hipModuleUnload),
  FAKE_ENTRY(hipModuleLaunchKernel), FAKE_ENTRY(hipModuleLaunchCooperativeKernel),
  FAKE_ENTRY(hipMallocAsync), FAKE_ENTRY(hipFreeAsync), FAKE_ENTRY(hipGetErrorName),
  FAKE_ENTRY(hipGetErrorString),
};

FAKE_EXPORT hipError_t hipGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags,
                                         hipDriverProcAddressQueryResult *status) {
  size_t i;
  int runtime;
  (void)flags;
  ENTER("hipGetProcAddress");
  if (symbol == NULL || pfn == NULL) return hipErrorInvalidValue;
  *pfn = NULL;
  FAKE_LOCK();
  runtime = runtime_version / 10000000 * 100 + runtime_version / 100000 % 100;
  FAKE_UNLOCK();
  if (version > runtime) return hipErrorInvalidValue;
  if (status != NULL) *status = HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  for (i = 0; i < sizeof entry_points / sizeof entry_points[0]; ++i)
    if (strcmp(entry_points[i].name, symbol) == 0) {
      memcpy(pfn, &entry_points[i].function, sizeof *pfn);
      if (status != NULL) *status = HIP_GET_PROC_ADDRESS_SUCCESS;
      break;
    }
  return hipSuccess;
}

/* ---------------------------------------------------------------------------------------- */
/* Control API (fake_driver.h)                                                                */

FAKE_EXPORT int tta_fake_reset(const char *list) {
  int result;
  FAKE_LOCK();
  result = configure_devices(list);
  generation++;
  fake_core_clear();
  allocation_count = 0;
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT void tta_fake_set_driver_version(int version) {
  FAKE_LOCK();
  runtime_version = version;
  FAKE_UNLOCK();
}

FAKE_EXPORT int tta_fake_set_device_attribute(int device, int attribute, int value) {
  int result = 0;
  FAKE_LOCK();
  if (device < 0 || device >= device_count) {
    result = -1;
  } else {
    fake_device *d = &devices[device];
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: d->shared_per_block = (size_t)value; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: d->shared_optin = (size_t)value; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: d->multiprocessors = value; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: d->cooperative = value; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: d->memory_pools = value; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: d->max_grid[0] = value; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: d->max_grid[1] = value; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: d->max_grid[2] = value; break;
    default: result = -1; break;
    }
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT int tta_fake_set_current_device(int device) {
  int result = 0;
  FAKE_LOCK();
  if (device < 0 || device >= device_count) {
    result = -1;
  } else {
    tls_device = device;
    tls_generation = generation;
  }
  FAKE_UNLOCK();
  return result;
}

FAKE_EXPORT int tta_fake_create_context(int device) {
  (void)device;
  return -1; /* HIP has no contexts to create */
}

FAKE_EXPORT int tta_fake_destroy_context(int id) {
  (void)id;
  return -1;
}
