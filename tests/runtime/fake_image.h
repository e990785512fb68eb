/* How the fake drivers read device images, as a real driver would: the kind (cubin, PTX text,
 * HSACO), the architecture it was built for, whether it runs on a device, and for an entry
 * point its parameter layout (cubin .nv.info, PTX .param list, HSACO kernel metadata), its
 * required block size and cluster shape. Internal to the fakes. */
#ifndef TTA_FAKE_IMAGE_H
#define TTA_FAKE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "fake_driver.h"

#define FAKE_HIDDEN __attribute__((visibility("hidden")))

typedef struct fake_image {
  const unsigned char *data;
  int kind;               /* TTA_FAKE_IMAGE_* */
  uint64_t size;          /* ELF extent, or PTX length without the NUL */
  uint64_t hash;
  char arch[64];          /* "sm_90a", "gfx90a:xnack-" */
  /* CUDA */
  int sm;                 /* 80, 90, ... (PTX: its .target) */
  int arch_specific;      /* an "a" cubin or PTX: runs only on exactly `sm` */
  int ptx_version;        /* PTX .version major * 10 + minor */
  /* HIP */
  char processor[32];     /* "gfx942" */
  int xnack, sramecc;     /* -1 any, 0 off, 1 on, -2 not supported */
} fake_image;

typedef struct fake_entry {
  int found;
  unsigned param_count;
  unsigned param_size[TTA_FAKE_MAX_PARAMS];
  unsigned reqntid[3];    /* {0,0,0}: any block */
  unsigned cluster[3];    /* required cluster shape, {0,0,0}: none */
  unsigned static_shared; /* cubin .nv.shared.<entry> bytes */
  unsigned max_threads;   /* HSACO .max_flat_workgroup_size, 0: any */
} fake_entry;

/* Reads `data` (an image the runtime passed). Returns 0, or -1 when it is neither an ELF of
 * EM_CUDA / EM_AMDGPU nor PTX text (info->kind is then TTA_FAKE_IMAGE_UNKNOWN). */
FAKE_HIDDEN int fake_image_read(const void *data, fake_image *info);

/* Looks `name` up in the image. */
FAKE_HIDDEN void fake_image_entry(const fake_image *image, const char *name, fake_entry *entry);

/* CUDA: 0 if the image runs on a device of capability `sm` (80, 86, 90...); else the CUresult
 * a driver gives (CUDA_ERROR_NO_BINARY_FOR_GPU for a cubin, CUDA_ERROR_INVALID_PTX or
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION for PTX), with a message for the JIT log. */
FAKE_HIDDEN int fake_image_cuda_check(const fake_image *image, int sm, int max_ptx_version,
                                      char *log, size_t log_size);

/* HIP: 0 if the image runs on a device whose gcnArchName is `device_arch`
 * ("gfx942:sramecc+:xnack-"), else hipErrorNoBinaryForGpu / hipErrorInvalidImage. */
FAKE_HIDDEN int fake_image_hip_check(const fake_image *image, const char *device_arch);

#endif /* TTA_FAKE_IMAGE_H */
