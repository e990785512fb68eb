/* triton-aot runtime shim: loads the GPU driver at run time, picks the image for the calling
 * device, loads it once per device and launches it.
 *
 * Two audiences:
 *   - programs that use a triton-aot library: the status codes, the fp16/bf16 helpers and the
 *     allocator hook (each generated library also forwards these as <prefix>_last_error() and
 *     <prefix>_set_allocator(), which is what a program calls when the library is shared);
 *   - the C code triton-aot-ld generates: the descriptor tables and triton_aot_launch().
 *     That part is an internal ABI between one triton-aot version's linker and its runtime.
 *
 * Plain C11; needs no CUDA or ROCm header. Every function is thread-safe unless it says not. */
#ifndef TRITON_AOT_RUNTIME_H
#define TRITON_AOT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the runtime are hidden: each library (static or shared) that embeds it keeps its
 * copy to itself, so two triton-aot libraries never clash in one program. */
#if defined(__GNUC__)
#define TRITON_AOT_HIDDEN __attribute__((visibility("hidden")))
#define TRITON_AOT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TRITON_AOT_HIDDEN
#define TRITON_AOT_PRINTF(fmt, args)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Status codes. Generated headers define the same enum under the same guard.                   */
#ifndef TRITON_AOT_STATUS_DEFINED
#define TRITON_AOT_STATUS_DEFINED
typedef enum triton_aot_status {
  TRITON_AOT_SUCCESS = 0,
  TRITON_AOT_ERROR_NO_DRIVER = 1,        /* libcuda.so.1 / libamdhip64.so missing or too old */
  TRITON_AOT_ERROR_NO_DEVICE = 2,        /* the driver reports no GPU, or no current device */
  TRITON_AOT_ERROR_NO_IMAGE = 3,         /* the library has no image that runs on this device */
  TRITON_AOT_ERROR_LOAD_FAILED = 4,      /* the driver refused the image, or it is damaged (hash, decompression) */
  TRITON_AOT_ERROR_LAUNCH_FAILED = 5,    /* the driver refused the launch, or it needs more than the device has */
  TRITON_AOT_ERROR_INVALID_ARGUMENT = 6, /* bad config index, no variant accepts the arguments, grid too large */
  TRITON_AOT_ERROR_OUT_OF_MEMORY = 7     /* host or device allocation (scratch) failed */
} triton_aot_status;
#endif

/* "TRITON_AOT_ERROR_NO_IMAGE" etc.; "unknown status" for other values. */
TRITON_AOT_HIDDEN const char *triton_aot_status_name(int status);

/* The message of the last failed call on this thread ("" if none): what failed, with the
 * driver's own error name and text where the driver reported it. Valid until the next call
 * into the runtime on this thread. */
TRITON_AOT_HIDDEN const char *triton_aot_last_error(void);

/* ------------------------------------------------------------------------------------------ */
/* Scratch allocation. Kernels whose metadata asks for global or profile scratch get a buffer
 * of grid_x * grid_y * grid_z * num_ctas * size bytes per launch. The default allocator is
 * stream-ordered (cuMemAllocAsync / hipMallocAsync on the launch stream, freed on the same
 * stream right after the launch is enqueued). Generated headers define the same struct under
 * the same guard.                                                                              */
#ifndef TRITON_AOT_ALLOCATOR_DEFINED
#define TRITON_AOT_ALLOCATOR_DEFINED
typedef struct triton_aot_allocator {
  /* Returns 0 and sets *ptr to device memory of at least `size` bytes aligned to `align`
   * (a power of two), usable by work enqueued on `stream`; non-zero on failure. */
  int (*allocate)(void *user, size_t size, size_t align, void *stream, void **ptr);
  /* Called after the launch that used `ptr` was enqueued on `stream` (may be NULL: nothing). */
  void (*release)(void *user, void *ptr, void *stream);
  void *user;
} triton_aot_allocator;
#endif

/* Replaces the allocator for every library that shares this runtime copy; NULL restores the
 * default. Not to be called while launches are in flight on other threads. */
TRITON_AOT_HIDDEN void triton_aot_set_allocator(const triton_aot_allocator *allocator);

/* ------------------------------------------------------------------------------------------ */
/* fp16 / bf16 scalar arguments are passed as their 16-bit patterns (the exact width the kernel
 * reads). These convert a float, rounding to nearest even. */
static inline uint16_t triton_aot_fp16(float value) {
  union { float f; uint32_t u; } in;
  uint32_t sign, exponent, mantissa;
  in.f = value;
  sign = (in.u >> 16) & 0x8000u;
  exponent = (in.u >> 23) & 0xffu;
  mantissa = in.u & 0x7fffffu;
  if (exponent == 0xffu) /* inf, nan (kept quiet) */
    return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
  {
    int e = (int)exponent - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal half, or zero */
      uint32_t m, shift, half, rest;
      if (e < -10) return (uint16_t)sign;
      m = mantissa | 0x800000u;
      shift = (uint32_t)(14 - e);
      half = m >> shift;
      rest = m & ((1u << shift) - 1u);
      if (rest > (1u << (shift - 1)) || (rest == (1u << (shift - 1)) && (half & 1u))) half++;
      return (uint16_t)(sign | half);
    }
    {
      uint32_t half = sign | ((uint32_t)e << 10) | (mantissa >> 13);
      uint32_t rest = mantissa & 0x1fffu;
      if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++; /* may carry into inf */
      return (uint16_t)half;
    }
  }
}

/* The float value of an fp16 bit pattern (exact: every half is a float), for reading fp16
 * results back on the host. */
static inline float triton_aot_fp16_to_float(uint16_t half) {
  union { uint32_t u; float f; } out;
  uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1fu) /* inf, nan */
    out.u = sign | 0x7f800000u | (mantissa << 13);
  else if (exponent != 0)
    out.u = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  else if (mantissa == 0)
    out.u = sign;
  else { /* a subnormal half is a normal float: shift its leading one into place */
    exponent = 113u;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      exponent--;
    }
    out.u = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return out.f;
}

static inline uint16_t triton_aot_bf16(float value) {
  union { float f; uint32_t u; } in;
  in.f = value;
  if ((in.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((in.u >> 16) | 0x40u); /* quiet nan */
  return (uint16_t)((in.u + 0x7fffu + ((in.u >> 16) & 1u)) >> 16);
}

/* ------------------------------------------------------------------------------------------ */
/* The ABI between generated code and the runtime. Everything is emitted by triton-aot-ld as
 * static const tables; the only mutable storage is the library's `state` pointer.
 * The per-image and per-variant rows hold offsets and indices, never pointers: a pointer in a
 * table of a shared library is a relocation the loader applies, and a page it copies, at
 * dlopen, so a library of 1,000 images would open slower than one of 10. The few pointers
 * (the blob, the string table, the tables themselves) sit in triton_aot_library.             */

enum {
  TRITON_AOT_BACKEND_CUDA = 1,
  TRITON_AOT_BACKEND_HIP = 2
};

enum {
  TRITON_AOT_IMAGE_CUBIN = 1,
  TRITON_AOT_IMAGE_PTX = 2,     /* NUL-terminated PTX text (raw_size counts the NUL) */
  TRITON_AOT_IMAGE_HSACO = 3
};

enum {
  TRITON_AOT_COMPRESSION_NONE = 0,
  TRITON_AOT_COMPRESSION_ZSTD = 1   /* one zstd frame with its content checksum; decompressed
                                     * once, at first load */
};

#define TRITON_AOT_NO_IMAGE UINT32_MAX

/* Launch flags. */
enum {
  TRITON_AOT_LAUNCH_COOPERATIVE = 1u << 0,
  TRITON_AOT_LAUNCH_PDL = 1u << 1        /* programmatic dependent launch */
};

/* Which trailing pointer arguments the kernel takes after its own (Triton appends them). */
enum {
  TRITON_AOT_ARG_GLOBAL_SCRATCH = 1u << 0,
  TRITON_AOT_ARG_PROFILE_SCRATCH = 1u << 1
};

typedef struct triton_aot_image {
  uint64_t offset;            /* of its bytes in triton_aot_library.blob, a multiple of 64
                               * (compressed when compression != 0) */
  uint64_t size;              /* stored bytes */
  uint64_t raw_size;          /* bytes after decompression; == size when not compressed */
  uint32_t kind;              /* TRITON_AOT_IMAGE_* */
  uint32_t compression;       /* TRITON_AOT_COMPRESSION_* */
  uint64_t hash;              /* XXH3-64 of the raw_size bytes the driver gets (after
                               * decompression): checked once before the first load, so a
                               * damaged library fails with LOAD_FAILED, never loads */
} triton_aot_image;

typedef struct triton_aot_target {
  uint32_t backend;           /* TRITON_AOT_BACKEND_* */
  uint32_t capability;        /* CUDA: 80, 86, 90, 100; HIP: 0 */
  uint32_t arch_specific;     /* CUDA "a" target: its cubin and PTX run only on exactly `capability` */
  const char *name;           /* for messages: "sm_80", "sm_90a", "gfx942", "gfx90a:xnack-" */
  const char *processor;      /* HIP: "gfx90a"; CUDA: NULL */
  int8_t xnack;               /* HIP target-ID features: -1 any, 0 off ("-"), 1 on ("+") */
  int8_t sramecc;
} triton_aot_target;

typedef struct triton_aot_launch_info {
  uint32_t block_x;           /* num_warps * warp_size (metadata launch.block[0]) */
  uint32_t shared;            /* dynamic shared memory bytes */
  uint32_t cluster[3];        /* {1,1,1} unless num_ctas > 1; grid is multiplied by it */
  uint32_t num_ctas;          /* scratch buffers are sized per CTA */
  uint32_t flags;             /* TRITON_AOT_LAUNCH_* */
  uint64_t global_scratch_size;   /* bytes per CTA; 0 = pass NULL */
  uint64_t global_scratch_align;
  uint64_t profile_scratch_size;
  uint64_t profile_scratch_align;
} triton_aot_launch_info;

/* A host tensor descriptor parameter (Triton's TensorDescriptor; signature type
 * tensordesc<fp16[128, 64]>) of one function: what the runtime needs to encode its CUtensorMap
 * (TMA descriptor) with cuTensorMapEncodeTiled, as Triton's launcher does, from the metadata's
 * tensordesc facts. */
#define TRITON_AOT_TENSOR_MAX_RANK 5
#define TRITON_AOT_TENSOR_FP4_PADDED 1u /* fp4 packed two to a byte: the innermost dimension
                                         * is encoded twice as long */
#define TRITON_AOT_TENSOR_SHAPE_ARGS_PADDED 2u /* with FP4_PADDED: the kernel's innermost shape
                                                * argument is the doubled one too (Triton 3.6;
                                                * 3.9 passes the caller's) */
typedef struct triton_aot_tensor_map {
  uint32_t rank;              /* 1 .. TRITON_AOT_TENSOR_MAX_RANK */
  uint32_t data_type;         /* CUtensorMapDataType (the host enum) */
  uint32_t elem_size;         /* bytes per element */
  uint32_t swizzle;           /* CUtensorMapSwizzle */
  uint32_t flags;             /* TRITON_AOT_TENSOR_* */
  uint32_t box[TRITON_AOT_TENSOR_MAX_RANK]; /* the block shape Triton encodes, outermost first */
} triton_aot_tensor_map;

/* What the caller passes for a tensor descriptor parameter: as Triton's host TensorDescriptor
 * holds it (shape and strides in elements, outermost first; the innermost stride must be 1). */
typedef struct triton_aot_tensor_arg {
  const void *base;
  int64_t shape[TRITON_AOT_TENSOR_MAX_RANK];
  int64_t strides[TRITON_AOT_TENSOR_MAX_RANK];
} triton_aot_tensor_arg;

/* Where a launch puts one descriptor's kernel arguments: the encoded CUtensorMap (passed by
 * value: the PTX parameter is `.param .align 64 .b8 [128]`, as Triton's launcher passes it),
 * and the shape (i32) and strides (i64) arguments that follow it. The generated dispatcher
 * gives one per descriptor parameter on its stack; the runtime fills it. */
#ifdef __cplusplus
#define TRITON_AOT_ALIGN_64 alignas(64)
#else
#define TRITON_AOT_ALIGN_64 _Alignas(64)
#endif
typedef struct triton_aot_tensor_storage {
  TRITON_AOT_ALIGN_64 uint64_t map[16];      /* CUtensorMap: 128 bytes, 64-byte aligned */
  int32_t shape[TRITON_AOT_TENSOR_MAX_RANK];
  int64_t strides[TRITON_AOT_TENSOR_MAX_RANK];
} triton_aot_tensor_storage;

/* One loadable function: a variant of a kernel built for one target. */
typedef struct triton_aot_function {
  uint32_t entry;             /* symbol in the image: offset in triton_aot_library.strings */
  uint32_t binary;            /* index into triton_aot_library.images: the cubin / hsaco */
  uint32_t ptx;               /* index of its PTX, or TRITON_AOT_NO_IMAGE */
  triton_aot_launch_info launch;
  uint32_t tensor_maps;       /* its kernel's tensor_count descriptors' facts start here in
                               * triton_aot_library.tensor_maps (0 when it has none) */
} triton_aot_function;

typedef struct triton_aot_kernel {
  const char *name;           /* "<prefix>_<kernel>", for messages */
  uint32_t target_count;
  const uint32_t *targets;    /* indices into triton_aot_library.targets */
  uint32_t variant_count;     /* configs x hint variants, in the order the dispatcher numbers them */
  const triton_aot_function *functions;  /* [variant_count][target_count], row-major */
  uint32_t first_slot;        /* its variants are slots first_slot .. first_slot + variant_count - 1 */
  uint32_t arg_count;         /* the kernel's own passed arguments (args[0 .. arg_count - 1]) */
  uint32_t trailing_args;     /* TRITON_AOT_ARG_*: slots args[arg_count], args[arg_count + 1] */
  uint32_t tensor_count;      /* host tensor descriptor parameters */
  const uint32_t *tensor_slots; /* per descriptor: the args index of its CUtensorMap; its rank
                                 * shape arguments follow, then its rank strides */
  const uint32_t *tensor_names; /* per descriptor: its parameter's name (for messages), an
                                 * offset in triton_aot_library.strings */
} triton_aot_kernel;

typedef struct triton_aot_library {
  const char *name;           /* library name (for messages and logs) */
  const char *prefix;         /* C prefix */
  const unsigned char *blob;  /* the embedded images (triton_aot_image.offset), 64-byte aligned */
  const char *strings;        /* NUL-terminated names, back to back (triton_aot_function.entry) */
  uint32_t target_count;
  const triton_aot_target *targets;
  uint32_t image_count;
  const triton_aot_image *images;
  uint32_t kernel_count;
  const triton_aot_kernel *kernels;
  uint32_t slot_count;        /* sum of variant_count over the kernels */
  void **state;               /* one zero-initialised `static void *` per library; runtime-owned */
  const triton_aot_tensor_map *tensor_maps; /* triton_aot_function.tensor_maps indexes it */
} triton_aot_library;

/* Launches variant `variant` of kernel `kernel` on the current device (CUDA: the current
 * context, or device 0's primary context when none is current; HIP: the current device).
 * `grid` is the number of programs per axis before cluster multiplication; any 0 launches
 * nothing and returns TRITON_AOT_SUCCESS at once. `args` has arg_count pointers to the
 * argument values, followed by room for the trailing scratch pointers, which the runtime fills.
 * On first use on a device: image choice, decompression, load, shared-memory attribute; safe
 * when many threads get there at once; lock-free afterwards. */
TRITON_AOT_HIDDEN triton_aot_status triton_aot_launch(const triton_aot_library *library,
                                                      uint32_t kernel, uint32_t variant,
                                                      void *stream, const uint64_t grid[3],
                                                      void **args);

/* triton_aot_launch for a kernel with tensor_count host tensor descriptors: `tensors` holds
 * the caller's (base, shape, strides), one per descriptor in order; `storage` as many slots,
 * which the runtime fills with each descriptor's CUtensorMap (encoded for the chosen function
 * through the driver's cuTensorMapEncodeTiled) and its shape and stride arguments, and points
 * args[tensor_slots[i] ...] at. A descriptor TMA cannot take (innermost stride not 1, base or
 * strides not 16-byte aligned, a shape outside 1 .. INT32_MAX) is
 * TRITON_AOT_ERROR_INVALID_ARGUMENT before anything launches. */
TRITON_AOT_HIDDEN triton_aot_status triton_aot_launch_tensors(
    const triton_aot_library *library, uint32_t kernel, uint32_t variant, void *stream,
    const uint64_t grid[3], void **args, const triton_aot_tensor_arg *tensors,
    triton_aot_tensor_storage *storage);

/* Tuned dispatch (docs/tuning.md): the position, in kernel `kernel`'s targets, of the target
 * whose image the current device runs; -1 when there is none (no device, no image: the launch
 * that follows says why). */
TRITON_AOT_HIDDEN int triton_aot_kernel_target(const triton_aot_library *library, uint32_t kernel);

/* Where a tuned launch goes: the calling thread's CUDA context as the tuned entry's target query
 * found it, handed to the launch that follows so that it does not ask the driver again. Valid
 * for that one launch only: on the same thread, with nothing between the two calls that could
 * make another context current (generated code runs none). */
typedef struct triton_aot_place {
  uint64_t context_key; /* 0: unknown (HIP, no context, an old driver); the launch asks */
} triton_aot_place;

/* triton_aot_kernel_target that also fills *place (when not NULL) for triton_aot_launch_at. */
TRITON_AOT_HIDDEN int triton_aot_kernel_target_at(const triton_aot_library *library,
                                                  uint32_t kernel, triton_aot_place *place);

/* triton_aot_launch and triton_aot_launch_tensors with the place triton_aot_kernel_target_at
 * filled just before on this thread; NULL asks, as they do. */
TRITON_AOT_HIDDEN triton_aot_status triton_aot_launch_at(const triton_aot_library *library,
                                                         uint32_t kernel, uint32_t variant,
                                                         const triton_aot_place *place,
                                                         void *stream, const uint64_t grid[3],
                                                         void **args);
TRITON_AOT_HIDDEN triton_aot_status triton_aot_launch_tensors_at(
    const triton_aot_library *library, uint32_t kernel, uint32_t variant,
    const triton_aot_place *place, void *stream, const uint64_t grid[3], void **args,
    const triton_aot_tensor_arg *tensors, triton_aot_tensor_storage *storage);

/* With TRITON_AOT_LOG set, one line naming the config a tuned launch of kernel `kernel` picked
 * on target position `target` (-1: untuned there, the default). Silent otherwise. */
TRITON_AOT_HIDDEN void triton_aot_log_tuned(const triton_aot_library *library, uint32_t kernel,
                                            int target, int config, const char *config_name);

/* Chooses images for and loads every kernel of the library on the current device. */
TRITON_AOT_HIDDEN triton_aot_status triton_aot_preload(const triton_aot_library *library);

/* Unloads the library from every device and forgets per-device state; the next launch loads
 * again. Must not run concurrently with launches of the same library. The state is forgotten
 * even when the driver refuses to unload an image (its handle is then the driver's): the first
 * refusal is TRITON_AOT_ERROR_LOAD_FAILED, naming the call (cuLibraryUnload, cuModuleUnload,
 * hipModuleUnload) and the driver's error. A module of a CUDA context destroyed since went with
 * that context and is not passed to the driver again. */
TRITON_AOT_HIDDEN triton_aot_status triton_aot_unload(const triton_aot_library *library);

/* Records `status` with a printf-style message as this thread's last error and returns it. */
TRITON_AOT_HIDDEN triton_aot_status triton_aot_fail(triton_aot_status status, const char *format,
                                                    ...) TRITON_AOT_PRINTF(2, 3);

/* Clears this thread's last error (the generated API calls it on success paths it owns). */
TRITON_AOT_HIDDEN void triton_aot_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif /* TRITON_AOT_RUNTIME_H */
