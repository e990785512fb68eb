/* The recording runtime of fake_runtime.h. Single-threaded: the dispatch tests call from one
 * thread. */
#include "fake_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static fake_runtime state;

fake_runtime *fake_runtime_state(void) { return &state; }

static triton_aot_status fake_launch(const triton_aot_library *library, uint32_t kernel,
                                     uint32_t variant, uint64_t place, void *stream,
                                     const uint64_t grid[3], void **args);
static triton_aot_status fake_launch_tensors(const triton_aot_library *library,
                                             uint32_t kernel, uint32_t variant, uint64_t place,
                                             void *stream, const uint64_t grid[3], void **args,
                                             const triton_aot_tensor_arg *tensors,
                                             triton_aot_tensor_storage *storage);

int triton_aot_kernel_target(const triton_aot_library *library, uint32_t kernel) {
  return triton_aot_kernel_target_at(library, kernel, NULL);
}

/* The place is a token the dispatcher must hand to the launch unchanged. */
int triton_aot_kernel_target_at(const triton_aot_library *library, uint32_t kernel,
                                triton_aot_place *place) {
  (void)library;
  (void)kernel;
  state.target_queries++;
  if (place != NULL)
    place->context_key = FAKE_PLACE_KEY + (uint64_t)state.target_queries;
  return state.kernel_target;
}

void triton_aot_log_tuned(const triton_aot_library *library, uint32_t kernel, int target,
                          int config, const char *config_name) {
  (void)library;
  (void)kernel;
  state.logged_target = target;
  state.logged_config = config;
  snprintf(state.logged_name, sizeof state.logged_name, "%s", config_name ? config_name : "(null)");
}

/* Every launch entry: records the call (place: the key triton_aot_launch_at was handed, 0 for
 * none). */
static triton_aot_status fake_launch(const triton_aot_library *library, uint32_t kernel,
                                     uint32_t variant, uint64_t place, void *stream,
                                     const uint64_t grid[3], void **args) {
  uint32_t i;
  state.launches++;
  state.launch_place = place;
  state.library = library;
  state.kernel = kernel;
  state.variant = variant;
  state.stream = stream;
  memcpy(state.grid, grid, sizeof state.grid);
  state.arg_count = library->kernels[kernel].arg_count;
  memset(state.arg_bytes, 0, sizeof state.arg_bytes);
  for (i = 0; i < state.arg_count && i < FAKE_MAX_ARGS; ++i)
    if (state.arg_sizes[i] > 0 && state.arg_sizes[i] <= 8)
      memcpy(state.arg_bytes[i], args[i], state.arg_sizes[i]);
  /* As the real runtime does: the two slots after the arguments take the scratch pointers. */
  args[state.arg_count] = NULL;
  args[state.arg_count + 1] = NULL;
  if (state.launch_result != TRITON_AOT_SUCCESS)
    return triton_aot_fail(state.launch_result, "fake launch failure");
  triton_aot_clear_error();
  return TRITON_AOT_SUCCESS;
}

triton_aot_status triton_aot_launch(const triton_aot_library *library, uint32_t kernel,
                                    uint32_t variant, void *stream, const uint64_t grid[3],
                                    void **args) {
  return fake_launch(library, kernel, variant, 0, stream, grid, args);
}

triton_aot_status triton_aot_launch_at(const triton_aot_library *library, uint32_t kernel,
                                       uint32_t variant, const triton_aot_place *place,
                                       void *stream, const uint64_t grid[3], void **args) {
  return fake_launch(library, kernel, variant, place != NULL ? place->context_key : 0, stream,
                     grid, args);
}

triton_aot_status triton_aot_launch_tensors_at(const triton_aot_library *library,
                                               uint32_t kernel, uint32_t variant,
                                               const triton_aot_place *place, void *stream,
                                               const uint64_t grid[3], void **args,
                                               const triton_aot_tensor_arg *tensors,
                                               triton_aot_tensor_storage *storage) {
  return fake_launch_tensors(library, kernel, variant, place != NULL ? place->context_key : 0,
                             stream, grid, args, tensors, storage);
}

/* Records the descriptors, then launches as above (args[tensor slots] stay as the dispatcher
 * left them: the real runtime fills them). */
static triton_aot_status fake_launch_tensors(const triton_aot_library *library,
                                             uint32_t kernel, uint32_t variant, uint64_t place,
                                             void *stream, const uint64_t grid[3], void **args,
                                             const triton_aot_tensor_arg *tensors,
                                             triton_aot_tensor_storage *storage) {
  uint32_t i;
  state.tensor_launches++;
  state.tensor_count = library->kernels[kernel].tensor_count;
  memset(state.tensors, 0, sizeof state.tensors);
  for (i = 0; i < state.tensor_count && i < FAKE_MAX_TENSORS; ++i)
    state.tensors[i] = tensors[i];
  state.storage_aligned = ((uintptr_t)storage & 63u) == 0;
  state.tensor_slots_null = 1;
  for (i = 0; i < state.tensor_count; ++i) {
    const triton_aot_kernel *k = &library->kernels[kernel];
    const triton_aot_function *f = &k->functions[variant * k->target_count];
    uint32_t rank = library->tensor_maps[f->tensor_maps + i].rank, a;
    for (a = 0; a <= 2 * rank; ++a)
      if (args[k->tensor_slots[i] + a] != NULL)
        state.tensor_slots_null = 0;
  }
  return fake_launch(library, kernel, variant, place, stream, grid, args);
}

triton_aot_status triton_aot_launch_tensors(const triton_aot_library *library, uint32_t kernel,
                                            uint32_t variant, void *stream,
                                            const uint64_t grid[3], void **args,
                                            const triton_aot_tensor_arg *tensors,
                                            triton_aot_tensor_storage *storage) {
  return fake_launch_tensors(library, kernel, variant, 0, stream, grid, args, tensors, storage);
}

triton_aot_status triton_aot_preload(const triton_aot_library *library) {
  state.preloads++;
  state.library = library;
  return TRITON_AOT_SUCCESS;
}

triton_aot_status triton_aot_unload(const triton_aot_library *library) {
  state.unloads++;
  state.library = library;
  return TRITON_AOT_SUCCESS;
}

triton_aot_status triton_aot_fail(triton_aot_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(state.message, sizeof state.message, format, args);
  va_end(args);
  state.fails++;
  state.fail_status = status;
  return status;
}

void triton_aot_clear_error(void) {
  state.clears++;
  state.message[0] = '\0';
}

const char *triton_aot_last_error(void) { return state.message; }

void triton_aot_set_allocator(const triton_aot_allocator *allocator) {
  state.allocator_calls++;
  state.allocator = allocator;
}
