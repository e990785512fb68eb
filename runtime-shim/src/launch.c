/* triton_aot_launch / _preload / _unload: the entry points generated code calls. */
#include <string.h>

#include "error.h"
#include "launch_memo.h"
#include "library_state.h"
#include "log.h"
#include "scratch.h"
#include "tensor_map.h"

/* The cluster's extent along `axis` (0 in the descriptor: no cluster, 1). */
static uint32_t tta_cluster(const triton_aot_launch_info *launch, int axis) {
  return launch->cluster[axis] ? launch->cluster[axis] : 1;
}

/* The first grid axis beyond the device's limits as known so far (with the cluster), or -1. */
static int tta_axis_beyond(const triton_aot_launch_info *launch, const tta_device *device,
                           const uint64_t grid[3]) {
  int axis;
  for (axis = 0; axis < 3; ++axis) {
    uint64_t cluster = tta_cluster(launch, axis);
    /* No division on this path: grid <= 2^32 and cluster < 2^32 cannot overflow 64 bits. */
    if (grid[axis] * cluster > tta_device_max_grid(device, axis))
      return axis;
  }
  return -1;
}

/* The blocks to launch: the grid times the cluster, each axis within the device's limit. The
 * limits are asked of a CUDA driver only when a grid exceeds those every device has (see
 * tta_device), then the grid is checked again. */
static triton_aot_status tta_grid_dimensions(const triton_aot_kernel *kernel,
                                             const triton_aot_launch_info *launch,
                                             const tta_device *device, const uint64_t grid[3],
                                             unsigned blocks[3]) {
  int axis = tta_axis_beyond(launch, device, grid);
  if (axis >= 0 && tta_device_learn_grid_limits(device))
    axis = tta_axis_beyond(launch, device, grid);
  if (axis >= 0) {
    uint64_t cluster = tta_cluster(launch, axis);
    uint64_t limit = tta_device_max_grid(device, axis);
    if (grid[axis] > limit)
      return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                             "%s: grid %c is %llu, above the limit of %llu blocks on device %d "
                             "(%s)",
                             kernel->name, "xyz"[axis], (unsigned long long)grid[axis],
                             (unsigned long long)limit, device->ordinal, tta_device_name(device));
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                           "%s: grid %c is %llu, times the cluster's %llu above the limit of "
                           "%llu blocks on device %d (%s)",
                           kernel->name, "xyz"[axis], (unsigned long long)grid[axis],
                           (unsigned long long)cluster, (unsigned long long)limit,
                           device->ordinal, tta_device_name(device));
  }
  for (axis = 0; axis < 3; ++axis)
    blocks[axis] = (unsigned)(grid[axis] * tta_cluster(launch, axis));
  return TRITON_AOT_SUCCESS;
}

/* grid_x * grid_y * grid_z * num_ctas * per_cta, or 0 with *overflow set. */
static uint64_t tta_scratch_size(const uint64_t grid[3], uint32_t num_ctas, uint64_t per_cta,
                                 int *overflow) {
  uint64_t programs = grid[0] * grid[1] * grid[2]; /* < 2^63: the grid is within its limits */
  uint64_t ctas = num_ctas ? num_ctas : 1, size = 0;
  *overflow = 0;
  if (per_cta == 0)
    return 0;
  if (__builtin_mul_overflow(programs, ctas, &size) ||
      __builtin_mul_overflow(size, per_cta, &size)) {
    *overflow = 1;
    return 0;
  }
  return size;
}

/* Every launch attribute the runtime can set at once, one slot per attribute that
 * tta_cuda_launch_attributes() sets, each at most once: cluster dimension + scheduling policy
 * (2), PDL, cooperative, oversized shared memory. Upstream's launcher has 4 slots for these 5
 * and writes past them when all apply. Another attribute set there needs another slot here. */
#define TTA_CUDA_LAUNCH_ATTRIBUTES 5

/* The next slot, zeroed, with its id. */
static CUlaunchAttribute *tta_next_attribute(CUlaunchAttribute *attributes, unsigned *count,
                                             int id) {
  CUlaunchAttribute *attribute = &attributes[(*count)++];
  memset(attribute, 0, sizeof *attribute);
  attribute->id = id;
  return attribute;
}

/* Triton's launch attributes for `launch` into `attributes` (TTA_CUDA_LAUNCH_ATTRIBUTES slots);
 * returns how many. */
static unsigned tta_cuda_launch_attributes(const triton_aot_launch_info *launch,
                                           CUlaunchAttribute *attributes) {
  unsigned count = 0;
  CUlaunchAttribute *attribute;
  if (launch->cluster[0] > 1 || launch->cluster[1] > 1 || launch->cluster[2] > 1) {
    attribute = tta_next_attribute(attributes, &count, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
    attribute->value.clusterDim.x = tta_cluster(launch, 0);
    attribute->value.clusterDim.y = tta_cluster(launch, 1);
    attribute->value.clusterDim.z = tta_cluster(launch, 2);
    attribute = tta_next_attribute(attributes, &count,
                                   CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
    attribute->value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  }
  if (launch->flags & TRITON_AOT_LAUNCH_PDL) {
    attribute = tta_next_attribute(attributes, &count,
                                   CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
    attribute->value.programmaticStreamSerializationAllowed = 1;
  }
  if (launch->flags & TRITON_AOT_LAUNCH_COOPERATIVE) {
    attribute = tta_next_attribute(attributes, &count, CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
    attribute->value.cooperative = 1;
  }
  /* The function's mode was set at load (library_cuda.c); the launch must allow it too. */
  if (launch->shared > TTA_OVERSIZED_SHARED_THRESHOLD) {
    attribute = tta_next_attribute(attributes, &count, CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE);
    attribute->value.sharedMemoryMode = CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY;
  }
  return count;
}

static triton_aot_status tta_cuda_launch(const tta_library_state *state,
                                         const triton_aot_kernel *kernel,
                                         const triton_aot_launch_info *launch, void *function,
                                         const unsigned blocks[3], void *stream, void **args) {
  const tta_cuda *cuda = state->cuda;
  CUlaunchAttribute attributes[TTA_CUDA_LAUNCH_ATTRIBUTES];
  unsigned count = tta_cuda_launch_attributes(launch, attributes);
  CUresult result;
  if (count == 0) {
    result =
        cuda->cuLaunchKernel((CUfunction)function, blocks[0], blocks[1], blocks[2], launch->block_x,
                             1, 1, launch->shared, (CUstream)stream, args, NULL);
    if (result != CUDA_SUCCESS)
      return tta_cuda_fail(cuda, TRITON_AOT_ERROR_LAUNCH_FAILED, result, kernel->name,
                           "cuLaunchKernel");
    return TRITON_AOT_SUCCESS;
  }
  tta_cuda_resolve_deferred();
  if (cuda->cuLaunchKernelEx == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED,
                           "%s needs a cluster, programmatic dependent, cooperative or oversized "
                           "shared memory launch, and "
                           "this CUDA driver has no cuLaunchKernelEx; update the NVIDIA driver",
                           kernel->name);
  {
    CUlaunchConfig config;
    memset(&config, 0, sizeof config);
    config.gridDimX = blocks[0];
    config.gridDimY = blocks[1];
    config.gridDimZ = blocks[2];
    config.blockDimX = launch->block_x;
    config.blockDimY = 1;
    config.blockDimZ = 1;
    config.sharedMemBytes = launch->shared;
    config.hStream = (CUstream)stream;
    config.attrs = attributes;
    config.numAttrs = count;
    result = cuda->cuLaunchKernelEx(&config, (CUfunction)function, args, NULL);
  }
  if (result != CUDA_SUCCESS)
    return tta_cuda_fail(cuda, TRITON_AOT_ERROR_LAUNCH_FAILED, result, kernel->name,
                         "cuLaunchKernelEx");
  return TRITON_AOT_SUCCESS;
}

/* A plain launch the driver refused as an invalid value: a grid beyond the device's own limits,
 * when the device has less than every CUDA device has (which the launch assumed), is said so;
 * anything else is the driver's error. */
static TTA_COLD triton_aot_status tta_plain_launch_refused(const triton_aot_library *library,
                                                           const tta_found *found,
                                                           const uint64_t grid[3],
                                                           CUresult result) {
  const triton_aot_kernel *kernel = &library->kernels[found->kernel];
  unsigned blocks[3];
  if (result == CUDA_ERROR_INVALID_VALUE) {
    tta_device_learn_grid_limits(found->device);
    if (tta_grid_dimensions(kernel, &found->descriptor->launch, found->device, grid, blocks) !=
        TRITON_AOT_SUCCESS)
      return TRITON_AOT_ERROR_INVALID_ARGUMENT;
  }
  return tta_cuda_fail(&tta_cuda_table, TRITON_AOT_ERROR_LAUNCH_FAILED, result, kernel->name,
                       "cuLaunchKernel");
}

/* Is `grid` within the limits every CUDA device has? A plain launch checks only that: a device with
 * more takes the general path beyond them (which asks its limits), and one with less refuses the
 * launch, which tta_plain_launch_refused() then explains. */
static inline int tta_grid_every_device_takes(const uint64_t grid[3]) {
  return grid[0] <= TTA_DEFAULT_MAX_GRID_X && grid[1] <= TTA_DEFAULT_MAX_GRID_YZ &&
         grid[2] <= TTA_DEFAULT_MAX_GRID_YZ;
}

/* What a plain launch's trailing scratch arguments point at: a null pointer that outlives every
 * launch, so no slot is left pointing into a frame that is gone. Never written. */
static void *tta_no_scratch;

/* The common launch (tta_found.plain), its grid within the device's limits: Triton's trailing
 * scratch pointers are NULL (the kernel needs no scratch), and no launch attribute applies. It
 * reads only the memo entry's first cache line and the driver's table. */
static inline __attribute__((always_inline)) triton_aot_status
tta_cuda_launch_plain(const triton_aot_library *library, const tta_found *found,
                      const uint64_t grid[3], void *stream, void **args) {
  uint32_t trailing = found->arg_count;
  CUresult result;
  /* At most two trailing pointers, in Triton's order: global scratch, then profile scratch. */
  if (found->trailing_args & TRITON_AOT_ARG_GLOBAL_SCRATCH)
    args[trailing++] = &tta_no_scratch;
  if (found->trailing_args & TRITON_AOT_ARG_PROFILE_SCRATCH)
    args[trailing] = &tta_no_scratch;
  result = tta_cuda_table.cuLaunchKernel((CUfunction)found->function, (unsigned)grid[0],
                                         (unsigned)grid[1], (unsigned)grid[2], found->block_x, 1,
                                         1, found->shared, (CUstream)stream, args, NULL);
  if (result != CUDA_SUCCESS)
    return tta_plain_launch_refused(library, found, grid, result);
  return TRITON_AOT_SUCCESS;
}

static triton_aot_status tta_hip_launch(const tta_library_state *state,
                                        const triton_aot_kernel *kernel,
                                        const triton_aot_launch_info *launch, void *function,
                                        const unsigned blocks[3], void *stream, void **args) {
  const tta_hip *hip = state->hip;
  hipError_t result;
  if (launch->cluster[0] > 1 || launch->cluster[1] > 1 || launch->cluster[2] > 1)
    return triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED,
                           "%s needs a cluster launch, which the triton-aot runtime does not "
                           "support on HIP",
                           kernel->name);
  /* HIP launches at most 2^32 - 1 work-items along an axis. */
  if ((uint64_t)blocks[0] * launch->block_x > UINT32_MAX)
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                           "%s: grid x %u times %u threads per block is above HIP's 2^32 - 1 "
                           "work-items",
                           kernel->name, blocks[0], launch->block_x);
  /* Programmatic dependent launch is a CUDA scheduling hint; HIP launches in stream order. */
  if (launch->flags & TRITON_AOT_LAUNCH_COOPERATIVE) {
    if (hip->hipModuleLaunchCooperativeKernel == NULL)
      return triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED,
                             "%s needs a cooperative launch, and this HIP runtime has no "
                             "hipModuleLaunchCooperativeKernel",
                             kernel->name);
    result = hip->hipModuleLaunchCooperativeKernel((hipFunction_t)function, blocks[0], blocks[1],
                                                   blocks[2], launch->block_x, 1, 1, launch->shared,
                                                   (hipStream_t)stream, args);
    if (result != hipSuccess)
      return tta_hip_fail(hip, TRITON_AOT_ERROR_LAUNCH_FAILED, result, kernel->name,
                          "hipModuleLaunchCooperativeKernel");
    return TRITON_AOT_SUCCESS;
  }
  result = hip->hipModuleLaunchKernel((hipFunction_t)function, blocks[0], blocks[1], blocks[2],
                                      launch->block_x, 1, 1, launch->shared, (hipStream_t)stream,
                                      args, NULL);
  if (result != hipSuccess)
    return tta_hip_fail(hip, TRITON_AOT_ERROR_LAUNCH_FAILED, result, kernel->name,
                        "hipModuleLaunchKernel");
  return TRITON_AOT_SUCCESS;
}

/* Encodes the caller's descriptors for `descriptor` (the chosen function: its box follows its
 * config) into `storage` and points each descriptor's argument slots at it: the CUtensorMap,
 * then the shape as i32 (doubled innermost where Triton 3.6 passes it so), then the strides. */
static triton_aot_status tta_fill_tensors(const triton_aot_library *library,
                                          const triton_aot_kernel *kernel,
                                          const triton_aot_function *descriptor,
                                          const tta_library_state *state, void **args,
                                          const triton_aot_tensor_arg *tensors,
                                          triton_aot_tensor_storage *storage) {
  uint32_t i, d;
  if (tensors == NULL || storage == NULL || library->tensor_maps == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                           "%s takes %u host tensor descriptor(s) and none were given",
                           kernel->name, kernel->tensor_count);
  if (state->backend != TRITON_AOT_BACKEND_CUDA)
    return triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED,
                           "%s takes host tensor descriptors, which the runtime encodes for CUDA "
                           "(TMA) only",
                           kernel->name);
  for (i = 0; i < kernel->tensor_count; ++i) {
    const triton_aot_tensor_map *map = &library->tensor_maps[descriptor->tensor_maps + i];
    const triton_aot_tensor_arg *arg = &tensors[i];
    uint32_t slot = kernel->tensor_slots[i];
    const char *param = library->strings + kernel->tensor_names[i];
    triton_aot_status status =
        tta_cuda_encode_tensor_map(state->cuda, map, arg, kernel->name, param,
                                   (CUtensorMap *)(void *)storage[i].map);
    if (status != TRITON_AOT_SUCCESS)
      return status;
    args[slot] = storage[i].map;
    for (d = 0; d < map->rank; ++d) {
      int64_t shape = arg->shape[d];
      if (d + 1 == map->rank && (map->flags & TRITON_AOT_TENSOR_SHAPE_ARGS_PADDED))
        shape *= 2;   /* in range: the encoder checked shape * 2 for fp4 */
      storage[i].shape[d] = (int32_t)shape;
      storage[i].strides[d] = arg->strides[d];
      args[slot + 1 + d] = &storage[i].shape[d];
      args[slot + 1 + map->rank + d] = &storage[i].strides[d];
    }
  }
  return TRITON_AOT_SUCCESS;
}

/* args[arg_count..] point at scratch pointers in triton_aot_launch's frame for the duration of
 * the launch call only (and are cleared before it returns), which GCC 12+ cannot see. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif

/* Every launch but the plain one: cluster, flags, scratch memory, tensor descriptors, HIP, or a
 * grid beyond the device's limits (which fails here, saying so). */
static TTA_NOINLINE triton_aot_status
tta_launch_general(const triton_aot_library *library, const triton_aot_kernel *kernel,
                   const tta_found *found, void *stream, const uint64_t grid[3], void **args,
                   const triton_aot_tensor_arg *tensors, triton_aot_tensor_storage *storage) {
  const triton_aot_launch_info *launch = &found->descriptor->launch;
  triton_aot_status status;
  unsigned blocks[3];
  tta_scratch scratch[2];
  void *scratch_pointers[2] = {NULL, NULL};
  uint32_t trailing;
  int overflow = 0;
  status = tta_grid_dimensions(kernel, launch, found->device, grid, blocks);
  if (status != TRITON_AOT_SUCCESS)
    return status;
  if (kernel->tensor_count > 0) {
    status = tta_fill_tensors(library, kernel, found->descriptor, found->state, args, tensors,
                              storage);
    if (status != TRITON_AOT_SUCCESS)
      return status;
  }

  /* Trailing scratch pointers, in Triton's order: global, then profile. */
  trailing = kernel->arg_count;
  scratch[0].pointer = scratch[1].pointer = NULL;
  if (kernel->trailing_args & TRITON_AOT_ARG_GLOBAL_SCRATCH) {
    uint64_t size =
        tta_scratch_size(grid, launch->num_ctas, launch->global_scratch_size, &overflow);
    if (size != 0)
      status = tta_scratch_allocate(found->state, size, launch->global_scratch_align, stream,
                                    kernel->name, &scratch[0]);
    scratch_pointers[0] = scratch[0].pointer;
    args[trailing++] = &scratch_pointers[0];
  }
  if (status == TRITON_AOT_SUCCESS && !overflow &&
      (kernel->trailing_args & TRITON_AOT_ARG_PROFILE_SCRATCH)) {
    uint64_t size =
        tta_scratch_size(grid, launch->num_ctas, launch->profile_scratch_size, &overflow);
    if (size != 0)
      status = tta_scratch_allocate(found->state, size, launch->profile_scratch_align, stream,
                                    kernel->name, &scratch[1]);
    scratch_pointers[1] = scratch[1].pointer;
    args[trailing++] = &scratch_pointers[1];
  }
  if (overflow)
    status = triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY,
                             "%s: the scratch memory for grid (%llu, %llu, %llu) overflows 64 bits",
                             kernel->name, (unsigned long long)grid[0], (unsigned long long)grid[1],
                             (unsigned long long)grid[2]);
  if (status == TRITON_AOT_SUCCESS)
    status = found->state->backend == TRITON_AOT_BACKEND_CUDA
                 ? tta_cuda_launch(found->state, kernel, launch, found->function, blocks, stream,
                                   args)
                 : tta_hip_launch(found->state, kernel, launch, found->function, blocks, stream,
                                  args);
  if (scratch[0].pointer != NULL)
    tta_scratch_release(found->state, &scratch[0], stream);
  if (scratch[1].pointer != NULL)
    tta_scratch_release(found->state, &scratch[1], stream);
  /* The slots pointed into this frame: leave none behind. */
  while (trailing > kernel->arg_count)
    args[--trailing] = NULL;
  return status;
}

/* A launch whose memo entry missed (first launch of the slot on this thread in this context, or
 * HIP), or that is not plain. */
static TTA_NOINLINE triton_aot_status
tta_launch_slow(const triton_aot_library *library, uint32_t kernel_index, uint32_t variant,
                const tta_found *found, void *stream, const uint64_t grid[3], void **args,
                const triton_aot_tensor_arg *tensors, triton_aot_tensor_storage *storage) {
  if (found == NULL) {
    triton_aot_status status = tta_find_function(library, kernel_index, variant, &found);
    if (status != TRITON_AOT_SUCCESS)
      return status;
    if (found->plain && tta_grid_every_device_takes(grid))
      return tta_cuda_launch_plain(library, found, grid, stream, args);
  }
  {
    /* A copy: a user allocator the general path calls may launch on this thread, and so
     * rewrite the memo entry. */
    const tta_found entry = *found;
    return tta_launch_general(library, &library->kernels[kernel_index], &entry, stream, grid,
                              args, tensors, storage);
  }
}

/* Every entry point: a plain launch whose memo entry hits calls nothing but the driver (its
 * context's id, then the launch; none for the id where the tuned entry's target query gave it,
 * `place`); anything else goes out of line. */
static inline __attribute__((always_inline)) triton_aot_status
tta_launch(const triton_aot_library *library, uint32_t kernel_index, uint32_t variant,
           const triton_aot_place *place, void *stream, const uint64_t grid[3], void **args,
           const triton_aot_tensor_arg *tensors, triton_aot_tensor_storage *storage) {
  const tta_found *found;
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return TRITON_AOT_SUCCESS;
  found = place != NULL && place->context_key != 0
              ? tta_memo_hit_in(library, kernel_index, variant, place->context_key)
              : tta_memo_hit(library, kernel_index, variant);
  if (found != NULL && found->plain && tta_grid_every_device_takes(grid))
    return tta_cuda_launch_plain(library, found, grid, stream, args);
  return tta_launch_slow(library, kernel_index, variant, found, stream, grid, args, tensors,
                         storage);
}

triton_aot_status triton_aot_launch(const triton_aot_library *library, uint32_t kernel_index,
                                    uint32_t variant, void *stream, const uint64_t grid[3],
                                    void **args) {
  return tta_launch(library, kernel_index, variant, NULL, stream, grid, args, NULL, NULL);
}

triton_aot_status triton_aot_launch_tensors(const triton_aot_library *library,
                                            uint32_t kernel_index, uint32_t variant, void *stream,
                                            const uint64_t grid[3], void **args,
                                            const triton_aot_tensor_arg *tensors,
                                            triton_aot_tensor_storage *storage) {
  return tta_launch(library, kernel_index, variant, NULL, stream, grid, args, tensors, storage);
}

triton_aot_status triton_aot_launch_at(const triton_aot_library *library, uint32_t kernel_index,
                                       uint32_t variant, const triton_aot_place *place,
                                       void *stream, const uint64_t grid[3], void **args) {
  return tta_launch(library, kernel_index, variant, place, stream, grid, args, NULL, NULL);
}

triton_aot_status triton_aot_launch_tensors_at(const triton_aot_library *library,
                                               uint32_t kernel_index, uint32_t variant,
                                               const triton_aot_place *place, void *stream,
                                               const uint64_t grid[3], void **args,
                                               const triton_aot_tensor_arg *tensors,
                                               triton_aot_tensor_storage *storage) {
  return tta_launch(library, kernel_index, variant, place, stream, grid, args, tensors, storage);
}

int triton_aot_kernel_target_at(const triton_aot_library *library, uint32_t kernel,
                                triton_aot_place *place) {
  const tta_device *device;
  uint64_t context_key = 0;
  const int found = kernel < library->kernel_count &&
                    tta_find_device(library, &device, &context_key) == TRITON_AOT_SUCCESS;
  if (place != NULL)
    place->context_key = found ? context_key : 0;
  if (!found)
    return -1;
  const tta_image_choice *choice = &device->choices[kernel];
  return choice->reason == TTA_CHOICE_NONE ? -1 : (int)choice->target;
}

int triton_aot_kernel_target(const triton_aot_library *library, uint32_t kernel) {
  return triton_aot_kernel_target_at(library, kernel, NULL);
}

void triton_aot_log_tuned(const triton_aot_library *library, uint32_t kernel, int target,
                          int config, const char *config_name) {
  if (!tta_log_enabled() || kernel >= library->kernel_count)
    return;
  const triton_aot_kernel *k = &library->kernels[kernel];
  if (target < 0 || (uint32_t)target >= k->target_count)
    tta_log("%s: config %d (%s), the default: no tuning for this device's target", k->name,
            config, config_name);
  else
    tta_log("%s: config %d (%s), tuned for %s", k->name, config, config_name,
            library->targets[k->targets[target]].name);
}

triton_aot_status triton_aot_preload(const triton_aot_library *library) {
  tta_current current;
  triton_aot_status status = tta_current_device(library, &current);
  uint32_t k, v;
  for (k = 0; status == TRITON_AOT_SUCCESS && k < library->kernel_count; ++k)
    for (v = 0; status == TRITON_AOT_SUCCESS && v < library->kernels[k].variant_count; ++v) {
      const triton_aot_function *descriptor;
      void *function;
      if (tta_slot_refused(library, &current, k, v))
        continue;   /* not built for this device's target: its launch says why */
      status = tta_slot_function(library, &current, k, v, &function, &descriptor);
    }
  return status;
}

triton_aot_status triton_aot_unload(const triton_aot_library *library) {
  return tta_library_unload(library);
}
