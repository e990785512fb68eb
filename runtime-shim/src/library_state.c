/* Library state: lazily created (compare-and-swap on *library->state), per-device records and
 * per-slot functions published with release stores and read with acquire loads; everything that
 * creates or loads runs under the library's mutex, checked again once the mutex is held. */
#include "library_state.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "image_hash.h"
#include "log.h"
#include "zstd_loader.h"

static int tta_library_has_backend(const triton_aot_library *library, uint32_t backend) {
  uint32_t i;
  for (i = 0; i < library->target_count; ++i)
    if (library->targets[i].backend == backend)
      return 1;
  return 0;
}

/* CUDA first where the library has CUDA targets, then HIP where it has HIP targets. */
static triton_aot_status tta_open_backend(const triton_aot_library *library,
                                          tta_library_state *state) {
  char cuda_message[TTA_ERROR_MESSAGE_SIZE / 2] = "";
  triton_aot_status cuda_status = TRITON_AOT_SUCCESS, hip_status;
  int has_cuda = tta_library_has_backend(library, TRITON_AOT_BACKEND_CUDA);
  int has_hip = tta_library_has_backend(library, TRITON_AOT_BACKEND_HIP);
  if (!has_cuda && !has_hip)
    return triton_aot_fail(TRITON_AOT_ERROR_NO_IMAGE, "library %s has no CUDA or HIP targets",
                           library->name);
  if (has_cuda) {
    state->cuda = tta_cuda_driver(&cuda_status);
    if (state->cuda != NULL) {
      state->backend = TRITON_AOT_BACKEND_CUDA;
      return TRITON_AOT_SUCCESS;
    }
    if (!has_hip)
      return cuda_status;
    tta_format(cuda_message, sizeof cuda_message, "%s", triton_aot_last_error());
  }
  state->hip = tta_hip_driver(&hip_status);
  if (state->hip != NULL) {
    state->backend = TRITON_AOT_BACKEND_HIP;
    return TRITON_AOT_SUCCESS;
  }
  if (!has_cuda)
    return hip_status;
  /* Both failed: a GPU runtime without a device says more than a missing one. */
  return triton_aot_fail(cuda_status == TRITON_AOT_ERROR_NO_DEVICE ||
                                 hip_status == TRITON_AOT_ERROR_NO_DEVICE
                             ? TRITON_AOT_ERROR_NO_DEVICE
                             : TRITON_AOT_ERROR_NO_DRIVER,
                         "library %s has CUDA and HIP images, and neither runs here: CUDA: %s; "
                         "HIP: %s",
                         library->name, cuda_message, triton_aot_last_error());
}

static void tta_state_free(tta_library_state *state, uint32_t image_count) {
  uint32_t i;
  if (state->raw_images != NULL)
    for (i = 0; i < image_count; ++i)
      free(state->raw_images[i]);
  free(state->raw_images);
  pthread_mutex_destroy(&state->mutex);
  free(state);
}

/* First use of the library (in this process, or since unload). */
static TTA_COLD triton_aot_status tta_state_create(const triton_aot_library *library,
                                                   tta_library_state **out) {
  tta_library_state *expected = NULL, *state;
  triton_aot_status status;
  /* One allocation: the state, then a byte per image for tta_raw_image's check. */
  state = (tta_library_state *)calloc(1, sizeof *state + library->image_count);
  if (state == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "out of host memory (library %s)",
                           library->name);
  state->checked = (unsigned char *)(state + 1);
  {
    /* A default mutex needs no pthread_mutex_init (see driver_cuda.c on binding libc calls). */
    const pthread_mutex_t initial = PTHREAD_MUTEX_INITIALIZER;
    state->mutex = initial;
  }
  status = tta_open_backend(library, state);
  if (status != TRITON_AOT_SUCCESS) {
    tta_state_free(state, library->image_count);
    return status;
  }
  /* Many threads may get here at once: one state wins, the others free theirs. */
  if (!__atomic_compare_exchange_n((tta_library_state **)library->state, &expected, state, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    tta_state_free(state, library->image_count);
    state = expected;
  }
  *out = state;
  return TRITON_AOT_SUCCESS;
}

static const char *tta_kind_name(uint32_t kind) {
  switch (kind) {
  case TRITON_AOT_IMAGE_CUBIN:
    return "cubin";
  case TRITON_AOT_IMAGE_PTX:
    return "ptx";
  case TRITON_AOT_IMAGE_HSACO:
    return "hsaco";
  default:
    return "image";
  }
}

static const char *tta_reason_text(tta_choice_reason reason) {
  switch (reason) {
  case TTA_CHOICE_EXACT:
    return "exact";
  case TTA_CHOICE_COMPATIBLE:
    return "compatible: same major, lower minor";
  case TTA_CHOICE_PTX:
    return "ptx jit: no cubin runs on this device";
  default:
    return "none";
  }
}

static const triton_aot_target *tta_chosen_target(const triton_aot_library *library,
                                                  const triton_aot_kernel *kernel,
                                                  const tta_image_choice *choice) {
  return &library->targets[kernel->targets[choice->target]];
}

void tta_describe_slot(const triton_aot_library *library, const triton_aot_kernel *kernel,
                       uint32_t variant, const tta_image_choice *choice, char *buffer,
                       size_t size) {
  tta_format(buffer, size, "%s variant %u (%s %s)", kernel->name, variant,
             tta_chosen_target(library, kernel, choice)->name, tta_kind_name(choice->kind));
}

const char *tta_what(tta_slot_what *what) {
  char slot_name[256];
  if (what->text[0] != '\0')
    return what->text;
  tta_describe_slot(what->library, what->kernel, what->variant, what->choice, slot_name,
                    sizeof slot_name);
  tta_format(what->text, sizeof what->text, "%s on device %d (%s, %s)", slot_name,
             what->device->ordinal, tta_device_name(what->device), what->device->arch.arch);
  return what->text;
}

static inline triton_aot_status tta_state(const triton_aot_library *library,
                                          tta_library_state **out) {
  *out = __atomic_load_n((tta_library_state **)library->state, __ATOMIC_ACQUIRE);
  return *out != NULL ? TRITON_AOT_SUCCESS : tta_state_create(library, out);
}

static void tta_device_free(tta_device *device) {
  free(device); /* its slots and choices with it (tta_device_build) */
}

static size_t tta_round_up(size_t size, size_t alignment) {
  return (size + alignment - 1) / alignment * alignment;
}

/* Builds the record of device `ordinal`: facts, and the image choice of every kernel. The record,
 * its slots and its choices are one allocation. */
static triton_aot_status tta_device_build(const triton_aot_library *library,
                                          tta_library_state *state, int ordinal, tta_device **out) {
  triton_aot_status status;
  uint32_t k;
  size_t slots_at = tta_round_up(sizeof(tta_device), _Alignof(tta_slot));
  size_t choices_at = tta_round_up(slots_at + (size_t)library->slot_count * sizeof(tta_slot),
                                   _Alignof(tta_image_choice));
  size_t size = choices_at + (size_t)library->kernel_count * sizeof(tta_image_choice);
  unsigned char *block = (unsigned char *)calloc(1, size);
  tta_device *device = (tta_device *)(void *)block;
  if (device == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "out of host memory (library %s)",
                           library->name);
  device->slots = (tta_slot *)(void *)(block + slots_at);
  device->choices = (tta_image_choice *)(void *)(block + choices_at);
  device->ordinal = ordinal;
  status = state->backend == TRITON_AOT_BACKEND_CUDA
               ? tta_cuda_device_facts(state->cuda, ordinal, device)
               : tta_hip_device_facts(state->hip, ordinal, device);
  if (status != TRITON_AOT_SUCCESS) {
    tta_device_free(device);
    return status;
  }
  for (k = 0; k < library->kernel_count; ++k) {
    const triton_aot_kernel *kernel = &library->kernels[k];
    tta_image_choice *choice = &device->choices[k];
    int chosen = tta_choose_image(library, kernel, &device->arch, choice);
    if (!tta_log_enabled())
      continue; /* the log names the device, which costs a driver query */
    if (chosen) {
      tta_log("%s: device %d (%s, %s): %s: %s %s (%s)", library->name, ordinal,
              tta_device_name(device), device->arch.arch, kernel->name,
              tta_chosen_target(library, kernel, choice)->name, tta_kind_name(choice->kind),
              tta_reason_text(choice->reason));
    } else {
      char message[TTA_ERROR_MESSAGE_SIZE];
      tta_format_no_image(message, sizeof message, library, kernel, ordinal,
                          tta_device_name(device), &device->arch);
      tta_log("%s: %s", library->name, message);
    }
  }
  *out = device;
  return TRITON_AOT_SUCCESS;
}

const char *tta_device_name(const tta_device *device) {
  /* The record is never const underneath: only its name is written here, once. */
  tta_device *writable = (tta_device *)device;
  int expected = TTA_FACT_UNKNOWN, state;
  if (__atomic_load_n(&device->name_state, __ATOMIC_ACQUIRE) == TTA_FACT_KNOWN)
    return device->name;
  if (__atomic_compare_exchange_n(&writable->name_state, &expected, TTA_FACT_ASKING, 0,
                                  __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
    if (!tta_cuda_device_name(device->ordinal, writable->name, sizeof writable->name)) {
      __atomic_store_n(&writable->name_state, TTA_FACT_UNKNOWN, __ATOMIC_RELEASE);
      return "unnamed GPU";
    }
    __atomic_store_n(&writable->name_state, TTA_FACT_KNOWN, __ATOMIC_RELEASE);
    return device->name;
  }
  /* Another thread is asking the driver: one call, without a lock to wait on. */
  while ((state = __atomic_load_n(&device->name_state, __ATOMIC_ACQUIRE)) == TTA_FACT_ASKING)
    sched_yield();
  return state == TTA_FACT_KNOWN ? device->name : "unnamed GPU";
}

int tta_device_learn_grid_limits(const tta_device *device) {
  tta_device *writable = (tta_device *)device;
  uint32_t limits[3];
  int axis, answered;
  if (__atomic_load_n(&device->grid_known, __ATOMIC_ACQUIRE))
    return 0;
  /* Threads that get here together ask alike and store alike. A refused query leaves that
   * axis's default, asked again next time. */
  answered = tta_cuda_grid_limits(device->ordinal, limits);
  for (axis = 0; axis < 3; ++axis)
    __atomic_store_n(&writable->max_grid[axis], limits[axis], __ATOMIC_RELAXED);
  __atomic_store_n(&writable->grid_known, answered, __ATOMIC_RELEASE);
  return 1;
}

/* The record of device `ordinal`, built on first use. */
static TTA_COLD triton_aot_status tta_device_record(const triton_aot_library *library,
                                                    tta_library_state *state, int ordinal,
                                                    tta_device **out) {
  triton_aot_status status = TRITON_AOT_SUCCESS;
  tta_device *device;
  if (ordinal < 0 || ordinal >= TTA_MAX_DEVICES)
    return triton_aot_fail(TRITON_AOT_ERROR_NO_DEVICE,
                           "device %d is beyond the %d devices the triton-aot runtime serves",
                           ordinal, TTA_MAX_DEVICES);
  device = __atomic_load_n(&state->devices[ordinal], __ATOMIC_ACQUIRE);
  if (device == NULL) {
    pthread_mutex_lock(&state->mutex);
    device = __atomic_load_n(&state->devices[ordinal], __ATOMIC_ACQUIRE);
    if (device == NULL) {
      status = tta_device_build(library, state, ordinal, &device);
      if (status == TRITON_AOT_SUCCESS)
        __atomic_store_n(&state->devices[ordinal], device, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&state->mutex);
  }
  *out = device;
  return status;
}

/* CUDA, first launch in a context: its device (cuCtxGetDevice), remembered for the context. */
static TTA_COLD triton_aot_status tta_context_device(const triton_aot_library *library,
                                                     tta_library_state *state, uint64_t context,
                                                     tta_device **out) {
  tta_context_record *record;
  int ordinal = 0;
  triton_aot_status status = tta_cuda_context_device(state->cuda, &ordinal);
  if (status == TRITON_AOT_SUCCESS)
    status = tta_device_record(library, state, ordinal, out);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  pthread_mutex_lock(&state->mutex);
  if (tta_context_lookup(state, context) == NULL) {
    record = (tta_context_record *)calloc(1, sizeof *record);
    if (record == NULL) {
      status = triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "out of host memory");
    } else {
      record->context = context;
      record->device = *out;
      record->next = state->contexts; /* only written under the mutex */
      __atomic_store_n(&state->contexts, record, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&state->mutex);
  return status;
}

/* The calling thread's context (CUDA; device 0's primary context is made current when none
 * is) and its key, or its device ordinal as the key (HIP): see tta_current. */
static triton_aot_status tta_current_key(const tta_library_state *state, CUcontext *context,
                                         uint64_t *key) {
  triton_aot_status status;
  int ordinal = 0;
  *context = NULL;
  if (state->backend == TRITON_AOT_BACKEND_CUDA)
    return tta_cuda_current_context(state->cuda, context, key);
  status = tta_hip_current(state->hip, &ordinal);
  *key = (uint64_t)(int64_t)ordinal;
  return status;
}

triton_aot_status tta_current_device(const triton_aot_library *library, tta_current *current) {
  triton_aot_status status;
  tta_library_state *state = NULL;
  int ordinal;
  status = tta_state(library, &state);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  current->state = state;
  status = tta_current_key(state, &current->context, &current->context_key);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  if (state->backend == TRITON_AOT_BACKEND_HIP) {
    ordinal = (int)(int64_t)current->context_key;
    if (ordinal >= 0 && ordinal < TTA_MAX_DEVICES) {
      current->device = __atomic_load_n(&state->devices[ordinal], __ATOMIC_ACQUIRE);
      if (current->device != NULL)
        return TRITON_AOT_SUCCESS;
    }
    return tta_device_record(library, state, ordinal, &current->device);
  }
  current->device = tta_context_lookup(state, current->context_key);
  if (current->device != NULL)
    return TRITON_AOT_SUCCESS;
  return tta_context_device(library, state, current->context_key, &current->device);
}

/* A damaged image (a flipped byte in the library file or in memory, a truncated copy) is an
 * error naming it, never a load: the driver may accept a damaged cubin and run it. */
static TTA_COLD triton_aot_status tta_damaged_image(const triton_aot_library *library,
                                                    uint32_t index, tta_slot_what *what,
                                                    uint64_t found) {
  return triton_aot_fail(TRITON_AOT_ERROR_LOAD_FAILED,
                         "%s: image %u of library %s is damaged: its %llu bytes hash to "
                         "%016llx (XXH3-64), the library recorded %016llx; the library file "
                         "changed after it was built: rebuild or reinstall it",
                         tta_what(what), index, library->name,
                         (unsigned long long)library->images[index].raw_size,
                         (unsigned long long)found,
                         (unsigned long long)library->images[index].hash);
}

/* The bytes the driver gets for image `index`: embedded, or decompressed once and kept; either
 * way checked against the image's hash once per library state, before any driver sees them. */
static triton_aot_status tta_raw_image(const triton_aot_library *library, tta_library_state *state,
                                       uint32_t index, tta_slot_what *what, const void **data) {
  const triton_aot_image *image = &library->images[index];
  triton_aot_status status;
  uint64_t found;
  if (image->compression == TRITON_AOT_COMPRESSION_NONE) {
    *data = library->blob + image->offset;
    if (!state->checked[index]) {
      found = tta_image_hash(*data, (size_t)image->size);
      if (found != image->hash)
        return tta_damaged_image(library, index, what, found);
      state->checked[index] = 1;
    }
    return TRITON_AOT_SUCCESS;
  }
  if (image->compression != TRITON_AOT_COMPRESSION_ZSTD)
    return triton_aot_fail(TRITON_AOT_ERROR_LOAD_FAILED, "%s: unknown compression %u",
                           tta_what(what), image->compression);
  if (state->raw_images == NULL) /* made on the first decompression: most libraries never do */
    state->raw_images = (void **)calloc(library->image_count, sizeof(void *));
  if (state->raw_images == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "%s: out of host memory",
                           tta_what(what));
  if (state->raw_images[index] == NULL) {
    char name[TTA_ERROR_MESSAGE_SIZE / 2];
    void *raw = NULL;
    if (image->raw_size > SIZE_MAX || image->size > SIZE_MAX)
      return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "%s: image too large",
                             tta_what(what));
    /* Decompressing is no first launch's fast path: the name is formatted up front here. zstd
     * checks the frame's own checksum (the linker writes one); the hash below is checked too,
     * so a frame without a checksum, or a libzstd that skips it, still loads nothing damaged. */
    tta_format(name, sizeof name, "%s: image %u of library %s", tta_what(what), index,
               library->name);
    status = tta_zstd_decompress(library->blob + image->offset, (size_t)image->size,
                                 (size_t)image->raw_size, name, &raw);
    if (status != TRITON_AOT_SUCCESS)
      return status;
    found = tta_image_hash(raw, (size_t)image->raw_size);
    if (found != image->hash) {
      free(raw);
      return tta_damaged_image(library, index, what, found);
    }
    state->raw_images[index] = raw;
  }
  *data = state->raw_images[index];
  return TRITON_AOT_SUCCESS;
}

/* The handle of image `index` loaded on the device (and context), loading it if needed. */
static triton_aot_status tta_loaded_handle(const triton_aot_library *library,
                                           tta_library_state *state, const tta_current *current,
                                           uint32_t index, tta_slot_what *what, void **handle) {
  tta_device *device = current->device;
  int per_context = state->backend == TRITON_AOT_BACKEND_CUDA; /* CUDA: a module per context */
  CUcontext context = per_context ? current->context : NULL;
  uint64_t context_key = per_context ? current->context_key : 0;
  tta_loaded_image *loaded;
  const void *data = NULL;
  triton_aot_status status;
  for (loaded = device->loaded; loaded != NULL; loaded = loaded->next)
    if (loaded->image == index && loaded->context_key == context_key) {
      *handle = loaded->handle;
      return TRITON_AOT_SUCCESS;
    }
  status = tta_raw_image(library, state, index, what, &data);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  loaded = (tta_loaded_image *)calloc(1, sizeof *loaded);
  if (loaded == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "%s: out of host memory",
                           tta_what(what));
  status = state->backend == TRITON_AOT_BACKEND_CUDA
               ? tta_cuda_load(state, data, what, &loaded->handle)
               : tta_hip_load(state->hip, data, what, &loaded->handle);
  if (status != TRITON_AOT_SUCCESS) {
    free(loaded);
    return status;
  }
  loaded->context = context;
  loaded->context_key = context_key;
  loaded->image = index;
  loaded->next = device->loaded;
  device->loaded = loaded;
  *handle = loaded->handle;
  return TRITON_AOT_SUCCESS;
}

static triton_aot_status tta_publish(tta_library_state *state, const tta_current *current,
                                     tta_slot *slot, void *function) {
  tta_context_function *entry;
  if (state->backend != TRITON_AOT_BACKEND_CUDA) {
    __atomic_store_n(&slot->function, function, __ATOMIC_RELEASE);
    return TRITON_AOT_SUCCESS;
  }
  entry = (tta_context_function *)calloc(1, sizeof *entry);
  if (entry == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "out of host memory");
  entry->context = current->context_key;
  entry->function = function;
  entry->next = slot->contexts; /* only written under the mutex */
  __atomic_store_n(&slot->contexts, entry, __ATOMIC_RELEASE);
  return TRITON_AOT_SUCCESS;
}

static TTA_COLD triton_aot_status tta_slot_load(const triton_aot_library *library,
                                                const tta_current *current, uint32_t kernel_index,
                                                uint32_t variant, tta_slot *slot,
                                                const triton_aot_function *descriptor,
                                                void **function) {
  tta_library_state *state = current->state;
  tta_device *device = current->device;
  const triton_aot_kernel *kernel = &library->kernels[kernel_index];
  const tta_image_choice *choice = &device->choices[kernel_index];
  uint32_t image = choice->kind == TRITON_AOT_IMAGE_PTX ? descriptor->ptx : descriptor->binary;
  tta_slot_what what;
  const char *entry = library->strings + descriptor->entry;
  triton_aot_status status = TRITON_AOT_SUCCESS;
  void *handle = NULL;
  what.library = library;
  what.kernel = kernel;
  what.variant = variant;
  what.choice = choice;
  what.device = device;
  what.text[0] = '\0';
  pthread_mutex_lock(&state->mutex);
  *function = tta_published_function(state, current, slot);
  if (*function == NULL) {
    status = tta_loaded_handle(library, state, current, image, &what, &handle);
    if (status == TRITON_AOT_SUCCESS)
      status = state->backend == TRITON_AOT_BACKEND_CUDA
                   ? tta_cuda_get_function(state, device, handle, descriptor, entry, &what,
                                            function)
                   : tta_hip_get_function(state->hip, device, handle, descriptor, entry, &what,
                                           function);
    if (status == TRITON_AOT_SUCCESS)
      status = tta_publish(state, current, slot, *function);
    if (status != TRITON_AOT_SUCCESS) {
      *function = NULL;
      tta_log("%s: %s", library->name, triton_aot_last_error());
    }
  }
  pthread_mutex_unlock(&state->mutex);
  return status;
}

static TTA_COLD triton_aot_status tta_fail_no_image(const triton_aot_library *library,
                                                    const tta_current *current,
                                                    const triton_aot_kernel *kernel) {
  char message[TTA_ERROR_MESSAGE_SIZE];
  tta_format_no_image(message, sizeof message, library, kernel, current->device->ordinal,
                      tta_device_name(current->device), &current->device->arch);
  return triton_aot_fail(TRITON_AOT_ERROR_NO_IMAGE, "%s", message);
}

int tta_slot_refused(const triton_aot_library *library, const tta_current *current,
                     uint32_t kernel_index, uint32_t variant) {
  const triton_aot_kernel *kernel = &library->kernels[kernel_index];
  const tta_image_choice *choice = &current->device->choices[kernel_index];
  return choice->reason != TTA_CHOICE_NONE &&
         tta_function_refused(
             &kernel->functions[(size_t)variant * kernel->target_count + choice->target]);
}

triton_aot_status tta_slot_function(const triton_aot_library *library, const tta_current *current,
                                    uint32_t kernel_index, uint32_t variant, void **function,
                                    const triton_aot_function **descriptor) {
  const triton_aot_kernel *kernel = &library->kernels[kernel_index];
  const tta_image_choice *choice = &current->device->choices[kernel_index];
  tta_slot *slot = &current->device->slots[kernel->first_slot + variant];
  if (choice->reason == TTA_CHOICE_NONE)
    return tta_fail_no_image(library, current, kernel);
  *descriptor = &kernel->functions[(size_t)variant * kernel->target_count + choice->target];
  if (tta_function_refused(*descriptor))
    return triton_aot_fail(TRITON_AOT_ERROR_NO_IMAGE, "%s: %s (device %d, %s, %s)", kernel->name,
                           library->strings + (*descriptor)->entry, current->device->ordinal,
                           tta_device_name(current->device), current->device->arch.arch);
  *function = tta_published_function(current->state, current, slot);
  if (*function != NULL)
    return TRITON_AOT_SUCCESS;
  return tta_slot_load(library, current, kernel_index, variant, slot, *descriptor, function);
}

triton_aot_status tta_library_unload(const triton_aot_library *library) {
  tta_library_state *state =
      __atomic_exchange_n((tta_library_state **)library->state, NULL, __ATOMIC_ACQ_REL);
  triton_aot_status status = TRITON_AOT_SUCCESS, unloaded;
  char first_error[TTA_ERROR_MESSAGE_SIZE] = "";
  int ordinal;
  uint32_t s;
  if (state == NULL)
    return TRITON_AOT_SUCCESS;
  /* Every thread's memo entries (launch_memo.h) miss from now on. */
  __atomic_add_fetch(&tta_cuda_table.memo_unloads, 1, __ATOMIC_RELEASE);
  for (ordinal = 0; ordinal < TTA_MAX_DEVICES; ++ordinal) {
    tta_device *device = state->devices[ordinal];
    tta_loaded_image *loaded, *next_loaded;
    if (device == NULL)
      continue;
    for (loaded = device->loaded; loaded != NULL; loaded = next_loaded) {
      char what[256];
      next_loaded = loaded->next;
      tta_format(what, sizeof what, "unloading library %s: image %u on device %d (%s)",
                 library->name, loaded->image, device->ordinal, tta_device_name(device));
      unloaded = state->backend == TRITON_AOT_BACKEND_CUDA
                     ? tta_cuda_unload(state, loaded, what)
                     : tta_hip_unload(state->hip, loaded, what);
      /* The first refusal is the one reported; the rest are still unloaded. */
      if (unloaded != TRITON_AOT_SUCCESS && status == TRITON_AOT_SUCCESS) {
        status = unloaded;
        tta_format(first_error, sizeof first_error, "%s", triton_aot_last_error());
      }
      free(loaded);
    }
    for (s = 0; s < library->slot_count; ++s) {
      tta_context_function *entry = device->slots[s].contexts, *next_entry;
      for (; entry != NULL; entry = next_entry) {
        next_entry = entry->next;
        free(entry);
      }
    }
    tta_device_free(device);
  }
  while (state->contexts != NULL) {
    tta_context_record *next = state->contexts->next;
    free(state->contexts);
    state->contexts = next;
  }
  tta_state_free(state, library->image_count);
  if (status != TRITON_AOT_SUCCESS)
    return triton_aot_fail(status, "%s", first_error);
  return TRITON_AOT_SUCCESS;
}
