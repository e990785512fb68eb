/* Which of a kernel's targets (and which image kind) runs on a device: a pure function of the
 * library tables and the device's architecture, so it is unit-tested without a driver. */
#ifndef TRITON_AOT_IMAGE_CHOICE_H
#define TRITON_AOT_IMAGE_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#include "triton_aot/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the runtime knows about a device's architecture. */
typedef struct tta_device_arch {
  uint32_t backend;    /* TRITON_AOT_BACKEND_* */
  uint32_t capability; /* CUDA: major * 10 + minor (90, 100, 120) */
  char processor[32];  /* HIP: "gfx90a" */
  int8_t xnack;        /* HIP: -1 not reported by the device, 0 off, 1 on */
  int8_t sramecc;
  char arch[64]; /* for messages: "sm_90", or HIP's full target ID "gfx90a:sramecc+:xnack-" */
} tta_device_arch;

typedef enum tta_choice_reason {
  TTA_CHOICE_NONE = 0,       /* nothing runs on the device */
  TTA_CHOICE_EXACT = 1,      /* cubin of the device's capability / HIP target ID that fits */
  TTA_CHOICE_COMPATIBLE = 2, /* cubin of the same major, lower minor */
  TTA_CHOICE_PTX = 3         /* JIT from PTX */
} tta_choice_reason;

typedef struct tta_image_choice {
  uint32_t target; /* position in kernel->targets (not a library target index) */
  uint32_t kind;   /* TRITON_AOT_IMAGE_CUBIN / _PTX / _HSACO */
  tta_choice_reason reason;
} tta_image_choice;

/* Chooses, for every variant at once, the kernel's image for `device`:
 *   CUDA: an exact cubin (capability equal; an "a" target before a plain one, as the driver
 *   does) > a compatible cubin (plain target, same major, lower minor; highest minor wins) >
 *   PTX JIT (newest PTX with capability <= the device's from a plain target, or from an "a"
 *   target of exactly the device's capability);
 *   HIP: the processor equal and each feature either unspecified by the target or equal to the
 *   device's mode; the target that specifies more features wins.
 * A kind counts for a target only if every variant has that image. Ties keep the first target.
 * Returns 1 and fills *choice, or 0 (choice->reason = TTA_CHOICE_NONE). */
/* A function the linker made for a config that is not built for its target: no image, and
 * its entry string is the reason (docs/generated-api.md). */
static inline int tta_function_refused(const triton_aot_function *function) {
  return function->binary == TRITON_AOT_NO_IMAGE && function->ptx == TRITON_AOT_NO_IMAGE;
}

TRITON_AOT_HIDDEN int tta_choose_image(const triton_aot_library *library,
                                       const triton_aot_kernel *kernel,
                                       const tta_device_arch *device, tta_image_choice *choice);

/* The NO_IMAGE message: "device 0 (NVIDIA H100, sm_90) has no image in mylib for kernel
 * mylib_add: it has sm_80 (cubin), sm_100a (cubin, ptx); rebuild it with "90" or "90a" in
 * TRITON_ARCHITECTURES". Returns the length written (cut to fit `size`). */
TRITON_AOT_HIDDEN size_t tta_format_no_image(char *buffer, size_t size,
                                             const triton_aot_library *library,
                                             const triton_aot_kernel *kernel, int ordinal,
                                             const char *device_name,
                                             const tta_device_arch *device);

/* Parses a HIP target ID as gcnArchName reports it ("gfx90a:sramecc+:xnack-") into processor
 * and features (-1 where not present). Returns 0 if the text is not a target ID. */
TRITON_AOT_HIDDEN int tta_parse_target_id(const char *target_id, tta_device_arch *device);

/* "sm_90" for capability 90. */
TRITON_AOT_HIDDEN void tta_cuda_arch_name(uint32_t capability, char *buffer, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_IMAGE_CHOICE_H */
