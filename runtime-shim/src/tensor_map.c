/* cuTensorMapEncodeTiled with Triton's arguments: dimensions innermost first, byte strides of
 * every dimension but the innermost, element strides 1, no interleave, 128-byte L2 promotion,
 * out-of-bounds elements read as zero (TensorDescriptor's default padding). */
#include "tensor_map.h"

#include "error.h"

triton_aot_status tta_cuda_encode_tensor_map(const tta_cuda *cuda, const triton_aot_tensor_map *map,
                                             const triton_aot_tensor_arg *arg, const char *kernel,
                                             const char *param, CUtensorMap *out) {
  cuuint64_t dims[TRITON_AOT_TENSOR_MAX_RANK], strides[TRITON_AOT_TENSOR_MAX_RANK];
  cuuint32_t box[TRITON_AOT_TENSOR_MAX_RANK], element_strides[TRITON_AOT_TENSOR_MAX_RANK];
  char context[256];
  uint32_t rank = map->rank, i;
  CUresult result;
  if (rank < 1 || rank > TRITON_AOT_TENSOR_MAX_RANK)
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                           "%s: tensor descriptor %s has rank %u; TMA takes 1 to %d dimensions",
                           kernel, param, rank, TRITON_AOT_TENSOR_MAX_RANK);
  if (arg->strides[rank - 1] != 1)
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                           "%s: tensor descriptor %s has innermost stride %lld; it must be 1 "
                           "(the last dimension contiguous), as Triton's TensorDescriptor requires",
                           kernel, param, (long long)arg->strides[rank - 1]);
  /* TMA's rules (cuTensorMapEncodeTiled), checked here so the message can say which value
   * breaks which rule and what to do: the driver would only say CUDA_ERROR_INVALID_VALUE. */
  if (((uintptr_t)arg->base & 15u) != 0)
    return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                           "%s: tensor descriptor %s has base %p, not 16-byte aligned; TMA needs "
                           "a 16-byte aligned base address (pass the start of an allocation, or "
                           "an offset that is a multiple of 16 bytes)",
                           kernel, param, arg->base);
  for (i = 0; i < rank; ++i) {
    /* The kernel takes each shape as i32 (Triton's), and TMA needs at least one element. */
    const int64_t limit = (map->flags & TRITON_AOT_TENSOR_SHAPE_ARGS_PADDED) && i + 1 == rank
                              ? INT32_MAX / 2
                              : INT32_MAX;
    if (arg->shape[i] < 1 || arg->shape[i] > limit)
      return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                             "%s: tensor descriptor %s has shape[%u] = %lld; each dimension "
                             "must be 1 to %lld (the kernel takes it as a 32-bit integer, and TMA "
                             "cannot describe an empty tensor: skip the launch instead)",
                             kernel, param, i, (long long)arg->shape[i], (long long)limit);
    if (i + 1 < rank &&
        (arg->strides[i] < 1 || ((uint64_t)arg->strides[i] * map->elem_size) % 16 != 0))
      return triton_aot_fail(TRITON_AOT_ERROR_INVALID_ARGUMENT,
                             "%s: tensor descriptor %s has strides[%u] = %lld elements (%llu "
                             "bytes); TMA needs every stride but the innermost to be a positive "
                             "multiple of 16 bytes (pad the rows: e.g. a multiple of %u elements "
                             "of %u bytes)",
                             kernel, param, i, (long long)arg->strides[i],
                             (unsigned long long)arg->strides[i] * map->elem_size,
                             map->elem_size ? 16u / map->elem_size : 16u, map->elem_size);
    dims[rank - 1 - i] = (cuuint64_t)arg->shape[i];
    box[rank - 1 - i] = map->box[i];
    element_strides[i] = 1;
  }
  if (map->flags & TRITON_AOT_TENSOR_FP4_PADDED)
    dims[0] *= 2;
  for (i = 0; i + 1 < rank; ++i)
    strides[rank - 2 - i] = (cuuint64_t)arg->strides[i] * map->elem_size;
  tta_cuda_resolve_deferred();
  if (cuda->cuTensorMapEncodeTiled == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED,
                           "%s takes the host tensor descriptor %s, and this CUDA driver has no "
                           "cuTensorMapEncodeTiled (CUDA 12.0); update the NVIDIA driver",
                           kernel, param);
  result = cuda->cuTensorMapEncodeTiled(
      out, (CUtensorMapDataType)map->data_type, rank, (void *)(uintptr_t)arg->base, dims, strides,
      box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)map->swizzle,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result == CUDA_SUCCESS)
    return TRITON_AOT_SUCCESS;
  tta_format(context, sizeof context, "%s: tensor descriptor %s", kernel, param);
  return tta_cuda_fail(cuda, TRITON_AOT_ERROR_INVALID_ARGUMENT, result, context,
                       "cuTensorMapEncodeTiled");
}
