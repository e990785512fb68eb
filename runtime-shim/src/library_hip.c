/* HIP parts of the library state: the current device, its facts from
 * hipGetDevicePropertiesR0600 (read at the offsets in hip_api.h), and one module per device. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "library_state.h"
#include "log.h"

triton_aot_status tta_hip_current(const tta_hip *hip, int *ordinal) {
  hipError_t result = hip->hipGetDevice(ordinal);
  if (result != hipSuccess)
    return tta_hip_fail(hip, TRITON_AOT_ERROR_NO_DEVICE, result, NULL, "hipGetDevice");
  return TRITON_AOT_SUCCESS;
}

static size_t tta_read_size(const unsigned char *properties, size_t offset) {
  size_t value;
  memcpy(&value, properties + offset, sizeof value);
  return value;
}

triton_aot_status tta_hip_device_facts(const tta_hip *hip, int ordinal, tta_device *device) {
  /* Bigger than the struct, zeroed, so the strings are terminated whatever the runtime wrote. */
  unsigned char *properties = (unsigned char *)calloc(1, TTA_HIP_DEVICE_PROP_BUFFER);
  char target_id[256];
  size_t shared, optin;
  int axis;
  hipError_t result;
  if (properties == NULL)
    return triton_aot_fail(TRITON_AOT_ERROR_OUT_OF_MEMORY, "out of host memory");
  result = hip->hipGetDevicePropertiesR0600(properties, ordinal);
  if (result != hipSuccess) {
    char context[64];
    free(properties);
    tta_format(context, sizeof context, "device %d", ordinal);
    return tta_hip_fail(hip, TRITON_AOT_ERROR_NO_DEVICE, result, context,
                        "hipGetDevicePropertiesR0600");
  }
  memcpy(device->name, properties + TTA_HIP_PROP_NAME, sizeof device->name - 1);
  device->name[sizeof device->name - 1] = '\0';
  device->name_state = TTA_FACT_KNOWN; /* HIP knows everything at once (see tta_device) */
  device->grid_known = 1;
  device->shared_known = 1;
  memcpy(target_id, properties + TTA_HIP_PROP_GCN_ARCH_NAME, sizeof target_id - 1);
  target_id[sizeof target_id - 1] = '\0';
  shared = tta_read_size(properties, TTA_HIP_PROP_SHARED_MEM_PER_BLOCK);
  optin = tta_read_size(properties, TTA_HIP_PROP_SHARED_MEM_PER_BLOCK_OPTIN);
  for (axis = 0; axis < 3; ++axis) {
    int32_t limit;
    memcpy(&limit, properties + TTA_HIP_PROP_MAX_GRID_SIZE + 4 * axis, sizeof limit);
    /* 0 or less: the runtime did not say; assume CUDA's limits, which HIP shares. */
    device->max_grid[axis] = limit > 0 ? (uint32_t)limit : tta_default_max_grid(axis);
  }
  free(properties);
  if (optin < shared)
    optin = shared;
  /* 0: the runtime did not say; leave the check to the launch. */
  if (optin == 0 || optin > UINT32_MAX)
    optin = UINT32_MAX;
  device->shared_limit = (uint32_t)optin;
  device->arch.backend = TRITON_AOT_BACKEND_HIP;
  device->arch.capability = 0;
  if (!tta_parse_target_id(target_id, &device->arch))
    return triton_aot_fail(TRITON_AOT_ERROR_NO_DEVICE,
                           "device %d (%s) reports no usable target ID (gcnArchName \"%s\")",
                           ordinal, device->name, target_id);
  return TRITON_AOT_SUCCESS;
}

triton_aot_status tta_hip_load(const tta_hip *hip, const void *image, tta_slot_what *what,
                               void **handle) {
  hipModule_t module = NULL;
  hipError_t result = hip->hipModuleLoadData(&module, image);
  *handle = module;
  if (result != hipSuccess)
    return tta_hip_fail(hip, TRITON_AOT_ERROR_LOAD_FAILED, result, tta_what(what),
                        "hipModuleLoadData");
  return TRITON_AOT_SUCCESS;
}

triton_aot_status tta_hip_get_function(const tta_hip *hip, const tta_device *device, void *handle,
                                       const triton_aot_function *descriptor, const char *entry,
                                       tta_slot_what *what, void **function) {
  hipFunction_t found = NULL;
  hipError_t result;
  *function = NULL;
  /* HIP has no opt-in step: the limit is what the device allows. */
  if (descriptor->launch.shared > device->shared_limit)
    return triton_aot_fail(TRITON_AOT_ERROR_LAUNCH_FAILED,
                           "%s needs %u bytes of shared memory; device %d (%s) allows at most %u",
                           tta_what(what), descriptor->launch.shared, device->ordinal,
                           device->name, device->shared_limit);
  result = hip->hipModuleGetFunction(&found, (hipModule_t)handle, entry);
  if (result != hipSuccess || found == NULL) {
    char call[320];
    tta_format(call, sizeof call, "hipModuleGetFunction(\"%s\")", entry);
    return tta_hip_fail(hip, TRITON_AOT_ERROR_LOAD_FAILED,
                        result != hipSuccess ? result : hipErrorNotFound, tta_what(what), call);
  }
  *function = found;
  return TRITON_AOT_SUCCESS;
}

triton_aot_status tta_hip_unload(const tta_hip *hip, const tta_loaded_image *loaded,
                                 const char *what) {
  hipError_t result = hip->hipModuleUnload((hipModule_t)loaded->handle);
  if (result != hipSuccess) {
    triton_aot_status status =
        tta_hip_fail(hip, TRITON_AOT_ERROR_LOAD_FAILED, result, what, "hipModuleUnload");
    tta_log("%s", triton_aot_last_error());
    return status;
  }
  return TRITON_AOT_SUCCESS;
}
