/* Image choice per kernel and device (see image_choice.h for the rules). */
#include "image_choice.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

/* Does every variant of the kernel have an image of `kind` for target position `target`? */
static int tta_every_variant_has(const triton_aot_library *library, const triton_aot_kernel *kernel,
                                 uint32_t target, uint32_t kind) {
  uint32_t variant, built = 0;
  if (kernel->variant_count == 0)
    return 0;
  for (variant = 0; variant < kernel->variant_count; ++variant) {
    const triton_aot_function *function =
        &kernel->functions[(size_t)variant * kernel->target_count + target];
    uint32_t image = kind == TRITON_AOT_IMAGE_PTX ? function->ptx : function->binary;
    /* A config not built for this target (no image at all): launching it says why. */
    if (tta_function_refused(function))
      continue;
    if (image == TRITON_AOT_NO_IMAGE || image >= library->image_count)
      return 0;
    if (library->images[image].kind != kind)
      return 0;
    ++built;
  }
  return built > 0;
}

static const triton_aot_target *tta_kernel_target(const triton_aot_library *library,
                                                  const triton_aot_kernel *kernel,
                                                  uint32_t position) {
  uint32_t index = kernel->targets[position];
  return index < library->target_count ? &library->targets[index] : NULL;
}

static int tta_choose_cuda(const triton_aot_library *library, const triton_aot_kernel *kernel,
                           uint32_t device_capability, tta_image_choice *choice) {
  /* Ranks: exact "a" cubin 4 > exact plain cubin 3 > compatible cubin 2 > PTX 1; within a rank
   * the higher capability (for PTX, the "a" one at equal capability). */
  uint32_t best_rank = 0, best_capability = 0, best_specific = 0, position;
  for (position = 0; position < kernel->target_count; ++position) {
    const triton_aot_target *target = tta_kernel_target(library, kernel, position);
    uint32_t rank = 0, kind = 0;
    if (target == NULL || target->backend != TRITON_AOT_BACKEND_CUDA)
      continue;
    if (tta_every_variant_has(library, kernel, position, TRITON_AOT_IMAGE_CUBIN)) {
      if (target->capability == device_capability) {
        rank = target->arch_specific ? 4 : 3;
      } else if (!target->arch_specific && target->capability / 10 == device_capability / 10 &&
                 target->capability < device_capability) {
        rank = 2;
      }
      kind = TRITON_AOT_IMAGE_CUBIN;
    }
    if (rank == 0 && tta_every_variant_has(library, kernel, position, TRITON_AOT_IMAGE_PTX)) {
      int fits = target->arch_specific ? target->capability == device_capability
                                       : target->capability <= device_capability;
      if (fits) {
        rank = 1;
        kind = TRITON_AOT_IMAGE_PTX;
      }
    }
    if (rank == 0)
      continue;
    if (rank > best_rank ||
        (rank == best_rank && (target->capability > best_capability ||
                               (rank == 1 && target->capability == best_capability &&
                                target->arch_specific && !best_specific)))) {
      best_rank = rank;
      best_capability = target->capability;
      best_specific = target->arch_specific;
      choice->target = position;
      choice->kind = kind;
      choice->reason = rank >= 3   ? TTA_CHOICE_EXACT
                       : rank == 2 ? TTA_CHOICE_COMPATIBLE
                                   : TTA_CHOICE_PTX;
    }
  }
  return best_rank != 0;
}

static int tta_feature_fits(int8_t wanted, int8_t device) { return wanted < 0 || wanted == device; }

static int tta_choose_hip(const triton_aot_library *library, const triton_aot_kernel *kernel,
                          const tta_device_arch *device, tta_image_choice *choice) {
  int best = -1;
  uint32_t position;
  for (position = 0; position < kernel->target_count; ++position) {
    const triton_aot_target *target = tta_kernel_target(library, kernel, position);
    int specified;
    if (target == NULL || target->backend != TRITON_AOT_BACKEND_HIP || target->processor == NULL)
      continue;
    if (strcmp(target->processor, device->processor) != 0)
      continue;
    if (!tta_feature_fits(target->xnack, device->xnack) ||
        !tta_feature_fits(target->sramecc, device->sramecc))
      continue;
    if (!tta_every_variant_has(library, kernel, position, TRITON_AOT_IMAGE_HSACO))
      continue;
    specified = (target->xnack >= 0) + (target->sramecc >= 0);
    if (specified > best) {
      best = specified;
      choice->target = position;
      choice->kind = TRITON_AOT_IMAGE_HSACO;
      choice->reason = TTA_CHOICE_EXACT;
    }
  }
  return best >= 0;
}

int tta_choose_image(const triton_aot_library *library, const triton_aot_kernel *kernel,
                     const tta_device_arch *device, tta_image_choice *choice) {
  int found = 0;
  choice->target = 0;
  choice->kind = 0;
  choice->reason = TTA_CHOICE_NONE;
  if (device->backend == TRITON_AOT_BACKEND_CUDA)
    found = tta_choose_cuda(library, kernel, device->capability, choice);
  else if (device->backend == TRITON_AOT_BACKEND_HIP)
    found = tta_choose_hip(library, kernel, device, choice);
  if (!found)
    choice->reason = TTA_CHOICE_NONE;
  return found;
}

void tta_cuda_arch_name(uint32_t capability, char *buffer, size_t size) {
  tta_format(buffer, size, "sm_%u", capability);
}

size_t tta_format_no_image(char *buffer, size_t size, const triton_aot_library *library,
                           const triton_aot_kernel *kernel, int ordinal, const char *device_name,
                           const tta_device_arch *device) {
  size_t length =
      tta_format(buffer, size, "device %d (%s, %s) has no image in %s for kernel %s: ", ordinal,
                 device_name, device->arch, library->name, kernel->name);
  uint32_t position, listed = 0;
  for (position = 0; position < kernel->target_count && length + 1 < size; ++position) {
    const triton_aot_target *target = tta_kernel_target(library, kernel, position);
    const char *binary_kind;
    int has_binary, has_ptx;
    if (target == NULL)
      continue;
    binary_kind = target->backend == TRITON_AOT_BACKEND_HIP ? "hsaco" : "cubin";
    has_binary =
        tta_every_variant_has(library, kernel, position,
                              target->backend == TRITON_AOT_BACKEND_HIP ? TRITON_AOT_IMAGE_HSACO
                                                                        : TRITON_AOT_IMAGE_CUBIN);
    has_ptx = tta_every_variant_has(library, kernel, position, TRITON_AOT_IMAGE_PTX);
    length += tta_format(buffer + length, size - length, "%s%s (%s%s%s)", listed ? ", " : "it has ",
                         target->name, has_binary ? binary_kind : "",
                         has_binary && has_ptx ? ", " : "", has_ptx ? "ptx" : "");
    ++listed;
  }
  if (listed == 0)
    length += tta_format(buffer + length, size - length, "it has no targets");
  if (device->backend == TRITON_AOT_BACKEND_CUDA)
    length += tta_format(buffer + length, size - length,
                         "; rebuild it with \"%u\" or \"%ua\" in TRITON_ARCHITECTURES",
                         device->capability, device->capability);
  else
    length += tta_format(buffer + length, size - length,
                         "; rebuild it with \"%s\" in TRITON_ARCHITECTURES", device->processor);
  return length;
}

int tta_parse_target_id(const char *target_id, tta_device_arch *device) {
  const char *colon = strchr(target_id, ':');
  size_t processor_length = colon ? (size_t)(colon - target_id) : strlen(target_id);
  device->xnack = -1;
  device->sramecc = -1;
  device->processor[0] = '\0';
  tta_format(device->arch, sizeof device->arch, "%s", target_id);
  if (processor_length == 0 || processor_length >= sizeof device->processor)
    return 0;
  memcpy(device->processor, target_id, processor_length);
  device->processor[processor_length] = '\0';
  while (colon != NULL) {
    const char *feature = colon + 1;
    size_t feature_length;
    int8_t mode;
    colon = strchr(feature, ':');
    feature_length = colon ? (size_t)(colon - feature) : strlen(feature);
    if (feature_length < 2)
      continue;
    mode = feature[feature_length - 1] == '+' ? 1 : feature[feature_length - 1] == '-' ? 0 : -1;
    if (mode < 0)
      continue;
    if (feature_length - 1 == 5 && memcmp(feature, "xnack", 5) == 0)
      device->xnack = mode;
    if (feature_length - 1 == 7 && memcmp(feature, "sramecc", 7) == 0)
      device->sramecc = mode;
  }
  return 1;
}
